package sched

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/qos"
)

// TestCounters: one register operation at each width and overflow rule.
func TestCounters(t *testing.T) {
	sat4, wrap4 := Counters{Bits: 4}, Counters{Bits: 4, Wrap: true}
	sat63, wrap63 := Counters{Bits: 63}, Counters{Bits: 63, Wrap: true}
	for _, tc := range []struct {
		name   string
		signed bool
		c      Counters
		a, b   int
		want   int
	}{
		{"unlimited", false, Counters{}, math.MaxInt - 1, 1, math.MaxInt},
		{"unsigned saturates high", false, sat4, 15, 1, 15},
		{"unsigned saturates at 0", false, sat4, 3, -5, 0},
		{"unsigned in range", false, sat4, 3, 5, 8},
		{"unsigned wraps high", false, wrap4, 15, 1, 0},
		{"unsigned wraps low", false, wrap4, 3, -5, 14},
		{"signed saturates high", true, sat4, 7, 1, 7},
		{"signed saturates low", true, sat4, -8, -1, -8},
		{"signed in range", true, sat4, -3, 5, 2},
		{"signed wraps high", true, wrap4, 7, 1, -8},
		{"signed wraps low", true, wrap4, -8, -1, 7},
		{"signed wraps 1+7", true, wrap4, 1, 7, -8},
		{"63-bit unsigned saturates past int64", false, sat63, math.MaxInt, 5, math.MaxInt},
		{"63-bit unsigned wraps", false, wrap63, math.MaxInt, 1, 0},
		{"63-bit signed saturates", true, sat63, 1<<62 - 1, 1, 1<<62 - 1},
		{"63-bit signed wraps", true, wrap63, 1<<62 - 1, 1, -1 << 62},
	} {
		got := tc.c.Add(tc.a, tc.b)
		if tc.signed {
			got = tc.c.AddSigned(tc.a, tc.b)
		}
		if got != tc.want {
			t.Errorf("%s: %d + %d in %+v = %d, want %d", tc.name, tc.a, tc.b, tc.c, got, tc.want)
		}
	}
}

// picks runs n decisions of scheduler name on cfg with the same heads each
// time and returns the SLs picked, one letter each (A = SL 0).
func picks(t *testing.T, name string, cfg Config, heads []Head, n int) string {
	t.Helper()
	s, err := Default().New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for range n {
		i := s.Pick(heads)
		s.Commit(heads, i)
		b.WriteByte(byte('A' + heads[i].SL))
	}
	return b.String()
}

// twoSLs is two SLs, A on SC0/VL0 and B on SC1/VL1, with the MTUs given.
func twoSLs(mtuA, mtuB int, table []Entry) Config {
	return Config{NumVLs: 2, SLs: []SL{{Name: "A", MTUCredits: mtuA, SBTWeight: 1}, {Name: "B", MTUCredits: mtuB, SBTWeight: 1}},
		Tables: qos.NewTables([][]int{{0}, {1}}, []int{0, 1}), Table: table}
}

// TestDTableCounterOverflow: dtable, table (A, 7) (B, 7), MTU A 3, MTU B 7,
// both backlogged. Unlimited: A's entries start from 0+7, 1+7, 2+7
// (lines 24, 26: 7 → 4 → 1, leaving 1; 8 → 5 → 2; 9 → 6 → 3 → 0), so A
// sends 2, 2, 3 packets per entry and B one: AAB AAB AAAB, 21 credits
// each per 3 rounds, half the credits each. With 4-bit counters (signed:
// −8..7) line 24's 1+7 saturates to 7: A sends 2 packets per entry for
// ever (AAB), 6 credits to B's 7, 6/13 of the credits. Wrapping, 1+7 is
// −8 and line 26 takes it to 5, the value unlimited counters hold (line
// 26 always brings the sum back into range: a deficit is below the MTU),
// so wrap changes nothing here. With 5 bits (−16..15) the largest sum, 9,
// fits: the unlimited picks.
func TestDTableCounterOverflow(t *testing.T) {
	cfg := twoSLs(3, 7, []Entry{{0, 7}, {1, 7}})
	heads := []Head{{VL: 0, SC: 0, SL: 0, Credits: 3}, {VL: 1, SC: 1, SL: 1, Credits: 7}}
	const unlimited = "AABAABAAAB" + "AABAABAAAB"
	for _, tc := range []struct {
		c    Counters
		want string
	}{
		{Counters{}, unlimited},
		{Counters{Bits: 4}, "AABAABAABAABAABAABAA"},
		{Counters{Bits: 4, Wrap: true}, unlimited},
		{Counters{Bits: 5}, unlimited},
	} {
		cfg.Counters = tc.c
		if got := picks(t, "dtable", cfg, heads, len(tc.want)); got != tc.want {
			t.Errorf("%+v: picks %s, want %s", tc.c, got, tc.want)
		}
	}
	cfg.Counters = Counters{Bits: 4}
	p := picks(t, "dtable", cfg, heads, 3*4333)
	a, all := 3*strings.Count(p, "A"), 3*strings.Count(p, "A")+7*strings.Count(p, "B")
	if 13*a != 6*all {
		t.Errorf("saturating: A sent %d credits of %d in %d decisions; want 6/13 of them", a, all, len(p))
	}
}

// TestDRRCounterOverflow: drr, A and B of weight 1 and MTU 6 (quantum 6
// credits each), A's heads 4 credits, B's 6, both backlogged.
// Unlimited: A 0+6 → sends (2 left), B 6 → sends, A 2+6 = 8 → two packets,
// B, A 0+6 → one: ABAAB ABAAB..., 12 credits each per round. With 3-bit
// counters (0..7) wrapping, A's 2+6 is 0: its head is not covered until a
// second visit, so B (covered in one) goes first, and A's next visit,
// 0+6, sends one packet and leaves 2 again: AB BAB BAB..., A 4 credits to
// B's 12. Saturating, 2+6 is 7 and then 3+6 is 7: one packet of A per
// visit, leaving 3: ABABAB..., A 4 credits to B's 6.
func TestDRRCounterOverflow(t *testing.T) {
	cfg := twoSLs(6, 6, nil)
	heads := []Head{{VL: 0, SC: 0, SL: 0, Credits: 4}, {VL: 1, SC: 1, SL: 1, Credits: 6}}
	for _, tc := range []struct {
		c    Counters
		want string
	}{
		{Counters{}, "ABAABABAAB"},
		{Counters{Bits: 3, Wrap: true}, "ABBABBABBA"},
		{Counters{Bits: 3}, "ABABABABAB"},
		{Counters{Bits: 4, Wrap: true}, "ABAABABAAB"},
	} {
		cfg.Counters = tc.c
		if got := picks(t, "drr", cfg, heads, len(tc.want)); got != tc.want {
			t.Errorf("%+v: picks %s, want %s", tc.c, got, tc.want)
		}
	}
}

// TestWideCountersChangeNothing: with counters wide enough for every value
// the schedulers reach (20 bits on the paper's configuration, whose largest
// weight is 130 credits and largest quantum 50 × 16), every scheduler picks
// what it picks with unlimited counters, saturating or wrapping, over
// 20,000 random head sets with random misses (table_feedback's Miss).
func TestWideCountersChangeNothing(t *testing.T) {
	for _, name := range Default().Names() {
		for _, c := range []Counters{{Bits: 20}, {Bits: 20, Wrap: true}} {
			cfg := dedicatedConfig()
			ref, err := Default().New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Counters = c
			got, err := Default().New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(7, 11))
			for n := range 20000 {
				heads := drawHeads(rng, cfg)
				i, j := ref.Pick(heads), got.Pick(heads)
				if i != j {
					t.Fatalf("%s, %+v: decision %d picks VL%d, unlimited VL%d", name, c, n, heads[j].VL, heads[i].VL)
				}
				if rng.IntN(3) == 0 {
					ref.Miss(heads, i)
					got.Miss(heads, i)
				} else {
					ref.Commit(heads, i)
					got.Commit(heads, i)
				}
			}
		}
	}
}

// drawHeads offers each VL's head with probability 1/2 (at least one),
// each of 1 credit up to its SL's MTU.
func drawHeads(rng *rand.Rand, cfg Config) []Head {
	var heads []Head
	for len(heads) == 0 {
		for vl := range cfg.NumVLs {
			if rng.IntN(2) == 0 {
				continue
			}
			sc := vl // dedicatedConfig: one VL per SC
			sl := cfg.SC2SL[sc]
			heads = append(heads, Head{VL: vl, SC: sc, SL: sl, Credits: 1 + rng.IntN(cfg.SLs[sl].MTUCredits)})
		}
	}
	return heads
}

// TestCounterAndTableLimits: a weight that does not fit its counter, and a
// table longer than qos.table_entries, are refused naming the field, the
// value and what is allowed.
func TestCounterAndTableLimits(t *testing.T) {
	cfg := paperConfig()
	cfg.Counters, cfg.TableEntries = Counters{Bits: 7}, 8
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"dtable", []string{"Table[3].Weight = 130 does not fit the 7-bit signed counter", "want 0..63", "Table has 16 entries, more than the 8"}},
		{"drr", []string{"the quantum of SL 1", "= 480 does not fit a 7-bit counter, want 0..127"}},
		{"vlarb", []string{}},
	} {
		_, err := Default().New(tc.name, cfg)
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v; want no error (the default tables fit)", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error; want %q", tc.name, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want it to say %q", tc.name, err, w)
			}
		}
	}
	cfg.SLs = cfg.SLs[:5]
	cfg.TableEntries = 4
	if _, err := Default().New("sbt", cfg); err == nil || !strings.Contains(err.Error(), "5 entries, more than the 4") {
		t.Errorf("sbt with 5 SLs and 4 table entries: %v", err)
	}
}

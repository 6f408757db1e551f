package sched

import (
	"slices"
	"strings"
	"testing"
)

// vlarbConfig is traceConfig (A on VL0/VL1, B on VL2, C on VL3; MTUs 1, 2
// and 3 credits) with the given vlarb tables and high limit.
func vlarbConfig(high, low []Entry, limit int) Config {
	cfg := traceConfig()
	cfg.VLArb = VLArbConfig{High: high, Low: low, HighLimit: limit}
	return cfg
}

// mtuHeads are the heads of the listed VLs of traceConfig (SC = VL), each
// its SL's MTU in credits.
func mtuHeads(cfg Config, vls ...int) []Head {
	heads := make([]Head, len(vls))
	for i, vl := range vls {
		heads[i] = headOfSC(cfg, vl, vl)
	}
	return heads
}

// runVLArbSteps feeds the steps to a fresh vlarb on cfg, heads of MTU size.
func runVLArbSteps(t *testing.T, cfg Config, steps []traceStep) {
	t.Helper()
	s, err := Default().New("vlarb", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for n, st := range steps {
		heads := mtuHeads(cfg, st.vls...)
		i := s.Pick(heads)
		if got := heads[i].VL; got != st.want {
			t.Fatalf("step %d, heads %v: sent VL%d, want VL%d", n+1, st.vls, got, st.want)
		}
		s.Commit(heads, i)
	}
}

// The configuration of TestVLArbTrace and TestVLArbMiss: high table
// [(A, 2)] (two packets of A's 1 credit a turn), low table [(B, 4), (C, 3)]
// (two packets of B's 2 credits, one of C's 3), high limit 3 credits.
var (
	vlarbHigh = []Entry{{0, 2}}
	vlarbLow  = []Entry{{1, 4}, {2, 3}}
)

// TestVLArbTrace: every SL backlogged (A's two VLs alternate at its heads).
// State: high entry's remaining weight h, low entry in turn and its
// remaining weight, run r of high credits.
//
//	1 VL0  A: new turn h 2-1 = 1, r 1
//	2 VL1  A: h 1 > 0 goes on, h 0, r 2
//	3 VL0  A: h 0, next entry (itself) reloaded: h 1, r 3
//	4 VL2  r 3 >= 3 and low offered: low, new turn (B, 4): 4-2 = 2; r 0
//	5 VL1  A: h 1 -> 0, r 1
//	6 VL0  A: reload, h 1, r 2
//	7 VL1  A: h 0, r 3
//	8 VL2  low: B goes on, 2-2 = 0; r 0
//	9-11   A A A (VL0 VL1 VL0), r 3
//	12 VL3 low: B used up, next entry (C, 3): 3-3 = 0
//	13-15  A A A (VL1 VL0 VL1)
//	16 VL2 low: C used up, next entry (B, 4) reloaded: 2 left
//	17-19  A A A (VL0 VL1 VL0)
//	20 VL2 low: B, 0 left
//
// So one low packet after every 3 high packets, and the low packets go
// B B C: the SL sequence has period 12 (A 9, B 2, C 1). 100,000 decisions
// are 8,333 periods (99,996 decisions: A 74,997, B 16,666, C 8,333) and 4
// more, A A A B: A 75,000, B 16,667, C 8,333 packets; in credits (1, 2, 3
// each) 75,000, 33,334 and 24,999.
func TestVLArbTrace(t *testing.T) {
	cfg := vlarbConfig(vlarbHigh, vlarbLow, 3)
	l := newLink(t, "vlarb", cfg)
	l.record = true
	l.run(backlogged(cfg), 20)
	want := "VL0 VL1 VL0 VL2 VL1 VL0 VL1 VL2 VL0 VL1 VL0 VL3 VL1 VL0 VL1 VL2 VL0 VL1 VL0 VL2"
	if got := strings.Join(l.log, " "); got != want {
		t.Errorf("first 20 decisions:\n got %s\nwant %s", got, want)
	}
	l = newLink(t, "vlarb", cfg)
	l.run(backlogged(cfg), shareDecisions)
	if want := []int{75000, 16667, 8333}; !slices.Equal(l.sent, want) {
		t.Errorf("packets %v, want %v", l.sent, want)
	}
	if want := []int{75000, 33334, 24999}; !slices.Equal(l.credits, want) {
		t.Errorf("credits %v, want %v", l.credits, want)
	}
}

// TestVLArbHighLimitZero: with high limit 0 the high table sends one packet
// at a time, alternating with the low table.
//
//	1 VL0  A: new turn, h 1, r 1
//	2 VL2  r 1 > 0 and >= 0: low, (B, 4): 2 left; r 0
//	3 VL1  A: h 0, r 1
//	4 VL2  B: 0 left
//	5 VL0  A reloaded
//	6 VL3  B used up: (C, 3): 0 left
//	7 VL1  A
//	8 VL2  C used up: (B, 4) reloaded
//	9-12   VL0 VL2 VL1 VL3, as 5-8 from 1-4
//
// Over 100,000 decisions A sends every other packet (50,000) and the low
// table's 50,000 go B B C: B 33,334, C 16,666 (50,000 = 3 × 16,666 + 2,
// the last two B B).
func TestVLArbHighLimitZero(t *testing.T) {
	cfg := vlarbConfig(vlarbHigh, vlarbLow, 0)
	l := newLink(t, "vlarb", cfg)
	l.record = true
	l.run(backlogged(cfg), 12)
	want := "VL0 VL2 VL1 VL2 VL0 VL3 VL1 VL2 VL0 VL2 VL1 VL3"
	if got := strings.Join(l.log, " "); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	l = newLink(t, "vlarb", cfg)
	l.run(backlogged(cfg), shareDecisions)
	if want := []int{50000, 33334, 16666}; !slices.Equal(l.sent, want) {
		t.Errorf("packets %v, want %v", l.sent, want)
	}
}

// TestVLArbUnlimited: with no high limit the low table sends only when no
// high entry has a head offered, and its entry keeps its turn meanwhile.
func TestVLArbUnlimited(t *testing.T) {
	runVLArbSteps(t, vlarbConfig(vlarbHigh, vlarbLow, VLArbUnlimited), []traceStep{
		{all4, 0},           // A: new turn, 1 left
		{all4, 1},           // A: 0 left
		{all4, 0},           // A reloaded: the run never ends while A is offered
		{all4, 1},           // A
		{[]int{2, 3}, 2},    // A not offered: low, (B, 4): 2 left
		{all4, 0},           // A again (reloaded: its turn was used up)
		{[]int{2, 3}, 2},    // low: B keeps its turn (2 left) -> 0
		{[]int{2, 3}, 3},    // B used up: (C, 3)
		{[]int{0, 1, 3}, 1}, // A, its VL after VL0
	})
}

// TestVLArbUncovered: an SL without an entry of weight above 0 (C here,
// whose only entry weighs 0) is never picked while a covered head is
// offered, and is sent when only uncovered heads are; several uncovered SLs
// take turns by SL.
func TestVLArbUncovered(t *testing.T) {
	runVLArbSteps(t, vlarbConfig(vlarbHigh, []Entry{{1, 4}, {2, 0}}, 0), []traceStep{
		{all4, 0},        // A: 1 left, r 1
		{all4, 2},        // low: (B, 4): 2 left; C is not covered
		{all4, 1},        // A: 0 left
		{[]int{3}, 3},    // only C: sent, uncharged; the high run restarts
		{[]int{2, 3}, 2}, // no high head: low, B goes on (2 left -> 0)
		{[]int{0, 3}, 0}, // A reloaded: 1 left
		{[]int{3}, 3},    // only C
		{all4, 1},        // r 0 after C: high, A goes on (0 left)
		{all4, 2},        // low: B reloaded
	})
	// High table (A, 1) only: B and C are both uncovered.
	runVLArbSteps(t, vlarbConfig([]Entry{{0, 1}}, nil, 0), []traceStep{
		{[]int{2, 3}, 2},    // no uncovered SL sent yet: B first
		{[]int{2, 3}, 3},    // after B: C
		{[]int{2, 3}, 2},    // after C: B
		{[]int{0, 2, 3}, 0}, // A is covered: A
		{[]int{2, 3}, 3},    // the uncovered turn kept: after B, C
		{[]int{2}, 2},       // B alone
	})
}

// TestVLArbZeroWeightEntries: entries of weight 0 are skipped by the walk
// and do not put their SL in their table (B's high entry below).
// High [(A, 1), (B, 0)], low [(B, 0), (C, 3), (B, 2), (A, 0)], limit 0.
func TestVLArbZeroWeightEntries(t *testing.T) {
	cfg := vlarbConfig([]Entry{{0, 1}, {1, 0}}, []Entry{{1, 0}, {2, 3}, {1, 2}, {0, 0}}, 0)
	runVLArbSteps(t, cfg, []traceStep{
		{all4, 0},        // high: (A, 1): 0 left
		{all4, 3},        // low: (B, 0) skipped, (C, 3): 0 left
		{all4, 1},        // high: (B, 0) skipped, (A, 1) reloaded
		{all4, 2},        // low: after C, (B, 2): 0 left
		{all4, 0},        // high: A
		{all4, 3},        // low: (A, 0), (B, 0) skipped: C
		{[]int{2, 3}, 2}, // no high head (B's high entry weighs 0): low, after C: (B, 2)
		{[]int{2}, 2},    // B alone: its entry used up, the walk comes back to it
	})
}

// TestVLArbMiss: the TestVLArbTrace configuration, every SC backlogged,
// with one VL blocked at one cycle, in both table views. State as in
// TestVLArbTrace.
//
// VL0 blocked at cycle 0. table_feedback: the miss ends A's turn, nothing
// charged (r 0, A's VL pointer past VL0); cycle 1 starts a new turn of A
// at VL1, and the pattern is TestVLArbTrace's shifted by one cycle. table:
// the miss is A's first packet (1 left, r 1), so the low packet comes one
// cycle earlier, at cycle 3.
//
// VL2 blocked at cycle 3, the first low decision. table_feedback: the miss
// leaves (B, 4) with nothing and the run stays at 3, so cycle 4 is a low
// decision again and goes to the next entry, (C, 3); the next low packet
// (cycle 8) is B's, reloaded. table: the miss is charged (B: 2 left, r 0),
// A sends at cycles 4-6 and B's second packet at cycle 7.
//
// VL2 blocked at cycle 7, B's second packet of its turn (2 credits left).
// table_feedback: the rest of B's turn is lost and the run stays at 3, so
// cycle 8 goes to the low table's next entry, C. table: the miss is B's
// second packet (0 left, r 0), so A sends at cycles 8 and 9.
func TestVLArbMiss(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vl, c    int
		feedback bool
		want     string
	}{
		{"VL0 feedback", 0, 0, true, "xVL0 VL1 VL0 VL1 VL2 VL0 VL1 VL0 VL2 VL1"},
		{"VL0 table", 0, 0, false, "xVL0 VL1 VL0 VL2 VL1 VL0 VL1 VL2 VL0 VL1"},
		{"VL2 feedback", 2, 3, true, "VL0 VL1 VL0 xVL2 VL3 VL1 VL0 VL1 VL2 VL0"},
		{"VL2 table", 2, 3, false, "VL0 VL1 VL0 xVL2 VL1 VL0 VL1 VL2 VL0 VL1"},
		{"VL2 mid-turn feedback", 2, 7, true, "VL0 VL1 VL0 VL2 VL1 VL0 VL1 xVL2 VL3 VL0"},
		{"VL2 mid-turn table", 2, 7, false, "VL0 VL1 VL0 VL2 VL1 VL0 VL1 xVL2 VL0 VL1"},
	} {
		cfg := vlarbConfig(vlarbHigh, vlarbLow, 3)
		l := newLink(t, "vlarb", cfg)
		l.table, l.feedback, l.record = true, tc.feedback, true
		l.blocked = func(vl, c int) bool { return vl == tc.vl && c == tc.c }
		l.run(backlogged(cfg), 10)
		if got := strings.Join(l.log, " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestVLArbDefaultTables: without tables, SL 0 is high and the others low,
// each entry one MTU of its SL; with high limit 0 SL 0 alternates with the
// low SLs, which take turns (paperConfig: VO high; VI, CL, BE, BK low).
func TestVLArbDefaultTables(t *testing.T) {
	cfg := paperConfig()
	high, low := VLArbDefaultTables(cfg.SLs)
	if want := []Entry{{0, 2}}; !slices.Equal(high, want) {
		t.Errorf("high %v, want %v", high, want)
	}
	if want := []Entry{{1, 4}, {2, 8}, {3, 16}, {4, 16}}; !slices.Equal(low, want) {
		t.Errorf("low %v, want %v", low, want)
	}
	cfg = dedicatedConfig()
	l := newLink(t, "vlarb", cfg)
	l.record = true
	l.run(backlogged(cfg), 10)
	// VO (VL0/1) every other packet; VI (VL2), CL (VL4), BE (VL6), BK (VL8)
	// one packet per turn.
	want := "VL0 VL2 VL1 VL4 VL0 VL6 VL1 VL8 VL0 VL3"
	if got := strings.Join(l.log, " "); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestVLArbConformance runs the conformance properties on configurations
// beside the default tables TestConformance covers: no high limit, a high
// limit of several packets, SLs with several entries in both tables,
// weight-0 entries and an uncovered SL (BK).
func TestVLArbConformance(t *testing.T) {
	const vo, vi, cl, be, bk = 0, 1, 2, 3, 4
	for name, v := range map[string]VLArbConfig{
		"unlimited": {High: []Entry{{vo, 2}}, Low: []Entry{{vi, 4}, {cl, 8}, {be, 16}, {bk, 16}}, HighLimit: VLArbUnlimited},
		"mixed": {High: []Entry{{vo, 4}, {vi, 0}, {vo, 2}, {cl, 8}}, Low: []Entry{{vi, 12}, {cl, 0}, {be, 5}, {vi, 4}, {cl, 30}, {vo, 1}},
			HighLimit: 20},
		"low only": {Low: []Entry{{vi, 1}, {vo, 3}, {cl, 64}}, HighLimit: 0},
	} {
		for cname, cfg := range map[string]Config{"paper": paperConfig(), "dedicated": dedicatedConfig()} {
			cfg.VLArb = v
			newS := func() (Scheduler, error) { return NewVLArb(cfg) }
			for _, seed := range []uint64{1, 2} {
				if err := checkConformance(newS, randomHeads(cfg, 20000, seed)); err != nil {
					t.Errorf("%s/%s, seed %d: %v", name, cname, seed, err)
				}
			}
		}
	}
}

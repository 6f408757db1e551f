package workloads

import (
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/clock"
)

// Sources alone, no network: what Traffic.Source and NewReply promise
// (the contract in doc.go).

// oneSL is traffic of one SL carrying all of load in messages of sizes.
func oneSL(process string, load float64, sizes Sizes, pattern string) *Traffic {
	p, err := NewPattern(pattern, Options{HotSpot: 2, HotSpotPercent: 30})
	if err != nil {
		panic(err)
	}
	return &Traffic{Pattern: p, NICs: 16, Process: process, Load: load, Seed: 11,
		SLs: []SLTraffic{{Share: 1, Sizes: sizes}}}
}

// popAll pops every message of s before cycle end, each at its own cycle.
func popAll(t *testing.T, s Source, end clock.Cycle) []Message {
	t.Helper()
	var got []Message
	for c := s.Next(); c < end; c = s.Next() {
		m, ok := s.Pop(c)
		if !ok {
			t.Fatalf("Next said %d, Pop(%d) gave nothing", c, c)
		}
		got = append(got, m)
	}
	return got
}

// TestCBRPeriod: a CBR source at load L with messages of S flits emits a
// message every S/L cycles. When S/L is a whole number every gap is
// exactly S/L; otherwise message k is within one cycle of the first plus
// k·S/L, every gap the floor or the ceiling of S/L. The first message
// falls in [0, S/L) (a random phase).
func TestCBRPeriod(t *testing.T) {
	for _, tc := range []struct {
		flits  int
		load   float64
		period float64 // S/L, by hand
	}{
		{16, 1.0, 16}, {16, 0.5, 32}, {8, 0.25, 32}, {64, 0.5, 128}, {4, 0.125, 32}, {128, 1.0, 128},
		{16, 0.3, 53.333333333333336}, {16, 0.9, 17.77777777777778}, {12, 0.7, 17.142857142857142},
	} {
		s := oneSL("cbr", tc.load, Sizes{Short: tc.flits, ShortPercent: 100}, "uniform").Source(3)
		got := popAll(t, s, 200_000)
		first := got[0].At
		if first < 0 || float64(first) >= tc.period {
			t.Errorf("%d flits at %g: first message at %d, want in [0, %g)", tc.flits, tc.load, first, tc.period)
		}
		lo, hi := clock.Cycle(math.Floor(tc.period)), clock.Cycle(math.Ceil(tc.period))
		for k := 1; k < len(got); k++ {
			gap := got[k].At - got[k-1].At
			ideal := float64(first) + float64(k)*tc.period
			if gap < lo || gap > hi || math.Abs(float64(got[k].At)-ideal) >= 1 {
				t.Fatalf("%d flits at %g: message %d at %d (gap %d), want within a cycle of %.2f, gap %d or %d",
					tc.flits, tc.load, k, got[k].At, gap, ideal, lo, hi)
			}
			if got[k].Flits != tc.flits {
				t.Fatalf("message %d has %d flits, want %d", k, got[k].Flits, tc.flits)
			}
		}
	}
}

// TestBernoulliRate: a Bernoulli source starts a message in each cycle
// with probability p = L / E[S], independently, so over H cycles the
// offered flits are a compound binomial: mean H·p·E[S], variance
// H·(p·E[S²] − p²·E[S]²). Over 16 NICs' sources the offered load must lie
// within 5 standard deviations of L.
func TestBernoulliRate(t *testing.T) {
	const nics, horizon = 16, 100_000
	for _, tc := range []struct {
		load  float64
		sizes Sizes
	}{
		{0.1, Sizes{Short: 16, ShortPercent: 100}},
		{0.5, Sizes{Short: 16, ShortPercent: 100}},
		{0.9, Sizes{Short: 16, ShortPercent: 100}},
		{0.5, Sizes{Short: 4, Long: 64, ShortPercent: 25}},
		{1.0, Sizes{Short: 1, ShortPercent: 100}}, // p = 1: one message every cycle
	} {
		tr := oneSL("bernoulli", tc.load, tc.sizes, "uniform")
		flits := 0
		for nic := 0; nic < nics; nic++ {
			for _, m := range popAll(t, tr.Source(nic), horizon) {
				flits += m.Flits
			}
		}
		p := tc.load / tc.sizes.Mean()
		q := float64(tc.sizes.ShortPercent) / 100
		es2 := q*sq(tc.sizes.Short) + (1-q)*sq(tc.sizes.Long)
		sd := math.Sqrt(nics*horizon*(p*es2-p*p*sq(tc.sizes.Mean()))) / (nics * horizon)
		got := float64(flits) / (nics * horizon)
		if math.Abs(got-tc.load) > 5*sd || (p == 1 && got != tc.load) {
			t.Errorf("load %g, sizes %+v: offered %.5f flits/cycle/NIC, want %g ± %.5f", tc.load, tc.sizes, got, tc.load, 5*sd)
		}
	}
}

func sq[T int | float64](x T) float64 { return float64(x) * float64(x) }

// paperMixTraffic is the paper mix at load as a run at 8 bytes per flit
// takes it (128-byte messages are 16 flits), under process.
func paperMixTraffic(process string, load float64) *Traffic {
	sc := PaperMix()
	u, _ := NewPattern(sc.Pattern, Options{})
	tr := &Traffic{Pattern: u, NICs: 64, Process: process, Load: load, Seed: 5}
	for _, sl := range sc.SLs {
		tr.SLs = append(tr.SLs, SLTraffic{Share: sl.Share, Sizes: Sizes{Short: sl.MessageBytes / 8, ShortPercent: 100}})
	}
	return tr
}

// TestPaperMixShares: each SL of the paper mix offers its share of the
// load. Under Bernoulli an SL's message count over H cycles and N NICs is
// binomial (N·H trials of p = L·share/size): its offered load must lie
// within 5 standard deviations. Under CBR (the scenario's process) an SL
// sends one message per period, give or take one per NIC.
func TestPaperMixShares(t *testing.T) {
	const nics, horizon = 32, 50_000
	sc := PaperMix()
	for _, process := range []string{"bernoulli", sc.Process} {
		tr := paperMixTraffic(process, 0.8)
		count := make([]int, len(tr.SLs))
		for nic := 0; nic < nics; nic++ {
			for _, m := range popAll(t, tr.Source(nic), horizon) {
				count[m.SL]++
			}
		}
		for i, sl := range tr.SLs {
			size := float64(sl.Sizes.Short)
			p := tr.Load * sl.Share / size
			trials := float64(nics * horizon)
			tol := 5 * math.Sqrt(trials*p*(1-p)) * size / trials
			if process == "cbr" {
				tol = nics * size / trials
			}
			got := float64(count[i]) * size / trials
			if math.Abs(got-tr.Load*sl.Share) > tol {
				t.Errorf("%s, SL %s: offers %.5f flits/cycle/NIC, want %.5f ± %.5f", process, sc.SLs[i].Name, got, tr.Load*sl.Share, tol)
			}
		}
	}
}

// TestPaperMixScenario: the scenario's shares sum to 1, and names are
// looked up (an unknown one is an error naming the known ones).
func TestPaperMixScenario(t *testing.T) {
	sum := 0.0
	for _, sl := range PaperMix().SLs {
		sum += sl.Share
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("paper mix shares sum to %g", sum)
	}
	for _, name := range ScenarioNames() {
		if sc, err := LookupScenario(name); err != nil || sc.Name != name {
			t.Errorf("LookupScenario(%q) = %q, %v", name, sc.Name, err)
		}
	}
	if _, err := LookupScenario("paper_mix"); err == nil || !strings.Contains(err.Error(), "paper-mix") {
		t.Errorf("unknown scenario: %v, want an error listing paper-mix", err)
	}
}

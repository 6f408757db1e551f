package workloads

import (
	"math"
	"testing"

	"github.com/opasim/opasim/clock"
)

// TestPermutations checks the bit patterns against hand-computed values on
// 16 NICs (4 address bits) and that each is a permutation there.
func TestPermutations(t *testing.T) {
	cases := map[string]map[int]int{
		"bit_reversal":   {0: 0, 1: 8, 2: 4, 3: 12, 6: 6, 11: 13, 15: 15},
		"bit_complement": {0: 15, 1: 14, 5: 10, 15: 0},
		"transpose":      {0: 0, 1: 4, 2: 8, 4: 1, 7: 13, 9: 6, 15: 15},
		"shuffle":        {0: 0, 1: 2, 8: 1, 9: 3, 15: 15},
		"neighbour":      {0: 1, 14: 15, 15: 0},
	}
	for name, want := range cases {
		p, err := NewPattern(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for src, dst := range want {
			if got := p(src, 16, nil); got != dst {
				t.Errorf("%s(%d) = %d, want %d", name, src, got, dst)
			}
		}
		seen := map[int]bool{}
		for src := 0; src < 16; src++ {
			seen[p(src, 16, nil)] = true
		}
		if len(seen) != 16 {
			t.Errorf("%s is not a permutation of 16 NICs: %d distinct destinations", name, len(seen))
		}
	}
}

// TestUniformAndHotSpot: uniform never picks the source and spreads evenly;
// hot spot sends its share to the hot NIC.
func TestUniformAndHotSpot(t *testing.T) {
	rng := NewRNG(1, 0)
	u, _ := NewPattern("uniform", Options{})
	count := make([]int, 8)
	const draws = 80000
	for i := 0; i < draws; i++ {
		d := u(3, 8, rng)
		if d == 3 {
			t.Fatal("uniform picked the source")
		}
		count[d]++
	}
	for d, c := range count {
		if d != 3 && math.Abs(float64(c)-draws/7.0) > 0.05*draws/7.0 {
			t.Errorf("uniform: NIC %d drawn %d times, want %.0f ± 5%%", d, c, draws/7.0)
		}
	}
	h, _ := NewPattern("hot_spot", Options{HotSpot: 5, HotSpotPercent: 30})
	hot := 0
	for i := 0; i < draws; i++ {
		if h(0, 8, rng) == 5 {
			hot++
		}
	}
	// 30% directly, plus 1/7 of the other 70% by the uniform draw.
	want := draws * (0.3 + 0.7/7)
	if math.Abs(float64(hot)-want) > 0.03*want {
		t.Errorf("hot spot: %d of %d to the hot NIC, want %.0f ± 3%%", hot, draws, want)
	}
}

// TestProcessRates: Bernoulli and CBR generate rate messages per cycle.
func TestProcessRates(t *testing.T) {
	for _, kind := range []string{"bernoulli", "cbr"} {
		for _, rate := range []float64{0.01, 0.0625, 0.5, 1} {
			rng := NewRNG(7, 3)
			p := NewProcess(kind, rate)
			const horizon = clock.Cycle(400000)
			n := 0
			for c := p.First(rng); c < horizon; c = p.Next(c, rng) {
				n++
			}
			got := float64(n) / float64(horizon)
			tol := 0.02 * rate
			if kind == "cbr" {
				tol = 2 / float64(horizon)
			}
			if math.Abs(got-rate) > tol {
				t.Errorf("%s at %g: %.5f messages/cycle", kind, rate, got)
			}
		}
	}
	if NewProcess("cbr", 0).First(nil) != clock.Never {
		t.Error("a zero rate generates")
	}
}

// TestSizes: the short/long mix draws short with its percentage.
func TestSizes(t *testing.T) {
	s := Sizes{Short: 4, Long: 64, ShortPercent: 25}
	if s.Mean() != 49 {
		t.Errorf("mean %g, want 0.25*4 + 0.75*64 = 49", s.Mean())
	}
	rng := NewRNG(1, 1)
	short := 0
	for i := 0; i < 100000; i++ {
		if s.Draw(rng) == 4 {
			short++
		}
	}
	if math.Abs(float64(short)-25000) > 750 {
		t.Errorf("%d short of 100000, want 25000 ± 750", short)
	}
}

// TestRNGStreams: the same seed and stream repeat; other streams differ.
func TestRNGStreams(t *testing.T) {
	a, b, c := NewRNG(5, 1), NewRNG(5, 1), NewRNG(5, 2)
	same, differ := true, false
	for i := 0; i < 100; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		same = same && x == y
		differ = differ || x != z
	}
	if !same || !differ {
		t.Errorf("same stream repeats: %v; other stream differs: %v", same, differ)
	}
}

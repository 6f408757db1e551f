package workload

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/static"
)

type pair struct{ s, d int32 }

// all collects a pattern's flows, asked source range by source range in
// two ways (whole, then in pieces backwards): the results must agree.
func all(t *testing.T, p static.Pattern) []pair {
	t.Helper()
	var whole []pair
	p.Flows(0, int32(p.Servers()), func(s, d int32) { whole = append(whole, pair{s, d}) })
	var parts [][]pair
	for lo := int32(p.Servers()) - 1; lo >= 0; lo -= 3 {
		var part []pair
		p.Flows(max(0, lo-2), lo+1, func(s, d int32) { part = append(part, pair{s, d}) })
		parts = append([][]pair{part}, parts...)
	}
	if pieced := slices.Concat(parts...); !slices.Equal(whole, pieced) {
		t.Fatalf("%s: flows depend on the source ranges asked", p.Name())
	}
	for _, f := range whole {
		if f.s == f.d || f.d < 0 || int(f.d) >= p.Servers() {
			t.Fatalf("%s: flow %d→%d", p.Name(), f.s, f.d)
		}
	}
	return whole
}

// TestBitPermutations against hand-computed destinations on 16 servers.
func TestBitPermutations(t *testing.T) {
	want := map[string]map[int32]int32{
		PerfectShuffle: {1: 2, 8: 1, 5: 10, 12: 9},  // 0001→0010, 1000→0001, 0101→1010, 1100→1001
		BitReversal:    {1: 8, 2: 4, 3: 12, 11: 13}, // 0001→1000, 0010→0100, 0011→1100, 1011→1101
		BitTranspose:   {1: 4, 2: 8, 7: 13, 11: 14}, // 00|01→01|00, 00|10→10|00, 01|11→11|01, 10|11→11|10
		Butterfly:      {1: 8, 8: 1, 3: 10, 14: 7},  // swap bits 3 and 0
	}
	for kind, cases := range want {
		p, err := BitPermutation(kind, 16)
		if err != nil {
			t.Fatal(err)
		}
		flows := all(t, p)
		got := map[int32]int32{}
		for _, f := range flows {
			got[f.s] = f.d
		}
		for s, d := range cases {
			if got[s] != d {
				t.Errorf("%s: %d → %d, want %d", kind, s, got[s], d)
			}
		}
		seen := map[int32]bool{}
		for _, f := range flows {
			if seen[f.d] {
				t.Errorf("%s: %d receives twice", kind, f.d)
			}
			seen[f.d] = true
		}
	}
	for _, bad := range []struct {
		kind string
		n    int
		want string
	}{{BitReversal, 12, "must be a power of two"}, {BitTranspose, 8, "must be a power of four"}, {"shuffle", 8, `bit permutation: "shuffle" is not allowed`}} {
		if _, err := BitPermutation(bad.kind, bad.n); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s on %d: %v", bad.kind, bad.n, err)
		}
	}
}

// TestHotSpot: with p = 1 every flow of every other server goes to the
// hot server; with p = 0 the flows are uniform (each destination about
// per/(n−1) of the time); a hot region of r servers gets everything at
// p = 1, spread evenly.
func TestHotSpot(t *testing.T) {
	p, _ := HotSpot(50, 4, 1, 7)
	hot := p.(hotSpot).Hot()
	for _, f := range all(t, p) {
		if f.s != hot && f.d != hot {
			t.Fatalf("p = 1: %d → %d, hot server %d", f.s, f.d, hot)
		}
	}
	u, _ := HotSpot(20, 2000, 0, 7)
	count := map[int32]int{}
	for _, f := range all(t, u) {
		count[f.d]++
	}
	for d := int32(0); d < 20; d++ { // each gets 19 sources × 2000/19 = 2000 on average
		if c := count[d]; math.Abs(float64(c)-2000) > 200 {
			t.Errorf("p = 0: server %d receives %d flows, about 2000 expected", d, c)
		}
	}
	r, _ := HotRegion(100, 50, 10, 1, 3)
	first := r.(hotSpot).Hot()
	in := map[int32]int{}
	for _, f := range all(t, r) {
		off := (f.d - first + 100) % 100
		if off >= 10 && (f.s-first+100)%100 >= 10 {
			t.Fatalf("hot region [%d, +10): flow %d → %d outside it", first, f.s, f.d)
		}
		in[off]++
	}
	for off := int32(0); off < 10; off++ {
		if in[off] < 350 || in[off] > 650 { // 90 outside sources × 50 / 10 = 450, plus the region's own
			t.Errorf("hot region server +%d receives %d flows", off, in[off])
		}
	}
	for _, bad := range []struct {
		f    func() error
		want string
	}{
		{func() error { _, err := HotSpot(10, 1, 1.5, 1); return err }, "hot spot probability: 1.5 is not allowed"},
		{func() error { _, err := HotRegion(10, 1, 10, 0.5, 1); return err }, "hot region region: 10 is not allowed: must be in [1, 9]"},
		{func() error { _, err := HotSpot(1, 1, 0.5, 1); return err }, "hot spot servers: 1 is not allowed"},
	} {
		if err := bad.f(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v, want %q", err, bad.want)
		}
	}
}

// TestLocal: the mean ring distance of the flows is near the configured
// mean (geometric, mean m); mean 1 sends to the ring neighbours only.
func TestLocal(t *testing.T) {
	p, _ := Local(1000, 200, 4, 1)
	sum, n := 0.0, 0
	for _, f := range all(t, p) {
		d := (f.d - f.s + 1000) % 1000
		sum += float64(min(d, 1000-d))
		n++
	}
	if mean := sum / float64(n); math.Abs(mean-4) > 0.1 {
		t.Errorf("mean distance %.3f, want about 4", mean)
	}
	one, _ := Local(10, 5, 1, 1)
	for _, f := range all(t, one) {
		if d := (f.d - f.s + 10) % 10; d != 1 && d != 9 {
			t.Errorf("mean 1: %d → %d", f.s, f.d)
		}
	}
	if _, err := Local(10, 1, 0.5, 1); err == nil || !strings.Contains(err.Error(), "local mean distance: 0.5 is not allowed") {
		t.Errorf("mean 0.5: %v", err)
	}
}

// TestBisectionAndGroups: bisection has 2·⌊n/2⌋·⌈n/2⌉ flows and every flow
// crosses the halves; many-all-to-all's groups partition the servers into
// groups of the size (the last smaller), all-to-all within each.
func TestBisectionAndGroups(t *testing.T) {
	for _, n := range []int{10, 11} {
		b, _ := Bisection(n, 5)
		flows := all(t, b)
		if len(flows) != 2*(n/2)*(n-n/2) {
			t.Errorf("bisection of %d: %d flows", n, len(flows))
		}
		pos := b.(bisection).pos
		first := func(s int32) bool { return pos[s] < int32(n/2) }
		for _, f := range flows {
			if first(f.s) == first(f.d) {
				t.Errorf("bisection of %d: %d → %d within a half", n, f.s, f.d)
			}
		}
		for s := int32(0); s < int32(n); s++ {
			sent := 0
			for _, f := range flows {
				if f.s == s {
					sent++
				}
			}
			if want := map[bool]int{true: n - n/2, false: n / 2}[first(s)]; sent != want {
				t.Errorf("bisection of %d: server %d sends %d flows, want %d", n, s, sent, want)
			}
		}
	}
	m, _ := ManyAllToAll(22, 5, 9) // groups 5, 5, 5, 5, 2: 4·20 + 2 flows
	flows := all(t, m)
	if len(flows) != 4*5*4+2 {
		t.Errorf("many-all-to-all 22/5: %d flows", len(flows))
	}
	out := map[int32]map[int32]bool{}
	for _, f := range flows {
		if out[f.s] == nil {
			out[f.s] = map[int32]bool{}
		}
		out[f.s][f.d] = true
	}
	for s, ds := range out {
		for d := range ds {
			if !out[d][s] {
				t.Errorf("many-all-to-all: %d sends to %d but not back", s, d)
			}
			for e := range ds {
				if e != d && !out[d][e] {
					t.Errorf("many-all-to-all: %d and %d in %d's group but %d does not send to %d", d, e, s, d, e)
				}
			}
		}
	}
	a, _ := AllToOne(30, 2)
	root := a.(allToOne).Root()
	if flows := all(t, a); len(flows) != 29 || flows[0].d != root {
		t.Errorf("all-to-one: %d flows to %d", len(flows), root)
	}
}

// TestRegistry: every registered pattern builds on 64 servers from its
// Spec and gives valid flows; an unknown name lists the known ones.
func TestRegistry(t *testing.T) {
	for _, name := range Patterns() {
		s := Spec{Name: name, FlowsPerServer: 2, Probability: 0.3, Region: 4, Mean: 2, GroupSize: 8}
		p, err := Build(s, 64, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if flows := all(t, p); len(flows) == 0 || About(name) == "" {
			t.Errorf("%s: %d flows, about %q", name, len(flows), About(name))
		}
	}
	if _, err := Build(Spec{Name: "tornado"}, 8, 1); err == nil || !strings.Contains(err.Error(), `unknown pattern "tornado" (known: all-to-all, all-to-one, bisection`) {
		t.Errorf("unknown pattern: %v", err)
	}
}

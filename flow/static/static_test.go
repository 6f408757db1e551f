package static

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

func ring(t testing.TB, c float64) *graph.Torus {
	t.Helper()
	tor, err := graph.NewTorus([]int{4}, 1, c)
	if err != nil {
		t.Fatal(err)
	}
	return tor
}

func tree22(t testing.TB) *graph.Tree {
	t.Helper()
	tr, err := graph.NewTree(2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func run(t testing.TB, r route.Router, p Pattern, err error) *Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(r, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

type want struct {
	load                          []float64
	maxLoad, meanLoad             float64
	hops                          []float64
	meanHops                      float64
	minRate, nonRestr, restricted float64
}

func check(t *testing.T, res *Result, w want) {
	t.Helper()
	if !slices.Equal(res.Load, w.load) {
		t.Errorf("loads %v, want %v", res.Load, w.load)
	}
	if res.MaxLoad != w.maxLoad || !near(res.MeanLoad, w.meanLoad) {
		t.Errorf("max load %v mean %v, want %v %v", res.MaxLoad, res.MeanLoad, w.maxLoad, w.meanLoad)
	}
	if !slices.Equal(res.Hops, w.hops) || !near(res.MeanHops, w.meanHops) {
		t.Errorf("hops %v mean %v, want %v %v", res.Hops, res.MeanHops, w.hops, w.meanHops)
	}
	if !near(res.MinRate, w.minRate) || !near(res.NonRestricted, w.nonRestr) || !near(res.Restricted, w.restricted) {
		t.Errorf("min rate %v non-restricted %v restricted %v, want %v %v %v", res.MinRate, res.NonRestricted, res.Restricted, w.minRate, w.nonRestr, w.restricted)
	}
	if !near(res.NonRestrictedPerPort, res.NonRestricted/float64(res.Links)) || !near(res.RestrictedPerPort, res.Restricted/float64(res.Links)) {
		t.Errorf("per port %v %v", res.NonRestrictedPerPort, res.RestrictedPerPort)
	}
	var n int64
	for _, c := range res.LoadHistogram.Counts {
		n += c
	}
	if n != int64(res.Links) {
		t.Errorf("histogram holds %d links of %d", n, res.Links)
	}
}

// TestRingAllToAll: a 4-node ring, one server per switch, DOR, all-to-all
// (12 flows). Links: 0-3 server→switch, switch s: 4+3s to its server, 5+3s
// (+), 6+3s (−). Every server link carries its server's 3 flows. A ring
// link carries one 1-hop flow and one half-way flow (0→2 takes +0 and +1,
// 2→0 +2 and +3, 1→3 −1 and −0, 3→1 −3 and −2): load 2. Every flow
// crosses a load-3 server link: rate 1/3, so both throughputs are 12/3 =
// 4. Hops: 8 one-hop flows cross 3 links, 4 half-way flows 4.
func TestRingAllToAll(t *testing.T) {
	tor := ring(t, 1)
	p, err := AllToAll(4)
	res := run(t, route.NewDOR(tor), p, err)
	check(t, res, want{
		load:    []float64{3, 3, 3, 3, 3, 2, 2, 3, 2, 2, 3, 2, 2, 3, 2, 2},
		maxLoad: 3, meanLoad: 40.0 / 16,
		hops: []float64{0, 0, 0, 8, 4}, meanHops: 40.0 / 12,
		minRate: 1.0 / 3, nonRestr: 4, restricted: 4,
	})
	if res.Flows != 12 || res.Paths != 12 || res.Unrouted != 0 || res.Links != 16 || res.MaxHops != 4 {
		t.Errorf("flows %d paths %d unrouted %d links %d max hops %d", res.Flows, res.Paths, res.Unrouted, res.Links, res.MaxHops)
	}
	// Capacity 2 doubles every rate, not the loads.
	res = run(t, route.NewDOR(ring(t, 2)), p, nil)
	if res.MaxLoad != 3 || !near(res.MinRate, 2.0/3) || !near(res.NonRestricted, 8) || res.MaxRelativeLoad != 1.5 {
		t.Errorf("capacity 2: max load %v min rate %v non-restricted %v max relative %v", res.MaxLoad, res.MinRate, res.NonRestricted, res.MaxRelativeLoad)
	}
	// ECMP splits each half-way flow in two halves: the same loads.
	e, _ := route.NewECMP(tor.Graph, 0)
	res2 := run(t, e, p, nil)
	if !slices.Equal(res2.Load, res.Load) || res2.Paths != 16 || !near(res2.NonRestricted, 4) {
		t.Errorf("ecmp: loads %v paths %d non-restricted %v", res2.Load, res2.Paths, res2.NonRestricted)
	}
}

// TestRingList: flows 0→1, 0→2, 3→1, 2→3 on the ring. 0→1 [0 5 7],
// 0→2 [0 5 8 10] (tie from even: +), 3→1 [3 15 12 7] (tie from odd: −),
// 2→3 [2 11 13]. Loads: links 0, 5, 7: 2; the rest of the paths 1. The
// first three flows each cross a load-2 link (rate 1/2), 2→3 none (rate
// 1): non-restricted 2.5, restricted 4·1/2 = 2.
func TestRingList(t *testing.T) {
	p, err := List(4, []Pair{{0, 1}, {0, 2}, {3, 1}, {2, 3}})
	res := run(t, route.NewDOR(ring(t, 1)), p, err)
	check(t, res, want{
		load:    []float64{2, 0, 1, 1, 0, 2, 0, 2, 1, 0, 1, 1, 1, 1, 0, 1},
		maxLoad: 2, meanLoad: 14.0 / 16,
		hops: []float64{0, 0, 0, 2, 2}, meanHops: 14.0 / 4,
		minRate: 0.5, nonRestr: 2.5, restricted: 2,
	})
	if res.MaxRate != 1 || res.MeanRate != 2.5/4 {
		t.Errorf("max rate %v mean %v", res.MaxRate, res.MeanRate)
	}
}

// TestTreeAllToAll: a 2-ary 2-tree, d-mod-k, all-to-all (12 flows).
// Servers 0-3 (links 0-3 up), leaves 4 (links 4 →0, 5 →1, 6 →top 6,
// 7 →top 7) and 5 (8 →2, 9 →3, 10 →6, 11 →7), tops 6 (12 →4, 13 →5) and
// 7 (14 →4, 15 →5). Flows to an even server climb to top 6, to an odd one
// to top 7. Server links carry 3 flows each; each leaf up link the 2
// flows from its leaf to one destination on the other leaf, each top
// down link the same 2. Every flow crosses a load-3 link: rate 1/3.
func TestTreeAllToAll(t *testing.T) {
	p, err := AllToAll(4)
	res := run(t, route.NewDModK(tree22(t)), p, err)
	check(t, res, want{
		load:    []float64{3, 3, 3, 3, 3, 3, 2, 2, 3, 3, 2, 2, 2, 2, 2, 2},
		maxLoad: 3, meanLoad: 40.0 / 16,
		hops: []float64{0, 0, 4, 0, 8}, meanHops: 40.0 / 12,
		minRate: 1.0 / 3, nonRestr: 4, restricted: 4,
	})
	if hist := res.LoadHistogram; hist.Width != 3.0/16 || hist.Counts[10] != 8 || hist.Counts[15] != 8 {
		t.Errorf("histogram %+v, want 8 links in bin 10 (load 2) and 8 in bin 15 (load 3)", hist)
	}
}

// TestTreeList: flows 0→2, 1→2, 0→3, 3→1 on the 2-ary 2-tree. 0→2
// [0 6 13 8], 1→2 [1 6 13 8], 0→3 [0 7 15 9], 3→1 [3 11 14 5]. Links 0,
// 6, 13 and 8 carry 2 flows; the first three flows run at 1/2, 3→1 at 1.
func TestTreeList(t *testing.T) {
	p, err := List(4, []Pair{{0, 2}, {1, 2}, {0, 3}, {3, 1}})
	res := run(t, route.NewDModK(tree22(t)), p, err)
	check(t, res, want{
		load:    []float64{2, 1, 0, 1, 0, 1, 2, 1, 2, 1, 0, 1, 0, 2, 1, 1},
		maxLoad: 2, meanLoad: 16.0 / 16,
		hops: []float64{0, 0, 0, 0, 4}, meanHops: 4,
		minRate: 0.5, nonRestr: 2.5, restricted: 2,
	})
}

// TestWorkers checks that the number of workers, and which worker takes
// which chunk, change nothing, bit for bit, with single-path and with
// multipath routing (the multipath sums are in fixed point; as float sums
// they differed in the last bits from run to run).
func TestWorkers(t *testing.T) {
	tor, err := graph.NewTorus([]int{6, 4, 3}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := route.NewECMP(tor.Graph, 4)
	pats := []func() (Pattern, error){
		func() (Pattern, error) { return AllToAll(144) },
		func() (Pattern, error) { return Uniform(144, 5, 7) },
		func() (Pattern, error) { return RandomPermutation(144, 3) },
		func() (Pattern, error) { return Shift(144, 13) },
	}
	for _, r := range []route.Router{route.NewDOR(tor), e} {
		for _, mk := range pats {
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			one, err := Run(r, p, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 3, 8, 8, 8} {
				res, err := Run(r, p, Options{Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				for l := range res.Load {
					if res.Load[l] != one.Load[l] {
						t.Fatalf("%s %s workers %d: link %d load %v, want %v", r.Name(), p.Name(), w, l, res.Load[l], one.Load[l])
					}
				}
				if !slices.Equal(res.Hops, one.Hops) || res.NonRestricted != one.NonRestricted || res.Restricted != one.Restricted ||
					res.Flows != one.Flows || res.Paths != one.Paths {
					t.Fatalf("%s %s workers %d: %+v, want %+v", r.Name(), p.Name(), w, res, one)
				}
			}
		}
	}
}

// TestUnrouted: flows to a server with no path are counted apart.
func TestUnrouted(t *testing.T) {
	// Servers 0 and 1 on switch 3, server 2 on switch 4, no switch link.
	g, err := graph.New(3, 2, []graph.Link{
		{From: 0, To: 3, Capacity: 1}, {From: 3, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1},
		{From: 3, To: 1, Capacity: 1}, {From: 2, To: 4, Capacity: 1}, {From: 4, To: 2, Capacity: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := route.NewECMP(g, 1)
	p, err := AllToAll(3)
	res := run(t, e, p, err)
	if res.Flows != 2 || res.Unrouted != 4 || res.MinRate != 1 || res.NonRestricted != 2 {
		t.Errorf("flows %d unrouted %d min rate %v non-restricted %v", res.Flows, res.Unrouted, res.MinRate, res.NonRestricted)
	}
}

func TestPatterns(t *testing.T) {
	collect := func(p Pattern) []Pair {
		var out []Pair
		p.Flows(0, int32(p.Servers()), func(s, d int32) { out = append(out, Pair{s, d}) })
		return out
	}
	p, _ := Shift(5, -2)
	if got := collect(p); !slices.Equal(got, []Pair{{0, 3}, {1, 4}, {2, 0}, {3, 1}, {4, 2}}) {
		t.Errorf("shift -2: %v", got)
	}
	p, _ = BitComplement(8)
	if got := collect(p); !slices.Equal(got, []Pair{{0, 7}, {1, 6}, {2, 5}, {3, 4}, {4, 3}, {5, 2}, {6, 1}, {7, 0}}) {
		t.Errorf("bit complement: %v", got)
	}
	p, _ = RandomPermutation(50, 9)
	seen := map[int32]bool{}
	at, steps := int32(0), 0
	perm := collect(p)
	for !seen[at] {
		seen[at] = true
		at = perm[at].Dst
		steps++
	}
	if steps != 50 || at != 0 {
		t.Errorf("permutation is not one cycle through the 50 servers: back to %d after %d", at, steps)
	}
	p, _ = Uniform(10, 1000, 1)
	all := collect(p)
	perDst := make([]int, 10)
	for _, f := range all {
		if f.Src == f.Dst {
			t.Fatalf("uniform flow %v to itself", f)
		}
		perDst[f.Dst]++
	}
	for d, c := range perDst {
		if c < 900 || c > 1100 { // 1000 expected, σ ≈ 30
			t.Errorf("uniform: %d flows to %d, want about 1000", c, d)
		}
	}
	// Split ranges give the same flows.
	var split []Pair
	for lo := int32(0); lo < 10; lo += 3 {
		p.Flows(lo, min(lo+3, 10), func(s, d int32) { split = append(split, Pair{s, d}) })
	}
	if !slices.Equal(split, all) {
		t.Errorf("uniform flows depend on the ranges")
	}
	p, _ = List(5, []Pair{{3, 1}, {0, 2}, {3, 0}, {1, 4}})
	var part []Pair
	p.Flows(1, 4, func(s, d int32) { part = append(part, Pair{s, d}) })
	if !slices.Equal(part, []Pair{{1, 4}, {3, 1}, {3, 0}}) {
		t.Errorf("list [1,4): %v", part)
	}
}

func TestErrors(t *testing.T) {
	tr := tree22(t)
	a8, _ := AllToAll(8)
	a4, _ := AllToAll(4)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"servers", func() error { _, err := Run(route.NewDModK(tr), a8, Options{}); return err }(), "static pattern all-to-all servers: 8 is not allowed: must equal the network's 4 servers"},
		{"workers", func() error { _, err := Run(route.NewDModK(tr), a4, Options{Workers: -1}); return err }(), "static workers: -1 is not allowed"},
		{"bins", func() error { _, err := Run(route.NewDModK(tr), a4, Options{Bins: -2}); return err }(), "static bins: -2 is not allowed"},
		{"all-to-all", func() error { _, err := AllToAll(1); return err }(), "all-to-all servers: 1 is not allowed"},
		{"shift", func() error { _, err := Shift(4, 8); return err }(), "shift k: 0 is not allowed"},
		{"bit-complement", func() error { _, err := BitComplement(6); return err }(), "bit-complement servers: 6 is not allowed: must be a power of two"},
		{"uniform", func() error { _, err := Uniform(4, 0, 1); return err }(), "uniform flows per server: 0 is not allowed"},
		{"list src", func() error { _, err := List(4, []Pair{{0, 1}, {4, 1}}); return err }(), "list flow 1 src: 4 is not allowed"},
		{"list self", func() error { _, err := List(4, []Pair{{2, 2}}); return err }(), "list flow 0 dst: 2 is not allowed: must differ from src"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
	// A routing error that is not a missing path aborts the run.
	tor, _ := graph.NewTorus([]int{8, 8, 8}, 1, 1)
	e, _ := route.NewECMP(tor.Graph, 0)
	p, _ := Shift(512, 4+4*8+4*64) // 0 → (4,4,4): 12!/(4!4!4!)·2^3 shortest paths
	if _, err := Run(e, p, Options{Workers: 2}); err == nil || !strings.Contains(err.Error(), "give a maximum number of paths") {
		t.Errorf("too many paths: %v", err)
	}
}

// singleOnly hides a router's run interface; routerOnly hides both fast
// interfaces, so Run takes its generic callback path.
type singleOnly struct{ route.SinglePath }
type routerOnly struct{ route.Router }

func (s singleOnly) Clone() route.Router { return singleOnly{s.SinglePath.Clone().(route.SinglePath)} }
func (s routerOnly) Clone() route.Router { return routerOnly{s.Router.Clone()} }

// TestFastPathsAgree checks that the three ways Run routes a single-path
// router (runs with difference arrays and range maxima, link by link,
// through the callback) give the same result on tori, for several
// patterns, with and without capacities that differ.
func TestFastPathsAgree(t *testing.T) {
	for _, dims := range [][]int{{5, 4}, {6, 3, 2}, {8}} {
		tor, err := graph.NewTorus(dims, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := tor.NumServers()
		dor := route.NewDOR(tor)
		pats := []func() (Pattern, error){
			func() (Pattern, error) { return AllToAll(n) },
			func() (Pattern, error) { return Uniform(n, 3, 11) },
			func() (Pattern, error) { return RandomPermutation(n, 5) },
			func() (Pattern, error) { return Shift(n, n/2+1) },
		}
		for _, mk := range pats {
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			a, err := Run(dor, p, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Run(singleOnly{dor}, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := Run(routerOnly{dor}, p, Options{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []*Result{b, c} {
				if !slices.Equal(a.Load, o.Load) || !slices.Equal(a.Hops, o.Hops) || a.NonRestricted != o.NonRestricted ||
					a.Restricted != o.Restricted || a.MaxRate != o.MaxRate || a.Flows != o.Flows {
					t.Fatalf("%v %s: runs %+v, other %+v", dims, p.Name(), a, o)
				}
			}
		}
	}
}

// TestRangeMax compares the sparse table with a scan on random lines and
// runs, wrapping ones included.
func TestRangeMax(t *testing.T) {
	rng := splitmix{42}
	ls := &route.Lines{Start: []int32{0}}
	for range 40 {
		n := int32(1 + rng.below(37))
		for range n {
			ls.Links = append(ls.Links, int32(len(ls.Links)))
		}
		ls.Start = append(ls.Start, int32(len(ls.Links)))
	}
	value := make([]float64, len(ls.Links))
	for i := range value {
		value[i] = float64(rng.below(1000))
	}
	m := newRangeMax(ls, value)
	d := newLineLoads(ls)
	want := make([]float64, len(ls.Links))
	for range 5000 {
		line := int32(rng.below(uint64(ls.NumLines())))
		lo, hi := ls.Start[line], ls.Start[line+1]
		n := hi - lo
		r := route.Run{Line: line, Start: int32(rng.below(uint64(n))), Count: 1 + int32(rng.below(uint64(n)))}
		best := 0.0
		for k := int32(0); k < r.Count; k++ {
			at := lo + (r.Start+k)%n
			best = max(best, value[at])
			want[ls.Links[at]]++
		}
		if got := m.max(r); got != best {
			t.Fatalf("run %+v on a line of %d: max %v, want %v", r, n, got, best)
		}
		d.add(r)
	}
	got := make([]float64, len(ls.Links))
	d.flush(got)
	if !slices.Equal(got, want) {
		t.Fatalf("difference-array loads %v, want %v", got, want)
	}
}

// TestStop: a run stopped after the flows of five sources (one source a
// chunk on 16 servers, one worker) reports those sources' flows and
// loads, marked interrupted, with no rates (the second pass is not
// started); stopped after three sources of the second pass, it reports
// every load and the rates of those three sources' 45 flows. On the
// 4-ary 2-tree under d-mod-k every all-to-all flow crosses its source's
// link, which carries 15 flows and is a most loaded one: rate 1/15.
func TestStop(t *testing.T) {
	tree, err := graph.NewTree(4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := AllToAll(16)
	done := 0
	res, err := Run(route.NewDModK(tree), p, Options{Stop: func() bool { return done >= 5 },
		Progress: func(d, _ int) { done = d }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Sources != 5 || res.Flows != 5*15 || res.RatedSources != 0 || res.NonRestricted != 0 || done != 5 {
		t.Errorf("interrupted %t, %d sources, %d flows, %d rated, throughput %v, %d chunks done; want true, 5, 75, 0, 0, 5",
			res.Interrupted, res.Sources, res.Flows, res.RatedSources, res.NonRestricted, done)
	}
	var pairs []Pair
	for s := range int32(5) {
		for d := range int32(16) {
			if d != s {
				pairs = append(pairs, Pair{s, d})
			}
		}
	}
	first, err := List(16, pairs)
	if err != nil {
		t.Fatal(err)
	}
	five, _ := Run(route.NewDModK(tree), first, Options{})
	if !slices.Equal(res.Load, five.Load) {
		t.Errorf("loads of the stopped run %v, want those of the first five sources' flows %v", res.Load, five.Load)
	}

	done = 0
	res, err = Run(route.NewDModK(tree), p, Options{Stop: func() bool { return done >= 16+3 },
		Progress: func(d, _ int) { done = d }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Sources != 16 || res.Flows != 16*15 || res.RatedSources != 3 || res.MaxLoad != 15 {
		t.Errorf("interrupted %t, %d sources, %d flows, %d rated, max load %v; want true, 16, 240, 3, 15",
			res.Interrupted, res.Sources, res.Flows, res.RatedSources, res.MaxLoad)
	}
	if math.Abs(res.NonRestricted-3) > 1e-12 || math.Abs(res.Restricted-3) > 1e-12 || math.Abs(res.MeanRate-1.0/15) > 1e-15 {
		t.Errorf("rates of 45 flows: non-restricted %v, restricted %v, mean %v; want 3, 3, 1/15", res.NonRestricted, res.Restricted, res.MeanRate)
	}
	full, _ := Run(route.NewDModK(tree), p, Options{})
	if full.Interrupted || full.Sources != 16 || full.RatedSources != 16 || full.Flows != 16*15 || math.Abs(full.NonRestricted-16) > 1e-12 {
		t.Errorf("full run: interrupted %t, %d sources, %d rated, %d flows, non-restricted %v (want 16)", full.Interrupted, full.Sources, full.RatedSources, full.Flows, full.NonRestricted)
	}
}

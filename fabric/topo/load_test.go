package topo

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// loadsOf routes uniform traffic through dor with options o on t.
func loadsOf(t *testing.T, topo *Topology, o RoutingOptions) *ChannelLoad {
	t.Helper()
	r, err := NewDOR(topo, nil, paperSC.SL2SC, paperSC.SC2SL, o)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ChannelLoads(topo, r, UniformDemand(topo.NumNICs()), 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// trunkLoads is the load of every + (plus) or − member of dimension dim
// out of switch s.
func trunkLoads(l *ChannelLoad, s, dim int, plus bool) []float64 {
	g := newTorusLayout(l.Topology)
	out := make([]float64, g.trunk)
	for m := range out {
		out[m] = l.Out[s][g.port(dim, plus, m)]
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestChannelLoadRing4: a ring of 4 switches, 1 NIC each, trunk 1, uniform
// traffic: each NIC sends 1/3 to each of the 3 others. + link j goes from
// switch j to j+1, − link j from j to j-1.
//
// plus: + link j carries the 1-hop flow j -> j+1 and both half-way flows
// that pass it, j -> j+2 and j-1 -> j+1: 3 flows, 3 × 1/3 = 1. − link j
// carries only the 1-hop flow j -> j-1: 1/3.
//
// balanced (1 NIC, one dimension: + when the destination coordinate is
// even): 0 -> 2 and 2 -> 0 go + (over + links 0, 1 and 2, 3), 1 -> 3 and
// 3 -> 1 go − (over − links 1, 0 and 3, 2). Every link carries one
// half-way flow and one 1-hop flow: 2/3.
//
// NIC links carry 1 either way, so the bound is 1 in both cases; the
// switch links alone would allow 1 (plus) and 1.5 (balanced).
func TestChannelLoadRing4(t *testing.T) {
	topo, err := Torus([]int{4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ties        string
		plus, minus float64
	}{
		{TiesPlus, 1, 1.0 / 3},
		{TiesBalanced, 2.0 / 3, 2.0 / 3},
	} {
		l := loadsOf(t, topo, RoutingOptions{Ties: tc.ties})
		for s := range 4 {
			if p, m := trunkLoads(l, s, 0, true)[0], trunkLoads(l, s, 0, false)[0]; !near(p, tc.plus) || !near(m, tc.minus) {
				t.Errorf("%s: switch %d: + %v − %v, want %v %v", tc.ties, s, p, m, tc.plus, tc.minus)
			}
			if v := l.Out[s][0]; !near(v, 1) || !near(l.In[s], 1) {
				t.Errorf("%s: NIC %d links: in %v out %v, want 1", tc.ties, s, l.In[s], v)
			}
		}
		st := l.Stats()
		want := LoadStats{SwitchLinks: 8, MaxSwitch: tc.plus, MeanSwitch: 2.0 / 3, MinSwitch: tc.minus,
			MaxInjection: 1, MaxEjection: 1, MaxEjectionAt: 0, Max: 1, Bound: 1}
		if !near(st.MeanSwitch, want.MeanSwitch) {
			t.Errorf("%s: mean %v, want 2/3", tc.ties, st.MeanSwitch)
		}
		st.MeanSwitch, st.MaxSwitchAt = want.MeanSwitch, PortRef{}
		if !reflect.DeepEqual(st, want) {
			t.Errorf("%s: stats\n got %+v\nwant %+v", tc.ties, st, want)
		}
		if l.Routes != 12 {
			t.Errorf("%s: %d routes, want 12", tc.ties, l.Routes)
		}
	}
}

// TestChannelLoadTorus4x4: a 4x4 torus, 1 NIC per switch, trunk 1, uniform
// traffic: 16 NICs, 1/15 per pair.
//
// Dimension 0 (x) is corrected first, at the source's row: the + x link
// from column j of row y carries flows from sources of row y at column c
// whose x distance d passes it, to all 4 destination rows: d = 1 from
// c = j, d = 2 (half way) from c = j and c = j-1. With plus ties that is 3
// (c, d) combinations × 4 rows = 12 flows: 12/15 = 0.8; the − x link only
// d = 3 from c = j: 4/15. Dimension 1 (y) is corrected in the destination's
// column, by sources of any of the 4 columns: the same counts, 12/15 and
// 4/15.
//
// balanced: in x a tie goes + when x_dst + y_dst is even; of the 4
// destinations of a half-way (c, d) combination (one per row) 2 go + and 2
// go −: each x link carries 4 one-hop flows and 2 + 2 half-way flows: 8/15.
// In y a tie goes + when y_dst is even: of the two half-way combinations
// passing a + y link (from rows j and j-1, to rows j+2 and j+1) exactly one
// has an even destination row; each brings 4 flows (one per source
// column): 4 + 4 = 8 flows, 8/15 on every link.
func TestChannelLoadTorus4x4(t *testing.T) {
	topo, err := Torus([]int{4, 4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ties        string
		plus, minus float64
	}{
		{TiesPlus, 12.0 / 15, 4.0 / 15},
		{TiesBalanced, 8.0 / 15, 8.0 / 15},
	} {
		l := loadsOf(t, topo, RoutingOptions{Ties: tc.ties})
		for s := range 16 {
			for dim := range 2 {
				if p, m := trunkLoads(l, s, dim, true)[0], trunkLoads(l, s, dim, false)[0]; !near(p, tc.plus) || !near(m, tc.minus) {
					t.Errorf("%s: switch %d dimension %d: + %v − %v, want %v %v", tc.ties, s, dim, p, m, tc.plus, tc.minus)
				}
			}
		}
		st := l.Stats()
		if !near(st.MaxSwitch, tc.plus) || !near(st.MeanSwitch, 8.0/15) || st.SwitchLinks != 64 || st.Bound != 1 {
			t.Errorf("%s: stats %+v", tc.ties, st)
		}
		for _, c := range l.TorusClasses() {
			want := tc.plus
			if c.Name[len(c.Name)-1] != '+' {
				want = tc.minus
			}
			if c.Links != 16 || !near(c.Max, want) || !near(c.Mean, want) || !near(c.Min, want) {
				t.Errorf("%s: class %+v, want %v", tc.ties, c, want)
			}
		}
	}
}

// TestTrunkSelectRing4: a ring of 4 switches, 2 NICs each (NIC 2s+q on
// switch s, port q), trunks of 4, uniform traffic: 8 NICs, 1/7 per pair.
// The flows over + trunk 0 (switch 0 to 1) come in blocks of 2×2 NIC
// pairs, one block per (source switch, destination switch): plus ties:
// (0,1), (0,2) and (3,1), 12 flows; balanced: (0,1), and half of each
// half-way block, (0,2) to port 0 and (3,1) to port 1 (+ when q + the
// destination switch is even), 8 flows.
//
// dst_mod puts flows to switch D on members 2D%4 and 2D%4+1 only:
// plus: (0,1) and (3,1) on members 2 and 3 (2 each), (0,2) on 0 and 1: loads
// 2, 2, 4, 4 (/7); balanced: (0,1) 2 on each of 2, 3; (0,2) to NIC 4 on
// member 0 (2 flows); (3,1) to NIC 3 on member 3 (2 flows): 2, 0, 2, 4.
//
// src_dst ((2·src + dst) % 4) maps the 4 NIC pairs of a block, 2·p + q
// plus a per-block even offset, onto the 4 members once each: plus 3
// flows per member; balanced: (0,1) once each, (0,2) to NIC 4 from
// NICs 0, 1 on members 0, 2, (3,1) to NIC 3 from NICs 6, 7 on members
// 3, 1: 2 per member.
func TestTrunkSelectRing4(t *testing.T) {
	topo, err := Torus([]int{4}, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ties, sel string
		want      []float64 // × 1/7
	}{
		{TiesPlus, TrunkDstMod, []float64{2, 2, 4, 4}},
		{TiesBalanced, TrunkDstMod, []float64{2, 0, 2, 4}},
		{TiesPlus, TrunkSrcDst, []float64{3, 3, 3, 3}},
		{TiesBalanced, TrunkSrcDst, []float64{2, 2, 2, 2}},
	} {
		l := loadsOf(t, topo, RoutingOptions{Ties: tc.ties, TrunkSelect: tc.sel})
		got := trunkLoads(l, 0, 0, true)
		for m := range got {
			if !near(got[m], tc.want[m]/7) {
				t.Errorf("%s, %s: + trunk of switch 0: %v, want %v / 7", tc.ties, tc.sel, got, tc.want)
				break
			}
		}
	}
}

// TestChannelLoadPresets pins the bounds of the torus presets under
// uniform traffic (docs/topologies.md), checked against counts:
//
// torus3d-8x8x4 (1024 NICs, 4 per switch, 4x trunks): a + x trunk carries
// the flows of the 32 NICs of its x ring whose x distance passes it, to
// the 128 NICs of each destination column. plus: distances 1..4 pass
// 1+2+3+4 = 10 (c, d) combinations per link: 10 × 4 NICs × 128 / 1023 per
// trunk, 1280/1023 per member when spread evenly (dst % 4 = the port:
// exactly even). balanced: 1 + 2 + 3 + 4/2 = 8 combinations: 1024/1023,
// the same as the − trunk; z (size 4): 1 + 2/2 = 2: 512/1023.
//
// torus2d-8x8 (512 NICs, 8 per switch, 10x trunks): a + x trunk carries
// 8 NICs × 64 NICs per column × (1+2+3+4) = 5120 flows with plus ties, of
// which dst_mod puts up to 640 on one member (dst % 10 over 8 ports
// misses two members per destination switch); balanced: 8 × 64 × 8 = 4096
// flows, at best ⌈4096/10⌉ = 410 per member; src_dst reaches 411.
func TestChannelLoadPresets(t *testing.T) {
	for _, tc := range []struct {
		preset    string
		o         RoutingOptions
		maxSwitch float64
		bound     float64
	}{
		{"torus2d-8x8", previousDOR, 640.0 / 511, 511.0 / 640},
		{"torus2d-8x8", RoutingOptions{}, 411.0 / 511, 1},
		{"torus3d-8x8x4", previousDOR, 1280.0 / 1023, 1023.0 / 1280},
		{"torus3d-8x8x4", RoutingOptions{}, 1024.0 / 1023, 1023.0 / 1024},
	} {
		topo, _, err := Preset(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		st := loadsOf(t, topo, tc.o).Stats()
		if !near(st.MaxSwitch, tc.maxSwitch) || !near(st.Bound, tc.bound) || st.MaxInjection != 1 || !near(st.MaxEjection, 1) {
			t.Errorf("%s %+v: max %v (want %v), bound %v (want %v), NIC links %v %v",
				tc.preset, tc.o, st.MaxSwitch, tc.maxSwitch, st.Bound, tc.bound, st.MaxInjection, st.MaxEjection)
		}
	}
}

// TestTrunkSelectBalance: on every torus preset under uniform traffic with
// balanced ties, the default src_dst is at least as balanced as dst_mod
// and hash (and strictly better than both on torus2d-8x8, where 8 ports
// do not divide into 10 members).
func TestTrunkSelectBalance(t *testing.T) {
	for _, preset := range []string{"torus2d-8x8", "torus2d-4x4", "torus3d-8x8x4"} {
		topo, _, err := Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		worst := map[string]float64{}
		for _, sel := range TrunkSelects() {
			worst[sel] = loadsOf(t, topo, RoutingOptions{TrunkSelect: sel}).Stats().MaxSwitch
		}
		if worst[TrunkSrcDst] > worst[TrunkDstMod]+1e-12 || worst[TrunkSrcDst] > worst[TrunkHash]+1e-12 {
			t.Errorf("%s: max loads %v: src_dst is not the most balanced", preset, worst)
		}
		if preset == "torus2d-8x8" && (worst[TrunkSrcDst] >= worst[TrunkDstMod] || worst[TrunkSrcDst] >= worst[TrunkHash]) {
			t.Errorf("%s: max loads %v: src_dst is not strictly the most balanced", preset, worst)
		}
	}
}

// TestChannelLoadPatterns: a permutation loads only its paths, and bad
// demands are refused.
func TestChannelLoadPatterns(t *testing.T) {
	topo, err := Torus([]int{4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewDOR(topo, nil, paperSC.SL2SC, paperSC.SC2SL, RoutingOptions{})
	// 0 -> 2 (half way: + for an even destination), 1 -> 1 (to the switch
	// and back), 2 -> 3, 3 -> 0 (+ over the wrap).
	l, err := ChannelLoads(topo, r, PermutationDemand([]int{2, 1, 3, 0}), 0)
	if err != nil {
		t.Fatal(err)
	}
	plus := make([]float64, 4)
	for s := range plus {
		plus[s] = trunkLoads(l, s, 0, true)[0]
		if m := trunkLoads(l, s, 0, false)[0]; m != 0 {
			t.Errorf("− link of %d: %v", s, m)
		}
	}
	if !reflect.DeepEqual(plus, []float64{1, 1, 1, 1}) || l.Out[1][0] != 1 || l.Routes != 4 {
		t.Errorf("+ links %v, NIC 1 ejection %v, %d routes", plus, l.Out[1][0], l.Routes)
	}
	if _, err := ChannelLoads(topo, r, PermutationDemand([]int{4, 0, 0, 0}), 0); err == nil {
		t.Error("destination 4 of 4 NICs accepted")
	}
	if _, err := ChannelLoads(topo, loopRouter{}, UniformDemand(4), 0); err == nil {
		t.Error("a routing that never delivers accepted")
	}
}

// loopRouter sends every packet round the ring's + links forever.
type loopRouter struct{}

func (loopRouter) Route(_, _, _, sc int) (int, int) { return 1, sc }

// TestDOROptionsConformance: every tie rule with every trunk selection on
// every torus case (and two more shapes, with half-way rings of odd
// length 3 and dimensions of size 2, 1 NIC per switch) follows the
// documented rules on every path (conform: delivery within the diameter,
// each dimension corrected by the minimal number of hops, every hop in the
// direction decided from the source and destination — a packet never
// turns round inside a dimension —, the member of the rule) and keeps the
// channel dependency graphs acyclic with the dateline. Networks above 600
// NICs route a fixed sample of 20000 pairs (TestRoutingConformance routes
// all of them with the defaults).
func TestDOROptionsConformance(t *testing.T) {
	cases := []routingCase{
		{"torus-6x2x4", "dor", func() (*Topology, error) { return Torus([]int{6, 2, 4}, 1, 2) }},
		{"torus-2x6-2nics", "dor", func() (*Topology, error) { return Torus([]int{2, 6}, 2, 3) }},
	}
	for _, tc := range append(routingCases(), cases...) {
		if tc.routing != "dor" {
			continue
		}
		for _, ties := range TieRules() {
			for _, sel := range TrunkSelects() {
				o := RoutingOptions{Ties: ties, TrunkSelect: sel}
				t.Run(fmt.Sprintf("%s/%s/%s", tc.name, ties, sel), func(t *testing.T) {
					t.Parallel()
					topo, err := tc.build()
					if err != nil {
						t.Fatal(err)
					}
					r, err := DefaultRegistry().NewWith("dor", topo, paperSC, o)
					if err != nil {
						t.Fatal(err)
					}
					all := pairs(topo.NumNICs())
					if topo.NumNICs() > 600 && len(all) > 20000 {
						all = samplePairs(topo.NumNICs(), 20000)
					}
					conform(t, topo, r, newPathChecker(topo, o), all)
				})
			}
		}
	}
}

// samplePairs is a fixed pseudo-random sample of n (source, destination)
// pairs.
func samplePairs(nics, n int) [][2]int {
	out := make([][2]int, 0, n)
	x := uint32(12345)
	for range n {
		x = x*1664525 + 1013904223
		src := int(x>>8) % nics
		x = x*1664525 + 1013904223
		out = append(out, [2]int{src, int(x>>8) % nics})
	}
	return out
}

// TestBalancedTiesSplitEvenly: with balanced ties, the half-way flows of
// uniform traffic split exactly in half between + and − at every switch
// of every torus case whose rings are of length ≡ 0 mod 4, or where some
// factor of the rule (the NIC port, a higher dimension) has an even range;
// here checked as equal total load in the + and − directions of every
// dimension, link by link.
func TestBalancedTiesSplitEvenly(t *testing.T) {
	for _, shape := range []struct {
		dims        []int
		nics, trunk int
	}{
		{[]int{4}, 1, 1}, {[]int{8}, 1, 1}, {[]int{6}, 2, 1}, {[]int{2}, 2, 1}, {[]int{6, 4}, 1, 1},
		{[]int{8, 8}, 8, 1}, {[]int{8, 8, 4}, 4, 1}, {[]int{2, 2}, 4, 1},
	} {
		topo, err := Torus(shape.dims, shape.nics, shape.trunk)
		if err != nil {
			t.Fatal(err)
		}
		l := loadsOf(t, topo, RoutingOptions{Ties: TiesBalanced})
		for dim := range shape.dims {
			for s := range topo.NumSwitches() {
				p, m := trunkLoads(l, s, dim, true)[0], trunkLoads(l, s, dim, false)[0]
				want := l.Out[0][newTorusLayout(topo).port(dim, true, 0)]
				if !near(p, m) || !near(p, want) {
					t.Errorf("%s dimension %d switch %d: + %v − %v (switch 0: %v)", topo.Name, dim, s, p, m, want)
				}
			}
		}
	}
}

// TestDOROptionsDoNotAllocate: every rule routes without allocating.
func TestDOROptionsDoNotAllocate(t *testing.T) {
	topo, _, err := Preset("torus2d-8x8")
	if err != nil {
		t.Fatal(err)
	}
	for _, ties := range TieRules() {
		for _, sel := range TrunkSelects() {
			r, err := NewDOR(topo, nil, paperSC.SL2SC, paperSC.SC2SL, RoutingOptions{Ties: ties, TrunkSelect: sel})
			if err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(100, func() {
				for dst := 0; dst < topo.NumNICs(); dst += 7 {
					r.Route(0, 0, dst, 3)
					r.Route(5, 12, dst, 1)
				}
			})
			if allocs != 0 {
				t.Errorf("%s, %s: %v allocations per run", ties, sel, allocs)
			}
		}
	}
}

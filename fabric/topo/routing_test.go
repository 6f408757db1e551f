package topo

import (
	"fmt"
	"testing"

	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/internal/testlong"
)

// paperSC are seed 000 Table 7's SL2SC and SC2SL; paperSC2VL its SC2VL.
var (
	paperSC = qos.Tables{
		SL2SC: [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}},
		SC2SL: []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4},
	}
	paperSC2VL = []int{0, 1, 2, 3, 4, 5, 6, 7, 6, 7}
)

type routingCase struct {
	name    string
	routing string
	build   func() (*Topology, error)
}

// routingCases are every preset and a few shapes the presets miss: a
// dimension of size 2, odd sizes, a dimension of size 1, radix rounding,
// odd k, a one-level tree.
func routingCases() []routingCase {
	var cases []routingCase
	for _, s := range Presets() {
		cases = append(cases, routingCase{s.Name, s.Routing, s.Build})
	}
	torus := func(dims []int, nics, trunk int) func() (*Topology, error) {
		return func() (*Topology, error) { return Torus(dims, nics, trunk) }
	}
	tree := func(k, n int) func() (*Topology, error) { return func() (*Topology, error) { return Tree(k, n) } }
	return append(cases,
		routingCase{"torus-2x2", "dor", torus([]int{2, 2}, 4, 2)},
		routingCase{"torus-5x3", "dor", torus([]int{5, 3}, 2, 1)},
		routingCase{"torus-3x1x4", "dor", torus([]int{3, 1, 4}, 1, 3)},
		routingCase{"ring-6", "dor", torus([]int{6}, 3, 2)},
		routingCase{"tree-3ary-3", "updown", tree(3, 3)},
		routingCase{"tree-2ary-4", "updown", tree(2, 4)},
		routingCase{"tree-4ary-1", "updown", tree(4, 1)},
	)
}

// pairs lists the (source, destination) NIC pairs to route: all of them,
// or under -short for networks above 600 NICs a deterministic sample of
// 20000.
func pairs(nics int) [][2]int {
	var out [][2]int
	if testlong.Quick() && nics > 600 {
		x := uint32(12345)
		for range 20000 {
			x = x*1664525 + 1013904223
			src := int(x>>8) % nics
			x = x*1664525 + 1013904223
			out = append(out, [2]int{src, int(x>>8) % nics})
		}
		return out
	}
	for src := range nics {
		for dst := range nics {
			out = append(out, [2]int{src, dst})
		}
	}
	return out
}

// TestRoutingConformance routes the pairs of every case, with the
// routing's default options, through conform.
func TestRoutingConformance(t *testing.T) {
	for _, tc := range routingCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			topo, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if err := topo.Validate(); err != nil {
				t.Fatal(err)
			}
			r, err := DefaultRegistry().New(tc.routing, topo, paperSC)
			if err != nil {
				t.Fatal(err)
			}
			conform(t, topo, r, newPathChecker(topo, RoutingOptions{}), pairs(topo.NumNICs()))
		})
	}
}

// conform routes the pairs twice: injected in SL 0 (SC 0 or 1), so that
// SL 0's channel dependency graph covers every pair, and in another SL.
// Every path must reach its NIC, visit no switch twice, stay within the
// diameter (reached exactly when all pairs are routed), follow its kind's
// rules (check), and the channel dependency graphs over (switch, port, SC)
// and over (switch, port, VL) with Table 7's SC2VL must be acyclic.
func conform(t *testing.T, topo *Topology, r Router, check *pathChecker, all [][2]int) {
	t.Helper()
	bySC := NewDependencyGraph(topo, len(paperSC.SC2SL))
	byVL := NewDependencyGraph(topo, 8)
	longest := 0
	var hops, vlHops []Hop
	var err error
	for i, p := range all {
		for _, sc := range []int{i % 2, 2 + (p[0]+3*p[1])%8} {
			hops, err = Trace(topo, r, p[0], p[1], sc, hops[:0])
			if err == nil {
				err = check.path(p[0], p[1], sc, hops)
			}
			if err != nil {
				t.Fatalf("%d -> %d, SC %d: %v; path %v", p[0], p[1], sc, err, hops)
			}
			longest = max(longest, len(hops))
			vlHops = append(vlHops[:0], hops...)
			for h := range vlHops {
				vlHops[h].SC = paperSC2VL[vlHops[h].SC]
			}
			if err := bySC.AddPath(hops); err != nil {
				t.Fatal(err)
			}
			if err := byVL.AddPath(vlHops); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(all) == topo.NumNICs()*topo.NumNICs() && longest != topo.Diameter {
		t.Errorf("longest routed path %d switches, Diameter %d", longest, topo.Diameter)
	}
	if c := bySC.Cycle(); c != nil {
		t.Errorf("channel dependency cycle over SCs: %v", c)
	}
	if c := byVL.Cycle(); c != nil {
		t.Errorf("channel dependency cycle over VLs: %v", c)
	}
}

// pathChecker checks routed paths against each kind's rules, computed
// from the documented numbering, not from the routers' tables.
type pathChecker struct {
	t      *Topology
	o      RoutingOptions // torus: the dor rules
	coords [][]int        // torus: per switch
	moves  []int          // torus: scratch, hops per dimension
}

func newPathChecker(t *Topology, o RoutingOptions) *pathChecker {
	c := &pathChecker{t: t, o: o, moves: make([]int, len(t.Dims))}
	if t.Kind == KindTorus {
		for s := range t.NumSwitches() {
			c.coords = append(c.coords, torusCoords(t, s))
		}
	}
	return c
}

func (c *pathChecker) path(src, dst, sc int, hops []Hop) error {
	t := c.t
	if len(hops) > t.Diameter {
		return fmt.Errorf("%d switches, diameter %d", len(hops), t.Diameter)
	}
	last := hops[len(hops)-1]
	if want := t.NICPort[dst]; last.Switch != want.Switch || last.OutPort != want.Port {
		return fmt.Errorf("last hop %v, NIC at %v", last, want)
	}
	switch t.Kind {
	case KindTorus:
		return c.torusPath(src, dst, sc, hops)
	case KindTree:
		return c.treePath(src, dst, sc, hops)
	}
	if len(hops) != 1 || hops[0].SC != sc {
		return fmt.Errorf("single switch: want one hop keeping SC %d", sc)
	}
	return nil
}

// torusCoords decodes switch s's coordinates, dimension 0 fastest.
func torusCoords(t *Topology, s int) []int {
	c := make([]int, len(t.Dims))
	for i, size := range t.Dims {
		c[i], s = s%size, s/size
	}
	return c
}

// torusPort decodes a trunk port by the documented layout: NIC ports
// first, then per dimension of size > 1 its + trunk and its − trunk.
func torusPort(t *Topology, port int) (dim int, plus bool, member int) {
	p := port - t.NICsPerSwitch
	active := p / (2 * t.Trunk)
	for i, size := range t.Dims {
		if size == 1 {
			continue
		}
		if active == 0 {
			return i, p%(2*t.Trunk) < t.Trunk, p % t.Trunk
		}
		active--
	}
	return -1, false, 0
}

// torusPath checks dimension-order routing: dimensions in increasing
// order, each corrected in the shorter direction by exactly the minimal
// number of hops, every hop of a dimension in the direction decided from
// the source and destination coordinates (so a packet never turns round
// inside a dimension); on a tie + (plus) or + exactly when dst % nics plus
// the destination's coordinates from that dimension up is even
// (balanced); trunk member dst % trunk (dst_mod), (src·nics + dst) % trunk
// (src_dst) or mix(src, dst) % trunk (hash) on every hop; the SL's first
// SC in each dimension until its wrap-around link, the second on and after
// it; the last hop keeps the SC.
func (c *pathChecker) torusPath(src, dst, sc int, hops []Hop) error {
	t := c.t
	first, second := paperSC.SL2SC[paperSC.SC2SL[sc]][0], paperSC.SL2SC[paperSC.SC2SL[sc]][1]
	from := c.coords[t.NICPort[src].Switch]
	to := c.coords[t.NICPort[dst].Switch]
	moves := c.moves
	clear(moves)
	prevDim, wrapped, wantSC := -1, false, sc
	for h := 0; h+1 < len(hops); h++ {
		dim, plus, member := torusPort(t, hops[h].OutPort)
		if dim < prevDim || dim < 0 {
			return fmt.Errorf("hop %d: dimension %d after %d", h, dim, prevDim)
		}
		if dim != prevDim {
			wrapped = false
		}
		prevDim = dim
		size, here, next := t.Dims[dim], c.coords[hops[h].Switch], c.coords[hops[h+1].Switch]
		delta := (to[dim] - from[dim] + size) % size
		wantPlus := 2*delta < size
		if 2*delta == size {
			sum := dst % t.NICsPerSwitch
			for _, x := range to[dim:] {
				sum += x
			}
			wantPlus = c.o.Ties == TiesPlus || sum%2 == 0
		}
		if plus != wantPlus {
			return fmt.Errorf("hop %d: direction + %v, want + %v", h, plus, wantPlus)
		}
		wantMember := (src*t.NICsPerSwitch + dst) % t.Trunk
		switch c.o.TrunkSelect {
		case TrunkDstMod:
			wantMember = dst % t.Trunk
		case TrunkHash:
			wantMember = int(mix(uint64(src)<<32|uint64(dst)) % uint64(t.Trunk))
		}
		if member != wantMember {
			return fmt.Errorf("hop %d: trunk member %d, want %d", h, member, wantMember)
		}
		step := 1
		if !plus {
			step = size - 1
		}
		for i := range here {
			want := here[i]
			if i == dim {
				want = (here[i] + step) % size
			}
			if next[i] != want {
				return fmt.Errorf("hop %d: from %v reached %v, moving along dimension %d", h, here, next, dim)
			}
		}
		wrapped = wrapped || plus && next[dim] == 0 || !plus && next[dim] == size-1
		wantSC = first
		if wrapped {
			wantSC = second
		}
		if hops[h].SC != wantSC {
			return fmt.Errorf("hop %d: SC %d, want %d", h, hops[h].SC, wantSC)
		}
		moves[dim]++
	}
	for i, size := range t.Dims {
		delta := (to[i] - from[i] + size) % size
		if want := min(delta, size-delta); moves[i] != want {
			return fmt.Errorf("dimension %d: %d hops, minimal is %d", i, moves[i], want)
		}
	}
	if got := hops[len(hops)-1].SC; got != wantSC {
		return fmt.Errorf("last hop: SC %d, want %d (unchanged)", got, wantSC)
	}
	return nil
}

// treePath checks up/down routing: up from the leaf to the level of
// the first common ancestor L (the lowest l with src and dst agreeing on
// digits l+1..n-1), then down: 2L+1 switches, up port k+p_l and down port
// p_l at level l for dst digits p, SC unchanged.
func (c *pathChecker) treePath(src, dst, sc int, hops []Hop) error {
	t := c.t
	pow := treePowers(t.K, t.N)
	top := 0
	for src/pow[top+1] != dst/pow[top+1] {
		top++
	}
	if len(hops) != 2*top+1 {
		return fmt.Errorf("%d switches, common ancestor at level %d", len(hops), top)
	}
	for h, hop := range hops {
		level, down := h, h >= top
		if h > top {
			level = 2*top - h
		}
		if got := hop.Switch / pow[t.N-1]; got != level {
			return fmt.Errorf("hop %d: level %d, want %d", h, got, level)
		}
		port := dst / pow[level] % t.K
		if !down {
			port += t.K
		}
		if hop.OutPort != port || hop.SC != sc {
			return fmt.Errorf("hop %d: port %d SC %d, want port %d SC %d", h, hop.OutPort, hop.SC, port, sc)
		}
	}
	return nil
}

func TestRoutersDoNotAllocate(t *testing.T) {
	for _, name := range []string{"torus3d-8x8x4", "tree-8ary-3", "single-switch"} {
		topo, r := presetRouted(t, name)
		n := topo.NumNICs()
		allocs := testing.AllocsPerRun(100, func() {
			for dst := 0; dst < n; dst += 7 {
				r.Route(0, 0, dst, 3)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run", name, allocs)
		}
	}
}

func benchmarkRoute(b *testing.B, preset string) {
	topo, spec, err := Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	r, err := DefaultRegistry().New(spec.Routing, topo, paperSC)
	if err != nil {
		b.Fatal(err)
	}
	n, sw := topo.NumNICs(), topo.NumSwitches()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Route(i%sw, 0, (i*7)%n, i%10)
	}
}

func BenchmarkRouteDOR3D(b *testing.B)   { benchmarkRoute(b, "torus3d-8x8x4") }
func BenchmarkRouteUpDown3(b *testing.B) { benchmarkRoute(b, "tree-8ary-3") }
func BenchmarkRouteDirect(b *testing.B)  { benchmarkRoute(b, "single-switch") }

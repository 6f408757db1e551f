package graph

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// checkCSR checks the structural invariants every graph must satisfy:
// out ranges partition the links and agree with Tail, In lists exactly
// the links whose head is v, and every link u→v has a partner v→u (the
// builders make cables, one link each way).
func checkCSR(t *testing.T, g *Graph) {
	t.Helper()
	if g.outStart[0] != 0 || int(g.outStart[g.NumNodes()]) != g.NumLinks() {
		t.Fatalf("out ranges cover [%d, %d), want [0, %d)", g.outStart[0], g.outStart[g.NumNodes()], g.NumLinks())
	}
	pairs := map[[2]int32]int{}
	for v := int32(0); v < int32(g.NumNodes()); v++ {
		lo, hi := g.Out(v)
		for l := lo; l < hi; l++ {
			if g.Tail(l) != v {
				t.Fatalf("link %d in node %d's out range has tail %d", l, v, g.Tail(l))
			}
			pairs[[2]int32{v, g.Head(l)}]++
		}
		prev := int32(-1)
		for _, l := range g.In(v) {
			if g.Head(l) != v || l <= prev {
				t.Fatalf("node %d's in list has link %d (head %d) after %d", v, l, g.Head(l), prev)
			}
			prev = l
		}
	}
	total := 0
	for v := int32(0); v < int32(g.NumNodes()); v++ {
		total += len(g.In(v))
	}
	if total != g.NumLinks() {
		t.Fatalf("in lists hold %d links, want %d", total, g.NumLinks())
	}
	for p, n := range pairs {
		if pairs[[2]int32{p[1], p[0]}] != n {
			t.Fatalf("%d links %d→%d but %d back", n, p[0], p[1], pairs[[2]int32{p[1], p[0]}])
		}
	}
	for s := int32(0); s < int32(g.NumServers()); s++ {
		if g.Degree(s) != 1 || g.IsServer(g.Head(g.OutStart(s))) {
			t.Fatalf("server %d: degree %d, want one link to a switch", s, g.Degree(s))
		}
	}
}

func TestTreeCountsAndDiameter(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 2}, {2, 3}, {3, 2}, {4, 2}, {4, 3}, {2, 5}, {5, 3}, {8, 2}} {
		t.Run(fmt.Sprintf("%d-ary-%d-tree", c.k, c.n), func(t *testing.T) {
			tr, err := NewTree(c.k, c.n, 1)
			if err != nil {
				t.Fatal(err)
			}
			kn := ipow(c.k, c.n)
			if tr.NumServers() != kn {
				t.Errorf("servers %d, want k^n = %d", tr.NumServers(), kn)
			}
			if want := c.n * ipow(c.k, c.n-1); tr.NumSwitches() != want {
				t.Errorf("switches %d, want n·k^(n-1) = %d", tr.NumSwitches(), want)
			}
			if want := 2 * c.n * kn; tr.NumLinks() != want {
				t.Errorf("links %d, want 2n·k^n = %d", tr.NumLinks(), want)
			}
			checkCSR(t, tr.Graph)
			d, ok := tr.Graph.Diameter()
			if !ok || d != 2*c.n || tr.Diameter() != d {
				t.Errorf("diameter %d (connected %v), closed form %d, want 2n = %d", d, ok, tr.Diameter(), 2*c.n)
			}
		})
	}
}

// TestTreeWiring checks the documented port layout: up port k+j of (l, w)
// reaches (l+1, w with digit l = j) and that switch's down port w_l comes
// back.
func TestTreeWiring(t *testing.T) {
	k, n := 3, 3
	tr, err := NewTree(k, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	per := ipow(k, n-1)
	for l := 0; l < n-1; l++ {
		for w := 0; w < per; w++ {
			self := tr.Switch(l, w)
			if tr.Degree(self) != 2*k {
				t.Fatalf("switch (%d,%d) degree %d, want %d", l, w, tr.Degree(self), 2*k)
			}
			wl := w / ipow(k, l) % k
			for j := 0; j < k; j++ {
				up := tr.OutStart(self) + int32(k+j)
				want := tr.Switch(l+1, w+(j-wl)*ipow(k, l))
				if tr.Head(up) != want {
					t.Fatalf("(%d,%d) up port %d reaches node %d, want %d", l, w, k+j, tr.Head(up), want)
				}
				down := tr.OutStart(want) + int32(wl)
				if tr.Head(down) != self {
					t.Fatalf("(%d,%d) down port %d reaches node %d, want %d", l+1, w+(j-wl)*ipow(k, l), wl, tr.Head(down), self)
				}
			}
		}
	}
	for p := int32(0); p < int32(tr.NumServers()); p++ {
		leaf := tr.Switch(0, int(p)/k)
		if tr.Head(tr.OutStart(p)) != leaf || tr.Head(tr.OutStart(leaf)+p%int32(k)) != p {
			t.Fatalf("server %d is not on leaf %d port %d", p, leaf, p%int32(k))
		}
	}
	if top := tr.Switch(n-1, 0); tr.Degree(top) != k {
		t.Fatalf("top switch degree %d, want %d", tr.Degree(top), k)
	}
}

func TestTorusCountsAndDiameter(t *testing.T) {
	for _, c := range []struct {
		dims []int
		spp  int
	}{
		{[]int{4}, 1}, {[]int{5}, 2}, {[]int{2}, 1}, {[]int{1}, 3}, {[]int{4, 4}, 1}, {[]int{3, 5}, 2},
		{[]int{2, 2, 2}, 1}, {[]int{4, 3, 2}, 2}, {[]int{3, 1, 4}, 1}, {[]int{2, 3, 2, 3}, 1}, {[]int{6, 6}, 4},
	} {
		t.Run(fmt.Sprintf("%v-%d", c.dims, c.spp), func(t *testing.T) {
			tor, err := NewTorus(c.dims, c.spp, 1)
			if err != nil {
				t.Fatal(err)
			}
			w, big, diam := 1, 0, 2
			for _, d := range c.dims {
				w *= d
				if d > 1 {
					big++
				}
				diam += d / 2
			}
			if tor.NumSwitches() != w || tor.NumServers() != w*c.spp {
				t.Errorf("switches %d servers %d, want %d and %d", tor.NumSwitches(), tor.NumServers(), w, w*c.spp)
			}
			if want := 2*c.spp*w + 2*big*w; tor.NumLinks() != want {
				t.Errorf("links %d, want 2cW + 2DW = %d", tor.NumLinks(), want)
			}
			checkCSR(t, tor.Graph)
			d, ok := tor.Graph.Diameter()
			if !ok || d != diam || tor.Diameter() != diam {
				t.Errorf("diameter %d (connected %v), closed form %d, want %d", d, ok, tor.Diameter(), diam)
			}
		})
	}
}

// TestTorusWiring checks the documented port layout on a 3x2 torus with 2
// servers per switch: + and − ports along each dimension, parallel links
// along the dimension of size 2.
func TestTorusWiring(t *testing.T) {
	tor, err := NewTorus([]int{3, 2}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	node := func(x, y int) int32 { return tor.SwitchNode(int32(x + 3*y)) }
	s := node(0, 1) // switch index 3
	lo, hi := tor.Out(s)
	var got []int32
	for l := lo; l < hi; l++ {
		got = append(got, tor.Head(l))
	}
	want := []int32{6, 7, node(1, 1), node(2, 1), node(0, 0), node(0, 0)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("switch (0,1) ports reach %v, want %v", got, want)
	}
	if tor.PlusPort(0) != 2 || tor.PlusPort(1) != 4 || tor.SwitchDegree() != 6 {
		t.Fatalf("plus ports %d %d degree %d, want 2 4 6", tor.PlusPort(0), tor.PlusPort(1), tor.SwitchDegree())
	}
	if tor.Coord(3, 0) != 0 || tor.Coord(3, 1) != 1 || tor.Step(3, 0, -1) != 5 || tor.Step(5, 0, 1) != 3 {
		t.Fatalf("coordinates or steps of switch 3 are wrong")
	}
}

func TestNew(t *testing.T) {
	// A 4-node ring of switches with a server each, links given out of
	// order: ids must follow tail order, then input order.
	links := []Link{
		{From: 5, To: 4, Capacity: 2}, {From: 4, To: 5, Capacity: 1}, {From: 0, To: 4, Capacity: 1},
		{From: 4, To: 0, Capacity: 1}, {From: 4, To: 7, Capacity: 1}, {From: 7, To: 4, Capacity: 1},
	}
	g, err := New(4, 4, links)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumLinks() != 6 || g.NumNodes() != 8 {
		t.Fatalf("nodes %d links %d", g.NumNodes(), g.NumLinks())
	}
	lo, hi := g.Out(4)
	if hi-lo != 3 || g.Head(lo) != 5 || g.Head(lo+1) != 0 || g.Head(lo+2) != 7 {
		t.Fatalf("node 4's links out of order")
	}
	if l := g.LinkTo(5, 4); l < 0 || g.Capacity(l) != 2 {
		t.Fatalf("link 5→4 is %d", l)
	}
	if g.LinkTo(0, 5) != -1 {
		t.Fatalf("a link 0→5 that does not exist")
	}
	if g.MemoryBytes() != 20*6+8*8+8 {
		t.Fatalf("memory %d", g.MemoryBytes())
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"tree k", func() error { _, err := NewTree(1, 2, 1); return err }, "tree k: 1 is not allowed"},
		{"tree n", func() error { _, err := NewTree(2, 0, 1); return err }, "tree n: 0 is not allowed"},
		{"tree capacity", func() error { _, err := NewTree(2, 2, 0); return err }, "tree capacity: 0 is not allowed"},
		{"tree size", func() error { _, err := NewTree(1000, 4, 1); return err }, "links must be at most"},
		{"torus dims", func() error { _, err := NewTorus(nil, 1, 1); return err }, "torus dims: [] is not allowed"},
		{"torus dim", func() error { _, err := NewTorus([]int{4, 0}, 1, 1); return err }, "torus dims[1]: 0 is not allowed"},
		{"torus spp", func() error { _, err := NewTorus([]int{4}, 0, 1); return err }, "servers per switch: 0 is not allowed"},
		{"torus size", func() error { _, err := NewTorus([]int{1 << 12, 1 << 12, 1 << 12}, 1, 1); return err }, "switches is not allowed"},
		// Huge parameters: refused, no overflow (k^n wrapped round an int64
		// and was built).
		{"tree k 2^62", func() error { _, err := NewTree(1<<62, 2, 1); return err }, "tree 4611686018427387904-ary 2-tree"},
		{"tree n max", func() error { _, err := NewTree(2, math.MaxInt, 1); return err }, "links must be at most 2147483647"},
		{"tree 2-ary 30-tree", func() error { _, err := NewTree(2, 30, 1); return err }, "2^30 servers is not allowed"},
		{"torus spp 2^62", func() error { _, err := NewTorus([]int{4}, 1<<62, 1); return err }, "torus servers per switch: 4611686018427387904 is not allowed: must be in [1, 2147483646]"},
		{"new servers", func() error { _, err := New(-1, 1, nil); return err }, "graph servers: -1 is not allowed"},
		{"new from", func() error { _, err := New(1, 1, []Link{{From: 2, To: 0, Capacity: 1}}); return err }, "graph link 0 from: 2 is not allowed: must be in [0, 2)"},
		{"new self", func() error { _, err := New(1, 1, []Link{{From: 1, To: 1, Capacity: 1}}); return err }, "graph link 0 to: 1 is not allowed"},
		{"new capacity", func() error { _, err := New(1, 1, []Link{{From: 0, To: 1, Capacity: -1}}); return err }, "graph link 0 capacity: -1 is not allowed"},
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := c.err()
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
		if used := m1.TotalAlloc - m0.TotalAlloc; used > 1<<20 {
			t.Errorf("%s: %d B allocated before the refusal", c.name, used)
		}
	}
	// MemoryBytesOf: 8 B a node, 20 a link, 8 more; saturating.
	if got := MemoryBytesOf(112, 384); got != 8*112+20*384+8 {
		t.Errorf("MemoryBytesOf(112, 384) = %d", got)
	}
	if got := MemoryBytesOf(math.MaxInt64, 5); got != 1<<62 {
		t.Errorf("MemoryBytesOf saturates: %d", got)
	}
	if got := MemoryBytesOf(-3, -4); got != 8 {
		t.Errorf("negative counts: %d", got)
	}
}

func ipow(k, n int) int {
	p := 1
	for range n {
		p *= k
	}
	return p
}

// relayGraph is three servers 0, 1, 2 and switches 3..6: 0–3–1–4–2, so
// server 1 sits between switches 3 and 4, and, with chain, a longer way
// 3–5–6–4 through switches only.
func relayGraph(t *testing.T, chain bool) *Graph {
	t.Helper()
	pairs := [][2]int32{{0, 3}, {3, 1}, {1, 4}, {4, 2}}
	if chain {
		pairs = append(pairs, [2]int32{3, 5}, [2]int32{5, 6}, [2]int32{6, 4})
	}
	var links []Link
	for _, p := range pairs {
		links = append(links, Link{From: p[0], To: p[1], Capacity: 1}, Link{From: p[1], To: p[0], Capacity: 1})
	}
	g, err := New(3, 4, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestServersForward: a switch-centric graph never relays through a
// server — server 0 reaches server 2 by the 5-link switch chain, not the
// 4 links through server 1, and not at all without the chain — while the
// same links with servers forwarding give 4 links both ways.
func TestServersForward(t *testing.T) {
	dist := make([]int32, 7)
	for _, chain := range []bool{true, false} {
		sc := relayGraph(t, chain)
		if sc.ServersForward() || sc.Forwards(1) || !sc.Forwards(3) || sc.FirstForwarder() != 3 {
			t.Fatalf("default graph: forward %t, server 1 %t, switch 3 %t, first %d", sc.ServersForward(), sc.Forwards(1), sc.Forwards(3), sc.FirstForwarder())
		}
		fw := sc.WithServersForward(true)
		if !fw.ServersForward() || !fw.Forwards(1) || fw.FirstForwarder() != 0 || sc.ServersForward() {
			t.Fatalf("WithServersForward(true): forward %t, server 1 %t, first %d; original now %t", fw.ServersForward(), fw.Forwards(1), fw.FirstForwarder(), sc.ServersForward())
		}
		if back := fw.WithServersForward(false); back.ServersForward() || back.FirstForwarder() != 3 || back.NumLinks() != sc.NumLinks() {
			t.Fatalf("WithServersForward(false) does not restore the switch-centric graph")
		}
		sc.Distances(0, dist, nil)
		want02, wantDiam, wantOK := int32(5), 5, true
		if !chain {
			want02, wantDiam, wantOK = -1, 0, false
		}
		if dist[1] != 2 || dist[2] != want02 {
			t.Errorf("chain %t, switch-centric: 0→1 %d, 0→2 %d; want 2, %d", chain, dist[1], dist[2], want02)
		}
		if !chain && dist[4] != -1 {
			t.Errorf("switch-centric without chain: switch 4 reached at %d through server 1", dist[4])
		}
		if d, ok := sc.Diameter(); d != wantDiam || ok != wantOK {
			t.Errorf("chain %t, switch-centric: diameter %d %t, want %d %t", chain, d, ok, wantDiam, wantOK)
		}
		fw.Distances(0, dist, nil)
		if dist[1] != 2 || dist[2] != 4 || dist[4] != 3 {
			t.Errorf("chain %t, server-centric: 0→1 %d, 0→2 %d, 0→switch 4 %d; want 2, 4, 3", chain, dist[1], dist[2], dist[4])
		}
		if d, ok := fw.Diameter(); d != 4 || !ok {
			t.Errorf("chain %t, server-centric: diameter %d %t, want 4 true", chain, d, ok)
		}
	}
}

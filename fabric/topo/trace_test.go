package topo

import (
	"strings"
	"testing"
)

// routeFunc adapts a function to Router, to feed Trace broken routings.
type routeFunc func(sw, inPort, dst, sc int) (int, int)

func (f routeFunc) Route(sw, inPort, dst, sc int) (int, int) { return f(sw, inPort, dst, sc) }

func TestTraceCatchesBadRoutes(t *testing.T) {
	torus, _, _ := Preset("torus2d-4x4")
	tree, _, _ := Preset("tree-8ary-2")
	tests := []struct {
		name     string
		topo     *Topology
		r        Router
		src, dst int
		want     string
	}{
		{"no such NIC", torus, routeFunc(func(_, _, _, sc int) (int, int) { return 0, sc }), 0, 128, "no such NIC"},
		{"port out of range", torus, routeFunc(func(_, _, _, sc int) (int, int) { return 48, sc }), 0, 1, "port 48 of 48"},
		{"wrong NIC", torus, routeFunc(func(_, _, _, sc int) (int, int) { return 2, sc }), 0, 1, "delivered to NIC 2"},
		{"unused port", tree, routeFunc(func(sw, _, _, sc int) (int, int) { return 15, sc }), 0, 63, "unused port 15"},
		{"loop", torus, routeFunc(func(_, _, _, sc int) (int, int) { return 8, sc }), 0, 100, "visited twice"},
	}
	for _, tc := range tests {
		_, err := Trace(tc.topo, tc.r, tc.src, tc.dst, 0, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestRoutedDiameter(t *testing.T) {
	for _, name := range []string{"torus2d-4x4", "tree-8ary-2", "single-switch"} {
		topo, spec, _ := Preset(name)
		r, err := DefaultRegistry().New(spec.Routing, topo, paperSC)
		if err != nil {
			t.Fatal(err)
		}
		d, err := RoutedDiameter(topo, r, 0)
		if err != nil || d != topo.Diameter {
			t.Errorf("%s: routed diameter %d (%v), Diameter %d", name, d, err, topo.Diameter)
		}
	}
}

// TestDependencyGraphCycle checks the cycle finder on hand-made paths.
func TestDependencyGraphCycle(t *testing.T) {
	topo, err := Torus([]int{3}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Ring 0 -> 1 -> 2 -> 0 on + port 1, SC 0; 2-hop paths close a cycle
	// only when all three dependencies are present.
	hop := func(s int) Hop { return Hop{Switch: s, OutPort: 1} }
	g := NewDependencyGraph(topo, 2)
	for _, p := range [][]Hop{{hop(0), hop(1)}, {hop(1), hop(2)}} {
		if err := g.AddPath(p); err != nil {
			t.Fatal(err)
		}
	}
	if c := g.Cycle(); c != nil {
		t.Fatalf("cycle %v in an acyclic graph", c)
	}
	if err := g.AddPath([]Hop{hop(2), hop(0)}); err != nil {
		t.Fatal(err)
	}
	if err := g.AddPath([]Hop{hop(2), hop(0)}); err != nil {
		t.Fatal(err)
	}
	if g.Edges() != 3 {
		t.Errorf("%d edges, want 3 (duplicates merged)", g.Edges())
	}
	c := g.Cycle()
	if len(c) != 3 {
		t.Fatalf("cycle %v, want the 3 ring channels", c)
	}
	for i, ch := range c {
		next := c[(i+1)%3]
		if ch.Port != 1 || ch.SC != 0 || next.Switch != (ch.Switch+1)%3 {
			t.Errorf("cycle %v is not the ring", c)
		}
	}
	if err := g.AddPath([]Hop{hop(0), {Switch: 1, OutPort: 1, SC: 2}}); err == nil {
		t.Error("SC 2 accepted in a 2-SC graph")
	}
}

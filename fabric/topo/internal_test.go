package topo

import (
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

// internalGraph builds the internal dependency graph of preset name under
// scheme, injecting on one SC of every VL of the paper's tables.
func internalGraph(t *testing.T, name, scheme string) *InternalGraph {
	t.Helper()
	topo, r := presetRouted(t, name)
	classOf, classes, err := CentralClasses(topo, scheme)
	if err != nil {
		t.Fatal(err)
	}
	g, err := InternalDependencies(topo, r, 8, paperSC2VL, classOf, classes, []int{0, 1, 2, 3, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// presetRouted builds preset name with its routing over the paper's SCs.
func presetRouted(t *testing.T, name string) (*Topology, Router) {
	t.Helper()
	topo, spec, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DefaultRegistry().New(spec.Routing, topo, paperSC)
	if err != nil {
		t.Fatal(err)
	}
	return topo, r
}

// With the central buffer classed by the next link's VL only, the
// dateline no longer breaks the rings: the check must find a cycle that
// passes through a central buffer lane. This is the negative test of the
// checker (the torus deadlocks with that classification, see
// fabric's TestDrainAfterSaturation).
func TestInternalDependenciesFindTheCentralBufferCycle(t *testing.T) {
	g := internalGraph(t, "torus2d-4x4", CentralByVL)
	c := g.Cycle()
	if c == nil {
		t.Fatalf("no cycle found with central buffers classed by VL (%d edges)", g.Edges())
	}
	central := false
	for i, r := range c {
		central = central || r.Kind == ResCentral
		next := c[(i+1)%len(c)]
		if !containsNode(g.adj[g.node(r)], g.node(next)) {
			t.Fatalf("cycle step %v -> %v is not an edge", r, next)
		}
	}
	if !central {
		t.Errorf("cycle %v does not pass through a central buffer", c)
	}
	t.Logf("cycle of %d resources, e.g. %v -> %v", len(c), c[0], c[1])
}

// With lanes per (direction, VL) every preset's internal graph is acyclic.
func TestInternalDependenciesAcyclicByDirection(t *testing.T) {
	names := PresetNames()
	if testlong.Reduced(t) {
		names = []string{"torus2d-4x4", "tree-8ary-2", "single-switch"}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			g := internalGraph(t, name, CentralByDirection)
			if c := g.Cycle(); c != nil {
				t.Errorf("cycle of %d resources: %v", len(c), c)
			}
			if g.Edges() == 0 {
				t.Error("no dependencies recorded")
			}
		})
	}
}

// Hand-checked classes of the 2D torus 4x4 preset: 8 NIC ports, then
// dimension 0 + (8-17), − (18-27), dimension 1 + (28-37), − (38-47).
func TestCentralClassesTorus(t *testing.T) {
	topo, _, err := Preset("torus2d-4x4")
	if err != nil {
		t.Fatal(err)
	}
	classOf, n, err := CentralClasses(topo, CentralByDirection)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Fatalf("%d classes, want 5", n)
	}
	want := map[int]uint8{0: 0, 7: 0, 8: 1, 17: 1, 18: 2, 27: 2, 28: 3, 37: 3, 38: 4, 47: 4}
	for port, c := range want {
		if got := classOf[5][port]; got != c {
			t.Errorf("port %d: class %d, want %d", port, got, c)
		}
	}
	if _, n, _ := CentralClasses(topo, CentralByVL); n != 1 {
		t.Errorf("by VL: %d classes, want 1", n)
	}
	if _, _, err := CentralClasses(topo, "bogus"); err == nil {
		t.Error("unknown scheme accepted")
	}
}

func (g *InternalGraph) node(r Resource) int32 {
	switch r.Kind {
	case ResInput:
		return g.input(r.Switch, r.Port, r.Lane)
	case ResCentral:
		return g.central(r.Switch, r.Port, r.Lane)
	}
	return g.output(r.Switch, r.Port, r.Lane)
}

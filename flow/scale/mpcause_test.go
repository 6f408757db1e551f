package scale

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/workload"
)

// TestMultipathStencilCause is the experiment behind the explanation of
// why ECMP-4 makes the fat tree's stencil slower (docs/flow-study-64k.md): the hypothesis is that a flow ends with the last of its four
// subflows and that subflows of different flows meet unevenly on the
// switch-to-switch links, where d-mod-k's single paths do not. It changes
// only that: the stencil of the 4k study on its fat tree, with d-mod-k
// and with ECMP-4, with the switch-to-switch links at capacity 1 (as in
// the study) and at capacity OPASIM_MPCAUSE times that (the servers'
// links unchanged). If the hypothesis holds, ECMP-4 with wide switch
// links takes d-mod-k's time. A measurement, skipped unless
// OPASIM_MPCAUSE is set to the factor:
//
//	OPASIM_MPCAUSE=4 GOMAXPROCS=1 go test ./flow/scale -run TestMultipathStencilCause -v -timeout 0
func TestMultipathStencilCause(t *testing.T) {
	factor := os.Getenv("OPASIM_MPCAUSE")
	if factor == "" {
		t.Skip("a measurement: set OPASIM_MPCAUSE to the switch links' capacity factor")
	}
	var wide float64
	if _, err := fmt.Sscan(factor, &wide); err != nil || !(wide > 0) {
		t.Fatalf("OPASIM_MPCAUSE %q: want a positive number", factor)
	}
	var fat Topo
	for _, tp := range StudyTopologies() {
		if tp.Name == "fat-tree" {
			fat = tp
		}
	}
	if fat.Multipath == nil {
		t.Fatal("the 4k study has no fat tree with a multipath routing")
	}
	app := StudyApps()[0]
	if app.Kind != workload.Stencil3D {
		t.Fatalf("the study's first application is %s, not the stencil", app.Kind)
	}
	for _, r := range []*spec.Routing{{}, fat.Multipath} {
		for _, c := range []float64{1, wide} {
			net, err := (&spec.Config{Topology: fat.Topology, Routing: *r, Seed: 1}).Build()
			if err != nil {
				t.Fatal(err)
			}
			g := net.Graph
			caps := g.Capacities()
			servers := int32(g.NumServers())
			n := 0
			for l := range int32(g.NumLinks()) {
				if g.Tail(l) >= servers && g.Head(l) >= servers {
					caps[l] *= c
					n++
				}
			}
			pt, err := runApp(context.Background(), net, app, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-7s switch links ×%g (%d links): execution time %.6g (%.1f CPU-s)", net.Router.Name(), c, n, pt.Makespan, pt.CPUSeconds)
		}
	}
}

package workload

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/internal/flowtest"
	"github.com/opasim/opasim/flow/route"
)

// star is flowtest.Star: n servers on one switch, unit links; server s's
// link up is link s, its link down n+s.
func star(t *testing.T, n int) route.Router { return flowtest.Star(t, n) }

func makespan(t *testing.T, r route.Router, a App) (float64, int) {
	t.Helper()
	flows, err := a.Flows()
	if err != nil {
		t.Fatal(err)
	}
	res, err := dynamic.Run(r, flows)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unfinished != 0 {
		t.Fatalf("%s: %d flows unfinished", a.Kind, res.Unfinished)
	}
	return res.Makespan, len(flows)
}

// TestAppsByHand on a star of unit links, where flows meet only at their
// ends' links:
//   - nbody, 4 tasks, size 10, compute 1: 3 shifts, each server sending
//     one flow and receiving one: 3·10 + 2·1 = 32.
//   - stencil2d, 4 tasks (2×2: the + and − neighbours are the same task):
//     4 flows out of each server share its link, 40 a step; 2 steps with
//     compute 1: 81.
//   - sweep2d, 4 tasks, size 10: (0,0) sends east and north sharing its
//     link (20), both then send to (1,1), sharing its link (20 more): 40;
//     with compute 1, 41.
func TestAppsByHand(t *testing.T) {
	for _, c := range []struct {
		app   App
		want  float64
		flows int
	}{
		{App{Kind: NBody, Tasks: 4, Size: 10, Compute: 1}, 32, 12},
		{App{Kind: Stencil2D, Tasks: 4, Iterations: 2, Size: 10, Compute: 1}, 81, 32},
		{App{Kind: Sweep2D, Tasks: 4, Size: 10}, 40, 5},
		{App{Kind: Sweep2D, Tasks: 4, Size: 10, Compute: 1}, 41, 5},
	} {
		got, n := makespan(t, star(t, c.app.Tasks), c.app)
		if got != c.want || n != c.flows {
			t.Errorf("%+v: makespan %v with %d flows, want %v with %d", c.app, got, n, c.want, c.flows)
		}
	}
}

// TestAppShapes: flow counts and dependencies by formula.
func TestAppShapes(t *testing.T) {
	count := func(a App) []dynamic.Flow {
		flows, err := a.Flows()
		if err != nil {
			t.Fatal(err)
		}
		return flows
	}
	if f := count(App{Kind: Stencil3D, Tasks: 27, Iterations: 2, Size: 1}); len(f) != 27*6*2 || len(f[27*6].Deps) != 6 {
		t.Errorf("stencil3d: %d flows, a second-step flow with %d deps", len(f), len(f[27*6].Deps))
	}
	p := 6
	f := count(App{Kind: MapReduce, Tasks: p, Size: 1})
	if len(f) != (p-1)+p*(p-1)+(p-1) || len(f[len(f)-1].Deps) != p-1 || f[len(f)-1].Dst != 0 {
		t.Errorf("mapreduce: %d flows, the last with %d deps to %d", len(f), len(f[len(f)-1].Deps), f[len(f)-1].Dst)
	}
	u := count(App{Kind: Unstructured, Tasks: 10, Iterations: 5, Size: 1, Seed: 3})
	if len(u) != 50 {
		t.Errorf("unstructured: %d flows", len(u))
	}
	for i, x := range u {
		if x.Src == x.Dst || (i >= 10 && len(x.Deps) == 0) {
			t.Fatalf("unstructured flow %d: %+v", i, x)
		}
	}
	d := count(App{Kind: DCNTraffic, Tasks: 50, Iterations: 40, Size: 2, Seed: 1})
	long := 0
	for _, x := range d {
		if x.Size == 200 {
			long++
		}
	}
	if len(d) != 2000 || long < 300 || long > 500 {
		t.Errorf("dcntraffic: %d flows, %d long (about 400 expected)", len(d), long)
	}
	r := star(t, 10)
	a, _ := makespan(t, r, App{Kind: Unstructured, Tasks: 10, Iterations: 5, Size: 1, Seed: 3})
	b, _ := makespan(t, r, App{Kind: Unstructured, Tasks: 10, Iterations: 5, Size: 1, Seed: 3})
	if a != b || a < 5 {
		t.Errorf("unstructured makespans %v, %v: want equal and at least 5 rounds", a, b)
	}
	for _, c := range []struct {
		app  App
		want string
	}{
		{App{Kind: "lattice", Tasks: 4}, `application kind: "lattice" is not allowed`},
		{App{Kind: Stencil2D, Tasks: 8}, "stencil2d tasks: 8 is not allowed: must be a 2-th power"},
		{App{Kind: NBody, Tasks: 1}, "application tasks: 1 is not allowed"},
		{App{Kind: NBody, Tasks: 4, Size: -1}, "application size: -1"},
	} {
		if _, err := c.app.Flows(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.app, err, c.want)
		}
	}
}

// TestBenchByHand: the causality-enhanced benchmarking patterns on a star
// of unit links:
//   - shift on 4 tasks, 2 rounds, size 10, compute 1: each round every
//     server sends one flow and receives one, 10 a round: 10 + 1 + 10 =
//     21, with 4 + 1 barrier + 4 flows;
//   - all-to-all on 4 tasks, size 10: each server's 3 flows share its
//     link up (and its link down), 30 a round; 2 rounds, 60, with 25
//     flows.
func TestBenchByHand(t *testing.T) {
	for _, c := range []struct {
		app   App
		want  float64
		flows int
	}{
		{App{Kind: Bench, Pattern: "shift", Tasks: 4, Iterations: 2, Size: 10, Compute: 1}, 21, 9},
		{App{Kind: Bench, Pattern: "all-to-all", Tasks: 4, Size: 10}, 30, 12},
		{App{Kind: Bench, Pattern: "all-to-all", Tasks: 4, Iterations: 2, Size: 10}, 60, 25},
	} {
		got, n := makespan(t, star(t, c.app.Tasks), c.app)
		if got != c.want || n != c.flows {
			t.Errorf("%s %+v: makespan %v with %d flows, want %v with %d", c.app.Name(), c.app, got, n, c.want, c.flows)
		}
	}
	flows, err := App{Kind: Bench, Pattern: "uniform", Tasks: 16, Iterations: 2, Size: 1, Seed: 5}.Flows()
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := range 16 {
		if flows[i].Dst == flows[17+i].Dst {
			same++
		}
		if len(flows[17+i].Deps) != 1 || flows[17+i].Deps[0] != 16 || len(flows[16].Deps) != 16 {
			t.Fatalf("round 2's flow %d depends on %v, the barrier on %d flows", i, flows[17+i].Deps, len(flows[16].Deps))
		}
	}
	if same > 8 {
		t.Errorf("uniform: %d of 16 destinations the same in both rounds: the rounds are not drawn apart", same)
	}
	for _, c := range []struct {
		app  App
		want string
	}{
		{App{Kind: Bench, Tasks: 4}, "application pattern: a bench needs one"},
		{App{Kind: Bench, Pattern: "ring", Tasks: 4}, `application pattern: pattern: `},
		{App{Kind: Bench, Pattern: "bit-reversal", Tasks: 6}, "application pattern: "},
		{App{Kind: NBody, Pattern: "shift", Tasks: 4}, `application pattern: "shift" is not allowed for nbody`},
	} {
		if err := c.app.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.app, err, c.want)
		}
	}
}

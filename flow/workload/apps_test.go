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
		{App{Kind: Bench, Pattern: "ring", Tasks: 4}, `application pattern: unknown pattern "ring"`},
		{App{Kind: Bench, Pattern: "bit-reversal", Tasks: 6}, "application pattern: "},
		{App{Kind: NBody, Pattern: "shift", Tasks: 4}, `application pattern: "shift" is not allowed for nbody`},
	} {
		if err := c.app.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.app, err, c.want)
		}
	}
}

// TestSweep3DAndCollectivesByHand on a star of unit links:
//   - sweep3d, 8 tasks (2×2×2), size 1: task 0 sends its 3 flows on its
//     one link, 3; tasks 1, 2 and 4 then send 2 each, every sender's and
//     receiver's link carrying 2 flows, 2 more; tasks 3, 5 and 6 send to
//     7, whose link carries 3, 3 more: 8, with 3·4·1 = 12 flows and the
//     end marker. With compute 1 between the three levels: 10. Two
//     sweeps: 16, 25 flows.
//   - allreduce (recursive doubling), 4 tasks of 1: two exchange rounds,
//     each link one flow a round: 2 an iteration; two iterations with
//     compute 0.5: 4.5; 8 tasks: 3 a round, 6 for two; flows: per
//     iteration a start per task and, per task and round, its send and
//     the round's end: 2·(4 + 4·2·2) = 40.
//   - broadcast (binomial) from task 0, 4 tasks of 1: 0→1, then 0→2 and
//     1→3: 2; 8 tasks: 3.
//   - alltoall (pairwise), 4 tasks of 1: 3 rounds, each task sending one
//     flow and receiving one a round: 3.
func TestSweep3DAndCollectivesByHand(t *testing.T) {
	for _, c := range []struct {
		app   App
		want  float64
		flows int
	}{
		{App{Kind: Sweep3D, Tasks: 8, Size: 1}, 8, 13},
		{App{Kind: Sweep3D, Tasks: 8, Size: 1, Compute: 1}, 10, 13},
		{App{Kind: Sweep3D, Tasks: 8, Iterations: 2, Size: 1}, 16, 25},
		{App{Kind: Allreduce, Tasks: 4, Size: 1}, 2, 20},
		{App{Kind: Allreduce, Tasks: 4, Iterations: 2, Size: 1, Compute: 0.5}, 4.5, 40},
		{App{Kind: Allreduce, Tasks: 8, Iterations: 2, Size: 1}, 6, 2 * (8 + 8*3*2)},
		{App{Kind: Broadcast, Tasks: 4, Size: 1}, 2, -1},
		{App{Kind: Broadcast, Tasks: 8, Size: 1}, 3, -1},
		{App{Kind: Alltoall, Tasks: 4, Size: 1}, 3, 4 + 4*3*2},
	} {
		got, n := makespan(t, star(t, c.app.Tasks), c.app)
		if got != c.want || (c.flows >= 0 && n != c.flows) {
			t.Errorf("%+v: makespan %v with %d flows, want %v with %d", c.app, got, n, c.want, c.flows)
		}
	}
}

// TestSweep3DShape: the flows of one sweep of a 3×3×3 grid, by formula: a
// task sends to its successor in each dimension it has one in, 3·9·2 =
// 54 flows, each after every flow into its sender (one per predecessor
// the sender has: none for task 0, 3 for a task inside the grid), and
// the end marker after the 3 flows into task 26.
func TestSweep3DShape(t *testing.T) {
	const s = 3
	flows, err := App{Kind: Sweep3D, Tasks: s * s * s, Size: 1}.Flows()
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) != 3*s*s*(s-1)+1 {
		t.Fatalf("%d flows, want %d", len(flows), 3*s*s*(s-1)+1)
	}
	into := map[int32][]int{} // flows into each task
	for i, f := range flows[:len(flows)-1] {
		into[f.Dst] = append(into[f.Dst], i)
	}
	for i, f := range flows[:len(flows)-1] {
		x, y, z := int(f.Src)%s, int(f.Src)/s%s, int(f.Src)/(s*s)
		d := int(f.Dst) - int(f.Src)
		if (d != 1 || x == s-1) && (d != s || y == s-1) && (d != s*s || z == s-1) {
			t.Fatalf("flow %d: %d→%d is not to a successor", i, f.Src, f.Dst)
		}
		// its deps: every flow into its sender, one per predecessor
		preds := 0
		for _, c := range []int{x, y, z} {
			if c > 0 {
				preds++
			}
		}
		if len(f.Deps) != preds || (preds > 0 && !sameSet(f.Deps, into[f.Src])) {
			t.Fatalf("flow %d from (%d,%d,%d): deps %v, want the %d flows into it %v", i, x, y, z, f.Deps, preds, into[f.Src])
		}
	}
	end := flows[len(flows)-1]
	if end.Src != s*s*s-1 || end.Dst != end.Src || end.Size != 0 || !sameSet(end.Deps, into[s*s*s-1]) || len(end.Deps) != 3 {
		t.Errorf("end marker %+v, want a size-0 flow on task 26 after its 3 flows in %v", end, into[s*s*s-1])
	}
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[int]int{}
	for _, v := range a {
		seen[v]++
	}
	for _, v := range b {
		if seen[v]--; seen[v] < 0 {
			return false
		}
	}
	return true
}

// TestCollectiveBytes: the bytes each collective moves, by its
// algorithm's formula: allreduce by recursive doubling, 2·X·P·log2 P for
// P a power of two and, for P = 6 (ranks 4 and 5 folded into 0 and 1
// before and out after), 2·X + 4·2·X + 2·X = 12·X; broadcast, X to each
// of the P − 1 others; alltoall, X to each ordered pair, each pair once
// an iteration. Only the transfers count (the start and round-end flows
// are of size 0 from a task to itself).
func TestCollectiveBytes(t *testing.T) {
	const x = 5
	for _, c := range []struct {
		kind  string
		tasks int
		want  float64
	}{
		{Allreduce, 4, 4 * 2 * x}, {Allreduce, 8, 8 * 3 * x}, {Allreduce, 6, 12 * x},
		{Broadcast, 4, 3 * x}, {Broadcast, 8, 7 * x}, {Broadcast, 6, 5 * x},
		{Alltoall, 4, 12 * x}, {Alltoall, 6, 30 * x},
	} {
		flows, err := App{Kind: c.kind, Tasks: c.tasks, Iterations: 2, Size: x}.Flows()
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		pairs := map[[2]int32]int{}
		for _, f := range flows {
			if f.Src == f.Dst {
				if f.Size != 0 {
					t.Fatalf("%s: a flow of %v from task %d to itself", c.kind, f.Size, f.Src)
				}
				continue
			}
			sum += f.Size
			pairs[[2]int32{f.Src, f.Dst}]++
		}
		if sum != 2*c.want {
			t.Errorf("%s on %d tasks: %v bytes in two iterations, want %v", c.kind, c.tasks, sum, 2*c.want)
		}
		if c.kind == Alltoall {
			if len(pairs) != c.tasks*(c.tasks-1) {
				t.Errorf("alltoall on %d tasks: %d ordered pairs, want %d", c.tasks, len(pairs), c.tasks*(c.tasks-1))
			}
			for p, k := range pairs {
				if k != 2 {
					t.Errorf("alltoall: pair %v carries %d flows in two iterations, want 2", p, k)
				}
			}
		}
	}
	if _, err := (App{Kind: Allreduce, Tasks: 4, Size: 1.5}).Flows(); err == nil || !strings.Contains(err.Error(), "application size: 1.5 is not allowed for allreduce: must be a whole number") {
		t.Errorf("a fractional allreduce size: %v", err)
	}
}

// flowWant is one expected flow: its ends, size, delay and deps (a set).
type flowWant struct {
	src, dst    int32
	size, delay float64
	deps        []int
}

// checkFlows compares flows with want, flow by flow, in order.
func checkFlows(t *testing.T, name string, flows []dynamic.Flow, want []flowWant) {
	t.Helper()
	if len(flows) != len(want) {
		t.Fatalf("%s: %d flows, want %d", name, len(flows), len(want))
	}
	for i, w := range want {
		f := flows[i]
		if f.Src != w.src || f.Dst != w.dst || f.Size != w.size || f.Delay != w.delay || !sameSet(f.Deps, w.deps) {
			t.Errorf("%s: flow %d is %d→%d size %v delay %v deps %v, want %d→%d size %v delay %v deps %v",
				name, i, f.Src, f.Dst, f.Size, f.Delay, f.Deps, w.src, w.dst, w.size, w.delay, w.deps)
		}
	}
}

// TestSweep3DCounts: sweeps × 3·s²·(s−1) flows and the end marker: on 8
// tasks (s = 2) 12 a sweep, 13, 25 and 37 for 1 to 3 sweeps; on 27 (s =
// 3) 54 a sweep, 55, 109 and 163.
func TestSweep3DCounts(t *testing.T) {
	for _, c := range []struct{ tasks, sweeps, want int }{
		{8, 1, 13}, {8, 2, 25}, {8, 3, 37}, {27, 1, 55}, {27, 2, 109}, {27, 3, 163},
	} {
		flows, err := App{Kind: Sweep3D, Tasks: c.tasks, Iterations: c.sweeps, Size: 1}.Flows()
		if err != nil {
			t.Fatal(err)
		}
		if len(flows) != c.want {
			t.Errorf("sweep3d on %d tasks, %d sweeps: %d flows, want %d", c.tasks, c.sweeps, len(flows), c.want)
		}
	}
}

// TestSweep3DTiny: every flow of two sweeps of a 2×2×2 grid (task x +
// 2y + 4z), size 3, compute 2, listed by hand: diagonal by diagonal,
// within one (x, y) in lexicographic order, a task's flows east, north,
// up. Sweep 1: task 0 sends to 1, 2, 4 (flows 0–2, no deps, no delay);
// then task 4 (0,0,1) to 5, 6 after flow 2; task 2 (0,1,0) to 3, 6 after
// flow 1; task 1 (1,0,0) to 3, 5 after flow 0 (flows 3–8); then task 6
// to 7 after 4 and 6, task 5 to 7 after 3 and 8, task 3 to 7 after 5 and
// 7 (flows 9–11). Sweep 2 is the same 12 flows shifted by 12, task 0's
// after the three flows into task 7 (9, 10, 11); the end marker, a flow
// of size 0 from 7 to itself, after 21, 22, 23.
func TestSweep3DTiny(t *testing.T) {
	flows, err := App{Kind: Sweep3D, Tasks: 8, Iterations: 2, Size: 3, Compute: 2}.Flows()
	if err != nil {
		t.Fatal(err)
	}
	var want []flowWant
	for k := 0; k < 2; k++ {
		o := 12 * k
		var first []int
		delay := 0.0
		if k == 1 {
			first, delay = []int{9, 10, 11}, 2
		}
		want = append(want,
			flowWant{0, 1, 3, delay, first}, flowWant{0, 2, 3, delay, first}, flowWant{0, 4, 3, delay, first},
			flowWant{4, 5, 3, 2, []int{o + 2}}, flowWant{4, 6, 3, 2, []int{o + 2}},
			flowWant{2, 3, 3, 2, []int{o + 1}}, flowWant{2, 6, 3, 2, []int{o + 1}},
			flowWant{1, 3, 3, 2, []int{o + 0}}, flowWant{1, 5, 3, 2, []int{o + 0}},
			flowWant{6, 7, 3, 2, []int{o + 4, o + 6}},
			flowWant{5, 7, 3, 2, []int{o + 3, o + 8}},
			flowWant{3, 7, 3, 2, []int{o + 5, o + 7}})
	}
	want = append(want, flowWant{7, 7, 0, 0, []int{21, 22, 23}})
	checkFlows(t, "sweep3d 2×2×2", flows, want)
}

// TestCollectiveDeps: every flow of two iterations of small collectives,
// by hand, after flow/trace's rule (trace.LowerCollective, the package
// doc's "Rules"): a task's part begins with a flow of size 0 on its
// server (iteration 1: no deps; iteration 2: after its part of iteration
// 1 ended, compute later); then per round its send after the previous
// round's end, and the round's end (size 0 on its server) after its send
// and the send it receives, or after the previous round's end and the
// receipt when it only receives. Flows are numbered starts first, then
// rank by rank, round by round, send then end.
//   - allreduce by recursive doubling on 4 tasks, X = 5: round k pairs r
//     with r XOR 2^k; an iteration has 4 starts and per rank 2 sends and
//     2 ends: 20 flows, rank r's at 4 + 4r.
//   - broadcast (binomial, workloads/collective's doc: in round k ranks
//     v < 2^k send to v + 2^k) from task 0 on 4 tasks: round 0 0→1, round
//     1 0→2 and 1→3; rank 0 has two rounds (send, end, send, end: 4–7),
//     rank 1 a receipt then a send (8–10), ranks 2 and 3 a receipt (11,
//     12): 13 flows an iteration.
func TestCollectiveDeps(t *testing.T) {
	const x, compute = 5, 0.5
	// allreduce
	var want []flowWant
	for k := 0; k < 2; k++ {
		o := 20 * k
		for r := 0; r < 4; r++ {
			var deps []int
			delay := 0.0
			if k == 1 {
				deps, delay = []int{4 + 4*r + 3}, compute // rank r's last round end of iteration 1
			}
			want = append(want, flowWant{int32(r), int32(r), 0, delay, deps})
		}
		for r := 0; r < 4; r++ {
			base := o + 4 + 4*r
			for round := 0; round < 2; round++ {
				peer := r ^ (1 << round)
				prev := o + r // the start
				if round == 1 {
					prev = base + 1
				}
				send := base + 2*round
				want = append(want,
					flowWant{int32(r), int32(peer), x, 0, []int{prev}},
					flowWant{int32(r), int32(r), 0, 0, []int{send, o + 4 + 4*peer + 2*round}})
			}
		}
	}
	flows, err := App{Kind: Allreduce, Tasks: 4, Iterations: 2, Size: x, Compute: compute}.Flows()
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, "allreduce on 4", flows, want)

	// broadcast
	want = nil
	for k := 0; k < 2; k++ {
		o := 13 * k
		ends := []int{7, 10, 11, 12} // each rank's part's end in iteration 1
		for r := 0; r < 4; r++ {
			if k == 0 {
				want = append(want, flowWant{int32(r), int32(r), 0, 0, nil})
			} else {
				want = append(want, flowWant{int32(r), int32(r), 0, compute, []int{ends[r]}})
			}
		}
		want = append(want,
			flowWant{0, 1, x, 0, []int{o + 0}}, flowWant{0, 0, 0, 0, []int{o + 4}}, // rank 0, round 0
			flowWant{0, 2, x, 0, []int{o + 5}}, flowWant{0, 0, 0, 0, []int{o + 6}}, // rank 0, round 1
			flowWant{1, 1, 0, 0, []int{o + 4, o + 1}},                              // rank 1 receives 0→1
			flowWant{1, 3, x, 0, []int{o + 8}}, flowWant{1, 1, 0, 0, []int{o + 9}}, // then sends to 3
			flowWant{2, 2, 0, 0, []int{o + 6, o + 2}}, // rank 2 receives 0→2
			flowWant{3, 3, 0, 0, []int{o + 9, o + 3}}) // rank 3 receives 1→3
	}
	flows, err = App{Kind: Broadcast, Tasks: 4, Iterations: 2, Size: x, Compute: compute}.Flows()
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, "broadcast on 4", flows, want)
}

// TestAlltoallPairs: each iteration of an all-to-all on P tasks (P + 2·P·
// (P−1) flows: the starts, then per rank P−1 rounds of a send and an
// end) sends X once on every ordered pair of distinct tasks, as a direct
// all-to-all does, whatever the rounds: P = 4, 12 pairs in 28 flows; P =
// 5, 20 in 45; P = 8, 56 in 120.
func TestAlltoallPairs(t *testing.T) {
	const x = 7
	for _, c := range []struct{ tasks, pairs, per int }{{4, 12, 28}, {5, 20, 45}, {8, 56, 120}} {
		flows, err := App{Kind: Alltoall, Tasks: c.tasks, Iterations: 3, Size: x}.Flows()
		if err != nil {
			t.Fatal(err)
		}
		if len(flows) != 3*c.per {
			t.Fatalf("alltoall on %d: %d flows, want %d", c.tasks, len(flows), 3*c.per)
		}
		for k := 0; k < 3; k++ {
			pairs := map[[2]int32]int{}
			for _, f := range flows[k*c.per : (k+1)*c.per] {
				if f.Src == f.Dst {
					continue
				}
				if f.Size != x {
					t.Errorf("alltoall on %d, iteration %d: %d→%d of %v bytes, want %v", c.tasks, k, f.Src, f.Dst, f.Size, x)
				}
				pairs[[2]int32{f.Src, f.Dst}]++
			}
			if len(pairs) != c.pairs {
				t.Errorf("alltoall on %d, iteration %d: %d ordered pairs, want %d", c.tasks, k, len(pairs), c.pairs)
			}
			for p, n := range pairs {
				if n != 1 {
					t.Errorf("alltoall on %d, iteration %d: pair %v carries %d flows, want 1", c.tasks, k, p, n)
				}
			}
		}
	}
}

// TestCollectiveZeroBytes: a collective of size 0 uses no link time, as
// a trace's 0-byte message (flow/trace's rules): 3 iterations with
// compute 0.5 end at the two compute gaps, 1, whatever the op.
func TestCollectiveZeroBytes(t *testing.T) {
	for _, kind := range []string{Allreduce, Broadcast, Alltoall} {
		for _, tasks := range []int{4, 6} {
			a := App{Kind: kind, Tasks: tasks, Iterations: 3, Compute: 0.5}
			if got, _ := makespan(t, star(t, tasks), a); got != 1 {
				t.Errorf("%s on %d tasks of 0 bytes: makespan %v, want 1", kind, tasks, got)
			}
		}
	}
}

package jobs

import (
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/internal/flowtest"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/workload"
)

// threeLeaves is 6 servers, two on each of three leaf switches (6, 7, 8)
// under one core switch (9), unit cables; shortest paths are unique, so
// BFS routing is the tree's.
func threeLeaves(t *testing.T) route.Router {
	t.Helper()
	var links []graph.Link
	cable := func(a, b int32) {
		links = append(links, graph.Link{From: a, To: b, Capacity: 1}, graph.Link{From: b, To: a, Capacity: 1})
	}
	for s := int32(0); s < 6; s++ {
		cable(s, 6+s/2)
	}
	for l := int32(6); l < 9; l++ {
		cable(l, 9)
	}
	return flowtest.Routed(t, 6, 4, links)
}

// nbody3 is every job's application: n-body, one iteration (P−1 shifts of
// t → t+1), flows of 4.
var nbody3 = workload.App{Kind: workload.NBody, Iterations: 1, Size: 4}

// TestNetworkRuntimesByHand: J0 and J1 (3 tasks each) arrive at 0 and
// take servers 0–2 and 3–5 (FCFS, consecutive); J2 (4 tasks) arrives at 1
// and waits. The estimates (100) play no part under FCFS.
//
// Alone, J0's flows never share a link (0→1 within leaf 6; 1→2 up from
// leaf 6 and down to leaf 7; 2→0 up from leaf 7, down to leaf 6): two
// shifts of 4, runtime 8. With J1 beside it they interfere. Shift 1:
// 0→1 and 4→5 alone (done at 4); J0's 2→0 and J1's 3→4 share leaf 7's up
// link, J0's 1→2 and J1's 5→3 the core's link down to leaf 7: 1/2 each,
// 2 of 4 sent by 4. At 4 the second shift's 1→2 and 5→3 start (their
// senders received at 4) and also go down to leaf 7: four flows there,
// 1/4 each. So 2→0 and 3→4 end at 8, 1→2 and 5→3 at 12; 0→1 and 4→5 of
// shift 2 run [8, 12]; at 12 the shift-2 flows down to leaf 7 have 3
// left at 1/2: 18; 2→0 and 3→4 of shift 2 start at 12 and share leaf 7's
// up link: 4 at 1/2, 20. Both jobs: runtime 20 (2.5× alone).
//
// J2 starts at 20 on servers 0–3: 0→1, 1→2, 2→3, 3→0 share no link
// (1→2 and 3→0 cross the core in opposite directions), three shifts of 4:
// [20, 32]. Waits 0, 0, 19; makespan 32; utilization (3·20 + 3·20 +
// 4·12) / (6·32) = 0.875; throughput 3/32.
func TestNetworkRuntimesByHand(t *testing.T) {
	r := threeLeaves(t)
	n := Network{Config: Config{Policy: FCFS, Allocation: Consecutive}, App: nbody3, Mapping: Consecutive}
	alone, err := RunNetwork(r, n, []Job{{Arrival: 0, Size: 3, Runtime: 100}}, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := alone.Jobs[0]; p.Start != 0 || p.End != 8 || p.Flows != 6 {
		t.Fatalf("alone: %+v, want [0, 8] and 6 flows", p)
	}
	stream := []Job{{Arrival: 0, Size: 3, Runtime: 100}, {Arrival: 0, Size: 3, Runtime: 100}, {Arrival: 1, Size: 4, Runtime: 100}}
	for _, policy := range []string{FCFS, SJF, Aggressive, Conservative} {
		n.Policy = policy
		res, err := RunNetwork(r, n, stream, dynamic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			start, end float64
			first      int32
		}{{0, 20, 0}, {0, 20, 3}, {20, 32, 0}}
		for i, w := range want {
			p := res.Jobs[i]
			if p.Start != w.start || p.End != w.end || p.Servers[0] != w.first {
				t.Errorf("%s: job %d %+v, want [%v, %v] from server %d", policy, i, p.Placement, w.start, w.end, w.first)
			}
		}
		if res.Makespan != 32 || res.MeanWait != 19.0/3 || res.MeanTotal != (20+20+31)/3.0 || res.Throughput != 3.0/32 ||
			math.Abs(res.Utilization-0.875) > 1e-15 {
			t.Errorf("%s: makespan %v, mean wait %v, mean total %v, throughput %v, utilization %v", policy, res.Makespan, res.MeanWait,
				res.MeanTotal, res.Throughput, res.Utilization)
		}
		// busy servers over time: 6 from 0, 4 from 20, 0 from 32
		if len(res.Times) != 3 || res.Times[1] != 20 || res.Busy[0] != 6 || res.Busy[1] != 4 || res.Busy[2] != 0 {
			t.Errorf("%s: busy %v at %v", policy, res.Busy, res.Times)
		}
		if res.Flows != 6+6+12 {
			t.Errorf("%s: %d flows, want 24", policy, res.Flows)
		}
	}
}

// TestNetworkOneTaskJob: J0 and J1 run [0, 20] as above and end at the
// same time; J2 (6 tasks) arrives at 1 and is EASY's head, reserved at
// their expected ends (estimates of 100); J3 (one task, estimate 5)
// arrives at 2 with no server free. At 20 the scheduler sees both ends at
// once: J2 starts on every server (had it seen J0's end alone, J3 would
// have backfilled on its servers). J2's n-body of 6 tasks shares no link
// (each leaf's up link and each core link down carry one flow a shift):
// five shifts of 4, [20, 40]. J3 then starts and, having no flows, ends
// at 40.
func TestNetworkOneTaskJob(t *testing.T) {
	r := threeLeaves(t)
	n := Network{Config: Config{Policy: Aggressive, Allocation: Consecutive}, App: nbody3, Mapping: Consecutive}
	stream := []Job{{Arrival: 0, Size: 3, Runtime: 100}, {Arrival: 0, Size: 3, Runtime: 100}, {Arrival: 1, Size: 6, Runtime: 100}, {Arrival: 2, Size: 1, Runtime: 5}}
	res, err := RunNetwork(r, n, stream, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{0, 20}, {0, 20}, {20, 40}, {40, 40}}
	for i, w := range want {
		if p := res.Jobs[i]; p.Start != w[0] || p.End != w[1] {
			t.Errorf("job %d [%v, %v], want %v", i, p.Start, p.End, w)
		}
	}
}

// TestNetworkNoPath: with server 5's cable cut, J1's first flow to it
// fails naming the job and the servers.
func TestNetworkNoPath(t *testing.T) {
	g := threeLeaves(t).Graph()
	out, _ := g.Out(5)
	var back int32 = -1
	for _, c := range g.Cables() {
		if c.Fwd == out || c.Back == out {
			back = c.Fwd + c.Back - out
		}
	}
	f, err := graph.RemoveLinks(g, []int32{out, back})
	if err != nil {
		t.Fatal(err)
	}
	r, err := route.NewECMP(f.Graph, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := Network{Config: Config{Policy: FCFS, Allocation: Consecutive}, App: nbody3, Mapping: Consecutive}
	_, err = RunNetwork(r, n, []Job{{Arrival: 0, Size: 3, Runtime: 1}, {Arrival: 0, Size: 3, Runtime: 1}}, dynamic.Options{})
	if err == nil || !strings.Contains(err.Error(), "job 1: a flow from server 4 to server 5 has no path") {
		t.Fatalf("error %v", err)
	}
	_, err = RunNetwork(r, Network{Config: Config{Policy: FCFS, Allocation: Consecutive}, App: nbody3, Mapping: "snake"}, nil, dynamic.Options{})
	if err == nil || !strings.Contains(err.Error(), `jobs mapping: "snake" is not allowed`) {
		t.Fatalf("error %v", err)
	}
}

// TestNetworkJobApps: a job's APP replaces the run's application for that
// job only. On the six servers, each job alone (they arrive 100 apart):
// J0 the run's n-body (flows of 4): two shifts that share no link, 8;
// J1 "nbody,size=8,iterations=2": four shifts of 8, 32; J2 "stencil2d"
// on 4 tasks (servers 0-3, the 2x2 periodic grid): each task sends its
// four halos of 4 at once, two to each of its two neighbours; server 0
// (leaf 6) sends two to server 1 (inside leaf 6) and two to server 2
// (through the core), 4 flows on its own link: 1/4 each, 16 — and every
// server the same, its 4 flows sharing its link (the core links carry 4
// flows each way, also 1/4): 16. J3 names an application its size
// cannot run and is refused before the run, naming the job.
func TestNetworkJobApps(t *testing.T) {
	r := threeLeaves(t)
	n := Network{Config: Config{Policy: FCFS, Allocation: Consecutive}, App: nbody3, Mapping: Consecutive}
	stream := []Job{{Arrival: 0, Size: 3, Runtime: 1}, {Arrival: 100, Size: 3, Runtime: 1, App: "nbody,size=8,iterations=2"},
		{Arrival: 200, Size: 4, Runtime: 1, App: "stencil2d"}}
	res, err := RunNetwork(r, n, stream, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		start, end float64
		kind       string
		flows      int
	}{{0, 8, workload.NBody, 6}, {100, 132, workload.NBody, 12}, {200, 216, workload.Stencil2D, 16}} {
		p := res.Jobs[i]
		if p.Start != w.start || p.End != w.end || p.App.Kind != w.kind || p.Flows != w.flows || p.App.Tasks != stream[i].Size {
			t.Errorf("job %d: [%v, %v], %s of %d tasks, %d flows; want [%v, %v], %s, %d flows",
				i, p.Start, p.End, p.App.Kind, p.App.Tasks, p.Flows, w.start, w.end, w.kind, w.flows)
		}
	}
	bad := append(stream, Job{Arrival: 300, Size: 3, Runtime: 1, App: "stencil3d"})
	if _, err := RunNetwork(r, n, bad, dynamic.Options{}); err == nil || !strings.Contains(err.Error(), "job 3 (size 3): stencil3d tasks: 3 is not allowed") {
		t.Errorf("a 3-task 3D stencil: %v", err)
	}
}

package dynamic

import (
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// ring returns DOR on a 4-node ring, one server per switch, every link
// of capacity c. Flow 0→1 crosses server 0's link, switch 0's + link and
// switch 1's link to server 1; 0→2 continues over switch 1's + link to
// server 2; 1→2 crosses server 1's link, switch 1's + link, switch 2's
// link to server 2.
func ring(t *testing.T, c float64) route.Router {
	t.Helper()
	tor, err := graph.NewTorus([]int{4}, 1, c)
	if err != nil {
		t.Fatal(err)
	}
	return route.NewDOR(tor)
}

func run(t *testing.T, r route.Router, flows []Flow) *Result {
	t.Helper()
	res, err := Run(r, flows)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func expectTimes(t *testing.T, res *Result, start, finish []float64) {
	t.Helper()
	for i := range start {
		if !close(res.Start[i], start[i]) || !close(res.Finish[i], finish[i]) {
			t.Errorf("flow %d: [%v, %v], want [%v, %v]", i, res.Start[i], res.Finish[i], start[i], finish[i])
		}
	}
}

func close(a, b float64) bool {
	if math.IsInf(b, 1) {
		return math.IsInf(a, 1)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

// TestTwoFlowsShareALink: A (0→1, size 1) and B (0→2, size 3) share
// server 0's link from time 0: 1/2 each. A completes at 2; B has 3-1 = 2
// left and speeds up to 1, completing at 4.
func TestTwoFlowsShareALink(t *testing.T) {
	res := run(t, ring(t, 1), []Flow{{Src: 0, Dst: 1, Size: 1}, {Src: 0, Dst: 2, Size: 3}})
	expectTimes(t, res, []float64{0, 0}, []float64{2, 4})
	if res.Makespan != 4 || res.Unfinished != 0 || res.Batches != 3 {
		t.Errorf("makespan %v unfinished %d batches %d, want 4 0 3", res.Makespan, res.Unfinished, res.Batches)
	}
	// Capacity 10 divides every time by 10.
	res = run(t, ring(t, 10), []Flow{{Src: 0, Dst: 1, Size: 1}, {Src: 0, Dst: 2, Size: 3}})
	expectTimes(t, res, []float64{0, 0}, []float64{0.2, 0.4})
}

// TestDependencyAndDelay: as above, plus C (1→2, size 1) after A with a
// delay of 0.5. C starts at 2.5, when B (alone since 2, at rate 1) has
// 3-1-0.5 = 1.5 left; B and C share the link to server 2 at 1/2 each. C
// completes at 2.5+2 = 4.5, B has 0.5 left and completes at 5.
func TestDependencyAndDelay(t *testing.T) {
	res := run(t, ring(t, 1), []Flow{
		{Src: 0, Dst: 1, Size: 1},
		{Src: 0, Dst: 2, Size: 3},
		{Src: 1, Dst: 2, Size: 1, Deps: []int{0}, Delay: 0.5},
	})
	expectTimes(t, res, []float64{0, 0, 2.5}, []float64{2, 5, 4.5})
	if res.Makespan != 5 {
		t.Errorf("makespan %v", res.Makespan)
	}
}

// TestStartTimesAndChains: D starts at 10 alone (size 2: done at 12); E
// depends on D and F, with Start 13 later than D's completion: it starts
// at 13; F (size 0) completes at its start, 1. G depends on E with delay
// 1: starts at 13+1+1 = 15 (E has size 1). A self flow H completes at
// its start.
func TestStartTimesAndChains(t *testing.T) {
	res := run(t, ring(t, 1), []Flow{
		{Src: 0, Dst: 3, Size: 2, Start: 10},
		{Src: 1, Dst: 0, Size: 1, Start: 13, Deps: []int{0, 2}},
		{Src: 2, Dst: 3, Size: 0, Start: 1},
		{Src: 3, Dst: 2, Size: 1, Deps: []int{1}, Delay: 1},
		{Src: 2, Dst: 2, Size: 5, Start: 4},
	})
	expectTimes(t, res, []float64{10, 13, 1, 15, 4}, []float64{12, 14, 1, 16, 4})
}

// TestParkingLotInTime: a long flow over three ring links (0→3 the long
// way would not be minimal, so on a 7-node ring 0→3 crosses the + links
// of switches 0, 1, 2) and short flows 0→1, 1→2, 2→3 of sizes 1, 2, 3 on
// each of those links; the long flow has size 4. All start at 0; each
// link carries the long flow and one short flow, 1/2 each (server links
// too: server 0's link carries the long flow and 0→1; server 3's
// incoming link the long flow and 2→3). At 2 the first short completes;
// the long flow (3 left) is still held to 1/2 by the others. At 4 the
// second completes; the long flow has 2 left, the third short 1, still
// 1/2 each on their shared links. At 6 the third completes; the long
// flow, alone with 1 left, runs at 1 and completes at 7.
func TestParkingLotInTime(t *testing.T) {
	tor, err := graph.NewTorus([]int{7}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, route.NewDOR(tor), []Flow{
		{Src: 0, Dst: 3, Size: 4},
		{Src: 0, Dst: 1, Size: 1},
		{Src: 1, Dst: 2, Size: 2},
		{Src: 2, Dst: 3, Size: 3},
	})
	expectTimes(t, res, []float64{0, 0, 0, 0}, []float64{7, 2, 4, 6})
}

// TestMultipath: ECMP splits the half-way flow 0→2 on a 4-node ring over
// the + and − paths; both halves share server 0's link (1/2 each), so
// size 3 completes at 3, as on one path. With a second flow 0→1 (size 1)
// sharing server 0's link three ways, the halves run at 1/3 each: 0→1
// completes at 3; the halves have 1.5-1 = 0.5 left each at 1/2: done at 4.
func TestMultipath(t *testing.T) {
	tor, err := graph.NewTorus([]int{4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := route.NewECMP(tor.Graph, 0)
	res := run(t, e, []Flow{{Src: 0, Dst: 2, Size: 3}})
	expectTimes(t, res, []float64{0}, []float64{3})
	res = run(t, e, []Flow{{Src: 0, Dst: 2, Size: 3}, {Src: 0, Dst: 1, Size: 1}})
	expectTimes(t, res, []float64{0, 0}, []float64{4, 3})
}

// TestRateCap: two flows share server 0's link; A is capped at 0.25, so
// B gets 0.75. A (size 1) completes at 4; B (size 1.5) at 2.
func TestRateCap(t *testing.T) {
	res := run(t, ring(t, 1), []Flow{{Src: 0, Dst: 1, Size: 1, RateCap: 0.25}, {Src: 0, Dst: 2, Size: 1.5}})
	expectTimes(t, res, []float64{0, 0}, []float64{4, 2})
}

// TestUnreachable: a flow to a server with no path never completes, nor
// does a flow depending on it; the others are unaffected.
func TestUnreachable(t *testing.T) {
	g, err := graph.New(3, 2, []graph.Link{
		{From: 0, To: 3, Capacity: 1}, {From: 3, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1},
		{From: 3, To: 1, Capacity: 1}, {From: 2, To: 4, Capacity: 1}, {From: 4, To: 2, Capacity: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := route.NewECMP(g, 1)
	res := run(t, e, []Flow{{Src: 0, Dst: 2, Size: 1}, {Src: 0, Dst: 1, Size: 1, Deps: []int{0}}, {Src: 1, Dst: 0, Size: 2}})
	expectTimes(t, res, []float64{0, math.Inf(1), 0}, []float64{math.Inf(1), math.Inf(1), 2})
	if res.Unfinished != 2 || res.Makespan != 2 {
		t.Errorf("unfinished %d makespan %v", res.Unfinished, res.Makespan)
	}
}

// TestManyFlowsConserve: on a 4-ary 2-tree with 64 flows of random sizes
// and start times, every flow completes no earlier than its size allows
// at full link rate and the run is deterministic.
func TestManyFlowsConserve(t *testing.T) {
	tr, err := graph.NewTree(4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := route.NewDModK(tr)
	var flows []Flow
	x := uint64(1)
	next := func() float64 { x = x*6364136223846793005 + 1442695040888963407; return float64(x>>11) / (1 << 53) }
	for i := range 64 {
		src := int32(i % 16)
		dst := int32((i*7 + 3) % 16)
		if dst == src {
			dst = (dst + 1) % 16
		}
		f := Flow{Src: src, Dst: dst, Size: 0.1 + 3*next(), Start: 5 * next()}
		if i >= 8 && i%3 == 0 {
			f.Deps = []int{i - 8}
			f.Delay = next()
		}
		flows = append(flows, f)
	}
	a := run(t, r, flows)
	b := run(t, r, flows)
	for i, f := range flows {
		if a.Finish[i] != b.Finish[i] || a.Start[i] != b.Start[i] {
			t.Fatalf("flow %d differs between runs", i)
		}
		if a.Finish[i] < a.Start[i]+f.Size*(1-1e-12) {
			t.Errorf("flow %d: [%v, %v] is shorter than its size %v at rate 1", i, a.Start[i], a.Finish[i], f.Size)
		}
		if a.Start[i] < f.Start {
			t.Errorf("flow %d starts at %v before %v", i, a.Start[i], f.Start)
		}
		for _, d := range f.Deps {
			if a.Start[i] < a.Finish[d]+f.Delay*(1-1e-12) {
				t.Errorf("flow %d starts at %v before its dependency %d completes (%v) plus %v", i, a.Start[i], d, a.Finish[d], f.Delay)
			}
		}
	}
	if a.Unfinished != 0 {
		t.Errorf("%d flows unfinished", a.Unfinished)
	}
}

func TestErrors(t *testing.T) {
	r := ring(t, 1)
	for _, c := range []struct {
		flows []Flow
		want  string
	}{
		{[]Flow{{Src: 0, Dst: 4}}, "dynamic flow 0 dst: 4 is not allowed: must be a server, in [0, 4)"},
		{[]Flow{{Src: -1, Dst: 1}}, "dynamic flow 0 src: -1 is not allowed"},
		{[]Flow{{Src: 0, Dst: 1, Size: -1}}, "dynamic flow 0 size: -1 is not allowed"},
		{[]Flow{{Src: 0, Dst: 1, Start: math.NaN()}}, "dynamic flow 0 start: NaN is not allowed"},
		{[]Flow{{Src: 0, Dst: 1, Delay: math.Inf(1)}}, "dynamic flow 0 delay: +Inf is not allowed"},
		{[]Flow{{Src: 0, Dst: 1, RateCap: -2}}, "dynamic flow 0 rate cap: -2 is not allowed"},
		{[]Flow{{Src: 0, Dst: 1, Deps: []int{0}}}, "dynamic flow 0 deps[0]: 0 is not allowed: must be another flow"},
		{[]Flow{{Src: 0, Dst: 1, Deps: []int{3}}}, "dynamic flow 0 deps[0]: 3 is not allowed"},
		{[]Flow{{Src: 0, Dst: 1}, {Src: 0, Dst: 1, Deps: []int{2}}, {Src: 0, Dst: 1, Deps: []int{1}}}, "dynamic flow 1 deps: [2] is not allowed: the dependencies form a cycle"},
	} {
		_, err := Run(r, c.flows)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.flows, err, c.want)
		}
	}
}

// TestInterrupt: a chain of three flows of size 1 interrupted after the
// first batch in which a flow completed (time 1) reports the first flow
// done, the others not, and says it was interrupted; without the
// interrupt the chain ends at 3.
func TestInterrupt(t *testing.T) {
	r := ring(t, 1)
	flows := []Flow{{Src: 0, Dst: 1, Size: 1}, {Src: 1, Dst: 2, Size: 1, Deps: []int{0}}, {Src: 2, Dst: 3, Size: 1, Deps: []int{1}}}
	var stop bool
	res, err := RunWith(r, flows, Options{Interrupt: func() bool { return stop }})
	if err != nil || res.Interrupted || res.Makespan != 3 {
		t.Fatalf("uninterrupted: %+v, %v", res, err)
	}
	batches := 0
	res, err = RunWith(r, flows, Options{Interrupt: func() bool { batches++; return batches == 2 }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Finish[0] != 1 || !math.IsInf(res.Finish[2], 1) || res.Unfinished != 0 {
		t.Errorf("interrupted: finish %v, interrupted %t, unfinished %d", res.Finish, res.Interrupted, res.Unfinished)
	}
}

// TestInterruptWhileAdding: a list of 2^16 + 5 flows whose interrupt
// says to stop from the start stops while its flows are added (asked
// once, at the 2^16th), before any batch: nothing completes, nothing is
// reported unfinished.
func TestInterruptWhileAdding(t *testing.T) {
	r := ring(t, 1)
	flows := make([]Flow, 1<<16+5)
	for i := range flows {
		flows[i] = Flow{Src: int32(i % 4), Dst: int32((i + 1) % 4), Size: 1}
	}
	asked := 0
	res, err := RunWith(r, flows, Options{Interrupt: func() bool { asked++; return true }})
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, f := range res.Finish {
		if !math.IsInf(f, 1) {
			done++
		}
	}
	if !res.Interrupted || asked != 1 || res.Batches != 0 || done != 0 || res.Unfinished != 0 {
		t.Errorf("interrupted %t after %d questions, %d batches, %d completed, %d unfinished; want true, 1, 0, 0, 0",
			res.Interrupted, asked, res.Batches, done, res.Unfinished)
	}
}

// sequentialAllToAll is all-to-all as a NIC sends it message by message:
// server s sends to s+1, s+2, ... (mod n), each flow after the previous
// one of its server; it returns the makespan and the mean completion.
func sequentialAllToAll(t *testing.T, r route.Router, size float64) (float64, float64) {
	t.Helper()
	n := r.Graph().NumServers()
	var flows []Flow
	for s := range n {
		for k := 1; k < n; k++ {
			f := Flow{Src: int32(s), Dst: int32((s + k) % n), Size: size}
			if k > 1 {
				f.Deps = []int{len(flows) - 1}
			}
			flows = append(flows, f)
		}
	}
	res, err := Run(r, flows)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, x := range res.Finish {
		sum += x
	}
	return res.Makespan, sum / float64(len(flows))
}

// TestSequentialAllToAll: the flow-level side of docs/flow.md's
// all-to-all completion times against the cycle level. On the 8-ary
// 2-tree every step k is the shift-k permutation, whose flows d-mod-k
// gives links of their own: each message takes 512 at rate 1, message k
// completes at 512k, so the makespan is 63 · 512 = 32,256 and the mean
// completion 512 · 32 = 16,384; at capacity 0.45 all times scale by
// 1/0.45. On the 5x5 torus of 4 servers a switch (DOR) the most loaded
// link carries 240 of the 9,900 flows, so no order of sending ends
// before 240 · 512 = 122,880; the figures are logged (-v).
func TestSequentialAllToAll(t *testing.T) {
	tr, err := graph.NewTree(8, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	mk, mean := sequentialAllToAll(t, route.NewDModK(tr), 512)
	if mk != 32256 || math.Abs(mean-16384) > 1e-6 {
		t.Errorf("tree: makespan %v, mean completion %v: want 32256, 16384", mk, mean)
	}
	tr45, err := graph.NewTree(8, 2, 0.45)
	if err != nil {
		t.Fatal(err)
	}
	mk, mean = sequentialAllToAll(t, route.NewDModK(tr45), 512)
	if math.Abs(mk-32256/0.45) > 1e-6 || math.Abs(mean-16384/0.45) > 1e-6 {
		t.Errorf("tree, capacity 0.45: makespan %v, mean completion %v: want %v, %v", mk, mean, 32256/0.45, 16384/0.45)
	}
	for _, c := range []float64{1, 0.45} {
		to, err := graph.NewTorus([]int{5, 5}, 4, c)
		if err != nil {
			t.Fatal(err)
		}
		mk, mean := sequentialAllToAll(t, route.NewDOR(to), 512)
		t.Logf("5x5 torus, 4 servers a switch, capacity %v: makespan %.6g, mean completion %.6g", c, mk, mean)
		if mk < 240*512/c {
			t.Errorf("torus, capacity %v: makespan %v below the bound %v", c, mk, 240*512/c)
		}
	}
}

// TestStartQuantum: A (0→1, size 1) ready at 0.3 and B (0→2, size 1.5)
// ready at 0.7 share server 0's link; C (1→2, size 1) follows A after
// 0.2 and shares switch 1's + link and the link to server 2 with B.
//
// Exact: A alone until 0.7 (0.6 left), then 1/2 each: A completes at
// 1.9, B has 0.9 left; C is ready at 2.1, B alone meanwhile (0.7 left);
// then 1/2 each: B completes at 3.5, C has 0.3 left, alone: 3.8.
//
// Starts on a grid of 0.5: A starts at 0.5, B at 1; A alone until 1 (0.5
// left), then 1/2 each: A completes at 2, B has 1 left; C, ready at 2.2,
// starts at 2.5, B alone meanwhile (0.5 left); then 1/2 each: B completes
// at 3.5, C has 0.5 left, alone: 4.
func TestStartQuantum(t *testing.T) {
	flows := []Flow{
		{Src: 0, Dst: 1, Size: 1, Start: 0.3},
		{Src: 0, Dst: 2, Size: 1.5, Start: 0.7},
		{Src: 1, Dst: 2, Size: 1, Deps: []int{0}, Delay: 0.2},
	}
	quantized := func(q float64) *Result {
		t.Helper()
		res, err := RunWith(ring(t, 1), flows, Options{StartQuantum: q})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	expectTimes(t, quantized(0), []float64{0.3, 0.7, 2.1}, []float64{1.9, 3.5, 3.8})
	res := quantized(0.5)
	expectTimes(t, res, []float64{0.5, 1, 2.5}, []float64{2, 3.5, 4})
	if res.Batches != 6 {
		t.Errorf("batches %d, want 6 (0.5, 1, 2, 2.5, 3.5, 4)", res.Batches)
	}
	// Three flows of size 1 over one link, ready at 0.1, 0.2 and 0.3, on
	// a grid of 1: one batch starts them at 1, a third each, and one ends
	// them at 4.
	three := []Flow{{Src: 0, Dst: 1, Size: 1, Start: 0.1}, {Src: 0, Dst: 1, Size: 1, Start: 0.2}, {Src: 0, Dst: 1, Size: 1, Start: 0.3}}
	res, err := RunWith(ring(t, 1), three, Options{StartQuantum: 1})
	if err != nil {
		t.Fatal(err)
	}
	expectTimes(t, res, []float64{1, 1, 1}, []float64{4, 4, 4})
	if res.Batches != 2 {
		t.Errorf("batches %d, want 2", res.Batches)
	}
	// A barrier (size 0) after them and a flow to its own source at 0.5
	// cross no link: not delayed. The flow after the barrier, ready at
	// 4.25, starts at 5 and completes at 6.
	three = append(three, Flow{Src: 2, Dst: 3, Deps: []int{0, 1, 2}}, Flow{Src: 2, Dst: 2, Size: 1, Start: 0.5},
		Flow{Src: 0, Dst: 1, Size: 1, Deps: []int{3}, Delay: 0.25})
	if res, err = RunWith(ring(t, 1), three, Options{StartQuantum: 1}); err != nil {
		t.Fatal(err)
	}
	expectTimes(t, res, []float64{1, 1, 1, 4, 0.5, 5}, []float64{4, 4, 4, 4, 0.5, 6})
	// A grid finer than the gaps between events changes the times by
	// less than its step.
	res = quantized(0.1)
	for i, want := range []float64{0.3, 0.7, 2.1} {
		if k := res.Start[i] / 0.1; math.Abs(k-math.Round(k)) > 1e-9 || res.Start[i] < want || res.Start[i]-want > 1e-12 {
			t.Errorf("flow %d starts at %v, want %v's grid point", i, res.Start[i], want)
		}
	}
	expectTimes(t, res, []float64{0.3, 0.7, 2.1}, []float64{1.9, 3.5, 3.8})
	// A grid finer than the times' precision leaves them as they are
	// (t/q beyond float64's range), instead of starting a flow at +Inf.
	late := []Flow{{Src: 0, Dst: 1, Size: 1, Start: 1e10}}
	if res, err := RunWith(ring(t, 1), late, Options{StartQuantum: 1e-300}); err != nil || res.Start[0] != 1e10 || res.Finish[0] != 1e10+1 {
		t.Errorf("grid of 1e-300, start 1e10: %+v, %v", res, err)
	}
	for _, q := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := RunWith(ring(t, 1), flows, Options{StartQuantum: q}); err == nil || !strings.Contains(err.Error(), "dynamic start quantum: ") || !strings.Contains(err.Error(), "must be in [0, 1e300]") {
			t.Errorf("quantum %v: error %v", q, err)
		}
	}
}

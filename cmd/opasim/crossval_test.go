package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/sim"
)

// crossCase is one network and pattern run on both engines.
type crossCase struct {
	name        string
	topo        fabric.TopologyConfig
	cyclePat    string // the cycle-level pattern
	flowPattern func(n int) (static.Pattern, error)
	router      func() (route.Router, error)
	low         float64 // the lowest cycle/flow ratio accepted (0: 0.85)
}

// flowPerNIC is the flow-level prediction of the cycle-level accepted
// throughput at load 1.0. For a permutation: every flow of the pattern at
// its max-min fair rate (unit links), summed, plus one flit/cycle for each
// NIC the cycle-level pattern maps to itself (it sends to itself through
// its own links at full rate), over the NICs. For uniform traffic, which
// sends the same to every destination: every flow of all-to-all at the
// lowest max-min rate (seed 001's restricted throughput), over the NICs.
func flowPerNIC(t *testing.T, r route.Router, p static.Pattern, selfSenders int, uniform bool) float64 {
	t.Helper()
	g := r.Graph()
	s, err := maxmin.New(g.Capacities())
	if err != nil {
		t.Fatal(err)
	}
	var ids []maxmin.FlowID
	p.Flows(0, int32(p.Servers()), func(src, dst int32) {
		err := r.Route(src, dst, func(links []int32, share float64) {
			id, err := s.AddFlow(append([]int32(nil), links...), maxmin.NoCap)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	s.SolveAll()
	sum, low := float64(selfSenders), math.Inf(1)
	for _, id := range ids {
		sum += s.Rate(id)
		low = min(low, s.Rate(id))
	}
	if uniform {
		return float64(len(ids)) * low / float64(g.NumServers())
	}
	return sum / float64(g.NumServers())
}

// TestFlowAgreesWithCycleLevel: the flow engine's max-min prediction of
// the throughput each NIC gets at saturation against the cycle-level
// engine's accepted throughput at load 1.0 (uniform sizes of 16-flit
// packets, 20,000 cycles, 5,000 of warm-up), on the 8-ary 2-tree (d-mod-k
// both) and a 5x5 torus of 4 NICs a switch, one link a direction (DOR
// both; odd rings, so no ties, whose rules differ). The cycle level is
// below the flow level by what the switch loses inside (its allocator
// and head-of-line blocking: the 48-port switch saturates at 0.89 under
// uniform traffic, docs/results.md), within 15% on the tree and for a
// permutation on the torus, 40% for uniform traffic on the torus, and
// never above it by more than the measurement's noise; docs/flow.md has
// the table.
func TestFlowAgreesWithCycleLevel(t *testing.T) {
	if testing.Short() {
		t.Skip("cycle-level runs")
	}
	tree := fabric.TopologyConfig{Preset: "tree-8ary-2"}
	torus := fabric.TopologyConfig{Kind: "torus", Dims: []int{5, 5}, NICsPerSwitch: 4, Trunk: 1}
	treeRouter := func() (route.Router, error) {
		tr, err := graph.NewTree(8, 2, 1)
		if err != nil {
			return nil, err
		}
		return route.NewDModK(tr), nil
	}
	torusRouter := func() (route.Router, error) {
		to, err := graph.NewTorus([]int{5, 5}, 4, 1)
		if err != nil {
			return nil, err
		}
		return route.NewDOR(to), nil
	}
	bitPerm := func(kind string) func(int) (static.Pattern, error) {
		return func(n int) (static.Pattern, error) { return workload.BitPermutation(kind, n) }
	}
	shift := func(n int) (static.Pattern, error) { return static.Shift(n, 1) }
	cases := []crossCase{
		{"tree neighbour", tree, "neighbour", shift, treeRouter, 0},
		{"tree bit complement", tree, "bit_complement", static.BitComplement, treeRouter, 0},
		{"tree bit reversal", tree, "bit_reversal", bitPerm(workload.BitReversal), treeRouter, 0},
		{"tree transpose", tree, "transpose", bitPerm(workload.BitTranspose), treeRouter, 0},
		{"tree shuffle", tree, "shuffle", bitPerm(workload.PerfectShuffle), treeRouter, 0},
		{"tree uniform / all-to-all", tree, "uniform", static.AllToAll, treeRouter, 0},
		{"torus neighbour", torus, "neighbour", shift, torusRouter, 0},
		// Uniform on the torus reaches 0.69 of the channel-load bound
		// (measured; why is not isolated: DOR with datelines, splitting
		// each buffer's VLs between two SCs, is one hypothesis).
		{"torus uniform / all-to-all", torus, "uniform", static.AllToAll, torusRouter, 0.6},
	}
	for _, c := range cases {
		r, err := c.router()
		if err != nil {
			t.Fatal(err)
		}
		n := r.Graph().NumServers()
		p, err := c.flowPattern(n)
		if err != nil {
			t.Fatal(err)
		}
		self := 0
		if c.cyclePat != "uniform" {
			flows := 0
			p.Flows(0, int32(n), func(int32, int32) { flows++ })
			self = n - flows // a permutation: the NICs without a flow send to themselves
		}
		want := flowPerNIC(t, r, p, self, c.cyclePat == "uniform")

		cfg := fabric.Default()
		cfg.Topology = c.topo
		cfg.Traffic.Pattern, cfg.Traffic.Load = c.cyclePat, 1.0
		cfg.Cycles, cfg.Warmup, cfg.Engine = 20000, 5000, "sequential"
		if c.topo.Kind == "torus" {
			cfg.Switch.CentralBufferFlits = 1024 // a lane per (direction, VL): 5 x 8 x 16 flits reserved
		}
		n2, err := sim.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Execute(context.Background(), n2, sim.Sequential{}, sim.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		got := res.AcceptedThroughput
		ratio := got / want
		t.Logf("%-28s flow %.4f, cycle %.4f, cycle/flow %.3f", c.name, want, got, ratio)
		low := c.low
		if low == 0 {
			low = 0.85
		}
		if ratio > 1.01 || ratio < low || math.IsNaN(ratio) {
			t.Errorf("%s: cycle level %.4f against the flow level's %.4f (ratio %.3f, want %.2f to 1.01)", c.name, got, want, ratio, low)
		}
	}
}

// writeVEF writes, as name in dir, a trace of independent messages, all
// released at time 0: NIC s sends one message of size bytes to each of
// dst(s, 1), ..., dst(s, n-1), in that order, leaving out those to s
// itself. It returns the file's path.
func writeVEF(t *testing.T, dir, name string, n, size int, dst func(s, k int) int) string {
	t.Helper()
	var msgs strings.Builder
	id := 0
	for s := range n {
		for k := 1; k < n; k++ {
			if d := dst(s, k); d != s {
				fmt.Fprintf(&msgs, "%d %d %d %d 0 0 -1\n", id, s, d, size)
				id++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "VEF %d %d 1 0 0 TRUE\nC0", n, id)
	for i := range n {
		fmt.Fprintf(&b, " %d", i)
	}
	b.WriteString("\n")
	b.WriteString(msgs.String())
	return writer(t, dir)(name, b.String())
}

// replayCycles replays a trace alone (load 0, SL 0) on the 8-ary 2-tree
// at the cycle level, with a VL's buffer space at most maxVL flits (0:
// the default), and returns its execution time and the mean completion
// time of its messages (all generated at 0).
func replayCycles(t *testing.T, trace string, maxVL int) (float64, float64) {
	t.Helper()
	cfg := fabric.Default()
	if maxVL > 0 {
		cfg.Switch.MaxVLFlits = maxVL
	}
	cfg.Topology = fabric.TopologyConfig{Preset: "tree-8ary-2"}
	cfg.Trace.File, cfg.Trace.SL, cfg.Traffic.Load = trace, 0, 0
	cfg.Cycles, cfg.Warmup, cfg.Engine = TraceCycles, 0, "sequential"
	n, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Execute(context.Background(), n, sim.Sequential{}, sim.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace == nil || !res.Trace.Finished {
		t.Fatalf("%s: the replay did not finish", trace)
	}
	return float64(res.Trace.ExecutionCycles), res.Trace.Latency.MeanCycles
}

// The completion-time cross-validation's tree and messages: the 8-ary
// 2-tree's 64 NICs, messages of 4 KiB.
const xvNICs, xvSize = 64, 4096

// oneStreamRate writes, in dir, the calibration trace — every NIC sends
// 63 messages to its neighbour (s+1), a permutation with links of its
// own — replays it at the cycle level, and returns a message's flits,
// the rate one stream of one SL got, and the replay's time.
func oneStreamRate(t *testing.T, dir string) (flits, rate, cycles float64) {
	t.Helper()
	flits = float64(xvSize / fabric.Default().Switch.BytesPerFlit)
	shift := writeVEF(t, dir, "shift.vef", xvNICs, xvSize, func(s, _ int) int { return (s + 1) % xvNICs })
	cycles, _ = replayCycles(t, shift, 0)
	return flits, (xvNICs - 1) * flits / cycles, cycles
}

// TestCompletionTimesAgree: the flow level predicts the cycle level's
// all-to-all completion times on the 8-ary 2-tree once given the NIC's
// order of sending and a per-flow rate measured at the cycle level on
// another pattern. Calibration: every NIC sends 63 messages of 4 KiB to
// its neighbour (s+1), a permutation with links of its own, so the
// cycle level's rate is what one stream of one SL gets (one VL: buffer
// space over the credit loop). Prediction: the all-to-all (NIC s to s+1,
// s+2, ... in that order), each NIC's flows chained at the flow level on
// links of that capacity; the cycle level's makespan and mean completion
// within 2% of it (docs/flow.md, "Cross-validation").
func TestCompletionTimesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("cycle-level replays")
	}
	const n, size = xvNICs, xvSize
	dir := t.TempDir()
	flits, rate, calib := oneStreamRate(t, dir)
	a2a := writeVEF(t, dir, "a2a.vef", n, size, func(s, k int) int { return (s + k) % n })
	cycMake, cycMean := replayCycles(t, a2a, 0)

	tr, err := graph.NewTree(8, 2, rate)
	if err != nil {
		t.Fatal(err)
	}
	flowMake, flowMean := chainedFlowTimes(t, tr, n, flits, 0, func(s, k int) int { return (s + k) % n })
	t.Logf("calibration: %d messages of %.0f flits a NIC to its neighbour in %.0f cycles: %.4f flits/cycle", n-1, flits, calib, rate)
	t.Logf("all-to-all makespan: cycle %.0f, flow %.0f (%+.2f%%)", cycMake, flowMake, 100*(flowMake/cycMake-1))
	t.Logf("all-to-all mean completion: cycle %.0f, flow %.0f (%+.2f%%)", cycMean, flowMean, 100*(flowMean/cycMean-1))
	if math.Abs(flowMake/cycMake-1) > 0.02 || math.Abs(flowMean/cycMean-1) > 0.02 {
		t.Errorf("flow level makespan %.0f and mean completion %.0f, cycle level %.0f and %.0f: want within 2%%",
			flowMake, flowMean, cycMake, cycMean)
	}
}

// TestPermutationCompletionTimes: the flow level against the cycle
// level's completion times of permutations on the 8-ary 2-tree, given
// the per-flow rate measured at the cycle level on another pattern
// (TestCompletionTimesAgree's calibration: 63 messages of 4 KiB a NIC to
// its neighbour). The flow level's links keep capacity 1 and every flow
// is capped at that rate (RateCap): a flow with links of its own runs at
// the cap; flows that share a link split it max-min. Each NIC sends 63
// messages of 4 KiB to its partner, one after another (the 8 NICs bit
// reversal maps to themselves send nothing, on both levels).
//
//   - Bit complement: every flow has links of its own (through the
//     spine), so the flow level's makespan is 63·512/rate, the
//     calibration's time, and its mean completion 32·512/rate. The cycle
//     level must agree within 2%: crossing the spine costs no more
//     than staying in a leaf.
//   - Bit reversal: d-mod-k sends the flows of a leaf's 8 servers up by
//     their destinations' low 3 bits, the sources' reversed leaf
//     number, so the 7 that leave the leaf share one uplink at 1/7
//     each: 63·512·7 = 225,792 cycles. The flow level is an upper bound
//     on the rate; the cycle level, 7 streams of one SL sharing a link
//     and so a VL, is measured about 21% slower, and must be within
//     [1, 1.3] times the flow level's makespan and mean completion.
//     The cause: a VL's buffer space (max_vl_flits, 48). With 96, and
//     nothing else changed, the cycle level must agree within 2% — the
//     flow level's times do not depend on it, as 1/7 is under the cap
//     (docs/flow.md, "Cross-validation").
func TestPermutationCompletionTimes(t *testing.T) {
	if testing.Short() {
		t.Skip("cycle-level replays")
	}
	const n, size = xvNICs, xvSize
	dir := t.TempDir()
	flits, rate, _ := oneStreamRate(t, dir)
	t.Logf("calibration: %.4f flits/cycle a flow", rate)
	rev := func(s int) int {
		r := 0
		for b := range 6 {
			if s&(1<<b) != 0 {
				r |= 1 << (5 - b)
			}
		}
		return r
	}
	tr, err := graph.NewTree(8, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		name               string
		dst                func(s int) int
		maxVL              int     // max_vl_flits at the cycle level (0: default)
		flowMake, flowMean float64 // by hand
		lo, hi             float64 // cycle / flow
	}{
		{"bit complement", func(s int) int { return s ^ (n - 1) }, 0, (n - 1) * flits / rate, n / 2 * flits / rate, 0.98, 1.02},
		{"bit reversal", rev, 0, (n - 1) * flits * 7, n / 2 * flits * 7, 1, 1.3},
		{"bit reversal, max_vl_flits 96", rev, 96, (n - 1) * flits * 7, n / 2 * flits * 7, 0.98, 1.02},
	} {
		trace := writeVEF(t, dir, fmt.Sprintf("perm%d.vef", i), n, size, func(s, _ int) int { return c.dst(s) })
		cycMake, cycMean := replayCycles(t, trace, c.maxVL)
		flowMake, flowMean := chainedFlowTimes(t, tr, n, flits, rate, func(s, _ int) int { return c.dst(s) })
		t.Logf("%s makespan: cycle %.0f, flow %.0f (%+.2f%%); mean completion: cycle %.0f, flow %.0f (%+.2f%%)",
			c.name, cycMake, flowMake, 100*(flowMake/cycMake-1), cycMean, flowMean, 100*(flowMean/cycMean-1))
		if !near(flowMake, c.flowMake) || !near(flowMean, c.flowMean) {
			t.Errorf("%s: flow level makespan %.2f and mean completion %.2f, want %.2f and %.2f (by hand)", c.name, flowMake, flowMean, c.flowMake, c.flowMean)
		}
		for _, r := range []float64{cycMake / flowMake, cycMean / flowMean} {
			if !(r >= c.lo && r <= c.hi) {
				t.Errorf("%s: cycle level makespan %.0f and mean completion %.0f, %.3f and %.3f times the flow level's: want each in [%.2f, %.2f]",
					c.name, cycMake, cycMean, cycMake/flowMake, cycMean/flowMean, c.lo, c.hi)
				break
			}
		}
	}
}

// chainedFlowTimes runs at the flow level, with d-mod-k on tree tr, the
// messages writeVEF writes for dst: every NIC s sends flits to dst(s, 1),
// ..., dst(s, n-1), each flow after the NIC's previous one, capped at
// rateCap (0: none), leaving out those to s itself. It returns the
// makespan and the mean completion time.
func chainedFlowTimes(t *testing.T, tr *graph.Tree, n int, flits, rateCap float64, dst func(s, k int) int) (float64, float64) {
	t.Helper()
	var flows []dynamic.Flow
	for s := range n {
		first := true
		for k := 1; k < n; k++ {
			d := dst(s, k)
			if d == s {
				continue
			}
			f := dynamic.Flow{Src: int32(s), Dst: int32(d), Size: flits, RateCap: rateCap}
			if !first {
				f.Deps = []int{len(flows) - 1}
			}
			first = false
			flows = append(flows, f)
		}
	}
	res, err := dynamic.Run(route.NewDModK(tr), flows)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, x := range res.Finish {
		sum += x
	}
	return res.Makespan, sum / float64(len(flows))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

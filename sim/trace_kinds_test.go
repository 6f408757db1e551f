package sim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/workloads/replay"
	"github.com/opasim/opasim/workloads/tracegen"
	"github.com/opasim/opasim/workloads/vef"
)

// genTrace writes the trace p describes into a temporary file.
func genTrace(t *testing.T, p tracegen.Params) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), p.Kind+".vef")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tracegen.Write(f, p); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTraceKindsOnSwitch replays a trace of every generator kind, 8 tasks
// on an 8-port switch (a task a NIC, every message through the switch),
// and checks: the trace ends; the messages delivered are exactly those the
// kind and the collectives' algorithms give (counted by hand below); the
// execution time is at least the trace's critical path (replay.
// CriticalPath with the fewest cycles from a message's last flit leaving
// to its arrival, FLY + L = 8 + 158: the header's time through the switch
// within an MPort, TestZeroLoadHeaderLatency); and both engines give the
// same digest, execution time and task ends.
func TestTraceKindsOnSwitch(t *testing.T) {
	const tasks, iters = 8, 3
	// 8 tasks: stencil3d is a 2x2x2 grid, 3 distinct neighbours each, with
	// an allreduce (recursive doubling: 3 rounds of 8 messages) after every
	// iteration; hpl is a 2x4 grid: per step 2 row broadcasts (binomial
	// over 4 ranks: 3 messages each) and, in each of the 4 columns, one
	// swap each way (2 messages); randomaccess sends 4 updates a task an
	// iteration, with a barrier (dissemination over 8: 3 rounds of 8)
	// between iterations; alltoall (pairwise) is 7 rounds of 8; the ring
	// one message a task an iteration.
	cases := []struct {
		p    tracegen.Params
		want int64
	}{
		{tracegen.Params{Kind: "stencil3d", Bytes: 512, ComputeNS: 200}, iters * (8*3 + 3*8)},
		{tracegen.Params{Kind: "hpl", Bytes: 1024, ComputeNS: 300}, iters * (2*3 + 4*2)},
		{tracegen.Params{Kind: "randomaccess", Bytes: 64, ComputeNS: 50, Updates: 4, Seed: 5}, iters*8*4 + (iters-1)*3*8},
		{tracegen.Params{Kind: "alltoall", Bytes: 256, ComputeNS: 100}, iters * 7 * 8},
		{tracegen.Params{Kind: "ring", Bytes: 2048, ComputeNS: 1000}, iters * 8},
	}
	for _, tc := range cases {
		p := tc.p
		p.Tasks, p.Iterations = tasks, iters
		path := genTrace(t, p)
		cfg := traceConfig(path)
		var first *sim.Results
		for _, engine := range []string{"sequential", "actors"} {
			cfg.Engine = engine
			r := simulate(t, cfg)
			tr := r.Trace
			if !tr.Finished || tr.Messages != tc.want || !r.ConservationOK {
				t.Fatalf("%s, %s: finished %v, %d messages (want %d), conservation %v", p.Kind, engine, tr.Finished, tr.Messages, tc.want, r.ConservationOK)
			}
			if first == nil {
				first = r
				continue
			}
			if r.Digest != first.Digest || tr.ExecutionCycles != first.Trace.ExecutionCycles || !slices.Equal(tr.TaskEndCycles, first.Trace.TaskEndCycles) {
				t.Errorf("%s: actors digest %s, execution %d; sequential %s, %d", p.Kind, r.Digest, tr.ExecutionCycles, first.Digest, first.Trace.ExecutionCycles)
			}
		}
		lat := cfg.Switch.Latency
		bound := criticalPath(t, path, cfg.NumNICs(), clock.Cycle(lat.Fly+lat.RT+lat.SBIn+lat.AT+lat.XMPort+lat.SBOut+lat.Fly))
		if first.Trace.ExecutionCycles < int64(bound.ExecutionCycle) {
			t.Errorf("%s: execution %d cycles, below the critical path %d", p.Kind, first.Trace.ExecutionCycles, bound.ExecutionCycle)
		}
		if bound.Messages != tc.want {
			t.Errorf("%s: the critical path has %d messages, want %d", p.Kind, bound.Messages, tc.want)
		}
		t.Logf("%s: execution %d cycles, critical path %d", p.Kind, first.Trace.ExecutionCycles, bound.ExecutionCycle)
		if p.Kind == "ring" {
			// By hand: every iteration a 256-flit message crosses (255
			// cycles to send, 166 to arrive), then the receiver waits
			// 1 + ⌈1000 ns / 0.64 ns⌉ = 1 + 1563 before sending on.
			if want := clock.Cycle(iters*(255+166) + (iters-1)*(1+1563)); bound.ExecutionCycle != want {
				t.Errorf("ring: critical path %d cycles, want %d", bound.ExecutionCycle, want)
			}
		}
	}
}

func criticalPath(t *testing.T, path string, nics int, latency clock.Cycle) replay.Results {
	t.Helper()
	open := func() (*vef.Reader, error) { return vef.Open(path) }
	res, err := replay.CriticalPath(open, replay.Options{NICs: nics, BytesPerFlit: 8,
		CyclesOf: func(ns int64) clock.Cycle { return clock.Cycle((ns*25 + 15) / 16) }}, latency, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Finished {
		t.Fatalf("%s: the critical path replay did not finish", path)
	}
	return res
}

// TestTraceEnginesAgree replays 512-task traces of every kind on both of
// seed 000 section 4.3's networks (an 8-ary 2-tree of 64 NICs: 8 tasks a
// NIC; a 4x4 torus of 128 NICs: 4 a NIC), with the paper mix's QoS and
// background traffic at 0.1, the trace in CL; the actor engine at
// GOMAXPROCS 1 and 2, with its own partitions and with 5 fixed ones,
// gives the sequential engine's digest, execution time and task ends.
func TestTraceEnginesAgree(t *testing.T) {
	kinds := []tracegen.Params{
		{Kind: "stencil3d", Iterations: 2, Bytes: 256, ComputeNS: 500},
		{Kind: "hpl", Iterations: 2, Bytes: 256, ComputeNS: 500},
		{Kind: "randomaccess", Iterations: 2, Bytes: 64, Updates: 8, ComputeNS: 100, Seed: 3},
		{Kind: "alltoall", Iterations: 1, Bytes: 8},
		{Kind: "ring", Iterations: 4, Bytes: 1024, ComputeNS: 500},
	}
	presets := []string{"tree-8ary-2", "torus2d-4x4"}
	if testlong.Reduced(t) { // the race detector's run: one small case of each kind of state
		kinds, presets = []tracegen.Params{{Kind: "stencil3d", Iterations: 2, Bytes: 256, ComputeNS: 500}}, presets[:1]
	}
	variants := []struct {
		procs, parts int
		fixed        bool
	}{{1, 0, false}, {2, 0, false}, {2, 5, true}}
	for _, kp := range kinds {
		kp.Tasks = 512
		path := genTrace(t, kp)
		for _, preset := range presets {
			cfg := fabric.Default()
			if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
				t.Fatal(err)
			}
			cfg.Topology.Preset, cfg.Cycles, cfg.Warmup, cfg.Traffic.Load = preset, 1<<40, 0, 0.1
			cfg.QoS.Scheduler, cfg.Trace.File, cfg.Trace.SL = "dtable", path, 2
			name := fmt.Sprintf("%s on %s", kp.Kind, preset)
			want := simulate(t, cfg)
			if !want.Trace.Finished || !want.ConservationOK {
				t.Fatalf("%s: sequential: finished %v, conservation %v", name, want.Trace.Finished, want.ConservationOK)
			}
			for _, v := range variants {
				prev := runtime.GOMAXPROCS(v.procs)
				c := cfg
				c.Partitions = v.parts
				n, err := sim.Build(c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sim.Execute(context.Background(), n, actors.Engine{Fixed: v.fixed}, sim.Hooks{})
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				if got.Digest != want.Digest || got.Trace.ExecutionCycles != want.Trace.ExecutionCycles ||
					!slices.Equal(got.Trace.TaskEndCycles, want.Trace.TaskEndCycles) || got.Trace.Messages != want.Trace.Messages {
					t.Errorf("%s, %+v: digest %s, execution %d, %d messages; sequential %s, %d, %d", name, v,
						got.Digest, got.Trace.ExecutionCycles, got.Trace.Messages, want.Digest, want.Trace.ExecutionCycles, want.Trace.Messages)
				}
			}
		}
	}
}

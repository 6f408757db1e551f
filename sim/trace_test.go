package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// smallExample is VEF.md's example with every message one packet (64,
// 96, 128, 8 and 32 bytes: 8, 12, 16, 1 and 4 flits of 8 bytes), so that
// its timing on an idle switch follows from the zero-load latency.
const smallExample = `VEF 4 4 2 1 4 FALSE
C0 0 1 2 3
C1 0 1
0 0 1 64 0 0 -1
1 1 2 96 2 500 0
2 2 3 128 2 100 1
G0 0 2 0 8 8 1 0 0
G0 0 2 1 8 8 1 0 1
G0 0 2 2 8 8 1 0 2
G0 0 2 3 8 8 2 0 2
3 3 0 32 3 200 G0
`

func writeTrace(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.vef")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func traceConfig(path string) fabric.Config {
	cfg := fabric.Default()
	cfg.Topology.Ports, cfg.Cycles, cfg.Warmup, cfg.Traffic.Load = 8, 1_000_000, 0, 0
	cfg.Trace.File = path
	return cfg
}

// TestTraceOnSwitch replays smallExample on an idle 8-port switch (NICs
// 0-3 on one MPort) and checks every task's end against a hand computation
// from MODEL.md's zero-load latency. A packet of f flits generated in cycle
// t at an idle NIC arrives whole at t + FLY + L + f - 1, with L = RT + SBin
// + AT + XMPort + SBout + FLY = 158 the header's time through the switch
// (TestZeroLoadHeaderLatency); delays are 782 (500 ns), 157 (100 ns) and
// 313 (200 ns) cycles; a record is issued 1 + its delay after its event.
//
//	msg0 arrives a0 = L+15; msg1 issued a0+783, arrives a1 = a0+783+L+19;
//	msg2 issued a1+158, arrives a2 = a1+158+L+23 = 3L+998; task 2 sent it
//	at a2-L-8, so its part of G0 begins a2-L-7 and its round-0 message to
//	task 3 arrives a2+1, the cycle task 3's part begins (after receiving
//	msg2): task 3's round 0 ends then, round 1 sends to task 1 at a2+2
//	(arrives a2+L+10) and receives task 1's round-1 message, long there.
//	Task 2's round 0 ends when task 3's message comes, a2+L+9, and its
//	round 1 sends at a2+L+10 (task 0's message is there): task 2 ends at
//	4L+1008. Task 3's part ends a2+2, msg3 is issued a2+316, its last flit
//	leaves a2+319 = 3L+1317 (task 3's end) and arrives a2+316+L+11 =
//	4L+1325 (task 0's end: its part ended earlier, at a2+2L+18).
//	Task 1 ends when task 3's round-1 message arrives: 4L+1008 on an ideal
//	switch, AT-1 = 15 cycles later here. That message left NIC 3 the cycle
//	after the round-0 one, on the other VL; the extra follows the
//	arbitration latency AT: 9, 15 and 23 cycles with AT 10, 16 and 24.
func TestTraceOnSwitch(t *testing.T) {
	cfg := traceConfig(writeTrace(t, smallExample))
	lat := cfg.Switch.Latency
	L := lat.RT + lat.SBIn + lat.AT + lat.XMPort + lat.SBOut + lat.Fly
	want := []int64{4*L + 1325, 4*L + 1008 + lat.AT - 1, 4*L + 1008, 3*L + 1317}
	for _, engine := range []string{"sequential", "actors"} {
		cfg.Engine = engine
		r := simulate(t, cfg)
		tr := r.Trace
		if tr == nil || !tr.Finished || tr.Stalled || !slices.Equal(tr.TaskEndCycles, want) || tr.ExecutionCycles != want[0] {
			t.Fatalf("%s: trace result %+v; want finished, task ends %v, execution %d", engine, tr, want, want[0])
		}
		if tr.Messages != 12 || tr.Flits != 8+12+16+4+8 || !r.ConservationOK || r.UndeliveredPackets != 0 {
			t.Errorf("%s: %d messages, %d flits, conservation %v, %d undelivered; want 12, 48, true, 0",
				engine, tr.Messages, tr.Flits, r.ConservationOK, r.UndeliveredPackets)
		}
		// The run ends at the end of the window in which the trace ended.
		if r.SimulatedCycles < tr.ExecutionCycles || r.SimulatedCycles > tr.ExecutionCycles+int64(cfg.MaxWindow()) {
			t.Errorf("%s: the run reached %d; the trace ended at %d", engine, r.SimulatedCycles, tr.ExecutionCycles)
		}
	}
}

func simulate(t *testing.T, cfg fabric.Config) *sim.Results {
	t.Helper()
	engines := map[string]sim.Engine{"sequential": sim.Sequential{}, "actors": actors.Engine{}}
	r, err := sim.Simulate(context.Background(), cfg, engines, sim.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTraceStallEndsRun: a trace that can never end stops the run at
// once, reported stalled with what waits, instead of running to cycles.
func TestTraceStallEndsRun(t *testing.T) {
	text := "VEF 2 1 1 1 2 FALSE\nC0 0 1\n" +
		"G0 0 2 1 8 8 0 0 -1\n" +
		"0 1 0 8 3 0 G0\n" +
		"G0 0 2 0 8 8 2 0 0\n"
	r := simulate(t, traceConfig(writeTrace(t, text)))
	tr := r.Trace
	if tr == nil || !tr.Stalled || tr.Finished || r.SimulatedCycles > 10_000 {
		t.Fatalf("trace %+v after %d cycles; want stalled at once", tr, r.SimulatedCycles)
	}
	if !strings.Contains(strings.Join(tr.Blocking, "\n"), "the record at line 5 waits for the receipt of message 0") {
		t.Errorf("blocking %q does not name the record at line 5", tr.Blocking)
	}
}

// TestTraceKeysRefused: trace keys are checked by name.
func TestTraceKeysRefused(t *testing.T) {
	path := writeTrace(t, smallExample)
	for _, tc := range []struct {
		set  func(*fabric.Config)
		want string
	}{
		{func(c *fabric.Config) { c.Trace.SL = 7 }, "trace.sl: 7 is not allowed: must be an index of qos.sls, in [0, 5)"},
		{func(c *fabric.Config) { c.Trace.Mapping = "spiral" }, `trace.mapping: "spiral" is not allowed`},
		{func(c *fabric.Config) { c.Trace.Mapping = fabric.MappingFile }, "trace.mapping_file"},
		{func(c *fabric.Config) { c.Trace.Collectives = map[string]string{"barrier": "ring"} }, `trace.collectives.barrier: "ring" is not allowed: must be one of: dissemination`},
		{func(c *fabric.Config) { c.Traffic.DropBacklog = true }, "traffic.drop_backlog"},
		{func(c *fabric.Config) { c.Trace.File = ""; c.Trace.SL = 1; c.Traffic.Load = 0.5 }, "trace.file"},
		{func(c *fabric.Config) { c.Traffic.Load = -0.1 }, "traffic.load: -0.1 is not allowed: must be in [0, 1]"},
	} {
		cfg := traceConfig(path)
		tc.set(&cfg)
		_, err := sim.Build(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "map")
	_ = os.WriteFile(bad, []byte("0 1 2 9"), 0o644)
	cfg := traceConfig(path)
	cfg.Trace.Mapping, cfg.Trace.MappingFile = fabric.MappingFile, bad
	if _, err := sim.Build(cfg); err == nil || !strings.Contains(err.Error(), `task 3: NIC "9": must be an integer in [0, 8)`) {
		t.Errorf("mapping file with NIC 9: error %v", err)
	}
}

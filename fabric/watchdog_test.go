package fabric_test

import (
	"context"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

func ring(sc2vl []int, vls int) fabric.Config {
	cfg := fabric.Default()
	cfg.Topology = fabric.TopologyConfig{Kind: "torus", Dims: []int{4}, NICsPerSwitch: 4, Trunk: 1}
	cfg.Traffic.Load, cfg.Traffic.Pattern = 1.0, "uniform"
	cfg.Cycles, cfg.Warmup, cfg.WatchdogCycles = 400000, 0, 5000
	// Keep every packet on one VL and make the buffers hold one packet per
	// VL, so that the ring's cyclic dependency closes quickly.
	cfg.QoS.SLs = []fabric.SLConfig{{Name: "A", SCs: []int{0, 1}, MTUBytes: 128, Share: 1, Distance: 1}}
	cfg.QoS.SC2VL = sc2vl
	cfg.Switch.VLs, cfg.Switch.ExclusiveVLFlits, cfg.Switch.MaxVLFlits = vls, 16, 16
	b := 16 * vls
	// A ring's central buffers have a lane per (direction: NIC, +, −) and VL.
	cfg.Switch.InputBufferFlits, cfg.Switch.OutputBufferFlits, cfg.Switch.CentralBufferFlits = b, b, 3*b
	cfg.NIC.InjectionBufferFlits, cfg.NIC.ReceiveBufferFlits = b, b
	return cfg
}

// TestWatchdogStopsABlockedNetwork: on a 4-switch ring whose two SCs share
// one VL, the dateline cannot break the cyclic dependency and the network
// deadlocks under load; the run must stop with a report of the blocked
// buffers instead of running on. The same ring with the SCs on two VLs
// (the deadlock-free configuration) keeps delivering.
func TestWatchdogStopsABlockedNetwork(t *testing.T) {
	n, err := fabric.Build(ring([]int{0, 0}, 1), sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	o := sim.RunSequential(context.Background(), n, sim.Hooks{})
	r := sim.Measure(n, o)
	if !r.Blocked || len(r.Stuck) == 0 {
		t.Fatalf("one VL on a ring with one-packet buffers ran %d cycles without being stopped (blocked %v)", r.SimulatedCycles, r.Blocked)
	}
	if !strings.Contains(strings.Join(r.Stuck, "\n"), "switch") {
		t.Errorf("stuck report names no buffer: %v", r.Stuck)
	}
	if !r.ConservationOK {
		t.Errorf("conservation of a blocked run: %v", r.ConservationProblems)
	}
	ok := ring([]int{0, 1}, 2)
	ok.Cycles = 100000
	n, err = fabric.Build(ok, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	r = sim.Measure(n, sim.RunSequential(context.Background(), n, sim.Hooks{}))
	if r.Blocked || r.DeliveredFlits == 0 || !r.ConservationOK {
		t.Errorf("deadlock-free ring: blocked %v, accepted %.3f, conservation %v", r.Blocked, r.AcceptedThroughput, r.ConservationOK)
	}
}

// TestWatchdogIgnoresCongestion: behind a hot spot (half of all messages
// to one NIC, far past what its link takes) buffer heads wait for many
// thousands of cycles, but every chain of waits ends at that NIC, which
// drains: no cycle, so the partial-deadlock watchdog must not stop the run,
// even with a limit far below the waits.
func TestWatchdogIgnoresCongestion(t *testing.T) {
	cfg := fabric.Default()
	cfg.Traffic.Pattern, cfg.Traffic.HotSpot, cfg.Traffic.HotSpotPercent, cfg.Traffic.Load = "hot_spot", 5, 50, 0.8
	cfg.Cycles, cfg.Warmup, cfg.WatchdogCycles = 40000, 0, 1000
	_, r := run(t, cfg)
	if r.Blocked {
		t.Fatalf("congestion taken for a deadlock: %v", r.Stuck)
	}
	if r.NetworkLatency.MaxCycles < 5*cfg.WatchdogCycles {
		t.Errorf("the hot spot did not congest: longest network latency %d cycles", r.NetworkLatency.MaxCycles)
	}
}

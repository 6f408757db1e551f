package fabric_test

import (
	"context"
	"math"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

func run(t *testing.T, cfg fabric.Config) (*fabric.Network, *sim.Results) {
	t.Helper()
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	o := sim.RunSequential(context.Background(), n, sim.Hooks{})
	r := sim.Measure(n, o)
	if !r.ConservationOK {
		t.Fatalf("conservation: %v", r.ConservationProblems)
	}
	return n, r
}

// TestNeighbourAcceptsOffered: with (x+1) mod n traffic no two packets
// compete for an output, so every offered flit is accepted (seed 002,
// Fig. 5), up to the full link rate. At load 1.0 the sources are CBR: a
// Bernoulli source at exactly the link rate is a critically loaded queue
// whose backlog grows like the square root of time.
func TestNeighbourAcceptsOffered(t *testing.T) {
	for _, load := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0} {
		cfg := fabric.Default()
		cfg.Traffic.Pattern, cfg.Traffic.Load = "neighbour", load
		cfg.Cycles, cfg.Warmup = 30000, 5000
		if load == 1.0 {
			cfg.Traffic.Process = "cbr"
		}
		_, r := run(t, cfg)
		if math.Abs(r.AcceptedThroughput-r.OfferedLoad) > 0.01*r.OfferedLoad {
			t.Errorf("load %.1f: offered %.4f, accepted %.4f: differ by more than 1%%", load, r.OfferedLoad, r.AcceptedThroughput)
		}
		if math.Abs(r.OfferedLoad-load) > 0.05*load {
			t.Errorf("load %.1f: generated %.4f flits/cycle/NIC", load, r.OfferedLoad)
		}
	}
}

// TestUniformBelowSaturation: below saturation uniform traffic is accepted
// as offered, and latency grows with load.
func TestUniformBelowSaturation(t *testing.T) {
	prev := 0.0
	for _, load := range []float64{0.1, 0.3} {
		cfg := fabric.Default()
		cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = load, 30000, 5000
		_, r := run(t, cfg)
		if math.Abs(r.AcceptedThroughput-r.OfferedLoad) > 0.02*r.OfferedLoad {
			t.Errorf("load %.1f: offered %.4f, accepted %.4f", load, r.OfferedLoad, r.AcceptedThroughput)
		}
		if r.Latency.MeanCycles <= prev {
			t.Errorf("load %.1f: mean latency %.1f not above %.1f at the lower load", load, r.Latency.MeanCycles, prev)
		}
		prev = r.Latency.MeanCycles
	}
}

// TestConservationCatchesLoss breaks the rules on purpose: losing one
// credit, or one packet, on a link must be reported.
func TestConservationCatchesLoss(t *testing.T) {
	for _, kind := range []messages.Kind{messages.KindCredit, messages.KindPacket, messages.KindGrant} {
		cfg := fabric.Default()
		cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 0.5, 5000, 0
		n, err := fabric.Build(cfg, sched.Default())
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		drop := func(m *messages.Msg) bool {
			if m.Kind != kind {
				return false
			}
			seen++
			return seen == 100
		}
		o, _ := sim.Sequential{Lose: drop}.Run(context.Background(), n, sim.Hooks{})
		probs := n.CheckConservation(o.InFlight)
		if len(probs) == 0 {
			t.Errorf("losing one %s message went unnoticed", kind)
		}
	}
	// And the same run without a loss is clean.
	cfg := fabric.Default()
	cfg.Cycles, cfg.Warmup = 5000, 0
	run(t, cfg)
}

// TestSeries: the per-interval throughput adds up to every flit delivered
// in the run, and with neighbour traffic at load 0.5 (nothing competes)
// every interval after the first carries the offered load.
func TestSeries(t *testing.T) {
	cfg := fabric.Default()
	cfg.Traffic.Pattern, cfg.Traffic.Load, cfg.Traffic.Process = "neighbour", 0.5, "cbr"
	cfg.Cycles, cfg.Warmup, cfg.SeriesCycles = 25000, 5000, 4000
	n, r := run(t, cfg)
	if len(r.Series) != 7 || r.Series[6].FromCycle != 24000 || r.Series[6].ToCycle != 25000 {
		t.Fatalf("series %+v: want 7 intervals, the last 24000-25000", r.Series)
	}
	var flits float64
	for _, p := range r.Series {
		flits += p.Accepted * float64(p.ToCycle-p.FromCycle) * float64(r.NICs)
	}
	if want := float64(n.Totals().DeliveredFlits); math.Abs(flits-want) > 0.5 {
		t.Errorf("series adds up to %.1f flits, %v delivered", flits, want)
	}
	for _, p := range r.Series[1:] {
		if math.Abs(p.Accepted-0.5) > 0.01 {
			t.Errorf("interval %d-%d: accepted %.4f, want 0.5", p.FromCycle, p.ToCycle, p.Accepted)
		}
	}
}

// TestSeriesCoarsens: a series that would pass 4,096 intervals doubles its
// interval (25,000 cycles at 4 cycles would be 6,250 intervals: 8 cycles
// gives 3,125) and still adds up to every flit delivered.
func TestSeriesCoarsens(t *testing.T) {
	cfg := fabric.Default()
	cfg.Traffic.Load, cfg.Cycles, cfg.Warmup, cfg.SeriesCycles = 0.3, 25000, 5000, 4
	n, r := run(t, cfg)
	if len(r.Series) != 3125 || r.Series[0].ToCycle != 8 {
		t.Fatalf("%d intervals, the first to cycle %d: want 3125 of 8 cycles", len(r.Series), r.Series[0].ToCycle)
	}
	var flits float64
	for _, p := range r.Series {
		flits += p.Accepted * float64(p.ToCycle-p.FromCycle) * float64(r.NICs)
	}
	if want := float64(n.Totals().DeliveredFlits); math.Abs(flits-want) > 0.5 {
		t.Errorf("series adds up to %.1f flits, %v delivered", flits, want)
	}
}

// TestQueueCapThrottles: past saturation, traffic.max_queued_packets bounds
// what the NICs queue. Generation itself does not change (the same offered
// load, message for message, as without the cap); the messages that do not
// fit are counted, from the first cycle one did not, and nothing is lost.
func TestQueueCapThrottles(t *testing.T) {
	cfg := fabric.Default()
	if err := fabric.ApplyHardwarePreset(&cfg, fabric.HardwareSeed002); err != nil { // small NIC buffers: the application queues fill
		t.Fatal(err)
	}
	cfg.Topology.Ports, cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 16, 1.0, 20000, 2000
	cfg.Traffic.Pattern = "hot_spot" // one NIC receives far more than its link carries
	_, free := run(t, cfg)
	if free.ThrottledMessages != 0 || free.FirstThrottleCycle != -1 {
		t.Fatalf("without a small cap: %d throttled from %d", free.ThrottledMessages, free.FirstThrottleCycle)
	}
	cfg.Traffic.MaxQueuedPackets = 8
	n, capped := run(t, cfg)
	if capped.ThrottledMessages == 0 || capped.FirstThrottleCycle <= 0 {
		t.Fatalf("cap 8: nothing throttled (%d, first at %d)", capped.ThrottledMessages, capped.FirstThrottleCycle)
	}
	if capped.OfferedLoad != free.OfferedLoad {
		t.Errorf("offered %.6f with the cap, %.6f without: the cap must not change generation", capped.OfferedLoad, free.OfferedLoad)
	}
	if got := fabric.MostQueued(n); got > 8 {
		t.Errorf("a NIC queued %d packets, above the cap of 8", got)
	}
	if capped.MaxQueuedPackets != 8 {
		t.Errorf("results report a cap of %d", capped.MaxQueuedPackets)
	}
}

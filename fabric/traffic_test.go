package fabric

import (
	"context"
	"math"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
)

func run(t *testing.T, cfg Config) (*Network, *Results) {
	t.Helper()
	n, err := Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	o := RunSequential(context.Background(), n, Hooks{})
	r := n.Results(o)
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
		cfg := Default()
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
		cfg := Default()
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
		cfg := Default()
		cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 0.5, 5000, 0
		n, err := Build(cfg, sched.Default())
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
		o := runSequential(context.Background(), n, Hooks{}, drop)
		probs := n.CheckConservation(o.InFlight)
		if len(probs) == 0 {
			t.Errorf("losing one %s message went unnoticed", kind)
		}
	}
	// And the same run without a loss is clean.
	cfg := Default()
	cfg.Cycles, cfg.Warmup = 5000, 0
	run(t, cfg)
}

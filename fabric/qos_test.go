package fabric_test

import (
	"math"
	"testing"

	"github.com/opasim/opasim/fabric"
)

func paperMix(t *testing.T, scheduler string, load float64) fabric.Config {
	t.Helper()
	cfg := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	cfg.QoS.Scheduler, cfg.Traffic.Load = scheduler, load
	cfg.Cycles, cfg.Warmup = 60000, 20000
	return cfg
}

// TestDTablePaperMix: on the 48-port switch with seed 000's traffic mix at
// load 1.0, DTable configured as Table 10 gives each SL its configured
// share of the delivered flits within ±2 points (seed 000 section 4.2.3),
// and end-to-end latency in the order of the entry distances:
// VO < VI < CL < BE, BK.
func TestDTablePaperMix(t *testing.T) {
	_, r := run(t, paperMix(t, "dtable", 1.0))
	want := []float64{0.10, 0.30, 0.50, 0.05, 0.05}
	for i, s := range r.PerSL {
		if math.Abs(s.NormalizedThroughput-want[i]) > 0.02 {
			t.Errorf("%s: normalized throughput %.4f, want %.2f ± 0.02", s.SL, s.NormalizedThroughput, want[i])
		}
	}
	lat := func(i int) float64 { return r.PerSL[i].Latency.MeanCycles }
	if !(lat(0) < lat(1) && lat(1) < lat(2) && lat(2) < lat(3) && lat(2) < lat(4)) {
		t.Errorf("latency order VO %.0f, VI %.0f, CL %.0f, BE %.0f, BK %.0f: want VO < VI < CL < BE, BK",
			lat(0), lat(1), lat(2), lat(3), lat(4))
	}
}

// TestEverySchedulerConserves runs the paper mix with every scheduler on
// both engines' reference (the sequential engine; engine agreement is
// tested in package actors) and checks conservation and that every SL is
// served.
func TestEverySchedulerConserves(t *testing.T) {
	for _, s := range []string{"rr", "rr_vl", "rr_burst", "sbt", "sbt_switch", "sbt_strict", "dtable", "dtable_sc", "strict", "wrr", "drr", "vlarb"} {
		cfg := paperMix(t, s, 0.8)
		cfg.Cycles, cfg.Warmup = 20000, 5000
		_, r := run(t, cfg)
		for _, sl := range r.PerSL {
			if sl.AcceptedThroughput <= 0 {
				t.Errorf("%s: SL %s got nothing through", s, sl.SL)
			}
		}
	}
}

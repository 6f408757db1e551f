package sim_test

import (
	"context"
	"testing"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// BenchmarkSwitch: the reference scenario (48-port switch, uniform, load
// 0.9, 16-flit packets) on each engine (same digest, see
// TestEnginesAgree); reports simulated cycles and delivered flits per
// second.
func BenchmarkSwitch(b *testing.B) {
	for name, e := range map[string]sim.Engine{"sequential": sim.Sequential{}, "actors": actors.Engine{}} {
		b.Run(name, func(b *testing.B) {
			cfg := fabric.Default()
			cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 0.9, 20000, 0
			var cycles, flits int64
			for i := 0; i < b.N; i++ {
				n, err := fabric.Build(cfg, sched.Default())
				if err != nil {
					b.Fatal(err)
				}
				r, err := sim.Execute(context.Background(), n, e, sim.Hooks{})
				if err != nil {
					b.Fatal(err)
				}
				cycles += cfg.Cycles
				flits += r.DeliveredFlits
			}
			b.ReportMetric(float64(cycles)/b.Elapsed().Seconds(), "cycles/s")
			b.ReportMetric(float64(flits)/b.Elapsed().Seconds(), "flits/s")
		})
	}
}

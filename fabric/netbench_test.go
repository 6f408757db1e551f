package fabric_test

import (
	"context"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// BenchmarkSequentialSwitch: the reference scenario (48-port switch,
// uniform, load 0.9, 16-flit packets) on the sequential engine; reports
// simulated cycles and delivered flits per second.
func BenchmarkSequentialSwitch(b *testing.B) {
	cfg := fabric.Default()
	cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 0.9, 20000, 0
	var cycles, flits int64
	for i := 0; i < b.N; i++ {
		n, err := fabric.Build(cfg, sched.Default())
		if err != nil {
			b.Fatal(err)
		}
		o := sim.RunSequential(context.Background(), n, sim.Hooks{})
		cycles += cfg.Cycles
		flits += sim.Measure(n, o).DeliveredFlits
	}
	b.ReportMetric(float64(cycles)/b.Elapsed().Seconds(), "cycles/s")
	b.ReportMetric(float64(flits)/b.Elapsed().Seconds(), "flits/s")
}

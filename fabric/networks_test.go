package fabric

import (
	"testing"
)

// TestPresetsDoNotDeadlock: the small presets of seed 000 section 4.3 with
// the paper's mix at load 1.0 run 200,000 cycles with every scheduler and
// keep delivering: the watchdog never fires, flits and credits are
// conserved, and the network accepts most of what is offered. (The large
// presets are run the same way in docs/reproduction.md.)
func TestPresetsDoNotDeadlock(t *testing.T) {
	if testing.Short() {
		t.Skip("200,000 cycles on two 16-switch networks with five schedulers")
	}
	for _, preset := range []string{"torus2d-4x4", "tree-8ary-2"} {
		for _, s := range []string{"rr", "rr_vl", "sbt", "sbt_strict", "dtable"} {
			preset, s := preset, s
			t.Run(preset+"/"+s, func(t *testing.T) {
				t.Parallel()
				cfg := paperMix(t, s, 1.0)
				cfg.Topology.Preset = preset
				cfg.Cycles, cfg.Warmup = 200000, 20000
				_, r := run(t, cfg)
				if r.Blocked || r.AcceptedThroughput < 0.5 {
					t.Errorf("blocked %v, accepted %.3f of %.3f offered", r.Blocked, r.AcceptedThroughput, r.OfferedLoad)
				}
			})
		}
	}
}

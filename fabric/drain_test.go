package fabric

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
)

// fillWatch measures, at the first window that reaches cycle at, how full
// the switches' input buffers are: the fraction of wired input buffers
// that are at least 90% full, and the fullest one.
type fillWatch struct {
	n        *Network
	at       clock.Cycle
	seen     map[int]bool
	full, of int
	fullest  float64
}

func (f *fillWatch) GroupDone(g int, w clock.Window, _ time.Duration) {
	grp := f.n.Groups[g]
	if grp.Kind != "switch" || w.To < f.at || f.seen[g] {
		return
	}
	f.seen[g] = true
	for _, m := range f.n.Switches[grp.Switch].MPorts {
		for i := range m.occ {
			if !m.wired[i] {
				continue
			}
			x := float64(m.occ[i].Total()) / float64(m.occ[i].capacity)
			f.of++
			if x >= 0.9 {
				f.full++
			}
			f.fullest = max(f.fullest, x)
		}
	}
}

func (f *fillWatch) WindowDone(clock.Window, time.Duration) {}

// drainConfig saturates preset: uniform traffic at load 1.0 of 16-flit
// packets on seed 002's 256-flit buffers (they fill within a few thousand
// cycles), tori routed with the unbalanced ties of the first model (+25%
// on the + links: the rings are overloaded) and central buffers just large
// enough for their lanes; generation stops at stop, the NICs drop their
// backlog, and the run goes on until stop+drain.
func drainConfig(preset, scheduler string, stop, drain int64) Config {
	cfg := Default()
	cfg.Topology = TopologyConfig{Preset: preset, DORTies: topo.TiesPlus, TrunkSelect: topo.TrunkDstMod}
	cfg.QoS.Scheduler = scheduler
	cfg.Switch.CentralBufferFlits = 7 * 8 * 16 // 7 link classes (a 3D torus) x 8 VLs x 16 flits reserved
	cfg.Traffic.Load, cfg.Traffic.StopCycle, cfg.Traffic.DropBacklog = 1.0, stop, true
	cfg.Cycles, cfg.Warmup, cfg.Watchdog = stop+drain, 0, 5000
	return cfg
}

// drain runs cfg and reports its results and how full the input buffers
// were when generation stopped.
func drain(t *testing.T, cfg Config) (*Results, *fillWatch) {
	t.Helper()
	n, err := Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	f := &fillWatch{n: n, at: clock.Cycle(cfg.Traffic.StopCycle), seen: map[int]bool{}}
	r := n.Results(RunSequential(context.Background(), n, Hooks{Observer: f}))
	if !r.ConservationOK {
		t.Fatalf("conservation: %v", r.ConservationProblems[:min(3, len(r.ConservationProblems))])
	}
	return r, f
}

// TestDrainAfterSaturation: every preset, every scheduler: saturate the
// network until its buffers are full, stop injection, drop the NICs'
// backlog, and require every packet still inside to be delivered, with
// the watchdog (5,000 cycles) never firing. A deadlock leaves packets
// inside forever; this is where it lives (full buffers, then a network
// that must drain).
func TestDrainAfterSaturation(t *testing.T) {
	presets := topo.PresetNames()
	schedulers := sched.Default().Names()
	const stop, drainCycles = 12000, 20000
	if testing.Short() {
		presets, schedulers = []string{"torus2d-4x4"}, []string{"dtable"}
	}
	for _, preset := range presets {
		for _, s := range schedulers {
			t.Run(preset+"/"+s, func(t *testing.T) {
				t.Parallel()
				r, f := drain(t, drainConfig(preset, s, stop, drainCycles))
				if r.Blocked || r.UndeliveredPackets != 0 {
					t.Errorf("%d packets never delivered (blocked %v): %v", r.UndeliveredPackets, r.Blocked, r.Stuck)
				}
				if r.DroppedPackets == 0 || f.full == 0 {
					t.Errorf("not saturated when generation stopped: %d packets dropped, %d of %d input buffers 90%% full",
						r.DroppedPackets, f.full, f.of)
				}
				t.Logf("%d of %d input buffers >= 90%% full (fullest %.0f%%), %d packets dropped, drained",
					f.full, f.of, 100*f.fullest, r.DroppedPackets)
			})
		}
	}
}

// TestDrainCatchesTheOldClassification is the drain test's own test: with
// the central buffers classed by the next link's VL only (the first
// model), the same saturated torus deadlocks and never drains, and the
// watchdog reports a cycle of buffer queues.
func TestDrainCatchesTheOldClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("a saturated 8x8 torus")
	}
	cfg := drainConfig("torus2d-8x8", "dtable", 12000, 20000)
	cfg.Switch.CentralClasses = topo.CentralByVL
	r, f := drain(t, cfg)
	if !r.Blocked || r.UndeliveredPackets == 0 {
		t.Fatalf("the old classification drained: %d undelivered, blocked %v (%d of %d input buffers full)",
			r.UndeliveredPackets, r.Blocked, f.full, f.of)
	}
	t.Logf("deadlocked (partial %v) with %d packets inside: %v", r.PartialDeadlock, r.UndeliveredPackets, fmt.Sprint(r.Stuck[:min(3, len(r.Stuck))]))
}

package sim

import (
	"context"
	"testing"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// countingObserver counts the engine's calls.
type countingObserver struct {
	groups, windows int
	last            clock.Window
	overlap         bool
	widest          clock.Cycle
}

func (c *countingObserver) GroupDone(_ int, w clock.Window, _ time.Duration) { c.groups++ }
func (c *countingObserver) WindowDone(w clock.Window, _ time.Duration) {
	if w.From < c.last.To {
		c.overlap = true
	}
	c.windows, c.last, c.widest = c.windows+1, w, max(c.widest, w.To-w.From)
}

func smallNetwork(t *testing.T, cycles int64) *fabric.Network {
	t.Helper()
	cfg := fabric.Default()
	cfg.Topology.Ports, cfg.Cycles, cfg.Warmup = 8, cycles, 0
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWindowsReachTheEnd: the loop cuts [0, cycles) into windows no wider
// than the network's window (idle stretches skipped), in order and without
// overlap, calls the
// observer once per window and once per due group, and ends at the
// configured end.
func TestWindowsReachTheEnd(t *testing.T) {
	n := smallNetwork(t, 3000)
	obs := &countingObserver{}
	o := RunSequential(context.Background(), n, Hooks{Observer: obs})
	if o.Reached != 3000 || o.Interrupted || o.Blocked {
		t.Fatalf("outcome %+v, want reached 3000, not interrupted", o)
	}
	if obs.widest > n.Window || obs.windows == 0 {
		t.Errorf("%d windows, the widest %d cycles, want at most %d", obs.windows, obs.widest, n.Window)
	}
	if obs.overlap || obs.last.To != 3000 {
		t.Errorf("windows overlap (%v) or the last one ends at %d", obs.overlap, obs.last.To)
	}
	if obs.groups < obs.windows {
		t.Errorf("%d group reports for %d windows", obs.groups, obs.windows)
	}
}

// TestWindowsStopOnCancel: a cancelled context ends the run at the next
// window, reported as interrupted, with the cycle reached.
func TestWindowsStopOnCancel(t *testing.T) {
	n := smallNetwork(t, 1_000_000)
	ctx, cancel := context.WithCancel(context.Background())
	o := RunSequential(ctx, n, Hooks{Progress: func(c clock.Cycle) {
		if c >= 5000 {
			cancel()
		}
	}})
	if !o.Interrupted || o.Reached < 5000 || o.Reached >= 1_000_000 {
		t.Fatalf("outcome reached %d interrupted %v, want interrupted soon after 5000", o.Reached, o.Interrupted)
	}
	r := Measure(n, o)
	if !r.ConservationOK {
		t.Errorf("an interrupted run must still conserve: %v", r.ConservationProblems)
	}
}

package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/opasim/opasim/clock"
)

// projector is the observer of `opasim bench --project`: it records, per
// window of an actor run, the groups' total wall time and the largest
// group's, from which project estimates the run's time on more workers.
type projector struct {
	mu      sync.Mutex
	sum     time.Duration // the current window's
	largest time.Duration
	windows []windowCost
}

// windowCost is what the groups of one window took: in all, and the
// largest of them (a window cannot be shorter than its largest group).
type windowCost struct{ sum, largest time.Duration }

func (p *projector) GroupDone(_ int, _ clock.Window, busy time.Duration) {
	p.mu.Lock()
	p.sum += busy
	p.largest = max(p.largest, busy)
	p.mu.Unlock()
}

func (p *projector) WindowDone(clock.Window, time.Duration) {
	p.mu.Lock()
	p.windows = append(p.windows, windowCost{p.sum, p.largest})
	p.sum, p.largest = 0, 0
	p.mu.Unlock()
}

// ideal is the time the windows' groups take on workers workers that share
// every window's work perfectly, down to one group: the sum over windows
// of max(sum/workers, largest).
func (p *projector) ideal(workers int) time.Duration {
	var t time.Duration
	for _, w := range p.windows {
		t += max(w.sum/time.Duration(workers), w.largest)
	}
	return t
}

// overhead is what a measured run spent beyond its ideal time, per window:
// the barrier, handing out the work, waiting for the last group.
func (p *projector) overhead(run time.Duration, workers int) time.Duration {
	if len(p.windows) == 0 {
		return 0
	}
	return max(run-p.ideal(workers), 0) / time.Duration(len(p.windows))
}

// projection estimates the total time of an actor run on more workers from
// two measured runs of the same scenario: one on one worker (one1: its
// observer, run1: its run time) and one on m > 1 workers (onem, runm);
// setup is the time before the run (building the network). Assumptions:
// the groups' wall times measured on m workers hold on more (memory
// bandwidth and caches scale with the cores); the work of a window is
// shared perfectly down to one group (partitions take groups from each
// other); the per-window overhead grows linearly with the workers from its
// measured values on 1 and m (the clock ticks every partition and handles
// every report, one after another).
type projection struct {
	setup      time.Duration
	onem       *projector
	m          int
	over1      time.Duration // per window, on one worker
	overm      time.Duration // per window, on m workers
	windows    int
	sequential time.Duration // total time of the sequential engine on one core
}

func newProjection(one1 *projector, run1 time.Duration, onem *projector, runm time.Duration, m int,
	setup, sequential time.Duration) projection {
	return projection{setup: setup, onem: onem, m: m, over1: one1.overhead(run1, 1), overm: onem.overhead(runm, m),
		windows: len(onem.windows), sequential: sequential}
}

// total is the projected total time on workers workers.
func (pr projection) total(workers int) time.Duration {
	slope := max(pr.overm-pr.over1, 0) / time.Duration(max(pr.m-1, 1))
	over := pr.over1 + slope*time.Duration(workers-1)
	return pr.setup + pr.onem.ideal(workers) + over*time.Duration(pr.windows)
}

// print writes the projection for 4, 8 and 16 workers.
func (pr projection) print(w io.Writer) {
	fmt.Fprintf(w, "%-30s projected actors total time (per-window overhead %v on 1 worker, %v on %d):",
		"", pr.over1.Round(time.Microsecond/10), pr.overm.Round(time.Microsecond/10), pr.m)
	for _, k := range []int{4, 8, 16} {
		t := pr.total(k)
		fmt.Fprintf(w, " %d workers %.2f s (%.2fx sequential at 1);", k, t.Seconds(), pr.sequential.Seconds()/t.Seconds())
	}
	fmt.Fprintln(w)
}

package sim

import (
	"context"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/workloads"
)

// checkEvery is how many windows pass between progress reports and
// watchdog scans. Interruption is checked at every window.
const checkEvery = 256

// Windows is the window loop of a run, shared by every engine: the global
// clock's bookkeeping. An engine asks Next for a window and the groups due
// in it, runs those groups (in a fixed order, or in parallel), reports each
// group with Done and the cross-group messages it sent with Wake, then
// closes the window with Barrier and asks Next again. Windows decides when
// the run ends: at the configured end, when the context is cancelled, or
// when the watchdog finds the network blocked. It is not safe for
// concurrent use: the sequential engine calls it from its one goroutine,
// the actor engine from the clock actor.
type Windows struct {
	ctx     context.Context
	net     *fabric.Network
	cal     *clock.Calendar
	due     []int
	hooks   Hooks
	dog     watchdog
	moves   []int64 // per group, as last read
	inside  []int64 // packets generated and not delivered, per group
	total   int64
	opened  int
	window  clock.Window
	reached clock.Cycle
	stop    stopReason
	begin   time.Time
	stall   []string // what a stalled workload waited on
}

type stopReason int

const (
	running stopReason = iota
	ended
	interrupted
	blocked
	stalled
)

// NewWindows starts the window loop of a run of n: every group due at the
// first cycle one of its components has work.
func NewWindows(ctx context.Context, n *fabric.Network, h Hooks) *Windows {
	l := &Windows{ctx: ctx, net: n, hooks: h, begin: time.Now(),
		cal:   clock.NewCalendar(len(n.Groups), n.Window, clock.Cycle(n.Config.Cycles)),
		dog:   watchdog{limit: clock.Cycle(n.Config.WatchdogCycles)},
		moves: make([]int64, len(n.Groups)), inside: make([]int64, len(n.Groups))}
	for g, grp := range n.Groups {
		next := clock.Never
		for _, id := range grp.Members {
			next = clock.Min(next, n.Comps[id].Next())
		}
		l.cal.Set(g, next)
	}
	return l
}

// Next opens the next window and returns it with the groups due in it, in
// index order (the slice is reused by the next call). ok is false when the
// run is over.
func (l *Windows) Next() (w clock.Window, due []int, ok bool) {
	if l.stop != running {
		return clock.Window{}, nil, false
	}
	if l.ctx.Err() != nil {
		l.stop = interrupted
		return clock.Window{}, nil, false
	}
	if w := l.net.Workload; w != nil {
		switch st, detail := w.Status(); st {
		case workloads.Finished:
			l.stop = ended
			return clock.Window{}, nil, false
		case workloads.Stalled:
			l.stop, l.stall = stalled, detail
			return clock.Window{}, nil, false
		}
	}
	if l.opened%checkEvery == 0 && l.watchdogStops() {
		l.stop = blocked
		return clock.Window{}, nil, false
	}
	w, l.due, ok = l.cal.Next(l.due)
	if !ok {
		l.stop, l.reached = ended, l.cal.End
		return clock.Window{}, nil, false
	}
	if l.opened%checkEvery == 0 && l.hooks.Progress != nil {
		l.hooks.Progress(w.From)
	}
	l.opened++
	l.window = w
	return w, l.due, true
}

// Done records that group g finished the window and its next wake.
func (l *Windows) Done(g int, next clock.Cycle) { l.cal.Set(g, next) }

// watchdogStops reads every group's counts (fabric.Network.Moves and
// Undelivered) and asks the watchdog whether the run must stop. Next calls
// it between windows, when no group runs (after the barrier, under the
// actor engine), as the watchdog reads the queues' heads.
func (l *Windows) watchdogStops() bool {
	if l.dog.limit <= 0 {
		return false
	}
	for g := range l.moves {
		moves := l.net.Moves(g)
		l.total += moves - l.moves[g]
		l.moves[g], l.inside[g] = moves, l.net.Undelivered(g)
	}
	return l.dog.check(l.net, l.reached, l.total, l.packetsInside())
}

// Wake records that group g must run at cycle at: a message for it.
func (l *Windows) Wake(g int, at clock.Cycle) { l.cal.Wake(g, at) }

// Barrier closes the window once every due group is done; wait is the
// barrier's wall time (0 for the sequential engine).
func (l *Windows) Barrier(wait time.Duration) {
	l.reached = l.window.To
	if l.hooks.Observer != nil {
		l.hooks.Observer.WindowDone(l.window, wait)
	}
}

// Outcome reports how the run ended; the engine adds what it still held.
func (l *Windows) Outcome(engine string) Outcome {
	o := Outcome{Reached: l.reached, Interrupted: l.stop == interrupted || l.stop == blocked,
		Blocked: l.stop == blocked, Wall: time.Since(l.begin), Engine: engine}
	if o.Blocked {
		o.Stuck, o.PartialDeadlock = l.dog.report, l.dog.partial
	}
	o.Stalled, o.StallDetail = l.stop == stalled, l.stall
	return o
}

// Observer is the run's observer, nil when none.
func (l *Windows) Observer() Observer { return l.hooks.Observer }

func (l *Windows) packetsInside() bool {
	var n int64
	for _, x := range l.inside {
		n += x
	}
	return n > 0
}

package fabric

import (
	"context"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Outcome is what an engine hands back after driving a network.
type Outcome struct {
	Reached         clock.Cycle    // every component has been advanced to here
	Interrupted     bool           // stopped early by the context
	InFlight        []messages.Msg // messages the engine still held
	Wall            time.Duration
	Engine          string
	Blocked         bool     // stopped by the watchdog: nothing, or some buffer's head, moved for watchdog_cycles
	PartialDeadlock bool     // what stopped it was a buffer head that did not move while others did
	Stuck           []string // what was blocked
}

// Progress is called by engines now and then with the cycle reached.
type Progress func(reached clock.Cycle)

// Hooks let a caller watch a run: Progress now and then, Observer at every
// window. Both may be nil.
type Hooks struct {
	Progress Progress
	Observer Observer
}

// RunSequential drives the network window by window on one goroutine, the
// components of a window in CompID order: the reference engine.
func RunSequential(ctx context.Context, n *Network, h Hooks) Outcome {
	return runSequential(ctx, n, h, nil)
}

// runSequential takes drop, a test hook that loses the messages it returns
// true for, so tests can check that the conservation check catches a loss.
func runSequential(ctx context.Context, n *Network, h Hooks, drop func(*messages.Msg) bool) Outcome {
	start := time.Now()
	end := clock.Cycle(n.Config.Cycles)
	cal := clock.NewCalendar(len(n.Comps), n.Window, end)
	for i, c := range n.Comps {
		cal.Set(i, c.Next())
	}
	pending := make([][]messages.Msg, len(n.Comps))
	var out Outbox
	var due []int
	reached, interrupted, blocked := clock.Cycle(0), false, false
	dog := Watchdog{Limit: clock.Cycle(n.Config.Watchdog)}
	for windows := 0; ; windows++ {
		w, d, ok := cal.Next(due)
		due = d
		if !ok {
			reached = end
			break
		}
		if windows%256 == 0 {
			if ctx.Err() != nil {
				interrupted = true
				break
			}
			if h.Progress != nil {
				h.Progress(w.From)
			}
			if dog.Check(n, w.From, n.totalMoves(), n.packetsInside()) {
				blocked = true
				break
			}
		}
		for _, i := range due {
			c := n.Comps[i]
			if len(pending[i]) > 0 {
				c.Deliver(pending[i])
				pending[i] = pending[i][:0]
			}
			cal.Set(i, c.Advance(w.To, &out))
			for k := range out.Msgs {
				m := &out.Msgs[k]
				if drop != nil && drop(m) {
					continue
				}
				pending[m.Dst] = append(pending[m.Dst], *m)
				cal.Wake(int(m.Dst), m.At)
			}
			out.Msgs = out.Msgs[:0]
		}
		reached = w.To
		if h.Observer != nil {
			for g := range n.Groups {
				h.Observer.GroupDone(g, w, 0)
			}
			h.Observer.WindowDone(w, 0)
		}
	}
	o := Outcome{Reached: reached, Interrupted: interrupted || blocked, Blocked: blocked, Wall: time.Since(start), Engine: "sequential"}
	if blocked {
		o.Stuck, o.PartialDeadlock = dog.Report, dog.Partial
	}
	for _, p := range pending {
		o.InFlight = append(o.InFlight, p...)
	}
	return o
}

package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
)

// start makes the clock begin the run.
type start struct{}

// clockActor is the global clock: it ticks the groups that have work in
// the next window and waits for all of them (the barrier) before the next.
type clockActor struct {
	e         *engine
	ctx       context.Context
	cal       *clock.Calendar
	due       []int
	waiting   int
	reached   clock.Cycle
	window    clock.Window
	windows   int
	progress  fabric.Progress
	observer  fabric.Observer
	firstDone time.Time // the first group of the window reported
	lastDone  time.Time
	dog       fabric.Watchdog
	moves     []int64 // per group, as last reported
	inside    []int64
	total     int64
}

func (c *clockActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *start:
		c.advance(ctx)
	case *done:
		if c.observer != nil {
			c.lastDone = time.Now()
			if c.waiting == len(c.due) {
				c.firstDone = c.lastDone
			}
		}
		c.cal.Set(m.g, m.next)
		c.total += m.moves - c.moves[m.g]
		c.moves[m.g], c.inside[m.g] = m.moves, m.undelivered
		for _, w := range m.wakes {
			c.cal.Wake(w.g, w.at)
		}
		c.waiting--
		if c.waiting == 0 {
			if c.observer != nil {
				c.observer.WindowDone(c.window, c.lastDone.Sub(c.firstDone))
			}
			c.advance(ctx)
		}
	}
}

func (c *clockActor) packetsInside() bool {
	var n int64
	for _, x := range c.inside {
		n += x
	}
	return n > 0
}

// advance opens the next window, or ends the run when there is no work
// left before the end or the run was interrupted.
func (c *clockActor) advance(ctx actor.Context) {
	if c.ctx.Err() != nil {
		c.e.finished <- result{reached: c.reached, interrupted: true}
		return
	}
	if c.windows%256 == 0 && c.dog.Check(c.e.net, c.reached, c.total, c.packetsInside()) {
		c.e.finished <- result{reached: c.reached, interrupted: true, blocked: true}
		return
	}
	w, due, ok := c.cal.Next(c.due)
	c.due = due
	if !ok {
		c.e.finished <- result{reached: c.cal.End}
		return
	}
	if c.windows%256 == 0 && c.progress != nil {
		c.progress(w.From)
	}
	c.windows++
	c.reached = w.To
	c.window = w
	c.waiting = len(due)
	t := &tick{w: w}
	for _, g := range due {
		ctx.Send(c.e.groups[g], t)
	}
}

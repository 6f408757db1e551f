package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/sim"
)

// start makes the clock begin the run.
type start struct{}

// clockActor is the global clock: it ticks the groups that have work in
// the next window and waits for all of them (the barrier) before the next.
// The window loop itself (calendar, interruption, progress, watchdog) is
// sim.Windows, the one the sequential engine uses too.
type clockActor struct {
	e         *engine
	loop      *sim.Windows
	waiting   int
	timed     bool      // an observer wants the barrier's wall time
	firstDone time.Time // the first group of the window reported
	lastDone  time.Time
}

func (c *clockActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *start:
		c.advance(ctx)
	case *done:
		if c.timed {
			c.lastDone = time.Now()
			if c.waiting == c.e.due {
				c.firstDone = c.lastDone
			}
		}
		c.loop.Done(m.g, m.next)
		c.loop.Counts(m.g, m.moves, m.undelivered)
		for _, w := range m.wakes {
			c.loop.Wake(w.g, w.at)
		}
		c.waiting--
		if c.waiting == 0 {
			c.loop.Barrier(c.lastDone.Sub(c.firstDone))
			c.advance(ctx)
		}
	}
}

// advance opens the next window, or ends the run.
func (c *clockActor) advance(ctx actor.Context) {
	w, due, ok := c.loop.Next()
	if !ok {
		c.e.finished <- struct{}{}
		return
	}
	c.waiting, c.e.due = len(due), len(due)
	t := &tick{w: w}
	for _, g := range due {
		ctx.Send(c.e.groups[g], t)
	}
}

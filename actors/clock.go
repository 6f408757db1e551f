package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/sim"
)

// clockActor is the global clock: it ticks every partition in each window
// and waits for all of them (the barrier) before the next. It carries the
// window's exchange: what the partitions sent in one window reaches every
// partition with the next tick, each taking its own groups' messages. Now
// and then it rebalances the partitions by the wall time their groups took
// (rebalance). The window loop itself (calendar, interruption, progress,
// watchdog) is sim.Windows, the one the sequential engine uses too.
type clockActor struct {
	e         *engine
	loop      *sim.Windows
	ticks     []tick  // one per partition, reused
	dones     []*done // this window's reports, by partition
	waiting   int
	timed     bool      // an observer wants the barrier's wall time
	firstDone time.Time // the first partition of the window reported
	lastDone  time.Time
	balance   balancer
}

func newClock(e *engine, loop *sim.Windows, timed bool) *clockActor {
	parts := len(e.ranges)
	c := &clockActor{e: e, loop: loop, timed: timed, ticks: make([]tick, parts), dones: make([]*done, parts),
		balance: newBalancer(len(e.net.Groups), e.fixed)}
	for q := range c.ticks {
		c.ticks[q].in = make([]outgoing, parts)
	}
	return c
}

func (c *clockActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *start:
		c.advance(ctx)
	case *done:
		if c.timed {
			c.lastDone = time.Now()
			if c.waiting == len(c.dones) {
				c.firstDone = c.lastDone
			}
		}
		c.dones[m.part] = m
		c.waiting--
		if c.waiting == 0 {
			c.barrier()
			c.advance(ctx)
		}
	}
}

// barrier closes the window. Every group's own next wake is recorded
// before any wake for the messages it was sent: a group that ran this
// window did not see them yet.
func (c *clockActor) barrier() {
	for _, d := range c.dones {
		for _, r := range d.ran {
			c.loop.Done(r.g, r.next)
			c.loop.Counts(r.g, r.moves, r.undelivered)
			c.balance.cost[r.g] += int64(r.busy)
		}
	}
	for _, d := range c.dones {
		for _, w := range d.wakes {
			c.loop.Wake(w.g, w.at)
		}
	}
	c.loop.Barrier(c.lastDone.Sub(c.firstDone))
	if c.balance.due() {
		c.e.setRanges(c.balance.ranges(len(c.e.ranges)))
	}
}

// advance opens the next window, or ends the run.
func (c *clockActor) advance(ctx actor.Context) {
	w, due, ok := c.loop.Next()
	if !ok {
		c.e.finished <- struct{}{}
		return
	}
	c.waiting = len(c.ticks)
	// Every tick is filled before any is sent: a partition ticked early
	// may finish the window, and rewrite its done, before the last is sent.
	for q := range c.ticks {
		t := &c.ticks[q]
		t.w, t.due = w, due
		t.lo, t.hi = c.e.ranges[q][0], c.e.ranges[q][1]
		c.fill(t.in)
	}
	for q := range c.ticks {
		ctx.Send(c.e.parts[q], &c.ticks[q])
	}
}

// fill sets in[p] to what partition p sent in the last window.
func (c *clockActor) fill(in []outgoing) {
	for p, d := range c.dones {
		in[p] = outgoing{}
		if d != nil {
			in[p] = d.out
		}
	}
}

// balancer decides when and how to rebalance the partitions: after 16,
// 64, 256 and 1,024 windows, then every 4,096, it cuts the groups into
// contiguous ranges of equal wall time, as measured since the last
// rebalance (a group's own time, so the cut does not depend on how the
// groups were shared out before). The partitioning never changes the
// results, only which worker runs which group.
type balancer struct {
	cost    []int64 // per group, nanoseconds since the last rebalance
	windows int
	next    int
	fixed   bool // the config fixed the partitions: never rebalance
}

func newBalancer(groups int, fixed bool) balancer {
	return balancer{cost: make([]int64, groups), next: 16, fixed: fixed}
}

func (b *balancer) due() bool {
	b.windows++
	if b.fixed || b.windows < b.next {
		return false
	}
	b.next = min(b.next*4, b.next+4096)
	return true
}

// ranges cuts the groups into parts ranges by measured cost and restarts
// the measurement.
func (b *balancer) ranges(parts int) [][2]int {
	w := make([]int, len(b.cost))
	for g, c := range b.cost {
		w[g] = int(c) + 1
		b.cost[g] = 0
	}
	return split(w, parts)
}

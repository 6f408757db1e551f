package actors

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
)

// windowLoop is the window loop the clock actor drives: the run's
// sim.Windows, or in a distributed run a member's link to the coordinator
// (memberLoop), which holds the run's sim.Windows.
type windowLoop interface {
	Next() (w clock.Window, due []int, ok bool)
	Done(g int, next clock.Cycle)
	Wake(g int, at clock.Cycle)
	Barrier(wait time.Duration)
}

// clockActor is the global clock: it ticks every partition in each window
// and waits for all of them (the barrier) before the next. It hands out
// the window's work (the groups due, cut into one share per partition) and
// carries the exchange: what the groups sent in one window reaches every
// partition with the next tick, and each group that was sent something
// runs in that window and takes it. Now and then it rebalances the shares
// by the wall time the groups took (balancer). The window loop itself
// (calendar, interruption, progress, watchdog) is sim.Windows, the one the
// sequential engine uses too.
type clockActor struct {
	e         *engine
	loop      windowLoop
	ticks     []tick     // one per partition, reused
	dones     []*done    // this window's reports, by partition
	in        []outgoing // what each partition sent in the last window, handed to all
	work      work
	sent      []bool // per group: has messages in the exchange from the last window
	extra     []int  // groups with messages in the exchange and not due by the calendar
	waiting   int
	timed     bool      // an observer wants the barrier's wall time
	firstDone time.Time // the first partition of the window reported
	lastDone  time.Time
	balance   balancer
}

func newClock(e *engine, loop windowLoop, timed bool) *clockActor {
	parts, groups := len(e.ranges), len(e.net.Groups)
	c := &clockActor{e: e, loop: loop, timed: timed, ticks: make([]tick, parts), dones: make([]*done, parts),
		in: make([]outgoing, parts), sent: make([]bool, groups), balance: newBalancer(groups, e.fixed)}
	c.work = work{end: make([]int, parts), cursor: make([]cursor, parts)}
	for q := range c.ticks {
		c.ticks[q].in, c.ticks[q].work = c.in, &c.work
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
			c.balance.cost[r.g] += int64(r.busy)
		}
	}
	for _, d := range c.dones {
		for _, w := range d.wakes {
			c.loop.Wake(w.g, w.at)
		}
		for _, g := range d.out.groups {
			c.sent[g] = c.e.owns(g) // another member's: reported with the window (memberLoop)
			c.e.backlog[g] = c.sent[g]
		}
	}
	c.loop.Barrier(c.lastDone.Sub(c.firstDone))
	if c.balance.due() {
		c.e.ranges = c.balance.ranges(len(c.e.ranges))
	}
}

// advance opens the next window, or ends the run.
func (c *clockActor) advance(ctx actor.Context) {
	w, due, ok := c.loop.Next()
	if !ok {
		c.e.finished <- struct{}{}
		return
	}
	c.plan(due)
	c.waiting = len(c.ticks)
	// The ticks are filled before any is sent: a partition ticked early
	// may finish the window, and rewrite its done, before the last is sent.
	c.fill()
	timed := c.e.observer != nil || (!c.balance.fixed && len(c.ticks) > 1 && c.balance.windows%timedEvery == 0)
	for q := range c.ticks {
		c.ticks[q].w, c.ticks[q].timed = w, timed
	}
	for q := range c.ticks {
		ctx.Send(c.e.parts[q], &c.ticks[q])
	}
}

// plan sets the window's work: the groups the calendar has due and those
// that have messages in the exchange (which they must take before the
// buffers they are in are reused), in index order, cut at the partitions'
// ranges.
func (c *clockActor) plan(due []int) {
	c.extra = c.extra[:0]
	for _, g := range due {
		c.sent[g] = false
	}
	for g, s := range c.sent {
		if s {
			c.extra = append(c.extra, g)
			c.sent[g] = false
		}
	}
	c.work.due = append(c.work.due[:0], due...)
	if len(c.extra) > 0 {
		c.work.due = append(c.work.due, c.extra...)
		slices.Sort(c.work.due)
	}
	for q, r := range c.e.ranges {
		start, _ := slices.BinarySearch(c.work.due, r[0])
		c.work.end[q], _ = slices.BinarySearch(c.work.due, r[1])
		c.work.cursor[q].next.Store(int64(start))
	}
}

// fill sets c.in[p] to what partition p sent in the last window.
func (c *clockActor) fill() {
	for p, d := range c.dones {
		c.in[p] = outgoing{}
		if d != nil {
			c.in[p] = d.out
		}
	}
}

// timedEvery: without an observer, the groups' wall times are measured in
// one window of timedEvery, which is all the balancer needs (it compares
// the groups' shares of the time over hundreds of windows).
const timedEvery = 4

// balancer decides when and how to rebalance the partitions' shares:
// after 16, 64, 256 and 1,024 windows, then every 4,096, it cuts the
// groups into contiguous ranges of equal wall time, as measured since the
// last rebalance. The partitioning never changes the results, only which
// worker runs which group first.
type balancer struct {
	cost    []int64 // per group, nanoseconds since the last rebalance
	windows int
	next    int
	fixed   bool // keep the first partitioning
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

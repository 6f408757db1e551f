package actors

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// batches recycles the batch messages groups send each other.
var batches = sync.Pool{New: func() any { return &batch{} }}

// child is a component actor of a group, with the messages addressed to it
// that the group holds until its next step.
type child struct {
	pid     *actor.PID
	step    step
	pending []messages.Msg
	wake    clock.Cycle
}

// groupActor is a switch (its MPorts, central crossbar and output ports) or
// a bank of NICs. In each window it steps the children that have work, in
// a fixed order; messages between its children stay inside, messages for
// other groups go out as one batch per destination group.
type groupActor struct {
	index    int
	e        *engine
	children []*child
	incoming []*batch
	outgoing map[int]*batch
	dests    []int
}

func (g *groupActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		g.spawnChildren(ctx)
	case *batch:
		g.incoming = append(g.incoming, m)
	case *tick:
		g.run(ctx, m.w)
	case *flush:
		g.takeIncoming()
		var held []messages.Msg
		for _, c := range g.children {
			held = append(held, c.pending...)
		}
		m.reply <- held
	}
}

func (g *groupActor) spawnChildren(ctx actor.Context) {
	members := g.e.net.Groups[g.index].Members
	for _, id := range members {
		comp := g.e.net.Comps[id]
		props := actor.PropsFromProducer(func() actor.Actor { return &componentActor{c: comp} },
			actor.WithDispatcher(actor.NewSynchronizedDispatcher(1000)), actor.WithMailbox(newInlineMailbox),
			actor.WithSupervisor(g.e.supervisor))
		pid, err := ctx.SpawnNamed(props, fmt.Sprintf("c%d", id))
		if err != nil {
			panic(err)
		}
		g.children = append(g.children, &child{pid: pid, wake: comp.Next()})
	}
}

// takeIncoming files the batches other groups sent, in group order.
func (g *groupActor) takeIncoming() {
	sort.Slice(g.incoming, func(i, j int) bool { return g.incoming[i].from < g.incoming[j].from })
	for _, b := range g.incoming {
		for _, m := range b.msgs {
			c := g.children[g.e.childOf[m.Dst]]
			c.pending = append(c.pending, m)
			c.wake = clock.Min(c.wake, m.At)
		}
		b.msgs = b.msgs[:0]
		batches.Put(b)
	}
	g.incoming = g.incoming[:0]
}

func (g *groupActor) run(ctx actor.Context, w clock.Window) {
	var began time.Time
	if g.e.observer != nil {
		began = time.Now()
	}
	g.takeIncoming()
	for _, c := range g.children {
		if c.wake < w.To {
			g.stepChild(ctx, c, w.To)
		}
	}
	if g.e.observer != nil {
		g.e.observer.GroupDone(g.index, w, time.Since(began))
	}
	g.finish(ctx)
}

func (g *groupActor) stepChild(ctx actor.Context, c *child, to clock.Cycle) {
	s := &c.step
	s.to, s.in, s.ran = to, c.pending, false
	ctx.Send(c.pid, s)
	if !s.ran {
		panic("component actor did not run inline: components must use the synchronized dispatcher")
	}
	c.pending, s.in = s.in[:0], nil
	c.wake = s.next
	for i := range s.out.Msgs {
		g.route(&s.out.Msgs[i])
	}
	s.out.Msgs = s.out.Msgs[:0]
}

func (g *groupActor) route(m *messages.Msg) {
	dg := g.e.groupOf[m.Dst]
	if dg == g.index {
		c := g.children[g.e.childOf[m.Dst]]
		c.pending = append(c.pending, *m)
		c.wake = clock.Min(c.wake, m.At)
		return
	}
	b := g.outgoing[dg]
	if b == nil {
		b = batches.Get().(*batch)
		b.from = g.index
		g.outgoing[dg] = b
		g.dests = append(g.dests, dg)
	}
	b.msgs = append(b.msgs, *m)
}

// finish sends the batches, then reports to the clock: the group's next
// wake and the earliest cycle each destination group must wake for.
func (g *groupActor) finish(ctx actor.Context) {
	d := &done{g: g.index, next: clock.Never, moves: g.e.net.Moves(g.index), undelivered: g.e.net.Undelivered(g.index)}
	for _, c := range g.children {
		d.next = clock.Min(d.next, c.wake)
	}
	sort.Ints(g.dests)
	for _, dg := range g.dests {
		b := g.outgoing[dg]
		first := clock.Never
		for i := range b.msgs {
			first = clock.Min(first, b.msgs[i].At)
		}
		d.wakes = append(d.wakes, wake{g: dg, at: first})
		ctx.Send(g.e.groups[dg], b)
		delete(g.outgoing, dg)
	}
	g.dests = g.dests[:0]
	ctx.Send(g.e.clockPID, d)
}

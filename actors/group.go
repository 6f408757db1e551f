package actors

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// inline is an actor its parent drives on the parent's own goroutine: it
// runs on the synchronized dispatcher with an inline mailbox, and the
// parent posts to that mailbox directly rather than resolving the PID at
// every message.
type inline struct {
	pid  *actor.PID
	mbox *inlineMailbox
}

// send posts msg to the actor, which handles it before send returns.
func (a inline) send(msg any) { a.mbox.PostUserMessage(msg) }

// spawner spawns the inline children of one parent, all with one Props
// (the actor and the mailbox of a spawn are made during the spawn call).
type spawner struct {
	props *actor.Props
	next  actor.Actor
	mbox  *inlineMailbox
}

func newSpawner(e *engine) *spawner {
	s := &spawner{}
	s.props = actor.PropsFromProducer(func() actor.Actor { return s.next },
		actor.WithDispatcher(actor.NewSynchronizedDispatcher(1000)),
		actor.WithMailbox(func() actor.Mailbox { s.mbox = &inlineMailbox{}; return s.mbox }),
		actor.WithSupervisor(e.supervisor))
	return s
}

// spawn spawns a as a child of ctx's actor.
func (s *spawner) spawn(ctx actor.SpawnerContext, name string, a actor.Actor) inline {
	s.next, s.mbox = a, nil
	pid, err := ctx.SpawnNamed(s.props, name)
	if err != nil {
		panic(err)
	}
	if s.mbox == nil {
		panic(fmt.Sprintf("actor %s: the mailbox was not made during its spawn", pid.Id))
	}
	if h, ok := a.(handler); ok {
		s.mbox.handler = h
	}
	return inline{pid: pid, mbox: s.mbox}
}

// child is a component actor of a group, with the messages addressed to it
// that the group holds until its next step.
type child struct {
	inline
	pending []messages.Msg
}

// groupActor is a switch (its MPorts, central crossbar and output ports) or
// a bank of NICs. In each window it takes what other groups sent it in the
// previous window and steps the children that have work, in member order;
// messages between its children stay inside, messages for other groups go
// to the exchange of the partition that runs it.
type groupActor struct {
	index    int
	e        *engine
	children []child
	// wakes[i] is child i's next wake: kept apart from the children, so
	// that finding the children due in a window reads a few cache lines,
	// not one or two per child.
	wakes []clock.Cycle
	// step is the message that steps a child, one for all of them (a
	// child handles it before its send returns): its outbox, which every
	// child of the group fills in turn, stays in the cache.
	step step
}

func (g *groupActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*actor.Started); ok {
		g.spawnChildren(ctx)
		return
	}
	g.handle(ctx.Message())
}

// handle takes a user message (from the mailbox directly, or through the
// context).
func (g *groupActor) handle(msg any) {
	switch m := msg.(type) {
	case *turn:
		g.turn(m)
	case *held:
		for i := range g.children {
			m.msgs = append(m.msgs, g.children[i].pending...)
		}
	}
}

func (g *groupActor) spawnChildren(ctx actor.Context) {
	members := g.e.net.Groups[g.index].Members
	g.children = make([]child, len(members))
	g.wakes = make([]clock.Cycle, len(members))
	sp := newSpawner(g.e)
	for i, id := range members {
		comp := g.e.net.Comps[id]
		c := &g.children[i]
		c.inline = sp.spawn(ctx, fmt.Sprintf("c%d", id), &componentActor{c: comp})
		g.wakes[i] = comp.Next()
	}
}

func (g *groupActor) turn(r *turn) {
	stepping := -1
	defer func() {
		if v := recover(); v != nil {
			if stepping >= 0 {
				v = fmt.Sprintf("component %s: %v", g.children[stepping].pid.Id, v)
			}
			panic(v)
		}
	}()
	for _, from := range r.in {
		if from.msgs == nil {
			continue // the first window
		}
		for _, m := range from.msgs[g.index] {
			i := g.e.childOf[m.Dst]
			g.children[i].pending = append(g.children[i].pending, m)
			g.wakes[i] = clock.Min(g.wakes[i], m.At)
		}
	}
	for i, w := range g.wakes {
		if w < r.w.To {
			stepping = i
			g.stepChild(i, r.w.To, r.x)
		}
	}
	r.next = clock.Never
	for _, w := range g.wakes {
		r.next = clock.Min(r.next, w)
	}
	r.ok = true
}

func (g *groupActor) stepChild(i int, to clock.Cycle, x *exchange) {
	c := &g.children[i]
	s := &g.step
	s.to, s.in, s.ran = to, c.pending, false
	c.send(s)
	if !s.ran {
		panic("component actor did not run inline: components must use the synchronized dispatcher")
	}
	c.pending, s.in = s.in[:0], nil
	g.wakes[i] = s.next
	for i := range s.out.Msgs {
		g.route(&s.out.Msgs[i], x)
	}
	s.out.Msgs = s.out.Msgs[:0]
}

// route files a message a child sent: for a child of this group at once,
// for another group's component in the exchange, which that group takes
// when it runs in the next window.
func (g *groupActor) route(m *messages.Msg, x *exchange) {
	dg := g.e.groupOf[m.Dst]
	if dg == g.index {
		i := g.e.childOf[m.Dst]
		g.children[i].pending = append(g.children[i].pending, *m)
		g.wakes[i] = clock.Min(g.wakes[i], m.At)
		return
	}
	if len(x.out.msgs[dg]) == 0 {
		x.out.groups = append(x.out.groups, dg)
	}
	x.out.msgs[dg] = append(x.out.msgs[dg], *m)
	if m.At < x.wakeAt[dg] {
		if x.wakeAt[dg] == clock.Never {
			x.touched = append(x.touched, dg)
		}
		x.wakeAt[dg] = m.At
	}
}

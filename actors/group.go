package actors

import (
	"fmt"
	"unsafe"

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

// spawner spawns inline actors, all with one Props, each with the mailbox
// its caller gives it: the callers keep their actors and mailboxes in
// arrays, so that the ones stepped one after the other sit side by side in
// memory (a step touches the mailbox, the actor and its pending messages,
// and each would otherwise be a heap object of its own, scattered among
// protoactor-go's per-actor structures, a page apart).
type spawner struct {
	props *actor.Props
	next  actor.Actor
	mbox  *inlineMailbox
	made  bool
}

func newSpawner(e *engine) *spawner {
	s := &spawner{}
	s.props = actor.PropsFromProducer(func() actor.Actor { return s.next },
		actor.WithDispatcher(actor.NewSynchronizedDispatcher(1000)),
		actor.WithMailbox(func() actor.Mailbox { s.made = true; return s.mbox }),
		actor.WithSupervisor(e.supervisor))
	return s
}

// spawn spawns a, with mailbox mbox, as a child of ctx's actor.
func (s *spawner) spawn(ctx actor.SpawnerContext, name string, a actor.Actor, mbox *inlineMailbox) inline {
	s.next, s.mbox, s.made = a, mbox, false
	pid, err := ctx.SpawnNamed(s.props, name)
	if err != nil {
		panic(err)
	}
	if !s.made {
		panic(fmt.Sprintf("actor %s: the mailbox was not made during its spawn", pid.Id))
	}
	if h, ok := a.(handler); ok {
		mbox.handler = h
	}
	return inline{pid: pid, mbox: mbox}
}

// child is a component actor of a group, its mailbox, and the messages
// addressed to it that the group holds until its next step, together: a
// step reads the first 64 bytes (pending, the actor, the mailbox's handler
// and flags). The engine keeps every child in one array, a group's
// children side by side, each on two cache lines of its own.
type child struct {
	pending []messages.Msg
	actor   componentActor
	mbox    inlineMailbox
	pid     *actor.PID
	_       [childSize - 96]byte
}

// childSize is the size of a child: two cache lines.
const childSize = 128

// The padding above must stay non-negative and the size exact.
var _ [childSize - unsafe.Sizeof(child{})]byte
var _ [unsafe.Sizeof(child{}) - childSize]byte

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
	case *deliver:
		// Messages sent it in an earlier window wait in the exchange until
		// its turn: a later one must not pass them (the messages of one
		// source reach a component in the order they were sent).
		if m.took = m.remote || !g.e.backlog[g.index]; m.took {
			g.take(m.m)
		}
	case *held:
		for i := range g.children {
			m.msgs = append(m.msgs, g.children[i].pending...)
		}
	}
}

func (g *groupActor) spawnChildren(ctx actor.Context) {
	members := g.e.net.Groups[g.index].Members
	lo := g.e.firstChild[g.index]
	g.children = g.e.children[lo : lo+len(members) : lo+len(members)]
	g.wakes = g.e.wakes[lo : lo+len(members) : lo+len(members)]
	sp := newSpawner(g.e)
	for i, id := range members {
		comp := g.e.net.Comps[id]
		c := &g.children[i]
		c.actor.c = comp
		c.pid = sp.spawn(ctx, fmt.Sprintf("c%d", id), &c.actor, &c.mbox).pid
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
		for k := range from.msgs[g.index] {
			g.take(&from.msgs[g.index][k])
		}
	}
	g.e.backlog[g.index] = false
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
	s := &x.step
	s.to, s.in, s.ran = to, c.pending, false
	c.mbox.PostUserMessage(s)
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

// take files a message for one of the group's children until its next
// step.
func (g *groupActor) take(m *messages.Msg) {
	i := g.e.childOf[m.Dst]
	g.children[i].pending = append(g.children[i].pending, *m)
	g.wakes[i] = clock.Min(g.wakes[i], m.At)
}

// route files a message a child sent. A child of this group takes it at
// once. Another group takes it at once too if it is idle (a deliver
// message its mailbox hands it on this goroutine); if it is running on
// another worker, or has not yet taken what the exchange holds for it from
// an earlier window, the message goes to the exchange, and the group takes
// it when it runs in the next window, as it does every later message from
// this partition in this window (so that the messages of one source reach
// it in the order they were sent, whichever way they go). A message for
// another member's group (a distributed run) goes to the exchange, which
// the member reports at the barrier. Either way the
// clock learns when the group must wake for it. A message always takes
// effect in a later window than it was sent in, so when it is filed does
// not change the results.
func (g *groupActor) route(m *messages.Msg, x *exchange) {
	dg := g.e.groupOf[m.Dst]
	if dg == g.index {
		g.take(m)
		return
	}
	if len(x.out.msgs[dg]) == 0 && g.e.owns(dg) && g.post(dg, m, x) {
		x.direct++
	} else {
		if len(x.out.msgs[dg]) == 0 {
			x.out.groups = append(x.out.groups, dg)
		}
		x.out.msgs[dg] = append(x.out.msgs[dg], *m)
		x.exchanged++
	}
	if m.At < x.wakeAt[dg] {
		if x.wakeAt[dg] == clock.Never {
			x.touched = append(x.touched, dg)
		}
		x.wakeAt[dg] = m.At
	}
}

// post hands m to group dg if it is idle, reporting whether it did.
func (g *groupActor) post(dg int, m *messages.Msg, x *exchange) bool {
	if k := g.e.refuse; k > 0 && (x.direct+x.exchanged)%int64(k) == 0 {
		return false
	}
	x.deliver.m, x.deliver.took = m, false
	ok := g.e.groups[dg].mbox.tryPost(&x.deliver) && x.deliver.took
	x.deliver.m = nil
	return ok
}

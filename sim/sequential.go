package sim

import (
	"context"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
)

// Sequential is the reference engine: it drives the network window by
// window on one goroutine, the due groups in index order and, within a
// group, its due components in member order.
type Sequential struct {
	// Lose, when set, sees every message a component sends, before it is
	// routed; returning true loses the message (tests use it to check that
	// the conservation check catches a loss).
	Lose func(*messages.Msg) bool
}

// Run drives n to the configured end, an interruption of ctx, or a
// blocked network.
func (s Sequential) Run(ctx context.Context, n *fabric.Network, h Hooks) (Outcome, error) {
	n.ShareMessageStore()
	l := NewWindows(ctx, n, h)
	e := seqEngine{n: n, l: l, lose: s.Lose, groupOf: make([]int, len(n.Comps)), wake: make([]clock.Cycle, len(n.Comps))}
	for g, grp := range n.Groups {
		for _, id := range grp.Members {
			e.groupOf[id], e.wake[id] = g, n.Comps[id].Next()
		}
	}
	for {
		w, due, ok := l.Next()
		if !ok {
			break
		}
		for _, g := range due {
			e.step(g, w)
		}
		l.Barrier(0)
	}
	// Every message sent has been handed to its component: none is held
	// here (the conservation check finds them in the components' inboxes).
	return l.Outcome("sequential"), nil
}

type seqEngine struct {
	n       *fabric.Network
	l       *Windows
	lose    func(*messages.Msg) bool
	groupOf []int         // component -> group
	wake    []clock.Cycle // per component
	out     fabric.Outbox
}

// step runs group g through window w: its components that have work
// before w.To, in member order.
func (e *seqEngine) step(g int, w clock.Window) {
	// next is the group's next wake: every member's as it stands after its
	// turn, and the messages the members send each other afterwards.
	next := clock.Never
	for _, id := range e.n.Groups[g].Members {
		if e.wake[id] < w.To {
			e.wake[id] = e.n.Comps[id].Advance(w.To, &e.out)
			next = min(next, e.route(g))
		}
		next = min(next, e.wake[id])
	}
	if o := e.l.Observer(); o != nil {
		o.GroupDone(g, w, 0)
	}
	e.l.Done(g, next)
}

// route hands the messages a component of group g sent to the components
// they are for (none of which is advancing: they take effect in a later
// window, so handing them over now or at the receiver's next step is the
// same) and moves their wakes: for another group's, the window loop wakes
// that group. It returns the earliest effect cycle of those for group g.
func (e *seqEngine) route(g int) clock.Cycle {
	mine := clock.Never
	for k := range e.out.Msgs {
		m := &e.out.Msgs[k]
		if e.lose != nil && e.lose(m) {
			continue
		}
		e.n.Deliver(m)
		e.wake[m.Dst] = min(e.wake[m.Dst], m.At)
		if dg := e.groupOf[m.Dst]; dg != g {
			e.l.Wake(dg, m.At)
		} else {
			mine = min(mine, m.At)
		}
	}
	e.out.Msgs = e.out.Msgs[:0]
	return mine
}

// RunSequential runs n on the sequential engine (which never fails).
func RunSequential(ctx context.Context, n *fabric.Network, h Hooks) Outcome {
	o, _ := Sequential{}.Run(ctx, n, h)
	return o
}

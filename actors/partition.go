package actors

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// partitionActor runs a contiguous range of groups on one worker of the
// pool; the clock gives it the range with every tick (it changes only
// when the clock rebalances the partitions). In each window it files the
// messages the other partitions sent its groups in the previous window,
// runs its due groups in index order (each inline, on its own goroutine),
// and reports to the clock once, with the messages its groups sent to
// other partitions' groups. So the barrier spans a few partitions, not
// every group.
type partitionActor struct {
	index int
	e     *engine
	out   [2]outgoing // two buffers of outgoing messages
	buf   int         // the buffer this window writes
	x     exchange
	r     turn
	done  done
}

func newPartition(e *engine, index int) *partitionActor {
	groups := len(e.net.Groups)
	p := &partitionActor{index: index, e: e}
	for b := range p.out {
		p.out[b].msgs = make([][]messages.Msg, groups)
	}
	p.x.part, p.x.partOf, p.x.inbox = index, e.partOf, e.inbox
	p.x.wakeAt = make([]clock.Cycle, groups)
	for g := range p.x.wakeAt {
		p.x.wakeAt[g] = clock.Never
	}
	p.done.part = index
	return p
}

func (p *partitionActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *tick:
		p.tick(ctx, m)
	case *flush:
		p.file(m.in, m.lo, m.hi)
		var msgs []messages.Msg
		for g := m.lo; g < m.hi; g++ {
			msgs = append(msgs, p.e.inbox[g]...)
			h := &held{}
			p.e.groups[g].send(h)
			msgs = append(msgs, h.msgs...)
		}
		m.reply <- msgs
	}
}

// file moves the messages the other partitions sent groups [lo, hi) in the
// last window into the groups' inboxes. Each sender's messages keep their
// order, which is all the model needs (a component applies the messages of
// one cycle by sender, then in arrival order).
func (p *partitionActor) file(in []outgoing, lo, hi int) {
	for _, from := range in {
		for _, g := range from.groups {
			if g >= lo && g < hi {
				p.e.inbox[g] = append(p.e.inbox[g], from.msgs[g]...)
			}
		}
	}
}

func (p *partitionActor) tick(ctx actor.Context, t *tick) {
	p.file(t.in, t.lo, t.hi)
	out := &p.out[p.buf] // q read it in the last window, before the barrier
	for _, g := range out.groups {
		out.msgs[g] = out.msgs[g][:0]
	}
	out.groups = out.groups[:0]
	p.x.out = out
	d := &p.done
	d.ran, d.wakes = d.ran[:0], d.wakes[:0]
	first, _ := slices.BinarySearch(t.due, t.lo)
	for _, g := range t.due[first:] {
		if g >= t.hi {
			break
		}
		began := time.Now()
		r := &p.r
		r.w, r.in, r.x, r.ok = t.w, p.e.inbox[g], &p.x, false
		p.e.groups[g].send(r)
		if !r.ok {
			panic("group actor did not run inline: groups must use the synchronized dispatcher")
		}
		p.e.inbox[g], r.in = r.in[:0], nil
		busy := time.Since(began)
		d.ran = append(d.ran, ran{g: g, next: r.next, moves: r.moves, undelivered: r.undelivered, busy: busy})
		if obs := p.e.observer; obs != nil {
			obs.GroupDone(g, t.w, busy)
		}
	}
	for _, g := range p.x.touched {
		d.wakes = append(d.wakes, wake{g: g, at: p.x.wakeAt[g]})
		p.x.wakeAt[g] = clock.Never
	}
	p.x.touched = p.x.touched[:0]
	d.out = *out
	p.buf ^= 1
	ctx.Send(p.e.clockPID, d)
}

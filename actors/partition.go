package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// partitionActor is one worker's share of the groups. In each window it
// runs the groups of its share of the window's work (a contiguous range of
// groups, balanced by measured time), each inline on its own goroutine;
// when its share is done it takes groups from the shares of partitions
// still running, so a window ends when the work does, not when the slowest
// share does. It reports to the clock once per window, with the messages
// its groups sent. So the barrier spans a few partitions, not every group.
type partitionActor struct {
	index int
	e     *engine
	out   [2]outgoing // two buffers of outgoing messages, by destination group
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
	p.x.wakeAt = make([]clock.Cycle, groups)
	for g := range p.x.wakeAt {
		p.x.wakeAt[g] = clock.Never
	}
	p.done.part = index
	return p
}

func (p *partitionActor) Receive(ctx actor.Context) {
	if t, ok := ctx.Message().(*tick); ok {
		p.tick(ctx, t)
	}
}

func (p *partitionActor) tick(ctx actor.Context, t *tick) {
	out := &p.out[p.buf] // every group read it in the last window, before the barrier
	for _, g := range out.groups {
		out.msgs[g] = out.msgs[g][:0]
	}
	out.groups = out.groups[:0]
	p.x.out = out
	d := &p.done
	d.ran, d.wakes = d.ran[:0], d.wakes[:0]
	parts := len(t.work.cursor)
	for k := 0; k < parts; k++ {
		q := (p.index + k) % parts // its own share, then the others'
		for {
			g, ok := t.work.take(q)
			if !ok {
				break
			}
			p.run(g, t)
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

// run gives group g its turn in window t.w.
func (p *partitionActor) run(g int, t *tick) {
	var began time.Time
	if t.timed {
		began = time.Now()
	}
	r := &p.r
	r.w, r.in, r.x, r.ok = t.w, t.in, &p.x, false
	for mbox := p.e.groups[g].mbox; !mbox.tryPost(r); {
		// Another worker is handing the group a message (a few
		// instructions): the group takes its turn right after.
		if mbox.handler == nil {
			panic("group actor has no direct handler")
		}
	}
	if !r.ok {
		panic("group actor did not run inline: groups must use the synchronized dispatcher")
	}
	r.in = nil
	var busy time.Duration
	if t.timed {
		busy = time.Since(began)
	}
	p.done.ran = append(p.done.ran, ran{g: g, next: r.next, busy: busy})
	if obs := p.e.observer; obs != nil {
		obs.GroupDone(g, t.w, busy)
	}
}

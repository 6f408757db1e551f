package fabric

import (
	"math/bits"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// reqQueue holds the requests waiting at a pipelined destination arbiter,
// per source slot in arrival order.
type reqQueue struct {
	bySlot    [][]pending
	count     int
	busy      uint64    // bit s set: slot s has a request (kept when there are at most 64 slots)
	refusedAt []refusal // the last refusal of each (slot, source queue) that can still matter (forget)
}

// wide reports whether the queue has more slots than busy covers.
func (r *reqQueue) wide() bool { return len(r.bySlot) > 64 }

// mark records whether slot holds a request, after it changed.
func (r *reqQueue) mark(slot int) {
	if slot >= 64 {
		return
	}
	if len(r.bySlot[slot]) > 0 {
		r.busy |= 1 << slot
	} else {
		r.busy &^= 1 << slot
	}
}

// refusal is when a destination refused a request of slot's queue q, and
// the request's number.
type refusal struct {
	at      clock.Cycle
	slot, q int32
	tag     int32
}

func newReqQueue(slots int) reqQueue {
	return reqQueue{bySlot: make([][]pending, slots)}
}

// refusalOf returns the recorded refusal of slot's queue q, or nil.
func (r *reqQueue) refusalOf(slot, q int32) *refusal {
	for i := range r.refusedAt {
		if x := &r.refusedAt[i]; x.slot == slot && x.q == q {
			return x
		}
	}
	return nil
}

// forget drops the refusals that no request can be behind any more at
// now. A request behind refusal x takes effect before x.at + μ + λ
// (behindRefusal); it is refused by the evaluation at its effect cycle,
// or, if it came before x was refused, by the one that refused x. So from
// x.at + μ + λ on, x decides nothing.
func (r *reqQueue) forget(p *params, now clock.Cycle) {
	k := 0
	for _, x := range r.refusedAt {
		if now < x.at+p.grantLatency+p.requestLatency {
			r.refusedAt[k] = x
			k++
		}
	}
	r.refusedAt = r.refusedAt[:k]
}

// refuse answers request m of slot with a refusal at now. A request behind
// an earlier refusal (behindRefusal) is refused with it; any other refusal
// is recorded, so that the requests sent after m from the same queue for
// the same output before its source hears of it are refused too.
func (r *reqQueue) refuse(p *params, slot int, m *messages.Msg, now clock.Cycle, from messages.CompID, out *Outbox) {
	if !r.behindRefusal(p, slot, m) {
		x := refusal{at: now, slot: int32(slot), q: m.Queue, tag: m.Tag}
		if old := r.refusalOf(x.slot, x.q); old != nil {
			*old = x
		} else {
			r.refusedAt = append(r.refusedAt, x)
		}
	}
	out.Send(nack(p, m, now, from))
}

// behindRefusal reports whether request m of slot was sent after a request
// of the same queue that was refused here, and before its source heard of
// that refusal: its packet is behind the refused one, and it must be
// refused too, so that the queue's packets leave in order.
func (r *reqQueue) behindRefusal(p *params, slot int, m *messages.Msg) bool {
	if len(r.refusedAt) == 0 {
		return false
	}
	x := r.refusalOf(int32(slot), m.Queue)
	return x != nil && m.Tag-x.tag > 0 && m.At-p.requestLatency < x.at+p.grantLatency
}

func (r *reqQueue) add(slot int, m *messages.Msg) {
	r.bySlot[slot] = append(r.bySlot[slot], pending{valid: true, msg: *m})
	r.count++
	r.mark(slot)
}

// cancel removes the held request of slot's queue tag, if it is still here.
func (r *reqQueue) cancel(slot int, tag int32) (messages.Msg, bool) {
	list := r.bySlot[slot]
	for i := range list {
		if list[i].msg.Tag == tag {
			m := list[i].msg
			r.bySlot[slot] = append(list[:i], list[i+1:]...)
			r.count--
			r.mark(slot)
			return m, true
		}
	}
	return messages.Msg{}, false
}

// first returns the first request, round-robin over the slots from next
// and in arrival order within a slot, for which ok holds. Only the oldest
// request of each source queue is a candidate: a queue's packets are
// granted in order.
func (r *reqQueue) first(next int, ok func(int, *messages.Msg) bool) (slot, idx int) {
	if r.wide() {
		n := len(r.bySlot)
		for k := 0; k < n; k++ {
			if s := (next + k) % n; len(r.bySlot[s]) > 0 {
				if i := r.firstIn(s, ok); i >= 0 {
					return s, i
				}
			}
		}
		return -1, -1
	}
	below := uint64(1)<<next - 1
	for _, part := range [2]uint64{r.busy &^ below, r.busy & below} {
		for ; part != 0; part &= part - 1 {
			s := bits.TrailingZeros64(part)
			if i := r.firstIn(s, ok); i >= 0 {
				return s, i
			}
		}
	}
	return -1, -1
}

// firstIn is first within slot s: the index of its first request, in
// arrival order, that is its queue's oldest here and for which ok holds,
// or -1.
func (r *reqQueue) firstIn(s int, ok func(int, *messages.Msg) bool) int {
	list := r.bySlot[s]
	for i := range list {
		if !olderOfQueue(list[:i], list[i].msg.Queue) && ok(s, &list[i].msg) {
			return i
		}
	}
	return -1
}

func olderOfQueue(list []pending, q int32) bool {
	for i := range list {
		if list[i].msg.Queue == q {
			return true
		}
	}
	return false
}

func (r *reqQueue) take(slot, idx int) messages.Msg {
	m := r.bySlot[slot][idx].msg
	r.bySlot[slot] = append(r.bySlot[slot][:idx], r.bySlot[slot][idx+1:]...)
	r.count--
	r.mark(slot)
	return m
}

// sweep removes, in slot and arrival order, the requests for which drop
// holds, calling it once per request.
func (r *reqQueue) sweep(drop func(int, *messages.Msg) bool) {
	if r.wide() {
		for s := range r.bySlot {
			r.sweepSlot(s, drop)
		}
		return
	}
	for m := r.busy; m != 0; m &= m - 1 {
		r.sweepSlot(bits.TrailingZeros64(m), drop)
	}
}

// sweepSlot is sweep within slot s.
func (r *reqQueue) sweepSlot(s int, drop func(int, *messages.Msg) bool) {
	list := r.bySlot[s]
	k := 0
	for i := range list {
		if drop(s, &list[i].msg) {
			r.count--
			continue
		}
		if k != i {
			list[k] = list[i]
		}
		k++
	}
	if k < len(list) {
		r.bySlot[s] = list[:k]
		r.mark(s)
	}
}

// startOf is when a granted transfer of request m starts: its booked start,
// or, for a request without deadline, as soon as the grant arrives.
func startOf(p *params, m *messages.Msg, now clock.Cycle) clock.Cycle {
	return clock.Max(now+p.grantLatency, m.Ready)
}

// expired reports whether request m, which has a booked start, can no longer
// be granted for it: the grant would arrive after the start, or the write
// port is taken until after it (it only ever frees later).
func expired(p *params, m *messages.Msg, now, writeFree clock.Cycle) bool {
	return m.Deadline != 0 && (now > m.Deadline || writeFree > m.Ready)
}

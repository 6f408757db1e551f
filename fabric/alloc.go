package fabric

import (
	"fmt"
	"sort"
	"strings"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Allocators. The switch allocation (seed 002 VA-SA) is distributed over
// the sources (input buffers and central buffers: the input arbiters) and
// the destinations (central buffer pairs and output buffers: the
// destination arbiters), which talk by request, grant, refusal and cancel
// messages taking λ = floor(AT/2) and μ = AT − λ cycles. An allocator is
// the protocol they follow; docs/model.md describes each.
const (
	// AllocSerial: a source has at most one request in flight and sends the
	// next only when the answer has arrived, so its read port idles for the
	// whole AT between transfers. Kept for comparison with the first model.
	AllocSerial = "serial"
	// AllocPipelined: a source books its read port ahead: it may have one
	// request in flight per queue (VL or central lane), each for a transfer
	// window that starts right after the windows already booked (and not
	// before AT from now), while the booked windows reach less than AT plus
	// a lookahead of AT into the future. A destination grants a request
	// only for its booked start, or refuses it (no room, the write port is
	// taken then, or the start can no longer be met); an "alone" request
	// (no other queue of the source has a packet ready) may be held as in
	// the serial allocator. Zero-load timing is the serial one.
	AllocPipelined = "pipelined"
)

// allocInfo describes a registered allocator.
type allocInfo struct {
	name      string
	pipelined bool
	doc       string
}

var allocators = []allocInfo{
	{name: AllocPipelined, pipelined: true, doc: "sources book read-port windows ahead, one request in flight per VL (default)"},
	{name: AllocSerial, doc: "one request in flight per buffer; the read port idles for AT between transfers"},
}

// AllocatorNames lists the allocators, sorted.
func AllocatorNames() []string {
	names := make([]string, len(allocators))
	for i, a := range allocators {
		names[i] = a.name
	}
	sort.Strings(names)
	return names
}

func lookupAllocator(name string) (allocInfo, error) {
	for _, a := range allocators {
		if a.name == name {
			return a, nil
		}
	}
	return allocInfo{}, fmt.Errorf("%q is not allowed: must be one of: %s", name, strings.Join(AllocatorNames(), ", "))
}

// outReq is a request a pipelined source has sent and not yet had answered.
type outReq struct {
	e      entry
	q      int32 // the queue it came from
	alone  bool  // the destination may hold it (see source.next)
	cancel bool  // a cancel of it is on its way
}

// pickFree returns the queue whose head is ready at now and has no request
// in flight, round-robin after the last one picked, or -1.
func (s *source) pickFree(now clock.Cycle) int {
	n := len(s.q)
	for k := 0; k < n; k++ {
		q := (s.vaNext + k) % n
		if !s.busy[q] && s.q[q].Len() > 0 && s.q[q].Front().Ready <= now {
			return q
		}
	}
	return -1
}

// nextFreeReady is the earliest Ready among the heads of the queues with no
// request in flight (clock.Never if none).
func (s *source) nextFreeReady() clock.Cycle {
	t := clock.Never
	for q := range s.q {
		if !s.busy[q] && s.q[q].Len() > 0 {
			t = clock.Min(t, s.q[q].Front().Ready)
		}
	}
	return t
}

// nextPipelined decides what the input arbiter of a pipelined source does
// at now: request the head of a queue for the next free window of its read
// port, withdraw a held request, or nothing. speed is the crossbar speed of
// its transfers; wake is when it must look again if nothing arrives.
func (s *source) nextPipelined(now clock.Cycle, p *params, speed int32) (m messages.Msg, send bool, wake clock.Cycle) {
	if n := len(s.outs); n > 0 && s.outs[n-1].alone {
		// A held request may be granted for any later start, so nothing is
		// booked after it; withdraw it when another queue has a packet ready.
		o := &s.outs[n-1]
		if o.cancel {
			return m, false, clock.Never
		}
		if s.pickFree(now) >= 0 {
			o.cancel = true
			return messages.Msg{Kind: messages.KindCancel, Tag: o.q}, true, clock.Never
		}
		return m, false, s.nextFreeReady()
	}
	at := p.lambda + p.mu
	if p.depth > 0 && len(s.outs) >= p.depth {
		return m, false, clock.Never // an answer will come
	}
	if horizon := now + at + p.lookahead; s.readFree > horizon {
		return m, false, s.readFree - at - p.lookahead
	}
	q := s.pickFree(now)
	if q < 0 {
		return m, false, s.nextFreeReady()
	}
	s.vaNext = (q + 1) % len(s.q)
	s.busy[q] = true
	e := s.q[q].Pop()
	start := clock.Max(now+at, s.readFree)
	tailOut := transfer(start, e.Pkt.Flits, speed, e.TailAvail)
	alone := s.pickFree(now) < 0
	s.outs = append(s.outs, outReq{e: e, q: int32(q), alone: alone})
	pk := e.Pkt
	pk.SC, pk.VL = e.NextSC, e.NextVL // what it carries past this buffer
	m = messages.Msg{Kind: messages.KindRequest, VL: int32(e.NextVL), Out: e.Out, Ready: start, TailAvail: e.TailAvail,
		Tag: int32(q), Alone: alone, Pkt: pk}
	if !alone {
		m.Deadline = start - p.mu
		s.readFree = tailOut + 1
	}
	wake = clock.Max(now+1, s.nextFreeReady())
	if s.readFree > now+at+p.lookahead {
		wake = clock.Max(wake, s.readFree-at-p.lookahead)
	}
	return m, true, wake
}

// outIndex finds the request in flight for queue q.
func (s *source) outIndex(q int32) int {
	for i := range s.outs {
		if s.outs[i].q == q {
			return i
		}
	}
	panic(fmt.Sprintf("allocator: an answer for queue %d, which has no request in flight", q))
}

func (s *source) dropOut(i int) outReq {
	o := s.outs[i]
	s.outs = append(s.outs[:i], s.outs[i+1:]...)
	s.busy[o.q] = false
	return o
}

// grantedPipelined records the grant of the request for queue g.Tag.
func (s *source) grantedPipelined(g *messages.Msg) {
	o := s.dropOut(s.outIndex(g.Tag))
	s.readFree = clock.Max(s.readFree, g.TailOut+1)
	s.rel.Insert(release{At: g.TailOut + 1, VL: o.q, Credits: o.e.Pkt.Credits})
}

// refusedPipelined puts the refused packet back at the head of its queue.
func (s *source) refusedPipelined(g *messages.Msg) {
	o := s.dropOut(s.outIndex(g.Tag))
	s.q[o.q].PushFront(o.e)
}

// reqQueue holds the requests waiting at a pipelined destination arbiter,
// per source slot in arrival order.
type reqQueue struct {
	bySlot [][]pending
	count  int
}

func newReqQueue(slots int) reqQueue { return reqQueue{bySlot: make([][]pending, slots)} }

func (r *reqQueue) add(slot int, m *messages.Msg) {
	r.bySlot[slot] = append(r.bySlot[slot], pending{valid: true, msg: *m})
	r.count++
}

// cancel removes the held request of slot's queue tag, if it is still here.
func (r *reqQueue) cancel(slot int, tag int32) (messages.Msg, bool) {
	list := r.bySlot[slot]
	for i := range list {
		if list[i].msg.Tag == tag {
			m := list[i].msg
			r.bySlot[slot] = append(list[:i], list[i+1:]...)
			r.count--
			return m, true
		}
	}
	return messages.Msg{}, false
}

// first returns the first request, round-robin over the slots from next
// and in arrival order within a slot, for which ok holds.
func (r *reqQueue) first(next int, ok func(*messages.Msg) bool) (slot, idx int) {
	n := len(r.bySlot)
	for k := 0; k < n; k++ {
		s := (next + k) % n
		for i := range r.bySlot[s] {
			if ok(&r.bySlot[s][i].msg) {
				return s, i
			}
		}
	}
	return -1, -1
}

func (r *reqQueue) take(slot, idx int) messages.Msg {
	m := r.bySlot[slot][idx].msg
	r.bySlot[slot] = append(r.bySlot[slot][:idx], r.bySlot[slot][idx+1:]...)
	r.count--
	return m
}

// sweep removes, in slot and arrival order, the requests for which drop
// holds, calling it once per request.
func (r *reqQueue) sweep(drop func(*messages.Msg) bool) {
	for s := range r.bySlot {
		list := r.bySlot[s][:0]
		for _, p := range r.bySlot[s] {
			if drop(&p.msg) {
				r.count--
				continue
			}
			list = append(list, p)
		}
		r.bySlot[s] = list
	}
}

// startOf is when a granted transfer of request m starts: its booked start,
// or, for a request without deadline, as soon as the grant arrives.
func startOf(p *params, m *messages.Msg, now clock.Cycle) clock.Cycle {
	return clock.Max(now+p.mu, m.Ready)
}

// expired reports whether request m, which has a booked start, can no longer
// be granted for it: the grant would arrive after the start, or the write
// port is taken until after it (it only ever frees later).
func expired(p *params, m *messages.Msg, now, writeFree clock.Cycle) bool {
	return m.Deadline != 0 && (now > m.Deadline || writeFree > m.Ready)
}

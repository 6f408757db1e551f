package fabric

import (
	"fmt"
	"math/bits"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/registry"
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
	// AllocPipelined: a source books its read port ahead: each request is
	// for the next free transfer window (not before AT from now), while the
	// booked windows reach less than AT plus a lookahead of AT into the
	// future; a queue (VL or central lane) may have several requests in
	// flight toward one destination (switch.request_pipelining
	// same_destination; any_destination: toward several), each of which
	// grants them in order. A destination grants a request only for its
	// booked start, or refuses it (no room, the write port is taken then,
	// or the start can no longer be met); an "alone" request (no other
	// queue of the source has a packet ready) may be held as in the serial
	// allocator. Zero-load timing is the serial one.
	AllocPipelined = "pipelined"
	// AllocIslip: iSLIP (McKeown 1999) over the same sources and
	// destinations, with its three phases as messages (islip.go): a source
	// requests, for one transfer window, the heads of its queues bound for
	// different destinations; a destination grants one, round-robin from a
	// pointer that moves past a source only when its grant is accepted in
	// the first iteration; the source accepts one grant, round-robin over
	// its queues, and declines the others; switch.islip_iterations rounds
	// fit in AT. Zero-load timing is the serial one.
	AllocIslip = "islip"
)

// allocInfo describes a registered allocator.
type allocInfo struct {
	name      string
	pipelined bool
	islip     bool
}

// allocators are the allocators switch.allocator may name.
var allocators = newAllocators()

func newAllocators() *registry.Registry[allocInfo] {
	r := registry.New[allocInfo]("allocator")
	registry.Must(r.Register(AllocPipelined, allocInfo{name: AllocPipelined, pipelined: true}))
	registry.Must(r.Register(AllocSerial, allocInfo{name: AllocSerial}))
	registry.Must(r.Register(AllocIslip, allocInfo{name: AllocIslip, islip: true}))
	return r
}

// AllocatorNames lists the allocators, sorted.
func AllocatorNames() []string { return allocators.Names() }

func lookupAllocator(name string) (allocInfo, error) { return allocators.Get(name) }

// outReq is a request a pipelined source has sent and not yet had answered.
type outReq struct {
	e      entry
	q      int32 // the queue it came from
	id     int32 // the request's number (messages.Msg.Tag)
	alone  bool  // the destination may hold it (see nextPipelined)
	cancel bool  // a cancel of it is on its way

	dst      messages.CompID // where it went (for news of a late tail; preempt.go)
	slot, vl int32
}

// pickReady returns the queue whose head is ready at now and may be
// requested (pipelinable), round-robin after the last one picked, or -1;
// never queue skip.
func (s *source) pickReady(now clock.Cycle, skip int) int {
	if s.wide() {
		n := len(s.q)
		for k := 0; k < n; k++ {
			q := (s.vaNext + k) % n
			if q != skip && s.q[q].Len() > 0 && s.due(s.q[q].Front()) <= now && s.pipelinable(q) {
				return q
			}
		}
		return -1
	}
	// The queues that hold a packet, from vaNext on, then from 0.
	m := s.busy
	if skip >= 0 {
		m &^= 1 << skip
	}
	below := uint64(1)<<s.vaNext - 1
	for _, part := range [2]uint64{m &^ below, m & below} {
		for ; part != 0; part &= part - 1 {
			q := bits.TrailingZeros64(part)
			if s.headDue(q) <= now && s.pipelinable(q) {
				return q
			}
		}
	}
	return -1
}

// headDue is s.due of the head of queue q (one of the first 64, holding a
// packet), from heads unless preemption can delay its tail.
func (s *source) headDue(q int) clock.Cycle {
	if s.late {
		return s.due(s.q[q].Front())
	}
	return s.heads[q].ready
}

// destOf names the destination arbiter of a packet: its output port, or -1
// for the central buffer pair of an input buffer's MPort.
func (s *source) destOf(e *entry) int32 { return s.destOfOut(e.Out) }

// destOfOut is destOf of a packet routed to output port out.
func (s *source) destOfOut(out int32) int32 {
	if s.mport >= 0 && portNum(out).mport() != s.mport {
		return -1
	}
	return out
}

// pipelinable reports whether queue q's head may be requested now: a queue
// with a refused request whose followers are in flight waits for their
// answers. A queue sends its packets in order (a VL is a FIFO), and each
// destination answers a queue's requests to it in order; under
// switch.request_pipelining same_destination the queue may have several
// requests in flight only toward one destination, so the head of a queue
// with a request in flight elsewhere waits for its answer. Under
// any_destination it does not: the queue's packets still leave in order
// toward each destination (every flow has one), and a packet refused by
// one destination may leave after a later one granted by another.
func (s *source) pipelinable(q int) bool {
	if s.held[q] {
		if s.inFlight(q) {
			return false
		}
		s.held[q] = false
	}
	if s.anyDest {
		return true
	}
	var d int32
	if q < 64 {
		d = s.destOfOut(s.heads[q].out)
	} else {
		d = s.destOf(s.q[q].Front())
	}
	for i := range s.outs {
		if int(s.outs[i].q) == q && s.destOf(&s.outs[i].e) != d {
			return false
		}
	}
	return true
}

// nextPipelined decides what the input arbiter of a pipelined source does
// at now: request the head of a queue for the next free window of its read
// port, withdraw a held request, or nothing. speed is the crossbar speed of
// its transfers; wake is when it must look again if nothing arrives.
//
// Several packets of one queue may have requests in flight, all toward one
// destination, or under switch.request_pipelining any_destination toward
// several (pipelinable). A destination refuses every request of the queue
// sent to it after one it refused and before the source heard of that
// refusal (reqQueue.behindRefusal), and the source puts refused packets back
// in their order of arrival, so a queue's packets for one destination leave
// in order (with one destination in flight, all of the queue's).
func (s *source) nextPipelined(now clock.Cycle, p *params, speed int32) (m messages.Msg, send bool, wake clock.Cycle) {
	if n := len(s.outs); n > 0 && s.outs[n-1].alone {
		// A held request may be granted for any later start, so nothing is
		// booked after it; withdraw it when another queue has a packet
		// ready (packets behind it in its own queue wait, as in any FIFO).
		o := &s.outs[n-1]
		if o.cancel {
			return m, false, clock.Never
		}
		if s.pickReady(now, int(o.q)) >= 0 {
			o.cancel = true
			return messages.Msg{Kind: messages.KindCancel, Tag: o.id, Queue: o.q}, true, clock.Never
		}
		return m, false, s.nextPipelinable(int(o.q))
	}
	at := p.requestLatency + p.grantLatency
	if p.depth > 0 && len(s.outs) >= p.depth {
		return m, false, clock.Never // an answer will come
	}
	if horizon := now + at + p.lookahead; s.readFree > horizon {
		return m, false, s.readFree - at - p.lookahead
	}
	q := s.pickReady(now, -1)
	if q < 0 {
		return m, false, s.nextPipelinable(-1)
	}
	s.vaNext = (q + 1) % len(s.q)
	e := s.q[q].Pop()
	s.mark(q)
	start := clock.Max(now+at, s.readFree)
	tailOut := transfer(start, e.Pkt.Flits, speed, e.TailAvail)
	alone := s.pickReady(now, -1) < 0
	id := s.nextID
	s.nextID++
	s.outs = append(s.outs, outReq{e: e, q: int32(q), id: id, alone: alone})
	pk := e.Pkt
	pk.SC, pk.VL = e.NextSC, e.NextVL // what it carries past this buffer
	m = messages.Msg{Kind: messages.KindRequest, VL: int32(e.NextVL), Out: e.Out, Ready: start, TailAvail: e.TailAvail,
		Tag: id, Queue: int32(q), Alone: alone, Pkt: pk}
	if !alone {
		m.Deadline = start - p.grantLatency
		s.readFree = tailOut + 1
	}
	wake = clock.Max(now+1, s.nextPipelinable(-1))
	if s.readFree > now+at+p.lookahead {
		wake = clock.Max(wake, s.readFree-at-p.lookahead)
	}
	return m, true, wake
}

// nextPipelinable is the earliest Ready among the heads of the queues that
// may be requested (pipelinable), never queue skip; clock.Never if none. A
// queue that may not be requested now becomes requestable only when an
// answer arrives, which evaluates the source anyway.
func (s *source) nextPipelinable(skip int) clock.Cycle {
	t := clock.Never
	if s.wide() {
		for q := range s.q {
			if q != skip && s.q[q].Len() > 0 && s.due(s.q[q].Front()) < t && s.pipelinable(q) {
				t = s.due(s.q[q].Front())
			}
		}
		return t
	}
	m := s.busy
	if skip >= 0 {
		m &^= 1 << skip
	}
	for ; m != 0; m &= m - 1 {
		q := bits.TrailingZeros64(m)
		if d := s.headDue(q); d < t && s.pipelinable(q) {
			t = d
		}
	}
	return t
}

// nextRequest is the input arbiter's decision at now under the run's
// allocator (see next and nextPipelined), with the packet the message is
// about: the one requested, or whose request is withdrawn.
func (s *source) nextRequest(now clock.Cycle, p *params, speed int32) (m messages.Msg, send bool, wake clock.Cycle, e *entry) {
	if !p.pipelined {
		m, send, wake = s.next(now)
		return m, send, wake, &s.inflight
	}
	m, send, wake = s.nextPipelined(now, p, speed)
	if len(s.outs) > 0 {
		e = &s.outs[len(s.outs)-1].e
	}
	return m, send, wake, e
}

// outIndex finds the request in flight numbered id.
func (s *source) outIndex(id int32) int {
	for i := range s.outs {
		if s.outs[i].id == id {
			return i
		}
	}
	panic(fmt.Sprintf("allocator: an answer for request %d, which is not in flight", id))
}

func (s *source) dropOut(i int) outReq {
	o := s.outs[i]
	s.outs = append(s.outs[:i], s.outs[i+1:]...)
	return o
}

// grantedPipelined records the grant of request g.Tag.
func (s *source) grantedPipelined(g *messages.Msg) {
	o := s.dropOut(s.outIndex(g.Tag))
	t := g.TailOut
	if s.late {
		t = s.grantedLate(g, &o.e)
	}
	s.readFree = clock.Max(s.readFree, t+1)
	s.rel.Insert(release{At: t + 1, VL: o.q, Credits: o.e.Pkt.Credits, ID: o.e.Pkt.ID})
}

// refusedPipelined puts the refused packet back in its queue, among the
// other refused ones at the front in order of arrival. The queue sends no
// new request while requests it sent before are still in flight (they are
// behind the refused packet and will be refused too).
func (s *source) refusedPipelined(g *messages.Msg) {
	o := s.dropOut(s.outIndex(g.Tag))
	s.q[o.q].InsertBySeq(o.e)
	s.mark(int(o.q))
	s.held[o.q] = s.inFlight(int(o.q))
}

// inFlight reports whether queue q has a request in flight.
func (s *source) inFlight(q int) bool {
	for i := range s.outs {
		if int(s.outs[i].q) == q {
			return true
		}
	}
	return false
}

// headOf is the oldest packet of queue q: the first one in flight from it,
// or its head (nil if it has none).
func (s *source) headOf(q int) *entry {
	for i := range s.outs {
		if int(s.outs[i].q) == q {
			return &s.outs[i].e
		}
	}
	if s.q[q].Len() > 0 {
		return s.q[q].Front()
	}
	return nil
}

package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// centralBuffer is one of the two buffers of an MPort in the central
// crossbar: written over one x3 link from its MPort, read toward every
// output buffer at x4. It is a "perfect" buffer (seed 002 section 2.2): a
// header can leave as soon as it has arrived.
type centralBuffer struct {
	source
	space     Space
	writeFree clock.Cycle
	arbNext   int
	isd       islipDest // islip: the grants it has offered (islip.go)
}

// centralXbar holds 2 central buffers per MPort. Unit m (< MPorts) is
// the arbiter of MPort m's buffer pair, which accepts the requests of that
// MPort's 4 input buffers; unit MPorts+b is central buffer b as a source,
// whose input arbiter requests the destination output buffers.
//
// A packet enters the buffer of its pair with more free space (ties to the
// lower index) among those whose write port is free; each buffer's arbiter
// picks among the MPort's requests round-robin.
type centralXbar struct {
	core
	p       *params
	sw      int
	mports  int
	buf     []centralBuffer
	req     [][PortsPerMPort]pending
	preq    []reqQueue      // per MPort, for the pipelined allocator
	ireq    []islipRequests // per MPort, for the islip allocator
	outComp []messages.CompID

	Accepted, Left int64 // packets, for the conservation check
}

// newCentralCrossbar builds the central crossbar of switch sw, which has
// mports MPorts; outputs are the switch's output port components, by port.
func newCentralCrossbar(p *params, id messages.CompID, sw, mports int, outputs []messages.CompID) *centralXbar {
	c := &centralXbar{core: newCore(id, 3*mports), p: p, sw: sw, mports: mports, outComp: outputs,
		buf: make([]centralBuffer, 2*mports), req: make([][PortsPerMPort]pending, mports), preq: make([]reqQueue, mports),
		ireq: make([]islipRequests, mports)}
	for mp := range c.preq {
		c.preq[mp] = newReqQueue(PortsPerMPort)
	}
	for b := range c.buf {
		c.buf[b] = centralBuffer{source: newSource(p, p.lanes, -1, p.centralSpeed), space: newSpace(p.lanes, p.centralCap, p.excl, p.maxVL)}
	}
	return c
}

// Advance implements Component.
func (c *centralXbar) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return c.run(c, to, out) }

func (c *centralXbar) apply(m *messages.Msg, out *Outbox) {
	switch m.Kind {
	case messages.KindRequest:
		mp, i := portNum(m.Slot).mport(), portNum(m.Slot).index()
		if c.p.islip {
			c.ireq[mp].add(m)
			c.at(m.At, int32(mp))
			break
		}
		if c.p.pipelined {
			c.preq[mp].add(i, m)
			c.at(m.At, int32(mp))
			break
		}
		if c.req[mp][i].valid {
			panic("central crossbar: second request from one input buffer")
		}
		c.req[mp][i] = pending{valid: true, msg: *m}
		c.at(m.At, int32(mp))
	case messages.KindCancel:
		if c.p.pipelined {
			slot := portNum(m.Slot)
			if r, ok := c.preq[slot.mport()].cancel(slot.index(), m.Tag); ok {
				c.preq[slot.mport()].refuse(c.p, slot.index(), &r, m.At, c.id, out)
			}
			break
		}
		if r := &c.req[portNum(m.Slot).mport()][portNum(m.Slot).index()]; r.valid {
			r.valid = false
			out.Send(nack(c.p, &r.msg, m.At, c.id))
		}
	case messages.KindAccept, messages.KindDecline:
		c.settleIslip(m)
	case messages.KindGrant:
		b := centralOfSlot(m.Slot)
		cb := &c.buf[b]
		if c.p.islip {
			cb.answeredIslip(m)
			c.at(m.At, int32(c.mports+b))
			break
		}
		if c.p.pipelined {
			cb.grantedPipelined(m)
		} else {
			cb.granted(m)
		}
		c.at(m.At, int32(c.mports+b))
		c.at(m.TailOut+1, int32(b/2))
	case messages.KindTail:
		c.late(m, out)
	case messages.KindNack:
		b := centralOfSlot(m.Slot)
		if c.p.islip {
			c.buf[b].answeredIslip(m)
		} else if c.p.pipelined {
			c.buf[b].refusedPipelined(m)
		} else {
			c.buf[b].refused()
		}
		c.at(m.At, int32(c.mports+b))
	default:
		panic("central crossbar: unexpected " + m.Kind.String())
	}
}

func (c *centralXbar) eval(unit int32, now clock.Cycle, out *Outbox) {
	if int(unit) < c.mports {
		c.arbitrate(int(unit), now, out)
	} else {
		c.request(int(unit)-c.mports, now, out)
	}
}

// arbitrate frees departed space of MPort mp's pair, then lets each buffer
// whose write port will be free accept one request.
func (c *centralXbar) arbitrate(mp int, now clock.Cycle, out *Outbox) {
	b0, b1 := centralBuffers(mp)
	for _, b := range []int{b0, b1} {
		cb := &c.buf[b]
		for r, ok := cb.rel.Due(now); ok; r, ok = cb.rel.Due(now) {
			cb.space.Free(int(r.VL), r.Credits)
			c.Left++
		}
		if cb.rel.Len() > 0 {
			c.at(cb.rel.At(0).At, int32(mp))
		}
	}
	if c.buf[b1].space.FreeCredits() > c.buf[b0].space.FreeCredits() {
		b0, b1 = b1, b0
	}
	if c.p.islip {
		c.arbitrateIslip(mp, b0, b1, now, out)
		return
	}
	if c.p.pipelined {
		c.arbitratePipelined(mp, b0, b1, now, out)
		return
	}
	c.accept(mp, b0, now, out)
	c.accept(mp, b1, now, out)
	c.refuse(mp, now, out)
}

// refuse answers the requests that fit in neither buffer of the pair, so
// their input buffers can try another VL (VLs must not block each other).
func (c *centralXbar) refuse(mp int, now clock.Cycle, out *Outbox) {
	i0, i1 := centralBuffers(mp)
	b0, b1 := &c.buf[i0], &c.buf[i1]
	for i := range c.req[mp] {
		r := &c.req[mp][i]
		if !r.valid {
			continue
		}
		vl, n := int(r.msg.VL), r.msg.Pkt.Credits
		if !r.msg.Alone && !b0.space.Fits(vl, n) && !b1.space.Fits(vl, n) {
			r.valid = false
			out.Send(nack(c.p, &r.msg, now, c.id))
		}
	}
}

func (c *centralXbar) accept(mp, b int, now clock.Cycle, out *Outbox) {
	cb := &c.buf[b]
	if cb.writeFree > now+c.p.grantLatency {
		if c.anyRequest(mp) {
			c.at(cb.writeFree-c.p.grantLatency, int32(mp))
		}
		return
	}
	for k := 0; k < PortsPerMPort; k++ {
		i := (cb.arbNext + k) % PortsPerMPort
		r := &c.req[mp][i]
		if !r.valid || !cb.space.Fits(int(r.msg.VL), r.msg.Pkt.Credits) {
			continue
		}
		cb.arbNext = (i + 1) % PortsPerMPort
		r.valid = false
		c.grantInto(mp, b, &r.msg, now, out)
		if c.anyRequest(mp) {
			c.at(clock.Max(now+1, cb.writeFree-c.p.grantLatency), int32(mp))
		}
		return
	}
}

// arbitratePipelined lets each buffer of MPort mp's pair, b0 (the one with
// more free space) first, grant the first request, round-robin over the
// MPort's input buffers, that fits in it and whose booked start its write
// port can meet; then refuses the requests that can no longer be granted
// for their start, and those that fit in neither buffer (unless held).
func (c *centralXbar) arbitratePipelined(mp, b0, b1 int, now clock.Cycle, out *Outbox) {
	r := &c.preq[mp]
	if len(r.refusedAt) > 0 {
		r.forget(c.p, now)
	}
	if r.count == 0 {
		return
	}
	for _, b := range []int{b0, b1} {
		cb := &c.buf[b]
		slot, idx := r.first(cb.arbNext, func(slot int, m *messages.Msg) bool {
			return !expired(c.p, m, now, cb.writeFree) && cb.writeFree <= startOf(c.p, m, now) &&
				cb.space.Fits(int(m.VL), m.Pkt.Credits) && !r.behindRefusal(c.p, slot, m)
		})
		if slot < 0 {
			continue
		}
		m := r.take(slot, idx)
		c.grantInto(mp, b, &m, now, out)
		cb.arbNext = (slot + 1) % PortsPerMPort
	}
	i0, i1 := centralBuffers(mp)
	p0, p1 := &c.buf[i0], &c.buf[i1]
	booked := false
	r.sweep(func(slot int, m *messages.Msg) bool {
		vl, n := int(m.VL), m.Pkt.Credits
		if expired(c.p, m, now, min(p0.writeFree, p1.writeFree)) || !m.Alone && !p0.space.Fits(vl, n) && !p1.space.Fits(vl, n) ||
			r.behindRefusal(c.p, slot, m) {
			r.refuse(c.p, slot, m, now, c.id, out)
			return true
		}
		booked = booked || m.Deadline != 0
		return false
	})
	switch {
	case booked:
		c.at(now+1, int32(mp))
	case r.count > 0:
		c.at(clock.Max(now+1, min(p0.writeFree, p1.writeFree)-c.p.grantLatency), int32(mp))
	}
}

// grantInto accepts request m of MPort mp into central buffer b.
func (c *centralXbar) grantInto(mp, b int, m *messages.Msg, now clock.Cycle, out *Outbox) {
	cb := &c.buf[b]
	e, g := grantTo(c.p, m, now, c.p.mportSpeed, c.p.xMPort, c.id)
	cb.space.Take(int(m.VL), m.Pkt.Credits)
	cb.push(int(m.VL), e)
	cb.writeFree = g.TailOut + 1
	c.Accepted++
	out.Send(g)
	c.at(e.Ready, int32(c.mports+b))
}

func (c *centralXbar) anyRequest(mp int) bool {
	for i := range c.req[mp] {
		if c.req[mp][i].valid {
			return true
		}
	}
	return false
}

// request lets central buffer b's input arbiter ask for the output buffer
// of its next packet.
func (c *centralXbar) request(b int, now clock.Cycle, out *Outbox) {
	s := &c.buf[b].source
	if c.p.islip {
		wake := s.nextIslip(now, c.p, func(e *entry, req *messages.Msg) {
			req.Src, req.Dst, req.Slot = c.id, c.outComp[e.Out], centralSlot(b)
			out.Send(*req)
		}, out)
		if wake != clock.Never {
			c.at(wake, int32(c.mports+b))
		}
		if s.rel.Len() > 0 {
			c.at(s.rel.At(0).At, int32(b/2)) // the pair's arbiter frees the space
		}
		return
	}
	req, send, wake, e := s.nextRequest(now, c.p, c.p.centralSpeed)
	if wake != clock.Never {
		c.at(wake, int32(c.mports+b))
	}
	if !send {
		return
	}
	req.Src, req.At, req.Dst, req.Slot = c.id, now+c.p.requestLatency, c.outComp[e.Out], centralSlot(b)
	if s.late {
		s.noteRequest(&req)
	}
	out.Send(req)
}

// late applies news m, from an input buffer of its MPort, that a packet's
// tail comes later (preempt.go): to its request if it waits here, or to the
// packet in whichever buffer of the pair took it.
func (c *centralXbar) late(m *messages.Msg, out *Outbox) {
	mp, i := portNum(m.Slot).mport(), portNum(m.Slot).index()
	if lateAtDestination(m, &c.req[mp][i], c.preq[mp].bySlot[i]) {
		return
	}
	x, speed := c.p.xMPort, c.p.mportSpeed
	n := tailNews{id: m.Pkt.ID, q: int(m.VL), avail: func(ready clock.Cycle, flits int32) clock.Cycle {
		return transfer(ready-x, flits, speed, m.TailAvail) + x
	}}
	b0, b1 := centralBuffers(mp)
	for _, b := range []int{b0, b1} {
		cb := &c.buf[b]
		if a, ok := cb.correct(c.p, n, m.At, c.id, out); ok {
			cb.writeFree = clock.Max(cb.writeFree, a-x+1)
			return
		}
	}
	// Not here: the request was refused, and the refusal is on its way.
}

// arbitrateIslip answers the islip requests that reached MPort mp's pair
// this cycle: each buffer, b0 (the one with more free space) first, grants
// one request, round-robin over the MPort's input buffers from its
// pointer, the second buffer from another input buffer than the first;
// the others are refused.
func (c *centralXbar) arbitrateIslip(mp, b0, b1 int, now clock.Cycle, out *Outbox) {
	rs, taken := c.ireq[mp].take()
	if len(rs) == 0 {
		return
	}
	skip := int32(-1)
	for _, b := range []int{b0, b1} {
		cb := &c.buf[b]
		i := pickIslip(rs, taken, cb.arbNext, PortsPerMPort, skip, cb.writeFree, &cb.space, func(m *messages.Msg) int { return portNum(m.Slot).index() })
		if i < 0 {
			continue
		}
		taken[i], skip = true, rs[i].Slot
		out.Send(cb.isd.offer(c.p, &rs[i], now, c.p.mportSpeed, c.p.xMPort, 0, &cb.space, &cb.writeFree, c.id))
	}
	refuseRest(c.p, rs, taken, now, c.id, out)
}

// settleIslip applies an islip accept or decline from an input buffer of
// MPort mp to the buffer of the pair that offered the grant.
func (c *centralXbar) settleIslip(m *messages.Msg) {
	mp := portNum(m.Slot).mport()
	b0, b1 := centralBuffers(mp)
	for _, b := range []int{b0, b1} {
		cb := &c.buf[b]
		o, mine, accepted := cb.isd.settle(m, &cb.space, &cb.writeFree)
		if !mine {
			continue
		}
		if accepted {
			cb.push(int(o.vl), o.e)
			c.Accepted++
			c.at(o.e.Ready, int32(c.mports+b))
			if m.Count == 1 {
				cb.arbNext = (portNum(m.Slot).index() + 1) % PortsPerMPort
			}
		}
		c.at(m.At, int32(mp))
		return
	}
	panic("central crossbar: an accept or decline of no offer")
}

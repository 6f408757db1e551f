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
	preq    []reqQueue // per MPort, for the pipelined allocator
	outComp []messages.CompID

	Accepted, Left int64 // packets, for the conservation check
}

// newCentralCrossbar builds the central crossbar of switch sw, which has
// mports MPorts; outputs are the switch's output port components, by port.
func newCentralCrossbar(p *params, id messages.CompID, sw, mports int, outputs []messages.CompID) *centralXbar {
	c := &centralXbar{core: newCore(id, 3*mports), p: p, sw: sw, mports: mports, outComp: outputs,
		buf: make([]centralBuffer, 2*mports), req: make([][PortsPerMPort]pending, mports), preq: make([]reqQueue, mports)}
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
	case messages.KindGrant:
		b := centralOfSlot(m.Slot)
		cb := &c.buf[b]
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
		if c.p.pipelined {
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

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

// CentralCrossbar holds 2 central buffers per MPort. Unit m (< MPorts) is
// the arbiter of MPort m's buffer pair, which accepts the requests of that
// MPort's 4 input buffers; unit MPorts+b is central buffer b as a source,
// whose input arbiter requests the destination output buffers.
//
// A packet enters the buffer of its pair with more free space (ties to the
// lower index) among those whose write port is free; each buffer's arbiter
// picks among the MPort's requests round-robin.
type CentralCrossbar struct {
	core
	p       *params
	sw      int
	mports  int
	buf     []centralBuffer
	req     [][4]pending
	outComp []messages.CompID

	Accepted, Left int64 // packets, for the conservation check
}

func newCentralCrossbar(p *params, id messages.CompID, sw, mports int) *CentralCrossbar {
	c := &CentralCrossbar{core: newCore(id, 3*mports), p: p, sw: sw, mports: mports,
		buf: make([]centralBuffer, 2*mports), req: make([][4]pending, mports)}
	for b := range c.buf {
		c.buf[b] = centralBuffer{source: newSource(p.vls), space: newSpace(p.vls, p.centralCap, p.excl, p.maxVL)}
	}
	return c
}

// Advance implements Component.
func (c *CentralCrossbar) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return c.run(c, to, out) }

func (c *CentralCrossbar) apply(m *messages.Msg, out *Outbox) {
	switch m.Kind {
	case messages.KindRequest:
		mp, i := int(m.Slot)/4, int(m.Slot)%4
		if c.req[mp][i].valid {
			panic("central crossbar: second request from one input buffer")
		}
		c.req[mp][i] = pending{valid: true, msg: *m}
		c.at(m.At, int32(mp))
	case messages.KindCancel:
		if r := &c.req[m.Slot/4][m.Slot%4]; r.valid {
			r.valid = false
			out.Send(nack(c.p, &r.msg, m.At, c.id))
		}
	case messages.KindGrant:
		b := int(m.Slot) - 4
		cb := &c.buf[b]
		cb.granted(m, int32(cb.inflight.Pkt.VL))
		c.at(m.At, int32(c.mports+b))
		c.at(m.TailOut+1, int32(b/2))
	case messages.KindNack:
		b := int(m.Slot) - 4
		c.buf[b].refused()
		c.at(m.At, int32(c.mports+b))
	default:
		panic("central crossbar: unexpected " + m.Kind.String())
	}
}

func (c *CentralCrossbar) eval(unit int32, now clock.Cycle, out *Outbox) {
	if int(unit) < c.mports {
		c.arbitrate(int(unit), now, out)
	} else {
		c.request(int(unit)-c.mports, now, out)
	}
}

// arbitrate frees departed space of MPort mp's pair, then lets each buffer
// whose write port will be free accept one request.
func (c *CentralCrossbar) arbitrate(mp int, now clock.Cycle, out *Outbox) {
	b0, b1 := 2*mp, 2*mp+1
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
	c.accept(mp, b0, now, out)
	c.accept(mp, b1, now, out)
	c.refuse(mp, now, out)
}

// refuse answers the requests that fit in neither buffer of the pair, so
// their input buffers can try another VL (VLs must not block each other).
func (c *CentralCrossbar) refuse(mp int, now clock.Cycle, out *Outbox) {
	b0, b1 := &c.buf[2*mp], &c.buf[2*mp+1]
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

func (c *CentralCrossbar) accept(mp, b int, now clock.Cycle, out *Outbox) {
	cb := &c.buf[b]
	if cb.writeFree > now+c.p.mu {
		if c.anyRequest(mp) {
			c.at(cb.writeFree-c.p.mu, int32(mp))
		}
		return
	}
	for k := 0; k < 4; k++ {
		i := (cb.arbNext + k) % 4
		r := &c.req[mp][i]
		if !r.valid || !cb.space.Fits(int(r.msg.VL), r.msg.Pkt.Credits) {
			continue
		}
		e, g := grantTo(c.p, &r.msg, now, c.p.mportSpeed, c.p.xMPort, c.id)
		cb.space.Take(int(r.msg.VL), r.msg.Pkt.Credits)
		cb.q[r.msg.VL].Push(e)
		cb.writeFree = g.TailOut + 1
		cb.arbNext = (i + 1) % 4
		r.valid = false
		c.Accepted++
		out.Send(g)
		c.at(e.Ready, int32(c.mports+b))
		if c.anyRequest(mp) {
			c.at(clock.Max(now+1, cb.writeFree-c.p.mu), int32(mp))
		}
		return
	}
}

func (c *CentralCrossbar) anyRequest(mp int) bool {
	for i := range c.req[mp] {
		if c.req[mp][i].valid {
			return true
		}
	}
	return false
}

// request lets central buffer b's input arbiter ask for the output buffer
// of its next packet.
func (c *CentralCrossbar) request(b int, now clock.Cycle, out *Outbox) {
	s := &c.buf[b].source
	req, send, wake := s.next(now)
	if wake != clock.Never {
		c.at(wake, int32(c.mports+b))
	}
	if !send {
		return
	}
	req.Src, req.At, req.Dst, req.Slot = c.id, now+c.p.lambda, c.outComp[s.inflight.Out], int32(4+b)
	out.Send(req)
}

package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// source is the sending side of a buffer inside a switch (an input buffer
// or a central buffer): per-VL FIFOs, the input arbiter that picks one VL
// head to request (round-robin, seed 002 VA), at most one request in flight,
// and the read port that moves one packet at a time.
type source struct {
	q        []fifo
	busy     uint64  // bit q set: queue q holds a packet (kept for the first 64 queues; see mark)
	heads    []qHead // per queue (the first 64): its head's Ready and Out while it holds a packet (see mark)
	vaNext   int
	waiting  bool // a request is in flight or pending at the destination
	alone    bool // it was sent with no packet ready on another VL (the destination may hold it)
	cancel   bool // a cancel of it is on its way
	inflight entry
	inq      int         // the queue (VL, or central lane) the inflight packet came from
	readFree clock.Cycle // serial: the read port is free from here; pipelined: booked until here
	rel      releases

	// Pipelined allocation (alloc.go): the requests in flight, in the order
	// sent, the number of the next one, and the next arrival's Seq.
	outs   []outReq
	nextID int32
	seq    uint32
	mport  int    // an input buffer's MPort (its local outputs); -1 for a central buffer
	held   []bool // per queue: refused, with later requests still in flight
	// anyDest: a queue may have requests in flight toward several
	// destination arbiters at once (switch.request_pipelining
	// any_destination; pipelinable).
	anyDest bool

	isl islipRound // the islip allocator's round in progress (islip.go)

	// Preemption (preempt.go): late tails follow the packets.
	late           bool
	speed          int32 // read port speed, flits/cycle
	xfers          []xfer
	reqDst         messages.CompID // where the serial allocator's request in flight went
	reqSlot, reqVL int32
}

// qHead is what the input arbiter looks at of a queue's head (the
// entry's Ready and Out, which never change while it is queued), kept
// together for all queues so that a scan over them reads a line or two
// rather than every queue's ring.
type qHead struct {
	ready clock.Cycle
	out   int32
}

func newSource(p *params, queues, mport int, speed int32) source {
	return source{q: make([]fifo, queues), heads: make([]qHead, min(queues, 64)), mport: mport, held: make([]bool, queues),
		anyDest: p.anyDest, late: p.preempt != nil, speed: speed}
}

// push queues a packet that arrived in queue q.
func (s *source) push(q int, e entry) {
	e.Seq = s.seq
	s.seq++
	s.q[q].Push(e)
	s.mark(q)
}

// mark records whether queue q holds a packet, after it changed.
func (s *source) mark(q int) {
	if q >= 64 {
		return // a source of more than 64 queues scans them (wide)
	}
	if s.q[q].Len() > 0 {
		s.busy |= 1 << q
		e := s.q[q].Front()
		s.heads[q] = qHead{ready: e.Ready, out: e.Out}
	} else {
		s.busy &^= 1 << q
	}
}

// wide reports whether the source has more queues than busy covers.
func (s *source) wide() bool { return len(s.q) > 64 }

// pick returns the VL whose head is ready at now, round-robin after the
// last one picked, or -1; never VL skip.
func (s *source) pick(now clock.Cycle, skip int) int {
	n := len(s.q)
	for k := 0; k < n; k++ {
		vl := (s.vaNext + k) % n
		if vl != skip && s.q[vl].Len() > 0 && s.due(s.q[vl].Front()) <= now {
			return vl
		}
	}
	return -1
}

// next decides what the input arbiter does at now: request the head of a
// VL, or withdraw a request the destination may be holding because another
// VL now has a packet ready (so no VL waits behind another), or nothing.
// wake is when it must look again if nothing arrives before.
func (s *source) next(now clock.Cycle) (m messages.Msg, send bool, wake clock.Cycle) {
	if s.waiting {
		if !s.alone || s.cancel {
			return m, false, clock.Never // the answer will come
		}
		if s.pick(now, s.inq) >= 0 {
			s.cancel = true
			return messages.Msg{Kind: messages.KindCancel}, true, clock.Never
		}
		return m, false, s.nextReady()
	}
	vl := s.pick(now, -1)
	if vl < 0 {
		return m, false, s.nextReady()
	}
	m = s.request(vl)
	m.Alone = s.pick(now, vl) < 0
	s.alone = m.Alone
	return m, true, s.nextReady()
}

// nextReady is the earliest Ready among the VL heads (clock.Never if none).
func (s *source) nextReady() clock.Cycle {
	t := clock.Never
	for vl := range s.q {
		if s.q[vl].Len() > 0 {
			t = clock.Min(t, s.due(s.q[vl].Front()))
		}
	}
	return t
}

// request commits to the head of vl and builds the request for its
// destination; the caller fills Dst, Slot and At.
func (s *source) request(vl int) messages.Msg {
	s.vaNext = (vl + 1) % len(s.q)
	s.waiting = true
	s.inq = vl
	s.inflight = s.q[vl].Pop()
	s.mark(vl)
	e := &s.inflight
	pk := e.Pkt
	pk.SC, pk.VL = e.NextSC, e.NextVL // what it carries past this buffer
	return messages.Msg{Kind: messages.KindRequest, VL: int32(e.NextVL), Out: e.Out, Ready: s.readFree, TailAvail: e.TailAvail,
		Queue: int32(vl), Pkt: pk}
}

// refused puts the requested packet back at the head of its VL; the input
// arbiter has already moved past that VL.
func (s *source) refused() {
	s.waiting, s.alone, s.cancel = false, false, false
	s.q[s.inq].PushFront(s.inflight)
	s.mark(s.inq)
}

// granted records the grant: the read port is busy until the tail leaves,
// and the packet's space is released the cycle after.
func (s *source) granted(g *messages.Msg) {
	s.waiting, s.alone, s.cancel = false, false, false
	t := g.TailOut
	if s.late {
		t = s.grantedLate(g, &s.inflight)
	}
	s.readFree = t + 1
	s.rel.Push(release{At: t + 1, VL: int32(s.inq), Credits: s.inflight.Pkt.Credits, ID: s.inflight.Pkt.ID})
}

// mport holds 4 input buffers with their routing units and input arbiters,
// and the mport crossbar (seed 000 section 2.2, Fig. 2). A header that
// arrives at cycle a is stored SB cycles later and routed RT cycles after
// that; then its buffer's input arbiter may request the destination: the
// output buffer of a port of this mport, or this mport's pair of central
// buffers. Unit i is input buffer i.
type mport struct {
	core
	p       *params
	sw      int
	index   int // MPort number within the switch
	ibuf    [PortsPerMPort]source
	occ     [PortsPerMPort]Space // occupancy of each input buffer (mirrors the upstream's credits)
	upComp  [PortsPerMPort]messages.CompID
	wired   [PortsPerMPort]bool // the input port has a link (unused ports have none)
	outComp []messages.CompID   // per switch port: its output port component
	central messages.CompID

	Arrived, Left int64 // packets, for the conservation check
	LateTails     int64 // news of a late tail for a packet not here (a model error the conservation check reports)
}

// newMPort builds MPort index of switch sw with its links: l.in[i] is the
// sender on input port i's link, l.outputs the switch's output ports and
// l.central its central crossbar.
func newMPort(p *params, id messages.CompID, sw, index int, l mportLinks) *mport {
	m := &mport{core: newCore(id, PortsPerMPort), p: p, sw: sw, index: index, outComp: l.outputs, central: l.central}
	for i := range m.ibuf {
		m.ibuf[i] = newSource(p, p.vls, index, p.mportSpeed)
		m.occ[i] = newSpace(p.vls, p.inCap, p.excl, p.maxVL)
		m.upComp[i], m.wired[i] = l.in[i].comp, l.in[i].wired
	}
	return m
}

// Advance implements Component.
func (m *mport) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return m.run(m, to, out) }

func (m *mport) apply(msg *messages.Msg, out *Outbox) {
	switch msg.Kind {
	case messages.KindPacket:
		m.arrive(msg)
	case messages.KindTail:
		tail := msg.Pkt.Tail + m.p.sbIn
		n := tailNews{id: msg.Pkt.ID, q: int(msg.VL), avail: func(clock.Cycle, int32) clock.Cycle { return tail }}
		if _, ok := m.ibuf[msg.Slot].correct(m.p, n, msg.At, m.id, out); !ok {
			m.LateTails++
		}
	case messages.KindGrant, messages.KindNack:
		if !m.p.islip {
			m.answered(msg)
			break
		}
		i := int32(portNum(msg.Slot).index())
		m.ibuf[i].answeredIslip(msg)
		m.at(msg.At, i)
	default:
		panic("mport: unexpected " + msg.Kind.String())
	}
}

// answered applies grant or refusal msg under the serial or pipelined
// allocator.
func (m *mport) answered(msg *messages.Msg) {
	switch msg.Kind {
	case messages.KindGrant:
		i := int32(portNum(msg.Slot).index())
		if m.p.pipelined {
			m.ibuf[i].grantedPipelined(msg)
		} else {
			m.ibuf[i].granted(msg)
		}
		m.at(msg.At, i)
	case messages.KindNack:
		i := int32(portNum(msg.Slot).index())
		if m.p.pipelined {
			m.ibuf[i].refusedPipelined(msg)
		} else {
			m.ibuf[i].refused()
		}
		m.at(msg.At, i)
	}
}

// arrive stores a packet in its input buffer and routes it.
func (m *mport) arrive(msg *messages.Msg) {
	i := msg.Slot
	pk := msg.Pkt
	port := int(portOf(m.index, int(i)))
	out, nextSC := m.p.router.Route(m.sw, port, int(pk.Dst), int(pk.SC))
	ready := pk.Head + m.p.sbIn + m.p.rt
	nextVL := m.p.sc2vl[nextSC]
	m.ibuf[i].push(int(pk.VL), entry{Pkt: pk, Ready: ready, TailAvail: pk.Tail + m.p.sbIn,
		Out: int32(out), NextSC: messages.SC(nextSC), NextVL: nextVL,
		Lane: uint16(int(m.p.classOf[m.sw][out])*m.p.vls + int(nextVL))})
	m.occ[i].Take(int(pk.VL), pk.Credits)
	m.Arrived++
	m.at(ready, i)
}

func (m *mport) eval(unit int32, now clock.Cycle, out *Outbox) {
	s := &m.ibuf[unit]
	for r, ok := s.rel.Due(now); ok; r, ok = s.rel.Due(now) {
		m.occ[unit].Free(int(r.VL), r.Credits)
		m.Left++
		out.Send(messages.Msg{Kind: messages.KindCredit, At: now + m.p.fly, Dst: m.upComp[unit], Src: m.id,
			VL: r.VL, Count: r.Credits})
	}
	if s.rel.Len() > 0 {
		m.at(s.rel.At(0).At, unit)
	}
	if m.p.islip {
		wake := s.nextIslip(now, m.p, func(e *entry, req *messages.Msg) {
			m.address(unit, e, req)
			out.Send(*req)
		}, out)
		if wake != clock.Never {
			m.at(wake, unit)
		}
		if s.rel.Len() > 0 {
			m.at(s.rel.At(0).At, unit)
		}
		return
	}
	req, send, wake, e := s.nextRequest(now, m.p, m.p.mportSpeed)
	if wake != clock.Never {
		m.at(wake, unit)
	}
	if !send {
		return
	}
	req.At = now + m.p.requestLatency
	m.address(unit, e, &req)
	if s.late {
		s.noteRequest(&req)
	}
	out.Send(req)
}

// address fills in request req of input buffer unit for packet e: to the
// output buffer of a port of this MPort, or to the MPort's central buffer
// pair (in the packet's central lane).
func (m *mport) address(unit int32, e *entry, req *messages.Msg) {
	req.Src = m.id
	if outPort := int(e.Out); portNum(outPort).mport() == m.index {
		req.Dst, req.Slot = m.outComp[outPort], unit
	} else {
		req.Dst, req.Slot, req.VL = m.central, int32(portOf(m.index, 0))+unit, int32(e.Lane)
	}
}

package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
)

// pending is a request waiting at a destination arbiter.
type pending struct {
	valid bool
	msg   messages.Msg
}

// grantTo accepts request r into a buffer: the transfer starts when the
// grant reaches the source (or when the source's read port frees), moves
// speed flits per cycle, and the header lands x cycles after it leaves.
// It returns the new buffer entry (its Ready is the header's arrival) and
// the grant message.
func grantTo(p *params, r *messages.Msg, now clock.Cycle, speed int32, x clock.Cycle, from messages.CompID) (entry, messages.Msg) {
	start := clock.Max(now+p.grantLatency, r.Ready)
	tailOut := transfer(start, r.Pkt.Flits, speed, r.TailAvail)
	e := entry{Pkt: r.Pkt, Ready: start + x, TailAvail: tailOut + x, Out: r.Out, NextSC: r.Pkt.SC, NextVL: r.Pkt.VL}
	g := messages.Msg{Kind: messages.KindGrant, At: now + p.grantLatency, Dst: r.Src, Src: from, Slot: r.Slot, VL: r.VL,
		Tag: r.Tag, Start: start, TailOut: tailOut}
	return e, g
}

// nack refuses request r.
func nack(p *params, r *messages.Msg, now clock.Cycle, from messages.CompID) messages.Msg {
	return messages.Msg{Kind: messages.KindNack, At: now + p.grantLatency, Dst: r.Src, Src: from, Slot: r.Slot, VL: r.VL, Tag: r.Tag}
}

// outputPort holds the output buffer, the output arbiter that picks which
// input buffer of its MPort or which central buffer writes into it next
// (round-robin), the output scheduler that picks the VL sent next on the
// link, and the credits of the buffer downstream (MODEL.md sections 1, 3).
// It is one unit.
type outputPort struct {
	core
	p         *params
	sw, port  int
	req       []pending // by request slot (slots.go): this MPort's input buffers, then the central buffers
	preq      reqQueue  // the same, for the pipelined allocator (several per slot)
	ireq      islipRequests
	isd       islipDest // islip: the grants offered (islip.go)
	arbNext   int
	writeFree clock.Cycle
	q         []fifo
	space     Space
	rel       releases
	down      Space
	sched     sched.Scheduler
	heads     []sched.Head
	dec       decisionUnit
	linkFree  clock.Cycle
	downComp  messages.CompID
	downSlot  int32

	Accepted, Sent int64   // packets, for the conservation check
	SentBySL       []int64 // packets the output scheduler granted the link, per SL
	SentFlitsBySL  []int64 // their flits
	StallCycles    int64   // cycles the link was free with packets ready but no credits
	stallSince     clock.Cycle
	// Output scheduler decisions, and those wasted on a head that could not
	// send (table view only; docs/schedulers.md). Hit rate 1 - Wasted/Decisions.
	// WastedNotReady counts the wasted ones whose head was not ready yet (the
	// others lacked downstream credits).
	Decisions, WastedDecisions, WastedNotReady int64

	lk   txLink   // preemption (preempt.go)
	load linkLoad // flits on the link, per VL (linkload.go)
}

// newOutputPort builds output port port of switch sw (which has mports
// MPorts) with the link it sends on: down names the receiver, the slot the
// link enters there and its buffer's credits. A port without a link
// (down.wired false) never sends.
func newOutputPort(p *params, id messages.CompID, sw, port, mports int, down link) *outputPort {
	o := &outputPort{core: newCore(id, 1), p: p, sw: sw, port: port,
		req: make([]pending, outputSlots(mports)), preq: newReqQueue(outputSlots(mports)), q: make([]fifo, p.vls),
		space: newSpace(p.vls, p.outCap, p.excl, p.maxVL), sched: p.newScheduler(),
		heads: make([]sched.Head, 0, p.vls), dec: newDecisionUnit(p.decisionCycles, p.vls), stallSince: -1, SentBySL: make([]int64, len(p.slSCs)),
		SentFlitsBySL: make([]int64, len(p.slSCs)), lk: newTxLink(p), load: newLinkLoad(p.vls)}
	if down.wired {
		o.downComp, o.downSlot = down.comp, down.slot
		o.down = newSpace(p.vls, down.credits, p.excl, p.maxVL)
	}
	return o
}

// Advance implements Component.
func (o *outputPort) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return o.run(o, to, out) }

func (o *outputPort) apply(m *messages.Msg, out *Outbox) {
	switch m.Kind {
	case messages.KindRequest:
		if o.p.islip {
			o.ireq.add(m)
			break
		}
		if o.p.pipelined {
			o.preq.add(int(m.Slot), m)
			break
		}
		if o.req[m.Slot].valid {
			panic("output port: second request from one source")
		}
		o.req[m.Slot] = pending{valid: true, msg: *m}
	case messages.KindCredit:
		o.down.Free(int(m.VL), m.Count)
	case messages.KindTail:
		o.late(m, out)
	case messages.KindAccept, messages.KindDecline:
		e, mine, accepted := o.isd.settle(m, &o.space, &o.writeFree)
		if !mine {
			panic("output port: an accept or decline of no offer")
		}
		if accepted {
			o.q[e.vl].Push(e.e)
			o.Accepted++
			o.at(e.e.Ready, 0)
			if m.Count == 1 {
				o.arbNext = (int(m.Slot) + 1) % len(o.req)
			}
		}
	case messages.KindCancel:
		if o.p.pipelined {
			if r, ok := o.preq.cancel(int(m.Slot), m.Tag); ok {
				o.preq.refuse(o.p, int(m.Slot), &r, m.At, o.id, out)
			}
			break
		}
		if r := &o.req[m.Slot]; r.valid {
			r.valid = false
			out.Send(nack(o.p, &r.msg, m.At, o.id))
		}
	default:
		panic("output port: unexpected " + m.Kind.String())
	}
	o.at(m.At, 0)
}

func (o *outputPort) eval(_ int32, now clock.Cycle, out *Outbox) {
	for r, ok := o.rel.Due(now); ok; r, ok = o.rel.Due(now) {
		o.space.Free(int(r.VL), r.Credits)
	}
	if o.rel.Len() > 0 {
		o.at(o.rel.At(0).At, 0)
	}
	switch {
	case o.p.islip:
		o.arbitrateIslip(now, out)
	case o.p.pipelined:
		o.arbitratePipelined(now, out)
	default:
		o.arbitrate(now, out)
	}
	o.schedule(now, out)
}

// arbitrate grants one waiting request that fits, round-robin over the
// sources, when the write port will be free by the time the grant arrives,
// and refuses the requests whose VL has no room, so that their sources can
// serve their other VLs meanwhile (a VL must never wait behind another).
func (o *outputPort) arbitrate(now clock.Cycle, out *Outbox) {
	if o.writeFree > now+o.p.grantLatency {
		o.at(o.writeFree-o.p.grantLatency, 0)
		return
	}
	defer o.refuse(now, out)
	n := len(o.req)
	for k := 0; k < n; k++ {
		s := (o.arbNext + k) % n
		r := &o.req[s]
		if !r.valid || !o.space.Fits(int(r.msg.VL), r.msg.Pkt.Credits) {
			continue
		}
		o.arbNext = (s + 1) % n
		r.valid = false
		o.accept(&r.msg, s, now, out)
		return
	}
}

// arbitratePipelined grants, round-robin over the sources, the first
// request that fits and whose booked start the write port can meet, then
// refuses the requests that cannot be granted for their start any more and
// those whose VL has no room (unless held, as in the serial allocator).
func (o *outputPort) arbitratePipelined(now clock.Cycle, out *Outbox) {
	r := &o.preq
	if len(r.refusedAt) > 0 {
		r.forget(o.p, now)
	}
	if r.count == 0 {
		return
	}
	slot, idx := r.first(o.arbNext, func(slot int, m *messages.Msg) bool {
		return !expired(o.p, m, now, o.writeFree) && o.writeFree <= startOf(o.p, m, now) &&
			o.space.Fits(int(m.VL), m.Pkt.Credits) && !r.behindRefusal(o.p, slot, m)
	})
	if slot >= 0 {
		m := r.take(slot, idx)
		o.accept(&m, slot, now, out)
		o.arbNext = (slot + 1) % len(r.bySlot)
	}
	booked := false
	r.sweep(func(slot int, m *messages.Msg) bool {
		if expired(o.p, m, now, o.writeFree) || !m.Alone && !o.space.Fits(int(m.VL), m.Pkt.Credits) || r.behindRefusal(o.p, slot, m) {
			r.refuse(o.p, slot, m, now, o.id, out)
			return true
		}
		booked = booked || m.Deadline != 0
		return false
	})
	switch {
	case booked:
		o.at(now+1, 0)
	case r.count > 0:
		o.at(clock.Max(now+1, o.writeFree-o.p.grantLatency), 0)
	}
}

// arbitrateIslip answers the islip requests that arrived this cycle: it
// grants one, round-robin over the sources from its pointer, and refuses
// the others.
func (o *outputPort) arbitrateIslip(now clock.Cycle, out *Outbox) {
	rs, taken := o.ireq.take()
	if len(rs) == 0 {
		return
	}
	i := pickIslip(rs, taken, o.arbNext, len(o.req), -1, o.writeFree, &o.space, func(m *messages.Msg) int { return int(m.Slot) })
	if i >= 0 {
		taken[i] = true
		speed, x := o.p.mportSpeed, o.p.xMPort
		if isCentralSlot(int(rs[i].Slot)) {
			speed, x = o.p.centralSpeed, o.p.xCentral
		}
		out.Send(o.isd.offer(o.p, &rs[i], now, speed, x, o.p.sbOut, &o.space, &o.writeFree, o.id))
	}
	refuseRest(o.p, rs, taken, now, o.id, out)
}

// accept grants request m from slot into the output buffer.
func (o *outputPort) accept(m *messages.Msg, slot int, now clock.Cycle, out *Outbox) {
	speed, x := o.p.mportSpeed, o.p.xMPort
	if isCentralSlot(slot) {
		speed, x = o.p.centralSpeed, o.p.xCentral
	}
	e, g := grantTo(o.p, m, now, speed, x, o.id)
	e.Ready += o.p.sbOut
	e.TailAvail += o.p.sbOut
	o.space.Take(int(m.VL), m.Pkt.Credits)
	o.q[m.VL].Push(e)
	o.writeFree = g.TailOut + 1
	o.Accepted++
	out.Send(g)
	o.at(e.Ready, 0)
	o.at(clock.Max(now+1, o.writeFree-o.p.grantLatency), 0)
}

func (o *outputPort) refuse(now clock.Cycle, out *Outbox) {
	for s := range o.req {
		r := &o.req[s]
		if r.valid && !r.msg.Alone && !o.space.Fits(int(r.msg.VL), r.msg.Pkt.Credits) {
			r.valid = false
			out.Send(nack(o.p, &r.msg, now, o.id))
		}
	}
}

// schedule sends the head the output scheduler picks among the VLs whose
// head is ready and fits downstream, when the link is free.
func (o *outputPort) schedule(now clock.Cycle, out *Outbox) {
	if due := o.dec.due(o.linkFree); due > now {
		if !o.lk.on || !o.interrupt(now, out) {
			o.at(due, 0)
		}
		return
	}
	o.lk.finish(now)
	suspended := len(o.lk.stack) > 0
	o.heads = o.heads[:0]
	waiting, eligible, next := false, false, clock.Never
	for vl := range o.q {
		if o.q[vl].Len() == 0 {
			continue
		}
		e := o.q[vl].Front()
		ok := true
		if due := o.due(e); due > now {
			next, ok = clock.Min(next, due), false
		} else if !o.down.Fits(vl, e.Pkt.Credits) {
			waiting, ok = true, false
		}
		if suspended && (!ok || !o.lk.allows(o.p, vl, int(e.Pkt.SL))) {
			continue // an interrupted packet resumes unless this one may interrupt it
		}
		if ok || o.p.tableView {
			o.heads = append(o.heads, sched.Head{VL: vl, SC: int(e.Pkt.SC), SL: int(e.Pkt.SL), Credits: int(e.Pkt.Credits), Eligible: ok})
			eligible = eligible || ok
		}
	}
	o.noteStall(now, waiting && !eligible && !suspended && now >= o.linkFree)
	if !eligible && !o.dec.busy {
		if suspended {
			o.lk.resume(now)
			o.linkFree = o.lk.replan(o.p, now, &o.rel, o.id, o.downComp, o.downSlot, out)
			o.at(o.linkFree, 0)
			return
		}
		if next != clock.Never {
			o.at(next, 0)
		}
		if now < o.linkFree { // a decision may start from here on (decision.go)
			o.at(o.linkFree, 0)
		}
		return
	}
	h, hit, done := o.dec.step(o.p, o.sched, o.heads, now, o.linkFree)
	if !done {
		o.at(o.dec.done, 0)
		return
	}
	o.Decisions++
	if !hit { // the link idles this cycle, the next decision starts the next cycle
		o.WastedDecisions++
		if q := &o.q[h.VL]; q.Len() > 0 && q.Front().Ready > now {
			o.WastedNotReady++
		}
		o.at(now+1, 0)
		return
	}
	o.transmit(now, h.VL, out)
	if o.dec.cycles > 1 { // the next decision starts before the link frees
		o.at(o.dec.due(o.linkFree), 0)
	}
}

func (o *outputPort) noteStall(now clock.Cycle, stalled bool) {
	switch {
	case stalled && o.stallSince < 0:
		o.stallSince = now
	case !stalled && o.stallSince >= 0:
		o.StallCycles += int64(now - o.stallSince)
		o.stallSince = -1
	}
}

func (o *outputPort) transmit(now clock.Cycle, vl int, out *Outbox) {
	e := o.q[vl].Pop()
	pk := e.Pkt
	tailOut := clock.Max(now+clock.Cycle(pk.Flits)-1, e.TailAvail)
	pk.Head, pk.Tail = now+o.p.fly, tailOut+o.p.fly
	o.down.Take(vl, pk.Credits)
	o.linkFree = tailOut + 1
	o.rel.Push(release{At: tailOut + 1, VL: int32(vl), Credits: pk.Credits, ID: pk.ID})
	o.Sent++
	o.SentBySL[pk.SL]++
	o.SentFlitsBySL[pk.SL] += int64(pk.Flits)
	o.load.sent(o.p, vl, now, pk.Flits)
	out.Send(messages.Msg{Kind: messages.KindPacket, At: pk.Head, Dst: o.downComp, Src: o.id, Slot: o.downSlot, Pkt: pk})
	if o.p.preempt != nil {
		o.lk.start(pk, vl, &e, now, tailOut)
		o.linkFree = o.lk.replan(o.p, now, &o.rel, o.id, o.downComp, o.downSlot, out)
	}
	o.at(o.linkFree, 0)
	o.at(tailOut+1, 0)
}

// due is when the head e may start on the link: when its header is ready,
// and under preemption not before its flits can follow at link rate (a
// packet whose tail a preemption upstream made late would otherwise hold
// the link with nothing to send).
func (o *outputPort) due(e *entry) clock.Cycle {
	if o.p.preempt == nil {
		return e.Ready
	}
	return clock.Max(e.Ready, e.TailAvail-clock.Cycle(e.Pkt.Flits)+1)
}

// interrupt preempts the packet on the link at now for the head the
// output scheduler picks among those that may interrupt it, if any is
// eligible and the packet can be interrupted; it reports whether it did.
func (o *outputPort) interrupt(now clock.Cycle, out *Outbox) bool {
	if !o.p.preemptable[o.lk.cur.pk.SL] {
		return false
	}
	o.heads = o.heads[:0]
	for vl := range o.q {
		if o.q[vl].Len() == 0 {
			continue
		}
		e := o.q[vl].Front()
		if o.due(e) <= now && o.down.Fits(vl, e.Pkt.Credits) {
			o.heads = append(o.heads, sched.Head{VL: vl, SC: int(e.Pkt.SC), SL: int(e.Pkt.SL), Credits: int(e.Pkt.Credits), Eligible: true})
		}
	}
	vl, wake, ok := o.lk.interrupt(o.p, o.sched, o.heads, now)
	if !ok {
		if wake != clock.Never {
			o.at(wake, 0)
		}
		return false
	}
	o.Decisions++
	o.transmit(now, vl, out)
	return true
}

// late applies news m that a packet's tail comes later (preempt.go): to its
// request if it waits here, to the packet if it is queued, or to its
// transmission, whose tail then leaves later too.
func (o *outputPort) late(m *messages.Msg, out *Outbox) {
	if lateAtDestination(m, &o.req[m.Slot], o.preq.bySlot[m.Slot]) {
		return
	}
	speed, x := o.p.mportSpeed, o.p.xMPort
	if isCentralSlot(int(m.Slot)) {
		speed, x = o.p.centralSpeed, o.p.xCentral
	}
	x += o.p.sbOut
	avail := func(ready clock.Cycle, flits int32) clock.Cycle {
		return transfer(ready-x, flits, speed, m.TailAvail) + x
	}
	q := &o.q[m.VL]
	for i := 0; i < q.Len(); i++ {
		if e := q.At(i); e.Pkt.ID == m.Pkt.ID {
			e.TailAvail = clock.Max(e.TailAvail, avail(e.Ready, e.Pkt.Flits))
			o.writeFree = clock.Max(o.writeFree, e.TailAvail-x+1)
			return
		}
	}
	if r := o.lk.find(m.Pkt.ID); r != nil {
		r.tailAvail = clock.Max(r.tailAvail, avail(r.ready, r.pk.Flits))
		o.writeFree = clock.Max(o.writeFree, r.tailAvail-x+1)
		if o.lk.on {
			o.linkFree = o.lk.replan(o.p, m.At, &o.rel, o.id, o.downComp, o.downSlot, out)
			o.at(o.linkFree, 0)
		}
	}
	// Not here: the request was refused, and the refusal is on its way.
}

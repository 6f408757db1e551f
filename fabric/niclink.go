package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/workloads"
)

// send frees departed space, admits queued packets and, when the link is
// free, sends the head the scheduler picks among those with credits.
func (n *nicComp) send(now clock.Cycle, out *Outbox) {
	for r, ok := n.injRel.Due(now); ok; r, ok = n.injRel.Due(now) {
		n.injSpace.Free(int(r.VL), r.Credits)
	}
	n.admit()
	if due := n.dec.due(n.linkFree); due > now {
		if !n.lk.on || !n.interrupt(now, out) {
			n.at(due, nicSend)
		}
		return
	}
	n.finish(now)
	suspended := len(n.lk.stack) > 0
	n.heads = n.heads[:0]
	eligible := false
	for vl := range n.inj {
		if n.inj[vl].Len() == 0 {
			continue
		}
		pk := &n.inj[vl].Front().Pkt
		ok := n.down.Fits(vl, pk.Credits)
		if suspended && (!ok || !n.lk.allows(n.p, vl, int(pk.SL))) {
			continue // an interrupted packet resumes unless this one may interrupt it
		}
		if ok || n.p.tableView {
			n.heads = append(n.heads, sched.Head{VL: vl, SC: int(pk.SC), SL: int(pk.SL), Credits: int(pk.Credits), Eligible: ok})
			eligible = eligible || ok
		}
	}
	if !eligible && !n.dec.busy {
		if suspended {
			n.lk.resume(now)
			n.linkFree = n.lk.replan(n.p, now, &n.injRel, n.id, n.upComp, n.upSlot, out)
			n.at(n.linkFree, nicSend)
		}
		return // woken again by a credit or a new packet
	}
	h, hit, done := n.dec.step(n.p, n.sched, n.heads, now, n.linkFree)
	if !done {
		n.at(n.dec.done, nicSend)
		return
	}
	n.Decisions++
	if !hit { // the link idles this cycle, the next decision starts the next cycle
		n.WastedDecisions++
		n.at(now+1, nicSend)
		return
	}
	n.transmit(now, h.VL, out)
	if n.dec.cycles > 1 { // the next decision starts before the link frees
		n.at(n.dec.due(n.linkFree), nicSend)
	}
}

func (n *nicComp) admit() {
	sls := len(n.app)
	for k := 0; k < sls; k++ {
		sl := (n.admitRR + k) % sls
		q := &n.app[sl]
		for q.Len() > 0 {
			pk := &q.Front().Pkt
			if !n.injSpace.Fits(int(pk.VL), pk.Credits) {
				break
			}
			n.injSpace.Take(int(pk.VL), pk.Credits)
			n.inj[pk.VL].Push(q.Pop())
		}
	}
	n.admitRR = (n.admitRR + 1) % sls
}

func (n *nicComp) transmit(now clock.Cycle, vl int, out *Outbox) {
	e := n.inj[vl].Pop()
	pk := e.Pkt
	if pk.Msg != n.msgOf[pk.SL] {
		n.msgOf[pk.SL], n.injOf[pk.SL] = pk.Msg, now
	}
	pk.InjAt = n.injOf[pk.SL]
	tailOut := now + clock.Cycle(pk.Flits) - 1
	pk.Head, pk.Tail = now+n.p.fly, tailOut+n.p.fly
	n.down.Take(vl, pk.Credits)
	n.SentPackets++
	n.load.sent(n.p, vl, now, pk.Flits)
	n.linkFree = tailOut + 1
	n.injRel.Push(release{At: tailOut + 1, VL: int32(vl), Credits: pk.Credits, ID: pk.ID})
	out.Send(messages.Msg{Kind: messages.KindPacket, At: pk.Head, Dst: n.upComp, Src: n.id, Slot: n.upSlot, Pkt: pk})
	if n.p.preempt != nil {
		n.lk.start(pk, vl, &e, now, tailOut)
		n.linkFree = n.lk.replan(n.p, now, &n.injRel, n.id, n.upComp, n.upSlot, out)
		n.at(n.linkFree, nicSend)
		return // the source hears of the send when the tail has left (finish)
	}
	n.at(n.linkFree, nicSend)
	if pk.Last && n.sender != nil {
		n.sender.Sent(workloads.MessageID(pk.Msg), tailOut)
		n.wakeSource(now)
	}
}

// finish forgets, under preemption, the packet whose tail has left the
// link, telling the source of the send if it was its message's last.
func (n *nicComp) finish(now clock.Cycle) {
	if !n.lk.on || n.lk.cur.tailOut >= now {
		return
	}
	pk := &n.lk.cur.pk
	n.lk.finish(now)
	if pk.Last && n.sender != nil {
		n.sender.Sent(workloads.MessageID(pk.Msg), n.lk.cur.tailOut)
		n.wakeSource(now)
	}
}

// interrupt preempts the packet on the link at now for the head the
// scheduler picks among those that may interrupt it, if any fits
// downstream and the packet can be interrupted; it reports whether it did.
func (n *nicComp) interrupt(now clock.Cycle, out *Outbox) bool {
	if !n.p.preemptable[n.lk.cur.pk.SL] {
		return false
	}
	n.heads = n.heads[:0]
	for vl := range n.inj {
		if n.inj[vl].Len() == 0 {
			continue
		}
		pk := &n.inj[vl].Front().Pkt
		if n.down.Fits(vl, pk.Credits) {
			n.heads = append(n.heads, sched.Head{VL: vl, SC: int(pk.SC), SL: int(pk.SL), Credits: int(pk.Credits), Eligible: true})
		}
	}
	vl, wake, ok := n.lk.interrupt(n.p, n.sched, n.heads, now)
	if !ok {
		if wake != clock.Never {
			n.at(wake, nicSend)
		}
		return false
	}
	n.Decisions++
	n.transmit(now, vl, out)
	return true
}

// receive ejects every packet whose tail has arrived, records it and
// returns its credits to the output port that sent it.
func (n *nicComp) receive(now clock.Cycle, out *Outbox) {
	if n.p.preempt != nil {
		n.receiveAny(now, out)
		return
	}
	for n.rx.Len() > 0 && n.rx.Front().TailAvail <= now {
		e := n.rx.Pop()
		n.eject(&e, now, out)
	}
	if n.rx.Len() > 0 {
		n.at(n.rx.Front().TailAvail, nicReceive)
	}
}

// receiveAny ejects, in order of arrival, every packet whose tail has
// arrived: under preemption a packet can overtake an interrupted one.
func (n *nicComp) receiveAny(now clock.Cycle, out *Outbox) {
	next := clock.Never
	for k := n.rx.Len(); k > 0; k-- {
		e := n.rx.Pop()
		if e.TailAvail > now {
			next = clock.Min(next, e.TailAvail)
			n.rx.Push(e)
			continue
		}
		n.eject(&e, now, out)
	}
	if next != clock.Never {
		n.at(next, nicReceive)
	}
}

// eject records the packet of e, whose tail has arrived, and returns its
// credits to the output port that sent it.
func (n *nicComp) eject(e *entry, now clock.Cycle, out *Outbox) {
	pk := &e.Pkt
	n.DeliveredPackets++
	n.DeliveredFlits += int64(pk.Flits)
	n.stats.delivered(n.p, pk, pk.Tail)
	if n.trace != nil {
		n.trace(*pk)
	}
	n.digest = fnvMix(n.digest, pk.ID, uint64(pk.Tail))
	out.Send(messages.Msg{Kind: messages.KindCredit, At: now + 1 + n.p.fly, Dst: n.dnComp, Src: n.id,
		VL: int32(pk.VL), Count: pk.Credits})
	n.arrived(pk, now)
}

// arrived counts packet pk into its message and, when the message is whole,
// tells the source, which may then have a message to send (from the next
// cycle on).
func (n *nicComp) arrived(pk *messages.Packet, now clock.Cycle) {
	if pk.Flits < pk.MsgFlits {
		if n.partial == nil {
			n.partial = map[uint64]int32{}
		}
		got := n.partial[pk.Msg] + pk.Flits
		if got < pk.MsgFlits {
			n.partial[pk.Msg] = got
			return
		}
		delete(n.partial, pk.Msg)
	}
	n.src.Delivered(workloads.MessageID(pk.Msg), pk.GenAt, now)
	n.wakeSource(now)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvMix folds two words into an FNV-1a running hash, byte by byte.
func fnvMix(h uint64, words ...uint64) uint64 {
	for _, w := range words {
		for i := 0; i < 8; i++ {
			h ^= (w >> (8 * i)) & 0xff
			h *= fnvPrime
		}
	}
	return h
}

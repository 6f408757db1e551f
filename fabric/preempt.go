package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
)

// Link-level packet preemption (qos.preemption; docs/model.md, "Packet
// preemption"). A link sender (a NIC or a switch output port) that is
// sending a packet of SL B may interrupt it for a packet of SL A when A may
// preempt B, at least min_flits of the interrupted packet have left, and
// some of its flits remain. The interrupted packet resumes when the link
// has no packet that may preempt it; several may be interrupted in turn
// (a stack). An interrupted packet keeps its downstream credits and its
// place in the receiver's buffer: only its tail comes later.
//
// Under virtual cut-through the receiver may already be forwarding the
// packet when it learns that its tail is late, so the news chases the
// packet: a tail message (messages.KindTail) goes to whichever component
// holds it, which moves the packet's tail (and what waits on it: the read
// port, the buffer space release and the credits returned upstream) and
// tells the next holder. The news always arrives before the old tail was
// due (Config.validatePreemption checks the latencies that guarantee it),
// so no component has acted on a tail it later learns was wrong.

// txRec is a packet a link sender has started and whose tail has not left.
type txRec struct {
	pk        messages.Packet // as sent; pk.Tail is the tail's arrival the receiver was last told
	vl        int
	ready     clock.Cycle // its Ready in the sender's buffer
	tailAvail clock.Cycle // when its tail is available at the sender
	left      int32       // flits it sends from `from` on
	from      clock.Cycle // when it (re)started sending them
	tailOut   clock.Cycle // when its tail leaves, as things stand
}

// sent is how many of r's left flits have left before cycle t. A packet
// whose tail arrives late sends its last flits as they arrive, so they are
// counted back from its tail.
func (r *txRec) sent(t clock.Cycle) int32 {
	s := t - (r.tailOut - clock.Cycle(r.left) + 1)
	return int32(clock.Max(0, clock.Min(s, clock.Cycle(r.left))))
}

// txLink is a link sender's state under preemption: the packet on the
// link (on) and the interrupted ones, the last interrupted on top.
type txLink struct {
	on    bool
	cur   txRec
	stack []txRec

	// Preemptions counts the packets interrupted; ByPair[a][b] those of SL b
	// interrupted by SL a. HoleCycles counts the cycles the link was held by
	// a packet whose next flit had not arrived yet (a tail made late by a
	// preemption upstream): the link sends nothing then.
	Preemptions int64
	ByPair      [][]int64
	HoleCycles  int64
}

func newTxLink(p *params) txLink {
	if p.preempt == nil {
		return txLink{}
	}
	by := make([][]int64, len(p.preempt))
	for i := range by {
		by[i] = make([]int64, len(p.preempt))
	}
	return txLink{ByPair: by}
}

// holds reports whether VL vl has a packet on the link or interrupted: no
// other packet of it may start before that one's tail has left.
func (l *txLink) holds(vl int) bool {
	if l.on && l.cur.vl == vl {
		return true
	}
	for i := range l.stack {
		if l.stack[i].vl == vl {
			return true
		}
	}
	return false
}

// allows reports whether a packet of VL vl and SL sl may start when the link
// is free: with packets interrupted, only one that may preempt the top one.
func (l *txLink) allows(p *params, vl, sl int) bool {
	if len(l.stack) == 0 {
		return true
	}
	return !l.holds(vl) && p.preempt[sl][l.stack[len(l.stack)-1].pk.SL]
}

// mayInterrupt reports whether a packet of VL vl and SL sl may interrupt
// the packet on the link.
func (l *txLink) mayInterrupt(p *params, vl, sl int) bool {
	return l.on && !l.holds(vl) && p.preempt[sl][l.cur.pk.SL]
}

// interruptible tells whether the packet on the link can be interrupted at
// now (it has sent min_flits and has flits left) and, if it cannot yet
// but will, the cycle from which it can.
func (l *txLink) interruptible(p *params, now clock.Cycle) (ok bool, from clock.Cycle) {
	c := &l.cur
	s := c.sent(now)
	if s >= c.left {
		return false, clock.Never
	}
	done := c.pk.Flits - c.left + s
	if done >= p.preemptMin {
		return true, 0
	}
	from = now + clock.Cycle(p.preemptMin-done)
	if from > c.tailOut {
		return false, clock.Never
	}
	return false, from
}

// start records packet pk of vl, taken from the sender's buffer at now with
// e's timing, as the packet on the link; tailOut is when its tail leaves.
func (l *txLink) start(pk messages.Packet, vl int, e *entry, now, tailOut clock.Cycle) {
	l.on = true
	l.cur = txRec{pk: pk, vl: vl, ready: e.Ready, tailAvail: e.TailAvail, left: pk.Flits, from: now, tailOut: tailOut}
}

// suspend interrupts the packet on the link at now for a packet of SL by.
func (l *txLink) suspend(now clock.Cycle, by int) {
	c := l.cur
	s := c.sent(now)
	l.HoleCycles += int64(now-c.from) - int64(s)
	c.left -= s
	l.stack = append(l.stack, c)
	l.on = false
	l.Preemptions++
	l.ByPair[by][c.pk.SL]++
}

// resume puts the top interrupted packet back on the link at now.
func (l *txLink) resume(now clock.Cycle) {
	n := len(l.stack) - 1
	l.cur = l.stack[n]
	l.stack = l.stack[:n]
	l.on = true
	l.cur.from = now
}

// finish forgets the packet on the link once its tail has left.
func (l *txLink) finish(now clock.Cycle) {
	if l.on && l.cur.tailOut < now {
		l.on = false
		l.HoleCycles += int64(l.cur.tailOut-l.cur.from+1) - int64(l.cur.left)
	}
}

// find returns the packet id on the link or interrupted, or nil.
func (l *txLink) find(id uint64) *txRec {
	if l.on && l.cur.pk.ID == id {
		return &l.cur
	}
	for i := range l.stack {
		if l.stack[i].pk.ID == id {
			return &l.stack[i]
		}
	}
	return nil
}

// replan recomputes when the packet on the link and then each interrupted
// one (each resuming when the one above it ends) send their tails, and for
// every tail that moved later tells the receiver (dst, slot) and moves the
// buffer space release in rel. It returns the cycle the link is free for
// the next decision.
func (l *txLink) replan(p *params, now clock.Cycle, rel *releases, from, dst messages.CompID, slot int32, out *Outbox) clock.Cycle {
	move := func(r *txRec, t clock.Cycle) {
		if t <= r.tailOut {
			return
		}
		r.tailOut = t
		rel.delay(r.pk.ID, t+1)
		r.pk.Tail = t + p.fly
		out.Send(messages.Msg{Kind: messages.KindTail, At: now + p.fly, Dst: dst, Src: from, Slot: slot, VL: int32(r.pk.VL), Pkt: r.pk})
	}
	t := now - 1
	if l.on {
		move(&l.cur, clock.Max(l.cur.from+clock.Cycle(l.cur.left)-1, l.cur.tailAvail))
		t = l.cur.tailOut
	}
	for i := len(l.stack) - 1; i >= 0; i-- {
		r := &l.stack[i]
		move(r, clock.Max(t+clock.Cycle(r.left), r.tailAvail))
		t = r.tailOut
	}
	if !l.on {
		return now
	}
	return l.cur.tailOut + 1
}

// candidates keeps, of the eligible heads, those that may interrupt the
// packet on the link.
func (l *txLink) candidates(p *params, heads []sched.Head) []sched.Head {
	k := heads[:0]
	for _, h := range heads {
		if h.Eligible && l.mayInterrupt(p, h.VL, h.SL) {
			k = append(k, h)
		}
	}
	return k
}

// interrupt decides at now, among the eligible heads, whether one
// interrupts the packet on the link: the scheduler s picks among those
// that may, if the packet can be interrupted now; the packet is then
// suspended and the VL picked returned. Otherwise wake is when it can be
// (clock.Never if that is not for a known cycle).
func (l *txLink) interrupt(p *params, s sched.Scheduler, heads []sched.Head, now clock.Cycle) (vl int, wake clock.Cycle, ok bool) {
	if heads = l.candidates(p, heads); len(heads) == 0 {
		return 0, clock.Never, false
	}
	if can, from := l.interruptible(p, now); !can {
		return 0, from, false
	}
	i, _ := p.decide(s, heads)
	l.suspend(now, heads[i].SL)
	return heads[i].VL, 0, true
}

// delay moves the release of packet id to at (later than it was), keeping
// the releases in order of At.
func (r *releases) delay(id uint64, at clock.Cycle) {
	for i := 0; i < r.size; i++ {
		x := &r.buf[(r.head+i)%len(r.buf)]
		if x.ID != id {
			continue
		}
		x.At = at
		for j := i; j+1 < r.size; j++ {
			a, b := &r.buf[(r.head+j)%len(r.buf)], &r.buf[(r.head+j+1)%len(r.buf)]
			if a.At <= b.At {
				break
			}
			*a, *b = *b, *a
		}
		return
	}
	panic("preemption: no buffer space release for a packet whose tail moved")
}

// due is when a switch buffer's input arbiter may request packet e: when
// its header is ready, or, under preemption, for a packet known to be
// late (its flits could not follow at link rate from its readiness: it was
// interrupted upstream), when its tail has arrived. An unbroken packet's
// flits can always follow, so without preemption nothing changes.
//
// Requesting a late packet as soon as its flits could follow, by the tail
// known then, would start its transfer with no margin: a further
// interruption upstream (of the packet itself once resumed, or of one
// above it on the sender's stack) moves the tail again while the transfer
// runs, and the read port (every VL behind it) and the destination's write
// port are held until the new tail. With every SL preempting those below,
// that cost most of the throughput for tens of thousands of cycles
// (docs/validation.md, "preemption"). Once the tail has arrived no news
// can move it (news always overtakes the tail it corrects).
func (s *source) due(e *entry) clock.Cycle {
	if s.late && e.TailAvail-clock.Cycle(e.Pkt.Flits)+1 > e.Ready {
		return e.TailAvail
	}
	return e.Ready
}

// xfer is a transfer a switch buffer has been granted and whose tail has
// not left (kept under preemption, so a late tail can follow the packet).
type xfer struct {
	id             uint64
	dst            messages.CompID
	slot, vl       int32
	ready          clock.Cycle // the packet's Ready in this buffer
	start, tailOut clock.Cycle
	flits          int32
}

// tailNews is what a buffer learns of a late tail: the packet, its queue
// here, and how its tail's availability here follows from its Ready here
// and its size.
type tailNews struct {
	id    uint64
	q     int
	avail func(ready clock.Cycle, flits int32) clock.Cycle
}

// correct applies news of a late tail to a switch buffer (an input buffer or
// a central buffer) with read port speed speed: the packet is queued,
// requested (the destination is told, so that its grant counts the late
// tail) or being transferred (the read port and the release wait for the new
// tail, and the destination is told). It reports whether the packet was
// here, and if so when its tail is now available here.
func (s *source) correct(p *params, n tailNews, now clock.Cycle, from messages.CompID, out *Outbox) (clock.Cycle, bool) {
	tell := func(dst messages.CompID, slot, vl int32, avail clock.Cycle) {
		out.Send(messages.Msg{Kind: messages.KindTail, At: now + p.requestLatency, Dst: dst, Src: from, Slot: slot, VL: vl,
			TailAvail: avail, Pkt: messages.Packet{ID: n.id}})
	}
	later := func(e *entry) clock.Cycle {
		e.TailAvail = clock.Max(e.TailAvail, n.avail(e.Ready, e.Pkt.Flits))
		return e.TailAvail
	}
	q := &s.q[n.q]
	for i := 0; i < q.Len(); i++ {
		if e := q.At(i); e.Pkt.ID == n.id {
			return later(e), true
		}
	}
	if s.waiting && s.inflight.Pkt.ID == n.id {
		a := later(&s.inflight)
		tell(s.reqDst, s.reqSlot, s.reqVL, a)
		return a, true
	}
	for i := range s.outs {
		if o := &s.outs[i]; o.e.Pkt.ID == n.id {
			a := later(&o.e)
			tell(o.dst, o.slot, o.vl, a)
			return a, true
		}
	}
	for i := range s.xfers {
		x := &s.xfers[i]
		if x.id != n.id {
			continue
		}
		a := n.avail(x.ready, x.flits)
		if t := transfer(x.start, x.flits, s.speed, a); t > x.tailOut {
			x.tailOut = t
			s.readFree = clock.Max(s.readFree, t+1)
			s.rel.delay(x.id, t+1)
			tell(x.dst, x.slot, x.vl, a)
		}
		return a, true
	}
	return 0, false
}

// grantedLate records, under preemption, the transfer grant g starts for
// packet e: its tail leaves when the grant says, or later if the packet's
// tail here moved since the request went; it returns when.
func (s *source) grantedLate(g *messages.Msg, e *entry) clock.Cycle {
	t := clock.Max(g.TailOut, transfer(g.Start, e.Pkt.Flits, s.speed, e.TailAvail))
	k := s.xfers[:0]
	for _, x := range s.xfers {
		if x.tailOut >= g.At {
			k = append(k, x)
		}
	}
	s.xfers = append(k, xfer{id: e.Pkt.ID, dst: g.Src, slot: g.Slot, vl: g.VL, ready: e.Ready, start: g.Start, tailOut: t, flits: e.Pkt.Flits})
	return t
}

// noteRequest remembers where request m went, for news of a late tail.
func (s *source) noteRequest(m *messages.Msg) {
	if m.Kind != messages.KindRequest {
		return
	}
	if len(s.outs) > 0 && s.outs[len(s.outs)-1].id == m.Tag && s.outs[len(s.outs)-1].e.Pkt.ID == m.Pkt.ID {
		o := &s.outs[len(s.outs)-1]
		o.dst, o.slot, o.vl = m.Dst, m.Slot, m.VL
		return
	}
	s.reqDst, s.reqSlot, s.reqVL = m.Dst, m.Slot, m.VL
}

// lateAtDestination applies news m of a late tail to a pending request, the
// serial allocator's one or one of list, the pipelined allocator's requests
// of its slot (its grant will count the tail as it now is). It reports
// whether it found it.
func lateAtDestination(m *messages.Msg, serial *pending, list []pending) bool {
	if serial.valid && serial.msg.Pkt.ID == m.Pkt.ID {
		serial.msg.TailAvail = clock.Max(serial.msg.TailAvail, m.TailAvail)
		return true
	}
	for i := range list {
		if list[i].msg.Pkt.ID == m.Pkt.ID {
			list[i].msg.TailAvail = clock.Max(list[i].msg.TailAvail, m.TailAvail)
			return true
		}
	}
	return false
}

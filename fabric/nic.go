package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/workloads"
)

// NIC units, evaluated in this order within a cycle.
const (
	nicGenerate int32 = iota
	nicSend
	nicReceive
	nicUnits
)

// nicComp is an endpoint (MODEL.md section 1): it takes the messages its
// source (package workloads) offers, segments them into packets of at most
// the SL's MTU, queues them per SL in an application queue (all SLs' queues together hold at most
// traffic.max_queued_packets; a message that does not fit is not queued
// but counted as throttled), admits them into a bounded injection buffer
// shared by the VLs, and sends one flit per cycle on its link, the VL chosen
// by its output scheduler. It ejects what arrives at one flit per cycle,
// returns the credits when each tail has been consumed, and tells its
// source of every message that has arrived whole.
type nicComp struct {
	core
	p       *params
	index   int
	stats   *Stats
	src     workloads.Source
	sender  workloads.Sender // src, when it must know its sends (trace replay)
	partial map[uint64]int32 // flits received of messages of several packets not yet whole

	app      []fifo // per SL: packets not yet admitted
	inj      []fifo // per VL: the injection buffer
	injSpace Space
	injRel   releases
	down     Space // mirror of the switch input buffer
	sched    sched.Scheduler
	heads    []sched.Head
	dec      decisionUnit
	linkFree clock.Cycle
	scNext   []int         // per SL: round-robin over its SCs, per message
	injOf    []clock.Cycle // per SL: injection cycle of the message being sent
	msgOf    []uint64      // per SL: that message's id
	admitRR  int
	rx       fifo

	upComp messages.CompID // the switch MPort this NIC's link enters
	upSlot int32
	dnComp messages.CompID // the output port that feeds this NIC
	seq    uint64
	trace  func(messages.Packet) // tests: sees every delivered packet

	// Output scheduler decisions, and those wasted on a head that could not
	// send (table view only; docs/schedulers.md).
	Decisions, WastedDecisions int64

	lk        txLink   // preemption (preempt.go)
	load      linkLoad // flits on the link, per VL (linkload.go)
	LateTails int64    // news of a late tail for a packet not here (a model error the conservation check reports)

	// Counters for the conservation check and the digest.
	GenPackets, DeliveredPackets int64
	DroppedPackets               int64 // dropped from the application queues at traffic.stop_cycle (traffic.drop_backlog)
	dropped                      bool
	SentPackets                  int64
	DeliveredFlits               int64
	digest                       uint64

	// Messages not queued because the application queues held
	// traffic.max_queued_packets, their flits, and the cycle of the first.
	Throttled, ThrottledFlits int64
	FirstThrottle             clock.Cycle
}

// newNIC builds NIC index with its source of messages and its links: l.up
// is the switch input buffer it sends into (its credits), l.down the output
// port that feeds it.
func newNIC(p *params, id messages.CompID, index int, stats *Stats, src workloads.Source, l nicLinks) *nicComp {
	n := &nicComp{core: newCore(id, int(nicUnits)), p: p, index: index, stats: stats, src: src,
		app:      make([]fifo, len(p.slSCs)),
		inj:      make([]fifo, p.vls),
		injSpace: newSpace(p.vls, p.injCap, p.excl, p.maxVL),
		down:     newSpace(p.vls, l.up.credits, p.excl, p.maxVL),
		upComp:   l.up.comp, upSlot: l.up.slot, dnComp: l.down,
		sched: p.newScheduler(), heads: make([]sched.Head, 0, p.vls), dec: newDecisionUnit(p.decisionCycles, p.vls), lk: newTxLink(p), load: newLinkLoad(p.vls),
		scNext: make([]int, len(p.slSCs)), injOf: make([]clock.Cycle, len(p.slSCs)), msgOf: make([]uint64, len(p.slSCs)),
		digest: fnvOffset,
	}
	n.sender, _ = src.(workloads.Sender)
	n.startTimers()
	return n
}

// startTimers sets the first generation timer: at the source's first
// message, or, for a synthetic source, one at each SL's first message
// earlier than all before it (workloads.Synthetic.FirstCycles), the timers
// the NIC set when it drew its traffic itself.
func (n *nicComp) startTimers() {
	if s, ok := n.src.(interface{ FirstCycles() []clock.Cycle }); ok {
		for _, c := range s.FirstCycles() {
			n.at(c, nicGenerate)
		}
		return
	}
	n.at(n.src.Next(), nicGenerate)
}

// Advance implements Component.
func (n *nicComp) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return n.run(n, to, out) }

func (n *nicComp) apply(m *messages.Msg, _ *Outbox) {
	switch m.Kind {
	case messages.KindCredit:
		n.down.Free(int(m.VL), m.Count)
		n.at(m.At, nicSend)
	case messages.KindPacket:
		n.rx.Push(entry{Pkt: m.Pkt, TailAvail: m.Pkt.Tail})
		n.at(m.Pkt.Tail, nicReceive)
	case messages.KindTail:
		for i := 0; i < n.rx.Len(); i++ {
			if e := n.rx.At(i); e.Pkt.ID == m.Pkt.ID {
				e.Pkt.Tail, e.TailAvail = m.Pkt.Tail, m.Pkt.Tail
				return
			}
		}
		n.LateTails++
	default:
		panic("nic: unexpected " + m.Kind.String())
	}
}

func (n *nicComp) eval(unit int32, now clock.Cycle, out *Outbox) {
	switch unit {
	case nicGenerate:
		n.generate(now)
	case nicSend:
		n.send(now, out)
	case nicReceive:
		n.receive(now, out)
	}
}

// generate takes every message the source has due now (none from
// traffic.stop_cycle on) and sets the timer of the next.
func (n *nicComp) generate(now clock.Cycle) {
	for now < n.p.stop {
		m, ok := n.src.Pop(now)
		if !ok {
			break
		}
		n.newMessage(m, now)
	}
	next := n.src.Next()
	switch {
	case next < n.p.stop:
		n.at(next, nicGenerate)
	case n.p.dropBacklog && !n.dropped && now < n.p.stop:
		n.at(n.p.stop, nicGenerate)
	case n.p.dropBacklog && !n.dropped:
		n.dropBacklog()
	}
	n.at(now, nicSend)
}

// dropBacklog empties the application queues (traffic.drop_backlog): what
// a drain run stops offering. The injection buffer keeps what it holds.
func (n *nicComp) dropBacklog() {
	n.dropped = true
	for sl := range n.app {
		for n.app[sl].Len() > 0 {
			n.app[sl].Pop()
			n.DroppedPackets++
		}
	}
}

// newMessage queues message m, generated now, unless the application
// queues are full (traffic.max_queued_packets): then it is offered but not
// queued, and counted as throttled. A causal message (a trace's) is
// queued whatever the queues hold: others wait for it.
func (n *nicComp) newMessage(m workloads.Message, now clock.Cycle) {
	sl, flits := m.SL, int32(m.Flits)
	queued := 0
	for i := range n.app {
		queued += n.app[i].Len()
	}
	mtu := n.p.mtuFlits[sl]
	if queued+int((flits+mtu-1)/mtu) > n.p.maxQueued && !m.Causal {
		if n.Throttled == 0 {
			n.FirstThrottle = now
		}
		n.Throttled++
		n.ThrottledFlits += int64(flits)
		if n.p.inWindow(now) {
			n.stats.Offered[sl] += int64(flits)
		}
		return
	}
	n.enqueue(m, now)
}

// enqueue segments message m into its SL's application queue. Its packets
// are numbered NIC << 40 | sequence, the sequence counting messages and
// packets (the message takes a number too).
func (n *nicComp) enqueue(m workloads.Message, now clock.Cycle) {
	sl, dst, flits := m.SL, m.Dst, int32(m.Flits)
	scs := n.p.slSCs[sl]
	sc := scs[n.scNext[sl]%len(scs)]
	n.scNext[sl]++
	n.seq++
	msgID := uint64(m.ID)
	if n.p.inWindow(now) {
		n.stats.Offered[sl] += int64(flits)
	}
	n.stats.InjectedFlits[sl] += int64(flits)
	n.stats.InjectedMsgs[sl]++
	mtu := n.p.mtuFlits[sl]
	for left := flits; left > 0; left -= mtu {
		f := min(left, mtu)
		n.seq++
		n.app[sl].Push(entry{Pkt: messages.Packet{
			ID: uint64(n.index)<<40 | n.seq, Msg: msgID, Src: int32(n.index), Dst: int32(dst),
			SL: messages.SL(sl), SC: sc, VL: n.p.sc2vl[sc], Last: left <= mtu, Flits: f,
			Credits: n.p.creditsOf(f), MsgFlits: flits, GenAt: now}})
		n.GenPackets++
	}
}

// wakeSource sets a generation timer at the source's next message, which
// a delivery or a send in cycle now may have made ready (from now+1 on).
func (n *nicComp) wakeSource(now clock.Cycle) {
	if next := n.src.Next(); next < n.p.stop {
		n.at(clock.Max(next, now+1), nicGenerate)
	}
}

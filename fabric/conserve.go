package fabric

import (
	"fmt"

	"github.com/opasim/opasim/messages"
)

// flight indexes the messages in flight (held by an engine or waiting in a
// component's inbox) for the conservation check.
type flight struct {
	pkts    map[[3]int64]int64 // (dst, slot, vl) -> credits of packets on the link
	credits map[[3]int64]int64 // (src, dst, vl) -> credits travelling back
	packets int64
	grants  int64
	ids     map[uint64]bool // packets on a link (with preemption only)
}

func (n *Network) inFlight(held []messages.Msg) *flight {
	f := &flight{pkts: map[[3]int64]int64{}, credits: map[[3]int64]int64{}}
	if n.p.preempt != nil {
		f.ids = map[uint64]bool{}
	}
	add := func(m *messages.Msg) {
		switch m.Kind {
		case messages.KindPacket:
			f.pkts[[3]int64{int64(m.Dst), int64(m.Slot), int64(m.Pkt.VL)}] += int64(m.Pkt.Credits)
			f.packets++
			if f.ids != nil {
				f.ids[m.Pkt.ID] = true
			}
		case messages.KindCredit:
			f.credits[[3]int64{int64(m.Src), int64(m.Dst), int64(m.VL)}] += int64(m.Count)
		case messages.KindGrant:
			if !n.p.islip { // an islip grant is an offer: the packet is queued on accept
				f.grants++
			}
		case messages.KindAccept: // islip: the packet has left its source and is not yet queued
			f.packets++
		}
	}
	for i := range held {
		add(&held[i])
	}
	for _, c := range n.Comps {
		for _, m := range inboxOf(c).Pending() {
			add(&m)
		}
	}
	return f
}

func inboxOf(c Component) *inbox {
	switch x := c.(type) {
	case *nicComp:
		return &x.in
	case *mport:
		return &x.core.in
	case *centralXbar:
		return &x.core.in
	case *outputPort:
		return &x.core.in
	}
	panic(fmt.Sprintf("unknown component %T", c))
}

// CheckConservation verifies MODEL.md section 2's invariants and returns
// every violation: every generated packet is delivered exactly once or is
// still queued or in flight; for every link and VL, the sender's credits in
// use equal the packets on the link plus the space they hold downstream
// plus the credits on their way back; and every buffer's space accounting
// equals what it holds.
func (n *Network) CheckConservation(held []messages.Msg) []string {
	t := n.ConservationTerms(held, nil)
	return t.Check()
}

// ConservationTerms are the conservation check of one copy of a network
// taken apart: what single components found wrong in themselves, and the
// terms of the checks that span components, which add up over copies. A
// distributed run gives each process a copy in which it runs some
// components and leaves the others as built (holding nothing, owing
// nothing): the sum of the copies' terms is the terms of the whole run.
type ConservationTerms struct {
	Problems  []string   // found within single components
	Links     []LinkTerm // one per wired link and VL, in an order fixed by the network
	Generated int64      // packets generated
	Resident  int64      // delivered, dropped or held by a component
	Packets   int64      // in flight (held messages)
	Grants    int64      // grants in flight, whose packets are counted resident and in flight
	// With a runs set: the partly sent packets whose receiver this copy
	// does not run, and what this copy's receivers of links from
	// components it does not run hold (and the packets held for them),
	// which another copy's Partly entries are looked up in.
	Partly  []PartlySent
	Holding []PacketPlace
}

// LinkTerm is one link and VL: the sender's credits in use (Mirror), what
// the receiver holds (Used), the packets on the link and the credits on
// their way back.
type LinkTerm struct {
	ToNIC                      bool  // the receiver is a NIC (else an MPort input)
	Sender                     int32 // its component
	Index                      int32 // the NIC, or the receiving port
	VL                         int32
	Mirror, Used, OnLink, Back int64
}

func (l *LinkTerm) name() string {
	if l.ToNIC {
		return linkName("output port", messages.CompID(l.Sender), "NIC", int(l.Index))
	}
	return linkName("component", messages.CompID(l.Sender), "MPort input", int(l.Index))
}

// PartlySent is a packet a link sender has sent part of.
type PartlySent struct {
	Link string
	PacketPlace
}

// PacketPlace is a packet at a link's receiver (component Dst, input Slot).
type PacketPlace struct {
	Dst  int32
	Slot int32
	ID   uint64
}

// ConservationTerms takes the check apart (ConservationTerms); held are
// the messages an engine holds. runs, when not nil, tells the components
// this copy runs: a partly sent packet whose receiver it does not run is
// left to the copy that runs it (Partly, Holding).
func (n *Network) ConservationTerms(held []messages.Msg, runs func(messages.CompID) bool) ConservationTerms {
	f := n.inFlight(held)
	t := ConservationTerms{Packets: f.packets, Grants: f.grants}
	bad := func(format string, a ...any) { t.Problems = append(t.Problems, fmt.Sprintf(format, a...)) }
	partly := func(l *txLink, dst messages.CompID, slot int32, name string) {
		n.checkPreempted(bad, f, l, dst, slot, name, runs, &t.Partly)
	}
	for _, nic := range n.nics {
		partly(&nic.lk, nic.upComp, nic.upSlot, fmt.Sprintf("NIC %d", nic.index))
		if nic.LateTails > 0 {
			bad("NIC %d: %d news of a late tail came after the packet had been delivered", nic.index, nic.LateTails)
		}
		t.Generated += nic.GenPackets
		t.Resident += nic.DeliveredPackets + nic.DroppedPackets + nic.resident(bad)
		t.addLink(n, f, true, nic.id, nic.dnComp, 0, int32(nic.index), nic.rxUsed())
	}
	for _, sp := range n.switches {
		for _, m := range sp.MPorts {
			if m.LateTails > 0 {
				bad("MPort %d: %d news of a late tail came after the packet had left", m.id, m.LateTails)
			}
			for i := range m.ibuf {
				t.Resident += m.ibuf[i].resident(&m.occ[i], nil, int64(m.id), bad)
				if !m.wired[i] {
					continue
				}
				used := make([]int64, n.p.vls)
				for vl := range used {
					used[vl] = int64(m.occ[i].Used(vl))
				}
				t.addLink(n, f, false, m.id, m.upComp[i], int32(i), int32(portOf(m.index, i)), used)
			}
		}
		for b := range sp.Central.buf {
			cb := &sp.Central.buf[b]
			t.Resident += cb.resident(&cb.space, &cb.isd, int64(sp.Central.id), bad)
		}
		for mp := range sp.Central.preq {
			sp.Central.preq[mp].checkBusy(bad, fmt.Sprintf("switch %d central buffers of MPort %d", sp.Central.sw, mp))
		}
		for _, o := range sp.Outputs {
			partly(&o.lk, o.downComp, o.downSlot, fmt.Sprintf("switch %d output port %d", o.sw, o.port))
			t.Resident += o.resident(bad)
		}
	}
	if runs != nil && f.ids != nil {
		t.Holding = n.holding(f, runs)
	}
	return t
}

// addLink adds the terms of one link: used[vl] is what the receiver recv
// holds; the sender's mirror, the packets on the link and the credits
// returning come from the network and the messages in flight.
func (t *ConservationTerms) addLink(n *Network, f *flight, toNIC bool, recv, sender messages.CompID, slot, index int32, used []int64) {
	mirror := n.mirrorOf(sender)
	for vl := range used {
		t.Links = append(t.Links, LinkTerm{ToNIC: toNIC, Sender: int32(sender), Index: index, VL: int32(vl),
			Mirror: int64(mirror.Used(vl)), Used: used[vl],
			OnLink: f.pkts[[3]int64{int64(recv), int64(slot), int64(vl)}],
			Back:   f.credits[[3]int64{int64(recv), int64(sender), int64(vl)}]})
	}
}

// Add adds o, the terms of another copy of the same network, to t.
func (t *ConservationTerms) Add(o *ConservationTerms) error {
	if len(o.Links) != len(t.Links) {
		return fmt.Errorf("conservation terms of %d links and VLs, this network has %d", len(o.Links), len(t.Links))
	}
	for i := range t.Links {
		a, b := &t.Links[i], &o.Links[i]
		if a.ToNIC != b.ToNIC || a.Sender != b.Sender || a.Index != b.Index || a.VL != b.VL {
			return fmt.Errorf("conservation terms: link %d is %s VL %d, here %s VL %d", i, b.name(), b.VL, a.name(), a.VL)
		}
		a.Mirror, a.Used, a.OnLink, a.Back = a.Mirror+b.Mirror, a.Used+b.Used, a.OnLink+b.OnLink, a.Back+b.Back
	}
	t.Problems = append(t.Problems, o.Problems...)
	t.Generated, t.Resident, t.Packets, t.Grants = t.Generated+o.Generated, t.Resident+o.Resident, t.Packets+o.Packets, t.Grants+o.Grants
	t.Partly, t.Holding = append(t.Partly, o.Partly...), append(t.Holding, o.Holding...)
	return nil
}

// Check compares the terms and returns every violation.
func (t *ConservationTerms) Check() []string {
	probs := append([]string(nil), t.Problems...)
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	for i := range t.Links {
		l := &t.Links[i]
		if l.Mirror != l.Used+l.OnLink+l.Back {
			bad("%s VL %d: sender holds %d credits, but %d buffered + %d on the link + %d returning = %d",
				l.name(), l.VL, l.Mirror, l.Used, l.OnLink, l.Back, l.Used+l.OnLink+l.Back)
		}
	}
	if len(t.Partly) > 0 {
		at := make(map[PacketPlace]bool, len(t.Holding))
		for _, h := range t.Holding {
			at[h] = true
		}
		for _, p := range t.Partly {
			if !at[PacketPlace{Dst: p.Dst, Slot: -1, ID: p.ID}] && !at[PacketPlace{Dst: -1, Slot: -1, ID: p.ID}] {
				bad("%s: packet %d is partly sent, but its receiver (component %d) does not hold it", p.Link, p.ID, p.Dst)
			}
		}
	}
	inFlight := t.Packets - t.Grants
	if t.Generated != t.Resident+inFlight {
		bad("packets: %d generated, but %d delivered or resident and %d in flight (net of %d grants in flight)",
			t.Generated, t.Resident, inFlight, t.Grants)
	}
	return probs
}

func linkName(from string, id messages.CompID, to string, idx int) string {
	return fmt.Sprintf("link %s %d -> %s %d", from, id, to, idx)
}

func (n *Network) mirrorOf(id messages.CompID) *Space {
	switch c := n.Comps[id].(type) {
	case *nicComp:
		return &c.down
	case *outputPort:
		return &c.down
	}
	panic(fmt.Sprintf("component %d sends on no link", id))
}

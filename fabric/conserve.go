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
	f := n.inFlight(held)
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	var gen, resident int64
	for _, nic := range n.nics {
		n.checkPreempted(bad, f, &nic.lk, nic.upComp, nic.upSlot, fmt.Sprintf("NIC %d", nic.index))
		if nic.LateTails > 0 {
			bad("NIC %d: %d news of a late tail came after the packet had been delivered", nic.index, nic.LateTails)
		}
		gen += nic.GenPackets
		resident += nic.DeliveredPackets + nic.DroppedPackets + nic.resident(bad)
		n.checkLink(bad, f, nic.id, nic.dnComp, 0, nic.rxUsed(), linkName("output port", nic.dnComp, "NIC", nic.index))
	}
	for _, sp := range n.switches {
		for _, m := range sp.MPorts {
			if m.LateTails > 0 {
				bad("MPort %d: %d news of a late tail came after the packet had left", m.id, m.LateTails)
			}
			for i := range m.ibuf {
				resident += m.ibuf[i].resident(&m.occ[i], nil, int64(m.id), bad)
				if !m.wired[i] {
					continue
				}
				used := make([]int64, n.p.vls)
				for vl := range used {
					used[vl] = int64(m.occ[i].Used(vl))
				}
				n.checkLink(bad, f, m.id, m.upComp[i], int32(i), used, linkName("component", m.upComp[i], "MPort input", int(portOf(m.index, i))))
			}
		}
		for b := range sp.Central.buf {
			cb := &sp.Central.buf[b]
			resident += cb.resident(&cb.space, &cb.isd, int64(sp.Central.id), bad)
		}
		for _, o := range sp.Outputs {
			n.checkPreempted(bad, f, &o.lk, o.downComp, o.downSlot, fmt.Sprintf("switch %d output port %d", o.sw, o.port))
			resident += o.resident(bad)
		}
	}
	inFlight := f.packets - f.grants
	if gen != resident+inFlight {
		bad("packets: %d generated, but %d delivered or resident and %d in flight (net of %d grants in flight)",
			gen, resident, inFlight, f.grants)
	}
	return probs
}

func linkName(from string, id messages.CompID, to string, idx int) string {
	return fmt.Sprintf("link %s %d -> %s %d", from, id, to, idx)
}

// checkLink checks one link: used[vl] is what the receiver holds, the
// sender's mirror must equal that plus what travels on the link either way.
func (n *Network) checkLink(bad func(string, ...any), f *flight, recv, sender messages.CompID, slot int32, used []int64, name string) {
	mirror := n.mirrorOf(sender)
	for vl := range used {
		onLink := f.pkts[[3]int64{int64(recv), int64(slot), int64(vl)}]
		back := f.credits[[3]int64{int64(recv), int64(sender), int64(vl)}]
		if got := int64(mirror.Used(vl)); got != used[vl]+onLink+back {
			bad("%s VL %d: sender holds %d credits, but %d buffered + %d on the link + %d returning = %d",
				name, vl, got, used[vl], onLink, back, used[vl]+onLink+back)
		}
	}
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

// resident counts the packets a NIC holds and checks its injection buffer.
func (nic *nicComp) resident(bad func(string, ...any)) int64 {
	var pk int64
	for sl := range nic.app {
		pk += int64(nic.app[sl].Len())
	}
	used, injected := queued(nic.inj)
	pk += injected
	addReleases(&nic.injRel, used)
	checkSpace(bad, &nic.injSpace, used, fmt.Sprintf("NIC %d injection buffer", nic.index))
	return pk + int64(nic.rx.Len())
}

// rxUsed is the receive buffer space held by packets not yet consumed.
func (nic *nicComp) rxUsed() []int64 {
	used := make([]int64, nic.p.vls)
	for i := 0; i < nic.rx.Len(); i++ {
		pk := &nic.rx.At(i).Pkt
		used[pk.VL] += int64(pk.Credits)
	}
	return used
}

// resident counts the packets a switch source buffer holds (queued, or
// requested and not yet granted) and checks its space accounting, which
// includes the space booked by the islip grants d has offered (nil: none).
func (s *source) resident(sp *Space, d *islipDest, comp int64, bad func(string, ...any)) int64 {
	used, pk := queued(s.q)
	if s.waiting {
		used[s.inq] += int64(s.inflight.Pkt.Credits)
		pk++
	}
	for _, o := range s.outs {
		used[o.q] += int64(o.e.Pkt.Credits)
		pk++
	}
	addReleases(&s.rel, used)
	if d != nil {
		d.booked(used)
	}
	checkSpace(bad, sp, used, fmt.Sprintf("component %d buffer", comp))
	return pk
}

func (o *outputPort) resident(bad func(string, ...any)) int64 {
	used, pk := queued(o.q)
	addReleases(&o.rel, used)
	o.isd.booked(used)
	checkSpace(bad, &o.space, used, fmt.Sprintf("switch %d output buffer %d", o.sw, o.port))
	return pk
}

// queued returns the credits per VL and the number of the packets queued
// in per-VL FIFOs.
func queued(qs []fifo) (used []int64, packets int64) {
	used = make([]int64, len(qs))
	for vl := range qs {
		for i := 0; i < qs[vl].Len(); i++ {
			used[vl] += int64(qs[vl].At(i).Pkt.Credits)
		}
		packets += int64(qs[vl].Len())
	}
	return used, packets
}

func addReleases(r *releases, used []int64) {
	for i := 0; i < r.Len(); i++ {
		x := r.At(i)
		used[x.VL] += int64(x.Credits)
	}
}

func checkSpace(bad func(string, ...any), sp *Space, used []int64, name string) {
	var total int64
	for vl, u := range used {
		total += u
		if int64(sp.Used(vl)) != u {
			bad("%s VL %d: accounts %d credits but holds %d", name, vl, sp.Used(vl), u)
		}
	}
	if int64(sp.Total()) != total {
		bad("%s: accounts %d credits in all but holds %d", name, sp.Total(), total)
	}
}

// checkPreempted checks a link sender's interrupted packets: each has sent
// some of its flits and has some left, and the receiver (dst, slot) holds
// it, or its header is still on the link: both ends account for a partly
// sent packet. (The
// sender's space for it is counted with the releases above.)
func (n *Network) checkPreempted(bad func(string, ...any), f *flight, l *txLink, dst messages.CompID, slot int32, name string) {
	check := func(r *txRec) {
		if !f.ids[r.pk.ID] && !n.receiverHolds(dst, slot, r.pk.ID) {
			bad("%s: packet %d is partly sent, but its receiver (component %d) does not hold it", name, r.pk.ID, dst)
		}
	}
	for i := range l.stack {
		r := &l.stack[i]
		if r.left <= 0 || r.left >= r.pk.Flits {
			bad("%s: interrupted packet %d has %d of its %d flits left", name, r.pk.ID, r.left, r.pk.Flits)
		}
		check(r)
	}
}

// receiverHolds reports whether the receiver of a link, component dst
// (input slot slot of an MPort, or a NIC), holds packet id.
func (n *Network) receiverHolds(dst messages.CompID, slot int32, id uint64) bool {
	switch c := n.Comps[dst].(type) {
	case *nicComp:
		for i := 0; i < c.rx.Len(); i++ {
			if c.rx.At(i).Pkt.ID == id {
				return true
			}
		}
	case *mport:
		return c.ibuf[slot].holds(id)
	}
	return false
}

// holds reports whether a switch buffer holds packet id: queued, requested
// or being transferred.
func (s *source) holds(id uint64) bool {
	for q := range s.q {
		for i := 0; i < s.q[q].Len(); i++ {
			if s.q[q].At(i).Pkt.ID == id {
				return true
			}
		}
	}
	if s.waiting && s.inflight.Pkt.ID == id {
		return true
	}
	for i := range s.outs {
		if s.outs[i].e.Pkt.ID == id {
			return true
		}
	}
	for i := range s.xfers {
		if s.xfers[i].id == id {
			return true
		}
	}
	return false
}

package fabric

import (
	"fmt"

	"github.com/opasim/opasim/messages"
)

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
	for q := range s.q {
		if q < 64 && (s.busy>>q&1 == 1) != (s.q[q].Len() > 0) {
			bad("component %d buffer queue %d: %d packets, but marked as holding some: %v", comp, q, s.q[q].Len(), s.busy>>q&1 == 1)
		}
	}
	return pk
}

func (o *outputPort) resident(bad func(string, ...any)) int64 {
	o.preq.checkBusy(bad, fmt.Sprintf("switch %d output buffer %d", o.sw, o.port))
	used, pk := queued(o.q)
	addReleases(&o.rel, used)
	o.isd.booked(used)
	checkSpace(bad, &o.space, used, fmt.Sprintf("switch %d output buffer %d", o.sw, o.port))
	return pk
}

// checkBusy checks that the slots marked as holding requests are those
// that do.
func (r *reqQueue) checkBusy(bad func(string, ...any), name string) {
	n := 0
	for s := range r.bySlot {
		n += len(r.bySlot[s])
		if s < 64 && (r.busy>>s&1 == 1) != (len(r.bySlot[s]) > 0) {
			bad("%s: request slot %d holds %d requests, but marked as holding some: %v", name, s, len(r.bySlot[s]), r.busy>>s&1 == 1)
		}
	}
	if n != r.count {
		bad("%s: %d requests waiting, but counted %d", name, n, r.count)
	}
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
// A partly sent packet whose receiver runs elsewhere (runs(dst) false)
// goes to partly, to be looked up in the receiver's copy.
func (n *Network) checkPreempted(bad func(string, ...any), f *flight, l *txLink, dst messages.CompID, slot int32, name string,
	runs func(messages.CompID) bool, partly *[]PartlySent) {
	check := func(r *txRec) {
		if f.ids[r.pk.ID] || n.receiverHolds(dst, slot, r.pk.ID) {
			return
		}
		if runs != nil && !runs(dst) {
			*partly = append(*partly, PartlySent{Link: name, PacketPlace: PacketPlace{Dst: int32(dst), Slot: slot, ID: r.pk.ID}})
			return
		}
		bad("%s: packet %d is partly sent, but its receiver (component %d) does not hold it", name, r.pk.ID, dst)
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

// holding lists, for a copy that runs the components runs says, the
// packets held by its receivers of links whose sender it does not run, by
// receiver and ID (Slot -1: the lookup of a partly sent packet is by
// receiver and ID), and the packets on a link in f (held by the engine or
// in an inbox), by ID only (Dst -1), as CheckConservation looks them up.
func (n *Network) holding(f *flight, runs func(messages.CompID) bool) []PacketPlace {
	var out []PacketPlace
	for id := range f.ids {
		out = append(out, PacketPlace{Dst: -1, Slot: -1, ID: id})
	}
	for _, nic := range n.nics {
		if !runs(nic.id) || runs(nic.dnComp) {
			continue
		}
		for i := 0; i < nic.rx.Len(); i++ {
			out = append(out, PacketPlace{Dst: int32(nic.id), Slot: -1, ID: nic.rx.At(i).Pkt.ID})
		}
	}
	for _, sp := range n.switches {
		for _, m := range sp.MPorts {
			if !runs(m.id) {
				continue
			}
			for i := range m.ibuf {
				if m.wired[i] && !runs(m.upComp[i]) {
					m.ibuf[i].eachID(func(id uint64) {
						out = append(out, PacketPlace{Dst: int32(m.id), Slot: -1, ID: id})
					})
				}
			}
		}
	}
	return out
}

// eachID calls f with every packet the buffer holds, as holds looks for
// them: queued, requested, being transferred.
func (s *source) eachID(f func(uint64)) {
	for q := range s.q {
		for i := 0; i < s.q[q].Len(); i++ {
			f(s.q[q].At(i).Pkt.ID)
		}
	}
	if s.waiting {
		f(s.inflight.Pkt.ID)
	}
	for i := range s.outs {
		f(s.outs[i].e.Pkt.ID)
	}
	for i := range s.xfers {
		f(s.xfers[i].id)
	}
}

package fabric

import (
	"fmt"
	"slices"

	"github.com/opasim/opasim/fabric/topo"
)

// Moves counts what group g has moved so far (packets sent on links,
// granted through crossbars, released from input buffers, delivered). The
// watchdog compares it between windows: when it stops growing while
// packets are in the network, the network is blocked. Call it only when
// group g is not running.
func (n *Network) Moves(g int) int64 {
	var m int64
	for _, id := range n.Groups[g].Members {
		switch c := n.Comps[id].(type) {
		case *nicComp:
			m += c.SentPackets + c.DeliveredPackets
		case *mport:
			m += c.Left
		case *centralXbar:
			m += c.Accepted
		case *outputPort:
			m += c.Accepted + c.Sent
		}
	}
	return m
}

// QueueHeads appends to dst the ID of the packet at the head of every
// queue of every switch buffer (VLs of input and output buffers, lanes of
// central buffers), 0 for an empty queue, in the order that numbers the
// queues for WaitCycle and DescribeQueues. A watchdog compares it between
// scans: a head that stays is a packet that has not left.
func (n *Network) QueueHeads(dst []uint64) []uint64 {
	n.forQueues(func(q queueRef) {
		id := uint64(0)
		if q.head != nil {
			id = q.head.Pkt.ID
		}
		dst = append(dst, id)
	})
	return dst
}

// WaitCycle looks among the queues old (numbered as QueueHeads numbers
// them, in increasing order, each with a head) for a cycle of the wait-for
// graph: each head needs room in the next queue and does not find it. It
// returns the cycle's queues, or nil. A head that waits for a NIC closes
// no cycle: NICs always drain.
func (n *Network) WaitCycle(old []int32) []int32 {
	refs := n.queueRefs(old)
	local := make(map[int32]int32, len(old))
	for i, k := range old {
		local[k] = int32(i)
	}
	adj := make([][]int32, len(old))
	for i := range old {
		for _, next := range n.waitsFor(refs[i]) {
			if j, ok := local[next]; ok {
				adj[i] = append(adj[i], j)
			}
		}
	}
	cycle := topo.FindCycle(adj)
	if cycle == nil {
		return nil
	}
	out := make([]int32, len(cycle))
	for i, j := range cycle {
		out[i] = old[j]
	}
	return out
}

// DescribeQueues says, for each queue of ks (numbered as QueueHeads numbers
// them, in any order), which buffer it is, its head packet and how many
// packets it holds.
func (n *Network) DescribeQueues(ks []int32) []string {
	sorted := append([]int32(nil), ks...)
	slices.Sort(sorted)
	refs := n.queueRefs(sorted)
	out := make([]string, len(ks))
	for i, k := range ks {
		q := refs[slices.Index(sorted, k)]
		if q.head == nil {
			out[i] = q.name() + ": empty"
			continue
		}
		out[i] = fmt.Sprintf("%s: head packet %d (NIC %d -> NIC %d, SL %d, for output %d VL %d); %d packets queued",
			q.name(), q.head.Pkt.ID, q.head.Pkt.Src, q.head.Pkt.Dst, q.head.Pkt.SL, q.head.Out, q.head.NextVL, q.queued)
	}
	return out
}

// queueRefs returns the queues ks (increasing queue numbers).
func (n *Network) queueRefs(ks []int32) []queueRef {
	refs := make([]queueRef, 0, len(ks))
	k := int32(0)
	n.forQueues(func(q queueRef) {
		if len(refs) < len(ks) && ks[len(refs)] == k {
			refs = append(refs, q)
		}
		k++
	})
	return refs
}

// queueRef is one queue of a switch buffer, as the watchdog scans it.
type queueRef struct {
	kind         string // "input", "central" or "output"
	sw, buf, idx int    // switch; input or output port, or central buffer; VL or lane
	vls          int
	head         *entry // nil when empty
	queued       int
}

func (q queueRef) name() string {
	if q.kind == "central" {
		return fmt.Sprintf("switch %d central buffer %d lane %d (VL %d)", q.sw, q.buf, q.idx, q.idx%q.vls)
	}
	return fmt.Sprintf("switch %d %s buffer %d VL %d", q.sw, q.kind, q.buf, q.idx)
}

// queueIndex numbers the queues of every switch buffer in the order
// forQueues visits them: per switch, the input buffers' VLs, the central
// buffers' lanes, the output buffers' VLs.
func (n *Network) queueIndex(sw int, kind string, buf, idx int) int32 {
	if n.queueBase == nil {
		base := 0
		for _, sp := range n.switches {
			n.queueBase = append(n.queueBase, base)
			base += 2*len(sp.Outputs)*n.p.vls + len(sp.Central.buf)*n.p.lanes
		}
	}
	k := n.queueBase[sw]
	radix := len(n.switches[sw].Outputs)
	switch kind {
	case "input":
		return int32(k + buf*n.p.vls + idx)
	case "central":
		return int32(k + radix*n.p.vls + buf*n.p.lanes + idx)
	}
	return int32(k + radix*n.p.vls + len(n.switches[sw].Central.buf)*n.p.lanes + buf*n.p.vls + idx)
}

// waitsFor lists the queues whose room q's head needs and does not find
// now: none when it fits, or when it waits for a NIC.
func (n *Network) waitsFor(q queueRef) []int32 {
	if q.head == nil {
		return nil
	}
	sp, e := &n.switches[q.sw], q.head
	credits := e.Pkt.Credits
	switch q.kind {
	case "input":
		if mp := portNum(q.buf).mport(); portNum(e.Out).mport() != mp {
			b0, b1 := centralBuffers(mp)
			if sp.Central.buf[b0].space.Fits(int(e.Lane), credits) || sp.Central.buf[b1].space.Fits(int(e.Lane), credits) {
				return nil
			}
			return []int32{n.queueIndex(q.sw, "central", b0, int(e.Lane)), n.queueIndex(q.sw, "central", b1, int(e.Lane))}
		}
		fallthrough
	case "central":
		if sp.Outputs[e.Out].space.Fits(int(e.NextVL), credits) {
			return nil
		}
		return []int32{n.queueIndex(q.sw, "output", int(e.Out), int(e.NextVL))}
	}
	o := sp.Outputs[q.buf]
	peer := n.Topology.Wiring[q.sw][q.buf]
	if peer.Kind != topo.PeerSwitch || o.down.Fits(q.idx, credits) {
		return nil
	}
	return []int32{n.queueIndex(peer.Port.Switch, "input", peer.Port.Port, q.idx)}
}

// forQueues calls f for every queue of every switch buffer, in queueIndex
// order. A source's head is the packet it has requested, while the request
// is pending (a refused packet goes back to the head of its queue).
func (n *Network) forQueues(f func(queueRef)) {
	source := func(q queueRef, s *source) {
		for i := range s.q {
			q.idx, q.head, q.queued = i, nil, s.q[i].Len()
			if s.waiting && s.inq == i {
				q.head, q.queued = &s.inflight, q.queued+1
			} else {
				q.head = s.headOf(i)
				for _, o := range s.outs {
					if int(o.q) == i {
						q.queued++
					}
				}
			}
			f(q)
		}
	}
	for sw, sp := range n.switches {
		for _, m := range sp.MPorts {
			for i := range m.ibuf {
				source(queueRef{kind: "input", sw: sw, buf: int(portOf(m.index, i)), vls: n.p.vls}, &m.ibuf[i])
			}
		}
		for b := range sp.Central.buf {
			source(queueRef{kind: "central", sw: sw, buf: b, vls: n.p.vls}, &sp.Central.buf[b].source)
		}
		for _, o := range sp.Outputs {
			for vl := range o.q {
				q := queueRef{kind: "output", sw: sw, buf: o.port, idx: vl, vls: n.p.vls, queued: o.q[vl].Len()}
				if q.queued > 0 {
					q.head = o.q[vl].Front()
				}
				f(q)
			}
		}
	}
}

// Stuck reports, when the run is blocked, which buffers hold packets that
// cannot leave, at most limit lines.
func (n *Network) Stuck(limit int) []string {
	var out []string
	add := func(format string, a ...any) {
		if len(out) < limit {
			out = append(out, fmt.Sprintf(format, a...))
		}
	}
	for s, sp := range n.switches {
		for _, o := range sp.Outputs {
			for vl := range o.q {
				if o.q[vl].Len() > 0 {
					e := o.q[vl].Front()
					add("switch %d output %d VL %d: %d packets; head needs %d credits, downstream VL holds %d of its limit",
						s, o.port, vl, o.q[vl].Len(), e.Pkt.Credits, o.down.Used(vl))
				}
			}
		}
		for _, m := range sp.MPorts {
			for i := range m.ibuf {
				if b := &m.ibuf[i]; b.waiting {
					add("switch %d input %d: request for output %d (VL %d) not granted", s, portOf(m.index, i), b.inflight.Out, b.inflight.NextVL)
				}
				for _, o := range m.ibuf[i].outs {
					add("switch %d input %d: request for output %d (VL %d) not granted", s, portOf(m.index, i), o.e.Out, o.e.NextVL)
				}
			}
		}
	}
	return out
}

// Undelivered is, for a NIC group, the packets its NICs generated minus
// those they received (summed over all NIC groups: the packets inside).
func (n *Network) Undelivered(g int) int64 {
	var d int64
	for _, id := range n.Groups[g].Members {
		if nic, ok := n.Comps[id].(*nicComp); ok {
			d += nic.GenPackets - nic.DeliveredPackets - nic.DroppedPackets
		}
	}
	return d
}

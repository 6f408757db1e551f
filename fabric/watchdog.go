package fabric

import (
	"fmt"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/topo"
)

// Moves counts what group g has moved so far (packets sent on links,
// granted through crossbars, released from input buffers, delivered). The
// watchdog compares it between windows: when it stops growing while
// packets are in the network, the network is blocked.
func (n *Network) Moves(g int) int64 {
	var m int64
	for _, id := range n.Groups[g].Members {
		switch c := n.Comps[id].(type) {
		case *NIC:
			m += c.SentPackets + c.DeliveredPackets
		case *MPort:
			m += c.Left
		case *CentralCrossbar:
			m += c.Accepted
		case *OutputPort:
			m += c.Accepted + c.Sent
		}
	}
	return m
}

// Watchdog decides when a run is blocked. It stops a run in two cases:
//   - a global standstill: nothing moved anywhere for Limit cycles while
//     packets were inside;
//   - a partial deadlock: a cycle of switch buffer queues (VLs of input and
//     output buffers, lanes of central buffers) whose head packets have not
//     left for Limit cycles, each head waiting for room in the next queue
//     of the cycle, while the rest of the network may still be moving.
//     A head that waits long behind congestion (a critically loaded
//     destination NIC) is not a deadlock: its chain of waits ends at a NIC,
//     which always drains, so it closes no cycle.
//
// Engines call Check between windows (every few hundred windows), when no
// component is running.
type Watchdog struct {
	Limit     clock.Cycle
	last      int64
	lastMoved clock.Cycle
	heads     []headSeen // per switch queue, indexed as queueIndex numbers them
	Report    []string   // what was stuck when Check stopped the run
	Partial   bool       // the run was stopped for a partial deadlock
}

// headSeen is the packet at the head of one queue when a scan first saw it
// there.
type headSeen struct {
	id    uint64
	since clock.Cycle
}

// Blocked records the total moves at cycle now and reports whether the
// limit has passed since the last move.
func (w *Watchdog) Blocked(now clock.Cycle, moves int64) bool {
	if moves != w.last {
		w.last, w.lastMoved = moves, now
		return false
	}
	return w.Limit > 0 && now-w.lastMoved >= w.Limit
}

// Check reports whether the run must stop at cycle now: a global standstill
// (moves is the network's total, inside whether packets are inside), or a
// cycle of queues whose heads have not moved for Limit cycles. Report then
// says what was stuck.
func (w *Watchdog) Check(n *Network, now clock.Cycle, moves int64, inside bool) bool {
	if w.Limit <= 0 {
		return false
	}
	if w.Blocked(now, moves) && inside {
		w.Report = n.Stuck(20)
		return true
	}
	var old []int32       // queues whose head has not moved for Limit cycles
	var oldRef []queueRef // and those queues
	k := 0
	n.forQueues(func(q queueRef) {
		if k == len(w.heads) {
			w.heads = append(w.heads, headSeen{})
		}
		id := uint64(0)
		if q.head != nil {
			id = q.head.Pkt.ID
		}
		h := &w.heads[k]
		if id != h.id {
			*h = headSeen{id: id, since: now}
		} else if id != 0 && now-h.since >= w.Limit {
			old, oldRef = append(old, int32(k)), append(oldRef, q)
		}
		k++
	})
	if len(old) == 0 {
		return false
	}
	// The wait-for graph among the old heads: an edge to every queue whose
	// room the head needs and does not find.
	local := make(map[int32]int32, len(old))
	for i, k := range old {
		local[k] = int32(i)
	}
	adj := make([][]int32, len(old))
	for i := range old {
		for _, next := range n.waitsFor(oldRef[i]) {
			if j, ok := local[next]; ok {
				adj[i] = append(adj[i], j)
			}
		}
	}
	cycle := topo.FindCycle(adj)
	if cycle == nil {
		return false
	}
	w.Report = append(w.Report[:0], fmt.Sprintf("a cycle of %d buffer queues, each head waiting for room in the next:", len(cycle)))
	for _, i := range cycle {
		q, h := oldRef[i], &w.heads[old[i]]
		if len(w.Report) > 20 {
			break
		}
		w.Report = append(w.Report, fmt.Sprintf("%s: head packet %d (NIC %d -> NIC %d, SL %d, for output %d VL %d) has not left for %d cycles; %d packets queued",
			q.name(), q.head.Pkt.ID, q.head.Pkt.Src, q.head.Pkt.Dst, q.head.Pkt.SL, q.head.Out, q.head.NextVL, now-h.since, q.queued))
	}
	w.Partial = true
	return true
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
		for _, sp := range n.Switches {
			n.queueBase = append(n.queueBase, base)
			base += 2*len(sp.Outputs)*n.p.vls + len(sp.Central.buf)*n.p.lanes
		}
	}
	k := n.queueBase[sw]
	radix := len(n.Switches[sw].Outputs)
	switch kind {
	case "input":
		return int32(k + buf*n.p.vls + idx)
	case "central":
		return int32(k + radix*n.p.vls + buf*n.p.lanes + idx)
	}
	return int32(k + radix*n.p.vls + len(n.Switches[sw].Central.buf)*n.p.lanes + buf*n.p.vls + idx)
}

// waitsFor lists the queues whose room q's head needs and does not find
// now: none when it fits, or when it waits for a NIC.
func (n *Network) waitsFor(q queueRef) []int32 {
	if q.head == nil {
		return nil
	}
	sp, e := &n.Switches[q.sw], q.head
	credits := e.Pkt.Credits
	switch q.kind {
	case "input":
		if int(e.Out)/4 != q.buf/4 {
			mp := q.buf / 4
			if sp.Central.buf[2*mp].space.Fits(int(e.Lane), credits) || sp.Central.buf[2*mp+1].space.Fits(int(e.Lane), credits) {
				return nil
			}
			return []int32{n.queueIndex(q.sw, "central", 2*mp, int(e.Lane)), n.queueIndex(q.sw, "central", 2*mp+1, int(e.Lane))}
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
	for sw, sp := range n.Switches {
		for _, m := range sp.MPorts {
			for i := range m.ibuf {
				source(queueRef{kind: "input", sw: sw, buf: 4*m.index + i, vls: n.p.vls}, &m.ibuf[i])
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
	for s, sp := range n.Switches {
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
					add("switch %d input %d: request for output %d (VL %d) not granted", s, 4*m.index+i, b.inflight.Out, b.inflight.NextVL)
				}
				for _, o := range m.ibuf[i].outs {
					add("switch %d input %d: request for output %d (VL %d) not granted", s, 4*m.index+i, o.e.Out, o.e.NextVL)
				}
			}
		}
	}
	return out
}

func (n *Network) totalMoves() int64 {
	var m int64
	for g := range n.Groups {
		m += n.Moves(g)
	}
	return m
}

// packetsInside reports whether some generated packet is not delivered.
func (n *Network) packetsInside() bool {
	var inside int64
	for g := range n.Groups {
		inside += n.Undelivered(g)
	}
	return inside > 0
}

// Undelivered is, for a NIC group, the packets its NICs generated minus
// those they received (summed over all NIC groups: the packets inside).
func (n *Network) Undelivered(g int) int64 {
	var d int64
	for _, id := range n.Groups[g].Members {
		if nic, ok := n.Comps[id].(*NIC); ok {
			d += nic.GenPackets - nic.DeliveredPackets - nic.DroppedPackets
		}
	}
	return d
}

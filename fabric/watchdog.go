package fabric

import (
	"fmt"

	"github.com/opasim/opasim/clock"
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

// Watchdog decides when a run is blocked: nothing moved for Limit cycles
// while packets were in flight.
type Watchdog struct {
	Limit     clock.Cycle
	last      int64
	lastMoved clock.Cycle
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
			d += nic.GenPackets - nic.DeliveredPackets
		}
	}
	return d
}

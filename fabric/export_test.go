package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/workloads"
)

// What the whole-network tests (package fabric_test, which run networks
// through the run layer) read of the components' insides.

// FedByNIC reports whether input buffer i of MPort id is wired to a NIC.
func FedByNIC(n *Network, id messages.CompID, i int) bool {
	mp := n.Comps[id].(*mport)
	_, ok := n.Comps[mp.upComp[i]].(*nicComp)
	return mp.wired[i] && ok
}

// KindOf names the kind of component id: "nic", "mport", "central" or
// "output".
func KindOf(n *Network, id messages.CompID) string {
	switch n.Comps[id].(type) {
	case *nicComp:
		return "nic"
	case *mport:
		return "mport"
	case *centralXbar:
		return "central"
	}
	return "output"
}

// PacketsSent counts the packets every output port and NIC has sent.
func PacketsSent(n *Network) int64 {
	var sent int64
	for _, sp := range n.switches {
		for _, o := range sp.Outputs {
			sent += o.Sent
		}
	}
	for _, nic := range n.nics {
		sent += nic.SentPackets
	}
	return sent
}

// NICAt is NIC i of n.
func NICAt(n *Network, i int) *nicComp { return n.nics[i] }

// InputPushback measures switch sw's wired input buffers now: how many
// push back (some VL in use cannot take another packet of the largest
// size), of how many, and the fullest one's occupancy.
func InputPushback(n *Network, sw int) (full, of int, fullest float64) {
	largest := int32(n.Config.credits(n.Config.MaxPacketFlits()))
	for _, m := range n.switches[sw].MPorts {
		for i := range m.occ {
			if !m.wired[i] {
				continue
			}
			of++
			fullest = max(fullest, float64(m.occ[i].Total())/float64(m.occ[i].capacity))
			for vl := range m.occ[i].used {
				if m.occ[i].Used(vl) > 0 && !m.occ[i].Fits(vl, largest) {
					full++
					break
				}
			}
		}
	}
	return full, of, fullest
}

// TraceDeliveries makes nic call f with every packet it receives.
func TraceDeliveries(nic *nicComp, f func(messages.Packet)) { nic.trace = f }

// silent is a source that never sends.
type silent struct{}

func (silent) Next() clock.Cycle                                       { return clock.Never }
func (silent) Pop(clock.Cycle) (workloads.Message, bool)               { return workloads.Message{}, false }
func (silent) Delivered(workloads.MessageID, clock.Cycle, clock.Cycle) {}

// Silence stops nic from generating traffic of its own.
func Silence(nic *nicComp) {
	nic.src = silent{}
	nic.tm = newTimers(int(nicUnits))
}

// SendAt queues a message of flits flits of SL sl for NIC dst on nic at
// cycle t, which nic starts sending at t. Its ID is unique: it takes the
// number the NIC's next packet would have.
func SendAt(nic *nicComp, sl, dst int, flits int32, t clock.Cycle) {
	id := workloads.NewMessageID(nic.index, nic.seq+1)
	nic.enqueue(workloads.Message{ID: id, At: t, SL: sl, Dst: dst, Flits: int(flits)}, t)
	nic.at(t, nicSend)
}

// MostQueued is the largest number of packets a NIC of n holds in its
// application queues now.
func MostQueued(n *Network) int {
	most := 0
	for _, nic := range n.nics {
		q := 0
		for i := range nic.app {
			q += nic.app[i].Len()
		}
		most = max(most, q)
	}
	return most
}

// script is a source that offers fixed messages at their cycles.
type script struct{ msgs []workloads.Message }

func (s *script) Next() clock.Cycle {
	if len(s.msgs) == 0 {
		return clock.Never
	}
	return s.msgs[0].At
}

func (s *script) Pop(now clock.Cycle) (workloads.Message, bool) {
	if len(s.msgs) == 0 || s.msgs[0].At > now {
		return workloads.Message{}, false
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, true
}

func (*script) Delivered(workloads.MessageID, clock.Cycle, clock.Cycle) {}

// Script makes nic offer msgs (in order of At), and nothing else; their
// IDs are set unique.
func Script(nic *nicComp, msgs ...workloads.Message) {
	for i := range msgs {
		msgs[i].ID = workloads.NewMessageID(nic.index, uint64(1000+i))
	}
	nic.src = &script{msgs: msgs}
	nic.tm = newTimers(int(nicUnits))
	for u := range nic.pending {
		nic.pending[u] = clock.Never
	}
	nic.startTimers()
}

// LinkPreemptions is the number of packets interrupted on nic's link.
func LinkPreemptions(nic *nicComp) int64 { return nic.lk.Preemptions }

// Interrupted returns a packet some link sender of n has interrupted and
// the receiver of that link (false if none is interrupted now).
func Interrupted(n *Network) (id uint64, receiver messages.CompID, slot int32, ok bool) {
	for _, nic := range n.nics {
		if len(nic.lk.stack) > 0 {
			return nic.lk.stack[0].pk.ID, nic.upComp, nic.upSlot, true
		}
	}
	for _, sp := range n.switches {
		for _, o := range sp.Outputs {
			if len(o.lk.stack) > 0 {
				return o.lk.stack[0].pk.ID, o.downComp, o.downSlot, true
			}
		}
	}
	return 0, 0, 0, false
}

// Forget makes the receiver of a link lose every trace of packet id
// (to test that the conservation check notices).
func Forget(n *Network, receiver messages.CompID, slot int32, id uint64) {
	switch c := n.Comps[receiver].(type) {
	case *nicComp:
		for i := 0; i < c.rx.Len(); i++ {
			if c.rx.At(i).Pkt.ID == id {
				c.rx.At(i).Pkt.ID = ^id
			}
		}
	case *mport:
		s := &c.ibuf[slot]
		for q := range s.q {
			for i := 0; i < s.q[q].Len(); i++ {
				if s.q[q].At(i).Pkt.ID == id {
					s.q[q].At(i).Pkt.ID = ^id
				}
			}
		}
		if s.inflight.Pkt.ID == id {
			s.inflight.Pkt.ID = ^id
		}
		for i := range s.outs {
			if s.outs[i].e.Pkt.ID == id {
				s.outs[i].e.Pkt.ID = ^id
			}
		}
		for i := range s.xfers {
			if s.xfers[i].id == id {
				s.xfers[i].id = ^id
			}
		}
	}
}

// OutputScheduler is the output scheduler of port q of switch s.
func OutputScheduler(n *Network, s, q int) sched.Scheduler { return n.switches[s].Outputs[q].sched }

// NICScheduler is NIC i's output scheduler.
func NICScheduler(n *Network, i int) sched.Scheduler { return n.nics[i].sched }

// NumOutputs is the number of output ports of switch s.
func NumOutputs(n *Network, s int) int { return len(n.switches[s].Outputs) }

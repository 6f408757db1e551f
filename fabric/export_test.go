package fabric

import (
	"github.com/opasim/opasim/clock"
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
	nic.tm = nil
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

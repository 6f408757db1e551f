package fabric

import (
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/messages"
)

// link is one end of a link as a component sees it: whether the port has a
// link at all, the component at the other end, the input slot the link
// enters there (for a sender) and the capacity, in credits, of the buffer
// it feeds (a sender's credit mirror starts with that many).
type link struct {
	wired   bool
	comp    messages.CompID
	slot    int32
	credits int32
}

// nicLinks are a NIC's two directions: up, the switch input buffer its
// packets enter, and down, the output port that sends it packets (and
// takes its credits back).
type nicLinks struct {
	up   link
	down messages.CompID
}

// mportLinks are what an MPort is connected to: per input port, the sender
// on its link (which takes the input buffer's credits back); per switch
// port, the output port component; and the switch's central crossbar.
type mportLinks struct {
	in      [PortsPerMPort]link
	outputs []messages.CompID
	central messages.CompID
}

// layout numbers the components of a topology: the NICs first, then per
// switch its MPorts, its central crossbar and its output ports. The numbers
// are the order in which Build adds them, and a component's number orders
// its messages at a receiver (inbox), so the layout is part of the results.
type layout struct {
	t     *topo.Topology
	first []messages.CompID // per switch: its first MPort
}

func newLayout(t *topo.Topology) *layout {
	l := &layout{t: t, first: make([]messages.CompID, t.NumSwitches())}
	next := messages.CompID(t.NumNICs())
	for s, radix := range t.Radix {
		l.first[s] = next
		next += messages.CompID(mportsOf(radix) + 1 + radix)
	}
	return l
}

func (l *layout) nic(i int) messages.CompID { return messages.CompID(i) }

func (l *layout) mport(s, m int) messages.CompID { return l.first[s] + messages.CompID(m) }

func (l *layout) central(s int) messages.CompID {
	return l.first[s] + messages.CompID(mportsOf(l.t.Radix[s]))
}

func (l *layout) output(s, q int) messages.CompID { return l.central(s) + 1 + messages.CompID(q) }

// outputs lists switch s's output port components, by port.
func (l *layout) outputs(s int) []messages.CompID {
	ids := make([]messages.CompID, l.t.Radix[s])
	for q := range ids {
		ids[q] = l.output(s, q)
	}
	return ids
}

// nicLinks connects NIC i to the switch port it attaches to.
func (l *layout) nicLinks(p *params, i int) nicLinks {
	at := l.t.NICPort[i]
	return nicLinks{
		up:   link{wired: true, comp: l.mport(at.Switch, portNum(at.Port).mport()), slot: int32(portNum(at.Port).index()), credits: p.inCap},
		down: l.output(at.Switch, at.Port),
	}
}

// mportLinks connects MPort m of switch s.
func (l *layout) mportLinks(s, m int) mportLinks {
	ml := mportLinks{outputs: l.outputs(s), central: l.central(s)}
	for i := range ml.in {
		ml.in[i] = l.upstream(s, int(portOf(m, i)))
	}
	return ml
}

// upstream is the sender on the link into port q of switch s: a NIC, or
// the output port at the other end (links are symmetric: topo.Validate).
func (l *layout) upstream(s, q int) link {
	switch peer := l.t.Wiring[s][q]; peer.Kind {
	case topo.PeerNIC:
		return link{wired: true, comp: l.nic(peer.NIC)}
	case topo.PeerSwitch:
		return link{wired: true, comp: l.output(peer.Port.Switch, peer.Port.Port)}
	}
	return link{}
}

// downstream is the receiver on the link out of port q of switch s: a NIC's
// receive buffer, or the input buffer at the other end.
func (l *layout) downstream(p *params, s, q int) link {
	switch peer := l.t.Wiring[s][q]; peer.Kind {
	case topo.PeerNIC:
		return link{wired: true, comp: l.nic(peer.NIC), credits: p.rxCap}
	case topo.PeerSwitch:
		to := peer.Port
		return link{wired: true, comp: l.mport(to.Switch, portNum(to.Port).mport()), slot: int32(portNum(to.Port).index()), credits: p.inCap}
	}
	return link{}
}

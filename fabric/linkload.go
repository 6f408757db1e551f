package fabric

import (
	"fmt"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/topo"
)

// linkLoad counts the flits a link sender (a NIC or a switch output port)
// puts on its link, per VL: over the measurement window (the per-link
// utilization in the results) and over the whole run (live metrics).
//
// A packet of f flits that starts on the link at cycle c occupies it for
// cycles c..c+f−1 at one flit a cycle; the window gets the flits of those
// cycles that fall inside it. Under preemption an interrupted packet's
// later flits are counted at the cycles they were first planned for, so a
// window edge can be off by the flits of one interrupted packet per link.
type linkLoad struct {
	window []int64 // per VL: flits in the measurement window
	total  []int64 // per VL: flits over the whole run
}

func newLinkLoad(vls int) linkLoad {
	return linkLoad{window: make([]int64, vls), total: make([]int64, vls)}
}

// sent counts a packet of flits flits of VL vl starting on the link at now.
func (l *linkLoad) sent(p *params, vl int, now clock.Cycle, flits int32) {
	l.total[vl] += int64(flits)
	from, to := clock.Max(now, p.warmup), clock.Min(now+clock.Cycle(flits), p.end)
	if to > from {
		l.window[vl] += int64(to - from)
	}
}

// Link is one link of the network, named by its sender: a NIC's link into
// its switch, or a switch port's link out.
type Link struct {
	NIC    int       // the sending NIC; -1 for a switch port
	Switch int       // the sending switch port; -1 for a NIC
	Port   int       //
	To     topo.Peer // what the link feeds: a switch port, a NIC, or nothing (an unused port)
	Class  string    // "injection" for a NIC's link, else topo.Topology.PortClass
}

// Wired tells whether the link exists (a switch port may be unused).
func (l Link) Wired() bool { return l.To.Kind != topo.PeerNone }

// From names the link's sender: "NIC n" or "switch s port p".
func (l Link) From() string {
	if l.NIC >= 0 {
		return fmt.Sprintf("NIC %d", l.NIC)
	}
	return fmt.Sprintf("switch %d port %d", l.Switch, l.Port)
}

// Dest names what the link feeds: "NIC n", "switch s port p" or "".
func (l Link) Dest() string {
	switch l.To.Kind {
	case topo.PeerNIC:
		return fmt.Sprintf("NIC %d", l.To.NIC)
	case topo.PeerSwitch:
		return fmt.Sprintf("switch %d port %d", l.To.Port.Switch, l.To.Port.Port)
	}
	return ""
}

// Links lists the network's links in the order of Totals.LinkFlits: every
// NIC's, by NIC, then every switch port's, switch by switch, port by port
// (unused ports included, which never send).
func (n *Network) Links() []Link {
	t := n.Topology
	var ls []Link
	for i, at := range t.NICPort {
		ls = append(ls, Link{NIC: i, Switch: -1, Port: -1, To: topo.Peer{Kind: topo.PeerSwitch, Port: at}, Class: "injection"})
	}
	for s := range t.Wiring {
		for q, peer := range t.Wiring[s] {
			ls = append(ls, Link{NIC: -1, Switch: s, Port: q, To: peer, Class: t.PortClass(s, q)})
		}
	}
	return ls
}

// LinkClasses names the classes of the network's links (Link.Class) in
// order of first appearance in Links, unused ports left out; Snapshot's
// ClassFlits are indexed by them.
func (n *Network) LinkClasses() []string { return n.linkClasses }

// classifyLinks numbers the link classes (LinkClasses).
func (n *Network) classifyLinks() {
	index := map[string]int{}
	class := func(name string) int {
		c, ok := index[name]
		if !ok {
			c = len(n.linkClasses)
			index[name] = c
			n.linkClasses = append(n.linkClasses, name)
		}
		return c
	}
	t := n.Topology
	n.nicClass = -1
	if t.NumNICs() > 0 {
		n.nicClass = class("injection")
	}
	n.portClass = make([][]int, t.NumSwitches())
	for s := range t.Wiring {
		n.portClass[s] = make([]int, len(t.Wiring[s]))
		for q, peer := range t.Wiring[s] {
			n.portClass[s][q] = -1
			if peer.Kind != topo.PeerNone {
				n.portClass[s][q] = class(t.PortClass(s, q))
			}
		}
	}
}

// addClassFlits adds a link's whole-run flits per VL to its class's row of
// rows (Snapshot.ClassFlits).
func addClassFlits(rows [][]int64, class int, l *linkLoad) {
	if class < 0 {
		return
	}
	for vl, f := range l.total {
		rows[class][vl] += f
	}
}

// GroupLinks counts group g's links per class (Network.LinkClasses): a
// switch group's used output ports, a NIC group's NICs.
func (n *Network) GroupLinks(g int) []int {
	counts := make([]int, len(n.linkClasses))
	grp := &n.Groups[g]
	if grp.Kind == "switch" {
		for _, c := range n.portClass[grp.Switch] {
			if c >= 0 {
				counts[c]++
			}
		}
		return counts
	}
	for _, id := range grp.Members {
		if _, ok := n.Comps[id].(*nicComp); ok {
			counts[n.nicClass]++
		}
	}
	return counts
}

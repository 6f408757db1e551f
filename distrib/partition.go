package distrib

import (
	"fmt"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
)

// Plan is how a run's groups are shared out among its members.
type Plan struct {
	Owner    []int32 // per group, the member that runs it
	Switches []int   // per member, how many switches it runs
	Cut      int     // switch-to-switch links whose ends are on different members
	Links    int     // switch-to-switch links in all
}

// Partition shares n's switches out among members processes, each
// switch's NIC group with it. Within each level of a tree, and over all
// the switches of another topology, it cuts the switch index order into
// contiguous ranges of nearly equal weight (the components of a switch
// and of its NICs) and gives member m the m-th range of each. The
// topologies number their switches so that such ranges keep neighbours
// together: a torus is cut across its last dimension (a 2D torus into
// bands of rows); a k-ary n-tree's switches of one level are cut by the
// top digit of their label, which only the links between the two upper
// levels change, so only those links are cut (half of them on two
// members). A network with fewer switches than members (or a tree with
// fewer switches per level) is refused.
func Partition(n *fabric.Network, members int) (Plan, error) {
	switches := n.NumSwitches()
	if members < 1 {
		return Plan{}, fmt.Errorf("members: %d is not allowed: at least 1", members)
	}
	if switches < members {
		return Plan{}, fmt.Errorf("members: %d is not allowed for %s: at most one member per switch (%d)",
			members, n.Config.TopologySpec().Describe(), switches)
	}
	weight := make([]int, switches)
	for _, g := range n.Groups {
		weight[g.Switch] += len(g.Members)
	}
	memberOf := make([]int, switches)
	for _, level := range levels(n.Topology) {
		if len(level) < members {
			return Plan{}, fmt.Errorf("members: %d is not allowed for %s: at most one member per switch of a tree level (%d)",
				members, n.Config.TopologySpec().Describe(), len(level))
		}
		w := make([]int, len(level))
		for i, s := range level {
			w[i] = weight[s]
		}
		for i, m := range ranges(w, members) {
			memberOf[level[i]] = m
		}
	}
	p := Plan{Owner: make([]int32, len(n.Groups)), Switches: make([]int, members)}
	for _, m := range memberOf {
		p.Switches[m]++
	}
	for g, grp := range n.Groups {
		p.Owner[g] = int32(memberOf[grp.Switch])
	}
	p.Cut, p.Links = cut(n.Topology, memberOf)
	return p, nil
}

// MaxMembers is the most members a network of spec s can be shared among,
// worked out from its shape without building it (Partition's rule): one
// per switch, and for a tree of several levels one per switch of a level.
// rule says which.
func MaxMembers(s topo.Spec) (most int64, rule string) {
	switches, _, _ := s.Size()
	if s.Kind == topo.KindTree && s.N > 1 {
		return switches / int64(s.N), "at most one member per switch of a tree level"
	}
	return switches, "at most one member per switch"
}

// ranges gives each of len(weight) items (in order) one of parts
// contiguous ranges of nearly equal total weight, none empty.
func ranges(weight []int, parts int) []int {
	total := 0
	for _, w := range weight {
		total += w
	}
	of := make([]int, len(weight))
	q, sum := 0, 0
	for i, w := range weight {
		of[i] = q
		sum += w
		left := len(weight) - i - 1 // items after i
		if q < parts-1 && left >= parts-q-1 && (sum*parts >= total*(q+1) || left == parts-q-1) {
			q++
		}
	}
	return of
}

// cut counts the switch-to-switch links (each once) and those whose two
// switches are on different members.
func cut(t *topo.Topology, memberOf []int) (cut, links int) {
	for s, ports := range t.Wiring {
		for _, peer := range ports {
			if peer.Kind != topo.PeerSwitch || peer.Port.Switch < s {
				continue
			}
			links++
			if memberOf[peer.Port.Switch] != memberOf[s] {
				cut++
			}
		}
	}
	return cut, links
}

// Describe says what the plan gives each member and what it cuts.
func (p Plan) Describe() string {
	return fmt.Sprintf("switches per member %v; %d of %d switch-to-switch links cross members", p.Switches, p.Cut, p.Links)
}

// levels lists the switches of each level of a tree in index order, or
// of the whole network for another topology.
func levels(t *topo.Topology) [][]int {
	count := 1
	if t.Kind == topo.KindTree && t.N > 1 {
		count = t.N
	}
	per := t.NumSwitches() / count
	out := make([][]int, count)
	for s := 0; s < t.NumSwitches(); s++ {
		l := min(s/per, count-1)
		out[l] = append(out[l], s)
	}
	return out
}

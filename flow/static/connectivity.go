package static

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

// Connectivity is what a network — typically one with failed links
// (graph.FailCables) — still connects (seed 001 section 3.1: "the
// connectivity of the network after the failures occur counting the
// number of flows that the network is able to deliver"). A server
// reaches another if some path leads to it crossing only nodes that
// forward (the graph.Distances rule), whatever the routing; a routing
// may deliver fewer (Result.Unrouted counts the flows it could not
// route).
type Connectivity struct {
	Servers        int
	Pairs          int64 // ordered pairs of distinct servers: Servers·(Servers−1)
	ConnectedPairs int64 // those whose source reaches the destination
	// Groups is the number of classes of servers that reach each other
	// (a server that reaches no other is a class of its own) and
	// LargestGroup the size of the biggest; both 0 when reachability was
	// found by a search per server (see Connect).
	Groups, LargestGroup int
	Flows, Reachable     int64 // flows of the pattern, and those whose destination is reachable
}

// Connect measures what g connects and, if p is not nil, how many of p's
// flows have a reachable destination.
//
// When every link has a reverse (cables, possibly failed both ways) and
// reachability is a matter of components — servers forward, or every
// server's links go to forwarding nodes of one component — it unites the
// forwarding nodes joined by a link (union–find) and labels each server
// with its component: O(nodes + links + flows). Otherwise (one-way links,
// a switch-centric server on two components or joined to another server)
// it searches from every server: O(servers · (nodes + links) + flows).
func Connect(g *graph.Graph, p Pattern) (*Connectivity, error) {
	n := g.NumServers()
	if p != nil && p.Servers() != n {
		return nil, fmt.Errorf("connectivity pattern %s servers: %d is not allowed: must equal the network's %d servers", p.Name(), p.Servers(), n)
	}
	c := &Connectivity{Servers: n, Pairs: int64(n) * int64(n-1)}
	if label := componentLabels(g); label != nil {
		size := map[int32]int{}
		for _, l := range label {
			if l >= 0 {
				size[l]++
			}
		}
		isolated := 0
		for _, l := range label {
			if l < 0 {
				isolated++
			}
		}
		c.Groups = len(size) + isolated
		if isolated > 0 {
			c.LargestGroup = 1
		}
		for _, k := range size {
			c.ConnectedPairs += int64(k) * int64(k-1)
			c.LargestGroup = max(c.LargestGroup, k)
		}
		if p != nil {
			p.Flows(0, int32(n), func(s, d int32) {
				c.Flows++
				if label[s] >= 0 && label[s] == label[d] {
					c.Reachable++
				}
			})
		}
		return c, nil
	}
	dist := make([]int32, g.NumNodes())
	var queue []int32
	for s := int32(0); s < int32(n); s++ {
		queue = g.Distances(s, dist, queue)
		for _, v := range queue {
			if v != s && g.IsServer(v) {
				c.ConnectedPairs++
			}
		}
		if p != nil {
			p.Flows(s, s+1, func(_, d int32) {
				c.Flows++
				if dist[d] >= 0 {
					c.Reachable++
				}
			})
		}
	}
	return c, nil
}

// componentLabels returns, per server, a component such that server s
// reaches server d if and only if both have the same label >= 0 (-1: a
// server that reaches no other), or nil if reachability is not that
// simple (see Connect).
func componentLabels(g *graph.Graph) []int32 {
	for _, c := range g.Cables() {
		if c.Back < 0 {
			return nil
		}
	}
	nodes := int32(g.NumNodes())
	relay := g.FirstForwarder()
	parent := make([]int32, nodes)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for l := int32(0); l < int32(g.NumLinks()); l++ {
		u, v := g.Tail(l), g.Head(l)
		if u >= relay && v >= relay {
			if a, b := find(u), find(v); a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	label := make([]int32, g.NumServers())
	for s := int32(0); s < int32(g.NumServers()); s++ {
		if s >= relay { // servers forward
			label[s] = find(s)
			if g.Degree(s) == 0 {
				label[s] = -1
			}
			continue
		}
		label[s] = -1
		lo, hi := g.Out(s)
		for l := lo; l < hi; l++ {
			v := g.Head(l)
			if v < relay {
				return nil // a server joined to a server that does not forward
			}
			switch r := find(v); {
			case label[s] < 0:
				label[s] = r
			case label[s] != r:
				return nil // on two components
			}
		}
	}
	// A component holding a single server still connects it to nobody:
	// that is counted by the caller (a group of one adds no pair).
	return label
}

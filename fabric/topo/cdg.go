package topo

import "fmt"

// Channel is one switch output link carrying one service channel: a node
// of the channel dependency graph.
type Channel struct {
	Switch, Port, SC int
}

// DependencyGraph is the channel dependency graph of a routing (Dally and
// Seitz; Duato): an edge from the channel a packet holds to the next channel
// it requests. A deterministic routing whose graph, over every routed path,
// has no cycle cannot deadlock. Channels into NICs are sinks; links from
// NICs are sources, so neither can close a cycle and only switch output
// channels are nodes.
type DependencyGraph struct {
	first  []int // first[s]: node of switch s port 0 SC 0
	numSCs int
	adj    [][]int32 // adj[node]: distinct successors
}

// NewDependencyGraph returns an empty graph over t's switch output channels
// with service channels 0..numSCs-1.
func NewDependencyGraph(t *Topology, numSCs int) *DependencyGraph {
	g := &DependencyGraph{first: make([]int, t.NumSwitches()), numSCs: numSCs}
	nodes := 0
	for s, r := range t.Radix {
		g.first[s] = nodes
		nodes += r * numSCs
	}
	g.adj = make([][]int32, nodes)
	return g
}

func (g *DependencyGraph) node(h Hop) int32 {
	return int32(g.first[h.Switch] + h.OutPort*g.numSCs + h.SC)
}

func (g *DependencyGraph) channel(node int32) Channel {
	s := 0
	for s+1 < len(g.first) && g.first[s+1] <= int(node) {
		s++
	}
	rest := int(node) - g.first[s]
	return Channel{Switch: s, Port: rest / g.numSCs, SC: rest % g.numSCs}
}

// AddPath adds the dependencies of one routed path (as Trace returns it):
// each hop's output channel depends on the previous hop's.
func (g *DependencyGraph) AddPath(hops []Hop) error {
	for i := 1; i < len(hops); i++ {
		if hops[i].SC < 0 || hops[i].SC >= g.numSCs || hops[i-1].SC < 0 || hops[i-1].SC >= g.numSCs {
			return fmt.Errorf("dependency graph: SC %d or %d outside 0..%d", hops[i-1].SC, hops[i].SC, g.numSCs-1)
		}
		from, to := g.node(hops[i-1]), g.node(hops[i])
		if !containsNode(g.adj[from], to) {
			g.adj[from] = append(g.adj[from], to)
		}
	}
	return nil
}

func containsNode(list []int32, n int32) bool {
	for _, m := range list {
		if m == n {
			return true
		}
	}
	return false
}

// Edges counts the distinct dependencies.
func (g *DependencyGraph) Edges() int {
	n := 0
	for _, a := range g.adj {
		n += len(a)
	}
	return n
}

// Cycle returns one cycle of the graph, its channels in dependency order,
// or nil when the graph is acyclic.
func (g *DependencyGraph) Cycle() []Channel {
	nodes := FindCycle(g.adj)
	if nodes == nil {
		return nil
	}
	cycle := make([]Channel, len(nodes))
	for i, n := range nodes {
		cycle[i] = g.channel(n)
	}
	return cycle
}

// dfsFrame is a node on the depth-first search stack and the index of its
// next successor to visit.
type dfsFrame struct {
	node int32
	next int
}

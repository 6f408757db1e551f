// Package graph is the flow engine's network graph: servers (the
// endpoints, which send and receive flows) and switches, joined by
// directed links with capacities, stored in flat slices.
//
// Switches forward flows. Servers forward them only in a server-centric
// graph (WithServersForward): in a switch-centric one (the default) a
// flow enters the network at its source server and leaves at its
// destination server, and no path crosses another server. The searches
// here (Distances, Diameter) and the generic routings of flow/route honour
// the choice.
//
// Nodes are numbered 0..NumNodes()-1: servers first (0..NumServers()-1),
// then switches. Links are numbered 0..NumLinks()-1 in CSR order: the links
// leaving node v are the contiguous range Out(v), in the order the builder
// added them, so a topology's "port p of node v" is link Out(v).lo + p.
//
// Capacities are float64 in a unit of the caller's choosing (1 = one
// link's bandwidth in the builders here; Gbit/s or bytes per second work
// as well). The engines only divide capacities by each other and by flow
// counts, so every rate they report is in the same unit.
//
// Memory: 20 bytes per link (tail and head node, 4 bytes each; capacity,
// 8 bytes; its entry in the incoming-link index, 4 bytes) and 8 bytes per
// node (the start of its outgoing and incoming ranges), plus 8 bytes. A
// 4,096-server 16-ary 3-tree (4,864 nodes, 24,576 links) takes 530 KB; a
// 1,048,576-server 32-ary 4-tree (1,179,648 nodes, 8,388,608 links)
// 177 MB. No per-node maps, pointers or slices.
//
// Node and link numbers are int32: a graph holds at most 2^31-2 nodes and
// 2^31-1 links.
package graph

import (
	"fmt"
	"math"
)

// Graph is an immutable directed multigraph of servers and switches. Its
// methods are safe for concurrent use.
type Graph struct {
	servers  int32
	switches int32
	outStart []int32   // len nodes+1: links outStart[v]..outStart[v+1]-1 leave v
	inStart  []int32   // len nodes+1: inLinks[inStart[v]:inStart[v+1]] enter v
	inLinks  []int32   // link ids sorted by head node, then by id
	tail     []int32   // tail[l]: the node link l leaves
	head     []int32   // head[l]: the node link l enters
	capacity []float64 // capacity[l] > 0
	relay    int32     // the first node that forwards flows: servers (switch-centric) or 0 (servers forward too)
	fwd      bool      // servers forward (relay is 0)
}

// Link describes one directed link for New.
type Link struct {
	From, To int32   // node numbers
	Capacity float64 // > 0 and finite
}

// Limits on a graph's size (node and link numbers are int32).
const (
	MaxNodes = math.MaxInt32 - 1
	MaxLinks = math.MaxInt32
)

// New builds a graph of servers servers (nodes 0..servers-1) and switches
// switches (nodes servers..servers+switches-1) from links, in any order.
// Links leaving the same node keep their relative order in links, so
// their ids follow it. Parallel links are allowed; a link from a node to
// itself is not.
func New(servers, switches int, links []Link) (*Graph, error) {
	if err := checkCounts(servers, switches, len(links)); err != nil {
		return nil, err
	}
	nodes := int32(servers + switches)
	deg := make([]int32, nodes+1)
	for i, l := range links {
		if err := checkLink(i, l, nodes); err != nil {
			return nil, err
		}
		deg[l.From+1]++
	}
	for v := int32(1); v <= nodes; v++ {
		deg[v] += deg[v-1]
	}
	b := newBuilder(servers, switches, len(links))
	b.g.outStart = deg
	b.g.tail = b.g.tail[:len(links)]
	b.g.head = b.g.head[:len(links)]
	b.g.capacity = b.g.capacity[:len(links)]
	next := make([]int32, nodes)
	copy(next, deg[:nodes])
	for _, l := range links {
		id := next[l.From]
		next[l.From]++
		b.g.tail[id], b.g.head[id], b.g.capacity[id] = l.From, l.To, l.Capacity
	}
	b.g.buildIn()
	return b.g, nil
}

func checkCounts(servers, switches, links int) error {
	if servers < 0 {
		return fmt.Errorf("graph servers: %d is not allowed: must be at least 0", servers)
	}
	if switches < 0 {
		return fmt.Errorf("graph switches: %d is not allowed: must be at least 0", switches)
	}
	if int64(servers)+int64(switches) > MaxNodes {
		return fmt.Errorf("graph nodes: %d servers + %d switches is not allowed: must be at most %d", servers, switches, MaxNodes)
	}
	if int64(links) > MaxLinks {
		return fmt.Errorf("graph links: %d is not allowed: must be at most %d", links, MaxLinks)
	}
	return nil
}

func checkLink(i int, l Link, nodes int32) error {
	if l.From < 0 || l.From >= nodes {
		return fmt.Errorf("graph link %d from: %d is not allowed: must be in [0, %d)", i, l.From, nodes)
	}
	if l.To < 0 || l.To >= nodes {
		return fmt.Errorf("graph link %d to: %d is not allowed: must be in [0, %d)", i, l.To, nodes)
	}
	if l.From == l.To {
		return fmt.Errorf("graph link %d to: %d is not allowed: a link may not return to its own node", i, l.To)
	}
	if err := checkCapacity("", l.Capacity); err != nil {
		return checkCapacity(fmt.Sprintf("graph link %d capacity", i), l.Capacity)
	}
	return nil
}

func checkCapacity(field string, c float64) error {
	if !(c > 0) || math.IsInf(c, 0) {
		return fmt.Errorf("%s: %v is not allowed: must be positive and finite", field, c)
	}
	return nil
}

// builder fills a graph whose links arrive in non-decreasing tail order
// (the topology builders add them node by node), without sorting.
type builder struct {
	g    *Graph
	node int32 // the node whose links are being added
}

func newBuilder(servers, switches, links int) *builder {
	nodes := servers + switches
	return &builder{g: &Graph{
		servers:  int32(servers),
		relay:    int32(servers),
		switches: int32(switches),
		outStart: make([]int32, nodes+1),
		tail:     make([]int32, 0, links),
		head:     make([]int32, 0, links),
		capacity: make([]float64, 0, links),
	}}
}

// add appends link from→to; from must not be smaller than the previous
// call's.
func (b *builder) add(from, to int32, c float64) {
	for b.node < from {
		b.node++
		b.g.outStart[b.node] = int32(len(b.g.tail))
	}
	b.g.tail = append(b.g.tail, from)
	b.g.head = append(b.g.head, to)
	b.g.capacity = append(b.g.capacity, c)
}

// finish closes the outgoing ranges and builds the incoming index.
func (b *builder) finish() *Graph {
	n := int32(len(b.g.outStart) - 1)
	for b.node < n {
		b.node++
		b.g.outStart[b.node] = int32(len(b.g.tail))
	}
	b.g.buildIn()
	return b.g
}

// buildIn fills inStart and inLinks from head (a counting sort: links
// entering the same node are in id order).
func (g *Graph) buildIn() {
	nodes := g.NumNodes()
	g.inStart = make([]int32, nodes+1)
	for _, h := range g.head {
		g.inStart[h+1]++
	}
	for v := 1; v <= nodes; v++ {
		g.inStart[v] += g.inStart[v-1]
	}
	g.inLinks = make([]int32, len(g.head))
	next := make([]int32, nodes)
	copy(next, g.inStart[:nodes])
	for l, h := range g.head {
		g.inLinks[next[h]] = int32(l)
		next[h]++
	}
}

// NumServers returns the number of servers (nodes 0..NumServers()-1).
func (g *Graph) NumServers() int { return int(g.servers) }

// NumSwitches returns the number of switches (nodes NumServers()..NumNodes()-1).
func (g *Graph) NumSwitches() int { return int(g.switches) }

// NumNodes returns the number of servers and switches.
func (g *Graph) NumNodes() int { return int(g.servers) + int(g.switches) }

// NumLinks returns the number of directed links.
func (g *Graph) NumLinks() int { return len(g.tail) }

// IsServer reports whether node v is a server.
func (g *Graph) IsServer(v int32) bool { return v < g.servers }

// ServersForward reports whether g's servers forward flows (a
// server-centric network: BCube, DCell, DPillar, ...). In a switch-centric
// graph, the default, only switches do.
func (g *Graph) ServersForward() bool { return g.fwd }

// WithServersForward returns a graph with g's nodes, links and capacities
// (sharing g's slices, so it costs a few bytes) whose servers forward
// flows when on is true, and do not when on is false.
func (g *Graph) WithServersForward(on bool) *Graph {
	h := *g
	h.relay, h.fwd = h.servers, on
	if on {
		h.relay = 0
	}
	return &h
}

// Forwards reports whether node v may relay a flow, be on its path
// between its source and its destination: a switch, or a server of a
// graph whose servers forward.
func (g *Graph) Forwards(v int32) bool { return v >= g.relay }

// FirstForwarder returns the lowest node number that forwards flows: nodes
// v >= FirstForwarder() forward, the others (servers of a switch-centric
// graph) do not. Loops test v < FirstForwarder() instead of calling
// Forwards.
func (g *Graph) FirstForwarder() int32 { return g.relay }

// Out returns the range [lo, hi) of the links leaving node v.
func (g *Graph) Out(v int32) (lo, hi int32) { return g.outStart[v], g.outStart[v+1] }

// OutStart returns the first link leaving node v: its port p is link
// OutStart(v)+p.
func (g *Graph) OutStart(v int32) int32 { return g.outStart[v] }

// Degree returns the number of links leaving node v.
func (g *Graph) Degree(v int32) int { return int(g.outStart[v+1] - g.outStart[v]) }

// In returns the links entering node v, in id order. The slice is shared:
// do not modify it.
func (g *Graph) In(v int32) []int32 { return g.inLinks[g.inStart[v]:g.inStart[v+1]] }

// Tail returns the node link l leaves.
func (g *Graph) Tail(l int32) int32 { return g.tail[l] }

// Head returns the node link l enters.
func (g *Graph) Head(l int32) int32 { return g.head[l] }

// Capacity returns link l's capacity.
func (g *Graph) Capacity(l int32) float64 { return g.capacity[l] }

// Capacities returns every link's capacity, indexed by link. The slice is
// shared: do not modify it.
func (g *Graph) Capacities() []float64 { return g.capacity }

// LinkTo returns the first link from u to v, or -1 if there is none. It
// scans u's outgoing links.
func (g *Graph) LinkTo(u, v int32) int32 {
	for l := g.outStart[u]; l < g.outStart[u+1]; l++ {
		if g.head[l] == v {
			return l
		}
	}
	return -1
}

// CheckNode returns an error naming field if v is not a node of g.
func (g *Graph) CheckNode(field string, v int) error {
	if v < 0 || v >= g.NumNodes() {
		return fmt.Errorf("%s: %d is not allowed: must be in [0, %d)", field, v, g.NumNodes())
	}
	return nil
}

// CheckServer returns an error naming field if v is not a server of g.
func (g *Graph) CheckServer(field string, v int) error {
	if v < 0 || v >= int(g.servers) {
		return fmt.Errorf("%s: %d is not allowed: must be a server, in [0, %d)", field, v, g.servers)
	}
	return nil
}

// MemoryBytes returns the bytes the graph's slices hold (see the package
// comment).
func (g *Graph) MemoryBytes() int64 {
	return MemoryBytesOf(int64(g.NumNodes()), int64(g.NumLinks()))
}

// MemoryBytesOf is MemoryBytes of a graph of nodes nodes and links links,
// before it is built: 8 bytes a node, 20 a link, plus 8. Counts may be
// past MaxNodes and MaxLinks (a size to refuse): the result saturates at
// 2^62 instead of overflowing; a negative count counts as 0.
func MemoryBytesOf(nodes, links int64) int64 {
	const most = 1 << 62
	nodes, links = max(nodes, 0), max(links, 0)
	if nodes > most/16 || links > most/40 { // each term at most 2^61: no overflow
		return most
	}
	return min(20*links+8*nodes+8, most)
}

package topo

import (
	"fmt"
	"slices"
)

// Central buffer classifications (switch.central_classes). A central buffer
// is shared by the 4 input ports of its MPort and feeds every output port
// of the switch, so which packets share one of its lanes decides whether
// the switch's internal buffers keep the routing's deadlock freedom.
const (
	// CentralByVL gives a central buffer one lane per VL of the next link,
	// shared by every output port. On a torus it couples the rings: a
	// packet that wrapped the dateline and turns into another dimension
	// waits behind unwrapped traffic of a ring (see InternalDependencies).
	CentralByVL = "vl"
	// CentralByDirection gives a central buffer one lane per (class of the
	// next link, VL of the next link), the class being the direction of the
	// link: on a torus, + or − along each dimension (NIC links in class 0).
	// A lane then feeds only links of one direction of one dimension, and
	// is an extension of that channel in the dependency order.
	CentralByDirection = "direction"
)

// CentralSchemes lists the central buffer classifications.
func CentralSchemes() []string { return []string{CentralByDirection, CentralByVL} }

// CentralClasses returns, for every switch and port, the class of the link
// leaving by that port under scheme, and the number of classes. Under
// CentralByVL every port is class 0. Under CentralByDirection a torus port
// of the + trunk of its i-th dimension of size > 1 is class 1+2i, of the −
// trunk 2+2i, and NIC or unused ports class 0; in a tree every port is
// class 0 (a central buffer there holds either only downward traffic, when
// its MPort has up ports, or traffic from below: the dependency check
// shows that this is acyclic), and so on a single switch.
func CentralClasses(t *Topology, scheme string) ([][]uint8, int, error) {
	classOf := make([][]uint8, t.NumSwitches())
	for s, r := range t.Radix {
		classOf[s] = make([]uint8, r)
	}
	switch scheme {
	case CentralByVL:
		return classOf, 1, nil
	case CentralByDirection:
	default:
		return nil, 0, fmt.Errorf("central classes %q: must be one of %v", scheme, CentralSchemes())
	}
	if t.Kind != KindTorus {
		return classOf, 1, nil
	}
	g := newTorusLayout(t)
	classes := 1
	for i, b := range g.base {
		if b < 0 {
			continue
		}
		plus, minus := uint8(classes), uint8(classes+1)
		classes += 2
		for s := range classOf {
			for m := 0; m < g.trunk; m++ {
				classOf[s][g.port(i, true, m)] = plus
				classOf[s][g.port(i, false, m)] = minus
			}
		}
	}
	return classOf, classes, nil
}

// Resource kinds of the internal dependency graph.
const (
	ResInput   = "input"
	ResCentral = "central"
	ResOutput  = "output"
)

// Resource is one buffer class a packet can wait in: the VL of an input
// buffer (Port is the input port), a lane of an MPort's central buffers
// (Port is the MPort, Lane = class·VLs + VL), or the VL of an output
// buffer (Port is the output port).
type Resource struct {
	Kind   string
	Switch int
	Port   int
	Lane   int
}

func (r Resource) String() string {
	return fmt.Sprintf("switch %d %s %d lane %d", r.Switch, r.Kind, r.Port, r.Lane)
}

// InternalGraph is the dependency graph of every buffer class inside the
// switches (input buffer VLs, central buffer lanes, output buffer VLs): an
// edge from the class a packet waits in to the class it requests next.
// Virtual cut-through with space reserved in every class for a whole
// packet (switch.exclusive_vl_flits at least the largest packet) cannot
// deadlock when this graph is acyclic (Dally and Seitz; Duato), because
// every class is drained by the classes after it.
type InternalGraph struct {
	t       *Topology
	vls     int
	lanes   int
	first   []int // first[s]: node of switch s input 0 lane 0
	adj     [][]int32
	seen    map[[5]int32]bool
	classOf [][]uint8
	sc2vl   []int
}

// NewInternalGraph returns an empty graph over t's switches with vls VLs,
// the central buffers classed by classOf (classes classes), SCs mapped to
// VLs by sc2vl.
func NewInternalGraph(t *Topology, vls int, sc2vl []int, classOf [][]uint8, classes int) *InternalGraph {
	g := &InternalGraph{t: t, vls: vls, lanes: classes * vls, first: make([]int, t.NumSwitches()),
		seen: map[[5]int32]bool{}, classOf: classOf, sc2vl: sc2vl}
	nodes := 0
	for s, r := range t.Radix {
		g.first[s] = nodes
		nodes += 2*r*vls + r/4*g.lanes
	}
	g.adj = make([][]int32, nodes)
	return g
}

func (g *InternalGraph) input(s, port, vl int) int32 { return int32(g.first[s] + port*g.vls + vl) }

func (g *InternalGraph) central(s, mport, lane int) int32 {
	return int32(g.first[s] + g.t.Radix[s]*g.vls + mport*g.lanes + lane)
}

func (g *InternalGraph) output(s, port, vl int) int32 {
	r := g.t.Radix[s]
	return int32(g.first[s] + r*g.vls + r/4*g.lanes + port*g.vls + vl)
}

func (g *InternalGraph) resource(node int32) Resource {
	s, _ := slices.BinarySearch(g.first, int(node)+1)
	s--
	rest, r := int(node)-g.first[s], g.t.Radix[s]
	switch {
	case rest < r*g.vls:
		return Resource{Kind: ResInput, Switch: s, Port: rest / g.vls, Lane: rest % g.vls}
	case rest < r*g.vls+r/4*g.lanes:
		rest -= r * g.vls
		return Resource{Kind: ResCentral, Switch: s, Port: rest / g.lanes, Lane: rest % g.lanes}
	default:
		rest -= r*g.vls + r/4*g.lanes
		return Resource{Kind: ResOutput, Switch: s, Port: rest / g.vls, Lane: rest % g.vls}
	}
}

func (g *InternalGraph) edge(from, to int32) {
	if !containsNode(g.adj[from], to) {
		g.adj[from] = append(g.adj[from], to)
	}
}

// AddPath adds the dependencies of one routed path (as Trace returns it)
// of a packet injected with service channel sc.
func (g *InternalGraph) AddPath(hops []Hop, sc int) error {
	for _, h := range hops {
		key := [5]int32{int32(h.Switch), int32(h.InPort), int32(sc), int32(h.OutPort), int32(h.SC)}
		scIn := sc
		sc = h.SC
		if g.seen[key] {
			continue
		}
		g.seen[key] = true
		if scIn < 0 || scIn >= len(g.sc2vl) || h.SC < 0 || h.SC >= len(g.sc2vl) {
			return fmt.Errorf("internal dependencies: SC %d or %d outside 0..%d", scIn, h.SC, len(g.sc2vl)-1)
		}
		vin, vout := g.sc2vl[scIn], g.sc2vl[h.SC]
		in, out := g.input(h.Switch, h.InPort, vin), g.output(h.Switch, h.OutPort, vout)
		if h.InPort/4 == h.OutPort/4 {
			g.edge(in, out)
		} else {
			c := g.central(h.Switch, h.InPort/4, int(g.classOf[h.Switch][h.OutPort])*g.vls+vout)
			g.edge(in, c)
			g.edge(c, out)
		}
		if peer := g.t.Wiring[h.Switch][h.OutPort]; peer.Kind == PeerSwitch {
			g.edge(out, g.input(peer.Port.Switch, peer.Port.Port, vout))
		}
	}
	return nil
}

// Edges counts the distinct dependencies.
func (g *InternalGraph) Edges() int {
	n := 0
	for _, a := range g.adj {
		n += len(a)
	}
	return n
}

// Cycle returns one cycle of the graph, its resources in dependency order,
// or nil when the graph is acyclic.
func (g *InternalGraph) Cycle() []Resource {
	nodes := FindCycle(g.adj)
	if nodes == nil {
		return nil
	}
	out := make([]Resource, len(nodes))
	for i, n := range nodes {
		out[i] = g.resource(n)
	}
	return out
}

// InternalDependencies routes every ordered pair of distinct NICs through
// r, injected on every SC in scs, and returns the graph of the switches'
// internal buffer classes.
func InternalDependencies(t *Topology, r Router, vls int, sc2vl []int, classOf [][]uint8, classes int, scs []int) (*InternalGraph, error) {
	g := NewInternalGraph(t, vls, sc2vl, classOf, classes)
	var hops []Hop
	for src := range t.NumNICs() {
		for dst := range t.NumNICs() {
			if src == dst {
				continue
			}
			for _, sc := range scs {
				var err error
				if hops, err = Trace(t, r, src, dst, sc, hops[:0]); err != nil {
					return nil, err
				}
				if err := g.AddPath(hops, sc); err != nil {
					return nil, err
				}
			}
		}
	}
	return g, nil
}

// FindCycle returns the nodes of one cycle of the directed graph adj, in
// dependency order, or nil when it is acyclic (iterative depth-first
// search, roots and successors in index order, so the answer is
// deterministic).
func FindCycle(adj [][]int32) []int32 {
	const (
		unseen = iota
		onStack
		done
	)
	state := make([]uint8, len(adj))
	var stack []dfsFrame
	for root := range adj {
		if state[root] != unseen {
			continue
		}
		state[root] = onStack
		stack = append(stack[:0], dfsFrame{node: int32(root)})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(adj[top.node]) {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			succ := adj[top.node][top.next]
			top.next++
			switch state[succ] {
			case onStack:
				var cycle []int32
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append(cycle, stack[i].node)
					if stack[i].node == succ {
						break
					}
				}
				slices.Reverse(cycle)
				return cycle
			case unseen:
				state[succ] = onStack
				stack = append(stack, dfsFrame{node: succ})
			}
		}
	}
	return nil
}

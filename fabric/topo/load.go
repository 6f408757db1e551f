package topo

import (
	"fmt"
	"math"
)

// Demand is a traffic matrix: for source NIC src it calls yield(dst,
// weight, total) for every destination, weight/total being the fraction
// of src's injected flits bound for dst. A source uses one total for all
// its destinations (so sums stay exact integers); its fractions sum to 1
// when it injects at the full unit rate, and it injects nothing when it
// yields nothing.
type Demand func(src int, yield func(dst, weight, total int))

// UniformDemand is uniform traffic among n NICs: every source sends to
// each of the n-1 others with weight 1/(n-1).
func UniformDemand(n int) Demand {
	return func(src int, yield func(dst, weight, total int)) {
		for dst := range n {
			if dst != src {
				yield(dst, 1, n-1)
			}
		}
	}
}

// PermutationDemand sends everything NIC i injects to dst[i], dst having
// one entry per NIC: a deterministic pattern (dst need not be a
// permutation; dst[i] == i is allowed: the packet goes to its switch and
// back, as in a run).
func PermutationDemand(dst []int) Demand {
	return func(src int, yield func(dst, weight, total int)) { yield(dst[src], 1, 1) }
}

// ChannelLoad is the load of every link, in flits/cycle per flit/cycle
// injected by every NIC (channel load per unit of injection): a link
// whose load is L saturates when the NICs inject 1/L.
type ChannelLoad struct {
	Topology *Topology
	// Out[s][p] is the load of the link leaving switch s by port p, to
	// another switch or to a NIC (0 for unused ports).
	Out [][]float64
	// In[n] is the load of NIC n's link into its switch.
	In []float64
	// Routes counts the routed (source, destination) pairs.
	Routes int
}

// ChannelLoads routes every (source, destination) pair of demand through r,
// injected with service channel sc, and adds each pair's weight to every
// link it crosses. It fails when a route leaves through a missing or
// unused port, reaches the wrong NIC or is longer than the network has
// switches. All-pairs uniform traffic on 1024 NICs is about a million
// routes; this takes well under a second.
//
// Weights are summed as integers over each source's denominator (see
// Demand) and divided once per run of sources sharing one, so uniform
// traffic gives every load as (routes crossing the link) / (n-1) exactly
// rounded.
func ChannelLoads(t *Topology, r Router, demand Demand, sc int) (*ChannelLoad, error) {
	out := make([][]int64, t.NumSwitches())
	for s, radix := range t.Radix {
		out[s] = make([]int64, radix)
	}
	load := &ChannelLoad{Topology: t, Out: make([][]float64, t.NumSwitches()), In: make([]float64, t.NumNICs())}
	for s, radix := range t.Radix {
		load.Out[s] = make([]float64, radix)
	}
	var err error
	denominator := 0
	flush := func() {
		if denominator == 0 {
			return
		}
		for s := range out {
			for p, v := range out[s] {
				if v != 0 {
					load.Out[s][p] += float64(v) / float64(denominator)
					out[s][p] = 0
				}
			}
		}
	}
	for src := range t.NumNICs() {
		var injected int64
		srcTotal := 0
		demand(src, func(dst, weight, total int) {
			if err != nil || weight == 0 {
				return
			}
			if dst < 0 || dst >= t.NumNICs() || total <= 0 || weight < 0 {
				err = fmt.Errorf("channel load: %d -> %d weight %d/%d: no such NIC or bad weight", src, dst, weight, total)
				return
			}
			if srcTotal != 0 && total != srcTotal {
				err = fmt.Errorf("channel load: source %d: weights over %d and %d: use one denominator per source", src, srcTotal, total)
				return
			}
			srcTotal = total
			if total != denominator {
				flush()
				denominator = total
			}
			load.Routes++
			injected += int64(weight)
			err = addRoute(t, r, out, src, dst, sc, int64(weight))
		})
		if err != nil {
			return nil, err
		}
		if srcTotal != 0 {
			load.In[src] = float64(injected) / float64(srcTotal)
		}
	}
	flush()
	return load, nil
}

// addRoute adds weight to the output port of every switch on the route
// from NIC src to NIC dst (first SC sc).
func addRoute(t *Topology, r Router, out [][]int64, src, dst, sc int, weight int64) error {
	at, s := t.NICPort[src], sc
	maxHops := t.NumSwitches() + 1
	for hop := 0; hop < maxHops; hop++ {
		port, next := r.Route(at.Switch, at.Port, dst, s)
		if port < 0 || port >= t.Radix[at.Switch] {
			return fmt.Errorf("channel load: %d -> %d: switch %d routes to port %d of %d", src, dst, at.Switch, port, t.Radix[at.Switch])
		}
		out[at.Switch][port] += weight
		peer := t.Wiring[at.Switch][port]
		if peer.Kind == PeerSwitch {
			at, s = peer.Port, next
			continue
		}
		if peer.Kind != PeerNIC || peer.NIC != dst {
			return fmt.Errorf("channel load: %d -> %d: switch %d port %d is not wired to it", src, dst, at.Switch, port)
		}
		return nil
	}
	return fmt.Errorf("channel load: %d -> %d: no delivery after %d switches", src, dst, maxHops)
}

// LoadStats summarises a ChannelLoad.
type LoadStats struct {
	SwitchLinks   int     // switch-to-switch links (each direction of a cable counted once)
	MaxSwitch     float64 // highest load of a switch-to-switch link
	MaxSwitchAt   PortRef // the first link (lowest switch, then port) with that load
	MeanSwitch    float64 // mean over switch-to-switch links
	MinSwitch     float64
	MaxInjection  float64 // highest load of a NIC-to-switch link
	MaxEjection   float64 // highest load of a switch-to-NIC link
	MaxEjectionAt int     // its NIC
	Max           float64 // highest load of any link
	// Bound is the saturation bound: 1 / Max, the injection rate
	// (flits/cycle/NIC) at which the most loaded link is busy every cycle.
	// +Inf when no link carries anything.
	Bound float64
}

// Stats computes the maximum, mean and minimum loads and the bound.
func (l *ChannelLoad) Stats() LoadStats {
	t := l.Topology
	st := LoadStats{MinSwitch: math.Inf(1), MaxEjectionAt: -1}
	sum := 0.0
	for s := range l.Out {
		for p, v := range l.Out[s] {
			switch peer := t.Wiring[s][p]; peer.Kind {
			case PeerSwitch:
				st.SwitchLinks++
				sum += v
				st.MinSwitch = min(st.MinSwitch, v)
				if v > st.MaxSwitch || st.SwitchLinks == 1 {
					st.MaxSwitch, st.MaxSwitchAt = v, PortRef{s, p}
				}
			case PeerNIC:
				if v > st.MaxEjection || st.MaxEjectionAt < 0 {
					st.MaxEjection, st.MaxEjectionAt = v, peer.NIC
				}
			}
		}
	}
	if st.SwitchLinks > 0 {
		st.MeanSwitch = sum / float64(st.SwitchLinks)
	} else {
		st.MinSwitch = 0
	}
	for _, v := range l.In {
		st.MaxInjection = max(st.MaxInjection, v)
	}
	st.Max = max(st.MaxSwitch, st.MaxInjection, st.MaxEjection)
	st.Bound = math.Inf(1)
	if st.Max > 0 {
		st.Bound = 1 / st.Max
	}
	return st
}

// DescribePort names what a switch port is: "NIC n"; on a torus
// "dimension i + member m" (or −); in a tree "up j" or "down j" (port
// k+j or j); otherwise "port p", or "unused".
func (t *Topology) DescribePort(s, p int) string {
	peer := t.Wiring[s][p]
	switch {
	case peer.Kind == PeerNIC:
		return fmt.Sprintf("NIC %d", peer.NIC)
	case peer.Kind == PeerNone:
		return "unused"
	case t.Kind == KindTorus:
		if dim, dir, member, ok := t.torusPort(p); ok {
			return fmt.Sprintf("dimension %d %s member %d", dim, dir, member)
		}
	case t.Kind == KindTree && p >= t.K:
		return fmt.Sprintf("up %d", p-t.K)
	case t.Kind == KindTree:
		return fmt.Sprintf("down %d", p)
	}
	return fmt.Sprintf("port %d", p)
}

// torusPort is the dimension, direction ("+" or "−") and trunk member
// of a torus switch's port p; false for a NIC port or an unused one.
func (t *Topology) torusPort(p int) (dim int, dir string, member int, ok bool) {
	g := newTorusLayout(t)
	for i, b := range g.base {
		if b >= 0 && p >= b && p < b+2*g.trunk {
			dir = "+"
			if p >= b+g.trunk {
				dir = "−"
			}
			return i, dir, (p - b) % g.trunk, true
		}
	}
	return 0, "", 0, false
}

// PortClass names the class of the link switch port s sends on, for
// grouping links: "ejection" toward a NIC; on a torus "dimension i +" (or
// −); in a tree "level l up" or "level l down" (l the switch's level, 0
// at the leaves); "switch" for another switch-to-switch link; "unused".
func (t *Topology) PortClass(s, p int) string {
	peer := t.Wiring[s][p]
	switch {
	case peer.Kind == PeerNIC:
		return "ejection"
	case peer.Kind == PeerNone:
		return "unused"
	case t.Kind == KindTorus:
		if dim, dir, _, ok := t.torusPort(p); ok {
			return fmt.Sprintf("dimension %d %s", dim, dir)
		}
	case t.Kind == KindTree:
		level := s / (len(t.Radix) / t.N)
		if p >= t.K {
			return fmt.Sprintf("level %d up", level)
		}
		return fmt.Sprintf("level %d down", level)
	}
	return "switch"
}

// ClassLoad is the load over one class of switch-to-switch links.
type ClassLoad struct {
	Name           string // e.g. "dimension 0 +"
	Links          int
	Max, Mean, Min float64
}

// TorusClasses groups a torus's switch-to-switch links by dimension and
// direction, in port order (dimension 0 +, dimension 0 −, dimension 1 +,
// ...); nil for other kinds.
func (l *ChannelLoad) TorusClasses() []ClassLoad {
	t := l.Topology
	if t.Kind != KindTorus {
		return nil
	}
	g := newTorusLayout(t)
	var classes []ClassLoad
	for i, b := range g.base {
		if b < 0 {
			continue
		}
		for _, plus := range []bool{true, false} {
			c := ClassLoad{Name: fmt.Sprintf("dimension %d +", i), Min: math.Inf(1)}
			if !plus {
				c.Name = fmt.Sprintf("dimension %d −", i)
			}
			for s := range l.Out {
				for m := 0; m < g.trunk; m++ {
					v := l.Out[s][g.port(i, plus, m)]
					c.Links++
					c.Max, c.Min = max(c.Max, v), min(c.Min, v)
					c.Mean += v
				}
			}
			c.Mean /= float64(c.Links)
			classes = append(classes, c)
		}
	}
	return classes
}

package topo

import "fmt"

// PortRef names one port of one switch.
type PortRef struct {
	Switch int
	Port   int
}

// Peer is what sits at the other end of a switch port: another switch's
// port, a NIC, or nothing (an unused port).
type Peer struct {
	Kind PeerKind
	NIC  int     // when Kind == PeerNIC
	Port PortRef // when Kind == PeerSwitch
}

// PeerKind tells what a port is wired to.
type PeerKind uint8

const (
	PeerNone PeerKind = iota
	PeerNIC
	PeerSwitch
)

// Kinds of topology, the value of Topology.Kind.
const (
	KindSingle = "single" // one switch, one NIC per port
	KindTorus  = "torus"  // n-dimensional torus with trunks (torus.go)
	KindTree   = "tree"   // k-ary n-tree (tree.go)
)

// Topology is the wiring of a network. Ports are numbered 0..Radix-1 per
// switch, grouped four by four into MPorts; Radix is a multiple of 4, >= 8.
//
// The constructors also record the shape they built (Kind and the fields
// below it), which the routers read; NIC n always sits on switch
// n / NICsPerSwitch, port n % NICsPerSwitch.
type Topology struct {
	Name     string
	Radix    []int     // per switch
	Wiring   [][]Peer  // Wiring[s][p]: what switch s port p connects to
	NICPort  []PortRef // NICPort[n]: the switch port NIC n attaches to
	Diameter int       // switches on the longest routed path between two NICs

	Kind          string // KindSingle, KindTorus or KindTree
	NICsPerSwitch int    // NIC ports on each switch that has NICs (ports 0..NICsPerSwitch-1)
	Dims          []int  // torus: switches per dimension, dimension 0 first
	Trunk         int    // torus: parallel links to each neighbour in each direction
	K, N          int    // tree: arity and number of levels
}

// NumSwitches is the number of switches.
func (t *Topology) NumSwitches() int { return len(t.Radix) }

// NumNICs is the number of NICs.
func (t *Topology) NumNICs() int { return len(t.NICPort) }

// Router computes, at switch sw, for a packet that entered on inPort with
// service channel sc and is bound for NIC dst, the output port and the
// service channel it carries on the next link. It is deterministic.
type Router interface {
	Route(sw, inPort, dst, sc int) (outPort, nextSC int)
}

// SingleSwitch is one switch with one NIC per port (seed 002 section 3).
func SingleSwitch(ports int) (*Topology, Router, error) {
	if ports < 8 || ports%4 != 0 || ports > maxSwitches {
		return nil, nil, fmt.Errorf("ports: %d is not allowed: must be a multiple of 4 in [8, %d]", ports, maxSwitches)
	}
	t := &Topology{Name: fmt.Sprintf("single-switch-%d", ports), Radix: []int{ports}, Diameter: 1,
		Kind: KindSingle, NICsPerSwitch: ports}
	t.Wiring = [][]Peer{make([]Peer, ports)}
	t.NICPort = make([]PortRef, ports)
	for p := 0; p < ports; p++ {
		t.Wiring[0][p] = Peer{Kind: PeerNIC, NIC: p}
		t.NICPort[p] = PortRef{Switch: 0, Port: p}
	}
	return t, singleRouter{}, nil
}

type singleRouter struct{}

func (singleRouter) Route(_, _, dst, sc int) (int, int) { return dst, sc }

// Validate checks that the wiring is symmetric and every NIC is attached
// where Wiring says it is, and that Wiring names every NIC where NICPort
// says it is.
func (t *Topology) Validate() error {
	if err := t.validateSwitches(); err != nil {
		return err
	}
	for n, at := range t.NICPort {
		if at.Switch < 0 || at.Switch >= len(t.Radix) || at.Port < 0 || at.Port >= t.Radix[at.Switch] {
			return fmt.Errorf("topology %s: NIC %d attached to missing port %v", t.Name, n, at)
		}
		if peer := t.Wiring[at.Switch][at.Port]; peer.Kind != PeerNIC || peer.NIC != n {
			return fmt.Errorf("topology %s: NIC %d attached to %d.%d, which is not wired to it", t.Name, n, at.Switch, at.Port)
		}
	}
	return nil
}

func (t *Topology) validateSwitches() error {
	if len(t.Wiring) != len(t.Radix) {
		return fmt.Errorf("topology %s: %d wiring rows for %d switches", t.Name, len(t.Wiring), len(t.Radix))
	}
	for s, r := range t.Radix {
		if r < 8 || r%4 != 0 {
			return fmt.Errorf("topology %s: switch %d radix %d: must be a multiple of 4 and at least 8", t.Name, s, r)
		}
		if len(t.Wiring[s]) != r {
			return fmt.Errorf("topology %s: switch %d has %d wired ports, radix %d", t.Name, s, len(t.Wiring[s]), r)
		}
		for p, peer := range t.Wiring[s] {
			switch peer.Kind {
			case PeerNIC:
				if peer.NIC < 0 || peer.NIC >= len(t.NICPort) || t.NICPort[peer.NIC] != (PortRef{s, p}) {
					return fmt.Errorf("topology %s: switch %d port %d claims NIC %d, which is elsewhere", t.Name, s, p, peer.NIC)
				}
			case PeerSwitch:
				o := peer.Port
				if o.Switch < 0 || o.Switch >= len(t.Radix) || o.Port < 0 || o.Port >= t.Radix[o.Switch] {
					return fmt.Errorf("topology %s: switch %d port %d wired to missing %v", t.Name, s, p, o)
				}
				back := t.Wiring[o.Switch][o.Port]
				if back.Kind != PeerSwitch || back.Port != (PortRef{s, p}) {
					return fmt.Errorf("topology %s: link %d.%d -> %d.%d is not symmetric", t.Name, s, p, o.Switch, o.Port)
				}
			}
		}
	}
	return nil
}

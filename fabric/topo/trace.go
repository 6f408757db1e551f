package topo

import "fmt"

// Hop is one switch on a routed path: the packet entered Switch on InPort
// and left on OutPort carrying service channel SC.
type Hop struct {
	Switch  int
	InPort  int
	OutPort int
	SC      int
}

// Trace follows a packet from NIC src to NIC dst, injected with service
// channel sc, through r, appending its hops to hops (pass a reused slice to
// avoid allocations). It fails when the route leaves through a missing or
// unused port, reaches the wrong NIC, or visits a switch twice.
func Trace(t *Topology, r Router, src, dst, sc int, hops []Hop) ([]Hop, error) {
	if src < 0 || src >= t.NumNICs() || dst < 0 || dst >= t.NumNICs() {
		return hops, fmt.Errorf("trace %d -> %d: no such NIC in %s (%d NICs)", src, dst, t.Name, t.NumNICs())
	}
	start := len(hops)
	at := t.NICPort[src]
	for {
		for _, h := range hops[start:] {
			if h.Switch == at.Switch {
				return hops, fmt.Errorf("trace %d -> %d: switch %d visited twice", src, dst, at.Switch)
			}
		}
		out, next := r.Route(at.Switch, at.Port, dst, sc)
		if out < 0 || out >= t.Radix[at.Switch] {
			return hops, fmt.Errorf("trace %d -> %d: switch %d routes to port %d of %d", src, dst, at.Switch, out, t.Radix[at.Switch])
		}
		hops = append(hops, Hop{Switch: at.Switch, InPort: at.Port, OutPort: out, SC: next})
		peer := t.Wiring[at.Switch][out]
		switch {
		case peer.Kind == PeerNIC && peer.NIC == dst:
			return hops, nil
		case peer.Kind == PeerNIC:
			return hops, fmt.Errorf("trace %d -> %d: delivered to NIC %d", src, dst, peer.NIC)
		case peer.Kind == PeerNone:
			return hops, fmt.Errorf("trace %d -> %d: switch %d routes to unused port %d", src, dst, at.Switch, out)
		}
		at, sc = peer.Port, next
	}
}

// RoutedDiameter routes every ordered pair of NICs through r, injecting
// with service channel sc, and returns the most switches a path visits.
func RoutedDiameter(t *Topology, r Router, sc int) (int, error) {
	longest := 0
	var hops []Hop
	for src := range t.NumNICs() {
		for dst := range t.NumNICs() {
			var err error
			if hops, err = Trace(t, r, src, dst, sc, hops[:0]); err != nil {
				return 0, err
			}
			longest = max(longest, len(hops))
		}
	}
	return longest, nil
}

package topo

import (
	"fmt"
	"slices"
	"strings"
)

// Summary is what `opasim topo` prints about a topology.
type Summary struct {
	Name        string
	Kind        string
	Shape       string // e.g. "8x8 torus, 8 NICs per switch, 10x trunks"
	Switches    int
	Radices     []int // distinct switch radices, ascending
	NICs        int
	SwitchLinks int // switch-to-switch cables, each counted once
	NICLinks    int // NIC-to-switch cables
	UnusedPorts int
	Diameter    int // switches on the longest routed path between two NICs
}

// Summary counts t's switches, ports and links. Diameter is t.Diameter,
// which the constructors compute in closed form for their routing
// (1 + Σ floor(dims[i]/2) on a torus with dor, 2n-1 on a k-ary n-tree with
// updown, 1 on a single switch); RoutedDiameter recomputes it by routing,
// and the tests check that both agree on every preset.
func (t *Topology) Summary() Summary {
	s := Summary{Name: t.Name, Kind: t.Kind, Shape: t.shape(), Switches: t.NumSwitches(), NICs: t.NumNICs(), Diameter: t.Diameter}
	switchPorts := 0
	for sw, r := range t.Radix {
		if !slices.Contains(s.Radices, r) {
			s.Radices = append(s.Radices, r)
		}
		for _, peer := range t.Wiring[sw] {
			switch peer.Kind {
			case PeerSwitch:
				switchPorts++
			case PeerNIC:
				s.NICLinks++
			default:
				s.UnusedPorts++
			}
		}
	}
	slices.Sort(s.Radices)
	s.SwitchLinks = switchPorts / 2
	return s
}

func (t *Topology) shape() string {
	switch t.Kind {
	case KindTorus:
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = fmt.Sprint(d)
		}
		return fmt.Sprintf("%dD torus %s, %d NICs per switch, %dx trunks", len(t.Dims), strings.Join(dims, "x"), t.NICsPerSwitch, t.Trunk)
	case KindTree:
		return fmt.Sprintf("%d-ary %d-tree", t.K, t.N)
	case KindSingle:
		return fmt.Sprintf("single switch, %d NICs", t.NICsPerSwitch)
	}
	return t.Kind
}

// String prints the summary one field a line.
func (s Summary) String() string {
	var b strings.Builder
	radices := make([]string, len(s.Radices))
	for i, r := range s.Radices {
		radices[i] = fmt.Sprint(r)
	}
	line := func(label string, value any) { fmt.Fprintf(&b, "%-21s %v\n", label+":", value) }
	line("topology", s.Name+" ("+s.Shape+")")
	line("switches", s.Switches)
	line("ports per switch", strings.Join(radices, ", "))
	line("NICs", s.NICs)
	line("switch-switch links", s.SwitchLinks)
	line("NIC links", s.NICLinks)
	line("unused ports", s.UnusedPorts)
	line("diameter (switches)", s.Diameter)
	return b.String()
}

package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// Torus builds an n-dimensional torus of switches (seed 000 section 4.1,
// seed 001 section 3.2): dims[i] switches along dimension i, nicsPerSwitch
// NICs on every switch, and along every dimension of size > 1 a trunk of
// `trunk` parallel links to the + neighbour and `trunk` to the − neighbour.
//
// Switch numbering: dimension 0 varies fastest, switch = Σ c[i]·Π_{j<i} dims[j].
// NIC n sits on switch n / nicsPerSwitch, port n % nicsPerSwitch.
//
// Port layout of every switch: ports 0..nicsPerSwitch-1 go to NICs; then,
// for each dimension of size > 1 in order, `trunk` ports toward + (member m
// at base+m) and `trunk` ports toward − (member m at base+trunk+m); the
// remaining ports, up to a multiple of 4 and at least 8, are unused.
// The + member m of a switch at coordinate c is wired to the − member m of
// the switch at c+1 (mod size), so a dimension of size 2 has 2·trunk
// distinct cables between its two switches, as every other dimension has
// between neighbours.
func Torus(dims []int, nicsPerSwitch, trunk int) (*Topology, error) {
	if err := checkTorus(dims, nicsPerSwitch, trunk); err != nil {
		return nil, err
	}
	t := &Topology{
		Name:          torusName(dims, nicsPerSwitch, trunk),
		Kind:          KindTorus,
		NICsPerSwitch: nicsPerSwitch,
		Dims:          append([]int(nil), dims...),
		Trunk:         trunk,
	}
	g := newTorusLayout(t)
	t.Radix = make([]int, g.switches)
	t.Wiring = make([][]Peer, g.switches)
	t.NICPort = make([]PortRef, g.switches*nicsPerSwitch)
	t.Diameter = 1
	for _, size := range dims {
		t.Diameter += size / 2
	}
	for s := range t.Radix {
		t.Radix[s] = g.radix
		t.Wiring[s] = make([]Peer, g.radix)
		for p := 0; p < nicsPerSwitch; p++ {
			n := s*nicsPerSwitch + p
			t.Wiring[s][p] = Peer{Kind: PeerNIC, NIC: n}
			t.NICPort[n] = PortRef{Switch: s, Port: p}
		}
	}
	for s := range t.Radix {
		g.wireSwitch(t, s)
	}
	return t, nil
}

// maxSwitches bounds what a topology may have of switches, NICs, the
// ports of a single switch and the links of a torus in one direction, so
// a hostile config is refused before it is built.
const maxSwitches = 1 << 20

func checkTorus(dims []int, nicsPerSwitch, trunk int) error {
	if len(dims) == 0 {
		return fmt.Errorf("torus dims: empty: give at least one dimension")
	}
	switches := 1
	for i, size := range dims {
		if size < 1 {
			return fmt.Errorf("torus dims[%d]: %d is not allowed: must be at least 1", i, size)
		}
		switches *= size
		if switches > maxSwitches {
			return fmt.Errorf("torus dims %v: more than %d switches", dims, maxSwitches)
		}
	}
	if nicsPerSwitch < 1 {
		return fmt.Errorf("torus nics_per_switch: %d is not allowed: must be at least 1", nicsPerSwitch)
	}
	if trunk < 1 {
		return fmt.Errorf("torus trunk: %d is not allowed: must be at least 1", trunk)
	}
	if nicsPerSwitch > maxSwitches/switches {
		return fmt.Errorf("torus nics_per_switch: %d is not allowed: %d switches would have more than %d NICs", nicsPerSwitch, switches, maxSwitches)
	}
	if trunk > maxSwitches/switches {
		return fmt.Errorf("torus trunk: %d is not allowed: %d switches would have more than %d links in a direction", trunk, switches, maxSwitches)
	}
	return nil
}

func torusName(dims []int, nicsPerSwitch, trunk int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("torus%dd-%s-%dnics-%dx", len(dims), strings.Join(parts, "x"), nicsPerSwitch, trunk)
}

// roundRadix rounds a port count up to a multiple of 4, at least 8.
func roundRadix(ports int) int {
	ports = (ports + 3) / 4 * 4
	return max(ports, 8)
}

// torusLayout is the arithmetic of a torus's numbering and port layout,
// shared by the constructor and the router.
type torusLayout struct {
	dims     []int
	stride   []int // stride[i] = Π_{j<i} dims[j]
	base     []int // first + port of dimension i; -1 when dims[i] == 1
	nics     int
	trunk    int
	radix    int
	switches int
}

func newTorusLayout(t *Topology) torusLayout {
	g := torusLayout{dims: t.Dims, nics: t.NICsPerSwitch, trunk: t.Trunk, switches: 1}
	g.stride = make([]int, len(t.Dims))
	g.base = make([]int, len(t.Dims))
	next := t.NICsPerSwitch
	for i, size := range t.Dims {
		g.stride[i] = g.switches
		g.switches *= size
		g.base[i] = -1
		if size > 1 {
			g.base[i] = next
			next += 2 * t.Trunk
		}
	}
	g.radix = roundRadix(next)
	return g
}

// port is the port of trunk member m toward + (plus) or − along dimension i.
func (g torusLayout) port(i int, plus bool, m int) int {
	if plus {
		return g.base[i] + m
	}
	return g.base[i] + g.trunk + m
}

// coord is switch s's coordinate along dimension i.
func (g torusLayout) coord(s, i int) int { return s / g.stride[i] % g.dims[i] }

// wireSwitch wires the + trunks of switch s (and so the − trunks of its +
// neighbours).
func (g torusLayout) wireSwitch(t *Topology, s int) {
	for i, size := range g.dims {
		if size == 1 {
			continue
		}
		c := g.coord(s, i)
		up := s + ((c+1)%size-c)*g.stride[i]
		for m := 0; m < g.trunk; m++ {
			a := PortRef{Switch: s, Port: g.port(i, true, m)}
			b := PortRef{Switch: up, Port: g.port(i, false, m)}
			t.Wiring[a.Switch][a.Port] = Peer{Kind: PeerSwitch, Port: b}
			t.Wiring[b.Switch][b.Port] = Peer{Kind: PeerSwitch, Port: a}
		}
	}
}

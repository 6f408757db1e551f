package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

// Global-link arrangements of a dragonfly: how the a·h global links of a
// group, numbered k = r·h + j for router r's global port j, reach the
// other g − 1 = a·h groups (seed 001 section 3.2 lists such "connection
// rules" without defining them; these are the definitions used here).
const (
	// Absolute (also "consecutive"): link k of group G goes to group k
	// if k < G, else k + 1.
	DragonflyAbsolute = "absolute"
	// Relative: link k of group G goes to group (G + k + 1) mod g.
	DragonflyRelative = "relative"
	// Circulant: links 2t and 2t+1 of group G go to groups G + t + 1 and
	// G − t − 1 (mod g); a·h must be even.
	DragonflyCirculant = "circulant"
)

// DragonflyArrangements lists the arrangements Dragonfly accepts.
func DragonflyArrangements() []string {
	return []string{DragonflyAbsolute, DragonflyCirculant, DragonflyRelative}
}

// Dragonfly is a maximum-size dragonfly (Kim et al. 2008): g = a·h + 1
// groups of a routers; each router has p servers, a − 1 local links (the
// group is a complete graph) and h global links, and every two groups are
// joined by exactly one global cable.
//
// Node numbers: server i of router r of group G is (G·a + r)·p + i; router
// r of group G is servers + G·a + r. Counts: g·a routers, g·a·p servers,
// 2·g·a·p + g·a·(a−1) + g·a·h directed links. Diameter 5 links (server,
// local, global, local, server) when a ≥ 2, 3 when a = 1.
type Dragonfly struct {
	*graph.Graph
	A, H, P, G  int
	Arrangement string
}

// NewDragonfly builds the dragonfly of routers with a per group, h global
// links and p servers each, global links arranged by arrangement, every
// link of capacity c.
func NewDragonfly(a, h, p int, arrangement string, c float64) (*Dragonfly, error) {
	if err := checkDragonfly(a, h, p, arrangement, c); err != nil {
		return nil, err
	}
	g := a*h + 1
	d := &Dragonfly{A: a, H: h, P: p, G: g, Arrangement: arrangement}
	routers, servers := g*a, g*a*p
	gr, err := graph.New(servers, routers, d.cables(c).l)
	if err != nil {
		return nil, err
	}
	d.Graph = gr
	return d, nil
}

// checkDragonfly refuses NewDragonfly's parameters out of range, an
// arrangement unknown or not possible with a and h, and a dragonfly too
// large for a graph.
func checkDragonfly(a, h, p int, arrangement string, c float64) error {
	if err := checkAtLeast("dragonfly a", a, 1); err != nil {
		return err
	}
	if err := checkAtLeast("dragonfly h", h, 1); err != nil {
		return err
	}
	if err := checkAtLeast("dragonfly p", p, 1); err != nil {
		return err
	}
	if err := checkCapacity("dragonfly capacity", c); err != nil {
		return err
	}
	switch arrangement {
	case DragonflyAbsolute, DragonflyRelative:
	case DragonflyCirculant:
		if a*h%2 != 0 {
			return fmt.Errorf("dragonfly arrangement: %q is not allowed with a·h = %d: circulant needs a·h even", arrangement, a*h)
		}
	default:
		return fmt.Errorf("dragonfly arrangement: %q is not allowed: must be one of %v", arrangement, DragonflyArrangements())
	}
	if a > graph.MaxNodes || h > graph.MaxNodes || p > graph.MaxNodes {
		return fmt.Errorf("dragonfly a %d, h %d, p %d: not allowed: each must be at most %d", a, h, p, graph.MaxNodes)
	}
	g := a*h + 1
	if _, err := product("dragonfly size", []int{g, a, p + 1}); err != nil {
		return err
	}
	// g·a routers (at most 2^30: g·a·(p+1) fits a graph) and a, h at most
	// 2^31: 2·g·a·p + g·a·(a−1) + g·a·h links, below 2^63.
	ga := int64(g) * int64(a)
	return checkLinks(fmt.Sprintf("dragonfly a %d, h %d, p %d", a, h, p), 2*ga*int64(p)+ga*int64(a-1)+ga*int64(h))
}

// cables lays d's cables, of capacity c: servers to their routers, every
// pair of routers of a group, and the global links, each once.
func (d *Dragonfly) cables(c float64) *links {
	a, h, p, g := d.A, d.H, d.P, d.G
	servers := g * a * p
	b := &links{c: c}
	router := func(grp, r int) int32 { return int32(servers + grp*a + r) }
	for x := 0; x < servers; x++ {
		b.cable(int32(x), int32(servers+x/p))
	}
	for grp := 0; grp < g; grp++ {
		for r := 0; r < a; r++ {
			for q := r + 1; q < a; q++ {
				b.cable(router(grp, r), router(grp, q))
			}
		}
	}
	for grp := 0; grp < g; grp++ {
		for k := 0; k < a*h; k++ {
			to := d.GlobalTarget(grp, k)
			back := d.GlobalIndex(to, grp)
			if d.GlobalTarget(to, back) != grp {
				panic("dragonfly: the arrangement is not symmetric") // a bug in GlobalIndex
			}
			if to > grp { // each cable once, from its lower group
				b.cable(router(grp, k/h), router(to, back/h))
			}
		}
	}
	return b
}

// GlobalTarget is the group global link k of group grp reaches.
func (d *Dragonfly) GlobalTarget(grp, k int) int {
	switch d.Arrangement {
	case DragonflyAbsolute:
		if k < grp {
			return k
		}
		return k + 1
	case DragonflyRelative:
		return (grp + k + 1) % d.G
	default: // circulant
		t := k / 2
		if k%2 == 0 {
			return (grp + t + 1) % d.G
		}
		return ((grp-t-1)%d.G + d.G) % d.G
	}
}

// GlobalIndex is the number k of group grp's global link to group to
// (to ≠ grp).
func (d *Dragonfly) GlobalIndex(grp, to int) int {
	switch d.Arrangement {
	case DragonflyAbsolute:
		if to < grp {
			return to
		}
		return to - 1
	case DragonflyRelative:
		return ((to-grp-1)%d.G + d.G) % d.G
	default: // circulant: to = grp + t + 1 (k = 2t) or grp − t − 1 (k = 2t+1)
		off := ((to-grp)%d.G + d.G) % d.G // 1..g−1
		if off <= d.A*d.H/2 {
			return 2 * (off - 1)
		}
		return 2*(d.G-off-1) + 1
	}
}

// Diameter is 5 links when a ≥ 2 (server, local, global, local, server),
// 3 when a = 1 (every router joined to every other by a global link).
func (d *Dragonfly) Diameter() int {
	if d.A == 1 {
		return 3
	}
	return 5
}

package topo

import (
	"fmt"
	"slices"
)

// dor is dimension-order routing on a torus (seed 001 section 3.2; the
// dateline scheme of Dally and Seitz, as the two SCs per SL of seed 000
// section 2.1 intend).
//
// At a switch, the packet corrects the lowest dimension whose coordinate
// differs from the destination switch's, in the shorter direction (+ when
// both are equally long). Trunk member dst % trunk carries it. Within a
// dimension it uses its SL's first SC until it crosses the dateline (the
// wrap-around link between coordinates size-1 and 0, in either direction)
// and its SL's second SC on that link and after; entering a new dimension
// (from a NIC or from a link of another dimension) it goes back to the
// first SC. The last hop, to the destination NIC, keeps the SC.
type dor struct {
	nd       int
	nics     int
	trunk    int
	size     []int   // per dimension
	base     []int   // per dimension: first + port
	coord    []int32 // coord[s*nd+i]: switch s's coordinate along dimension i
	inDim    []int8  // inDim[port]: dimension of a trunk port; -1 otherwise
	first    []int32 // first[sc]: first SC of sc's SL
	second   []int32 // second[sc]: second SC of sc's SL
	crossed  []bool  // crossed[sc]: sc is its SL's second SC
	dateline bool    // false only in tests: the routing without the SC switch
}

// NewDOR builds dimension-order routing for torus t. torusDims must equal
// t.Dims (nil means t.Dims). sl2sc[sl] lists the SCs of SL sl, of which the
// first two are used (it must have at least two); sc2sl[sc] is the SL of
// SC sc and must agree with sl2sc.
//
// Route expects dst < t.NumNICs() and sc < len(sc2sl); it allocates nothing
// and costs O(len(dims)).
func NewDOR(t *Topology, torusDims []int, sl2sc [][]int, sc2sl []int) (Router, error) {
	if t.Kind != KindTorus {
		return nil, fmt.Errorf("routing dor: topology %s is a %q, not a torus", t.Name, t.Kind)
	}
	if torusDims != nil && !slices.Equal(torusDims, t.Dims) {
		return nil, fmt.Errorf("routing dor: dims %v differ from topology %s's %v", torusDims, t.Name, t.Dims)
	}
	r := &dor{nd: len(t.Dims), nics: t.NICsPerSwitch, trunk: t.Trunk, size: t.Dims, dateline: true}
	if err := r.setSCs(sl2sc, sc2sl); err != nil {
		return nil, err
	}
	g := newTorusLayout(t)
	r.base = g.base
	r.coord = make([]int32, g.switches*r.nd)
	for s := 0; s < g.switches; s++ {
		for i := range r.nd {
			r.coord[s*r.nd+i] = int32(g.coord(s, i))
		}
	}
	r.inDim = make([]int8, g.radix)
	for p := range r.inDim {
		r.inDim[p] = -1
	}
	for i, b := range g.base {
		for p := b; b >= 0 && p < b+2*g.trunk; p++ {
			r.inDim[p] = int8(i)
		}
	}
	return r, nil
}

func (r *dor) setSCs(sl2sc [][]int, sc2sl []int) error {
	r.first = make([]int32, len(sc2sl))
	r.second = make([]int32, len(sc2sl))
	r.crossed = make([]bool, len(sc2sl))
	for sl, scs := range sl2sc {
		if len(scs) < 2 {
			return fmt.Errorf("routing dor: sl2sc[%d] = %v: each SL needs two SCs (before and after the dateline)", sl, scs)
		}
		for _, sc := range scs {
			if sc < 0 || sc >= len(sc2sl) || sc2sl[sc] != sl {
				return fmt.Errorf("routing dor: sl2sc[%d] lists SC %d, whose SL in sc2sl is not %d", sl, sc, sl)
			}
		}
	}
	for sc, sl := range sc2sl {
		if sl < 0 || sl >= len(sl2sc) {
			return fmt.Errorf("routing dor: sc2sl[%d] = %d: no such SL in sl2sc", sc, sl)
		}
		r.first[sc], r.second[sc] = int32(sl2sc[sl][0]), int32(sl2sc[sl][1])
		r.crossed[sc] = sc == sl2sc[sl][1]
	}
	return nil
}

func (r *dor) Route(sw, inPort, dst, sc int) (int, int) {
	ds := dst / r.nics
	if ds == sw {
		return dst % r.nics, sc
	}
	here := r.coord[sw*r.nd : sw*r.nd+r.nd]
	there := r.coord[ds*r.nd : ds*r.nd+r.nd]
	for i, c := range here {
		if c == there[i] {
			continue
		}
		size := int32(r.size[i])
		delta := there[i] - c
		if delta < 0 {
			delta += size
		}
		plus := 2*delta <= size
		port := r.base[i] + dst%r.trunk
		wraps := plus && c == size-1
		if !plus {
			port += r.trunk
			wraps = c == 0
		}
		after := wraps || int(r.inDim[inPort]) == i && r.crossed[sc]
		if after && r.dateline {
			return port, int(r.second[sc])
		}
		return port, int(r.first[sc])
	}
	panic("topo: dor: unreachable: destination switch equals this switch")
}

package topo

import (
	"fmt"
	"slices"
	"strings"
)

// dor is dimension-order routing on a torus (seed 001 section 3.2; the
// dateline scheme of Dally and Seitz, as the two SCs per SL of seed 000
// section 2.1 intend).
//
// At a switch, the packet corrects the lowest dimension whose coordinate
// differs from the destination switch's, in the shorter direction; a tie
// (exactly half way round an even ring) is broken by the Ties rule. The
// trunk member is chosen by the TrunkSelect rule. Within a dimension it
// uses its SL's first SC until it crosses the dateline (the wrap-around
// link between coordinates size-1 and 0, in either direction) and its SL's
// second SC on that link and after; entering a new dimension (from a NIC or
// from a link of another dimension) it goes back to the first SC. The last
// hop, to the destination NIC, keeps the SC.
type dor struct {
	nd       int
	nics     int
	trunk    int
	size     []int   // per dimension
	base     []int   // per dimension: first + port
	coord    []int32 // coord[s*nd+i]: switch s's coordinate along dimension i
	inDim    []int8  // inDim[port]: dimension of a trunk port; -1 otherwise
	member   []int32 // member[port]: trunk member of a trunk port; -1 otherwise
	tieOdd   []uint8 // tieOdd[s*nd+i]: parity of Σ_{j>=i} coord(s, j) (balanced ties)
	balanced bool    // ties: balanced (true) or plus
	sel      uint8   // trunk selection: selDstMod, selSrcDst or selHash
	first    []int32 // first[sc]: first SC of sc's SL
	second   []int32 // second[sc]: second SC of sc's SL
	crossed  []bool  // crossed[sc]: sc is its SL's second SC
	dateline bool    // false only in tests: the routing without the SC switch
}

// Tie rules of dor (RoutingOptions.Ties).
const (
	// TiesBalanced: a packet exactly half way round a ring goes + when
	// dst%nicsPerSwitch + Σ_{j>=i} (destination coordinate j) is even, −
	// otherwise (i the dimension being corrected).
	TiesBalanced = "balanced"
	// TiesPlus: a packet exactly half way goes + (the first implementation).
	TiesPlus = "plus"
)

// Trunk-member rules of dor (RoutingOptions.TrunkSelect).
const (
	// TrunkSrcDst: member (src·nicsPerSwitch + dst) % trunk, chosen at the
	// source switch and kept on every hop.
	TrunkSrcDst = "src_dst"
	// TrunkDstMod: member dst % trunk on every hop (the first
	// implementation).
	TrunkDstMod = "dst_mod"
	// TrunkHash: member hash(src, dst) % trunk, chosen at the source switch
	// and kept on every hop.
	TrunkHash = "hash"
)

const (
	selSrcDst uint8 = iota
	selDstMod
	selHash
)

// TieRules lists the values of RoutingOptions.Ties, the default first.
func TieRules() []string { return []string{TiesBalanced, TiesPlus} }

// TrunkSelects lists the values of RoutingOptions.TrunkSelect, the default
// first.
func TrunkSelects() []string { return []string{TrunkSrcDst, TrunkDstMod, TrunkHash} }

// NewDOR builds dimension-order routing for torus t. torusDims must equal
// t.Dims (nil means t.Dims). sl2sc[sl] lists the SCs of SL sl, of which the
// first two are used (it must have at least two); sc2sl[sc] is the SL of
// SC sc and must agree with sl2sc. o chooses the tie and trunk-member rules
// (the zero value: balanced ties, src_dst members).
//
// Route expects dst < t.NumNICs() and sc < len(sc2sl); it allocates nothing
// and costs O(len(dims)).
func NewDOR(t *Topology, torusDims []int, sl2sc [][]int, sc2sl []int, o RoutingOptions) (Router, error) {
	if t.Kind != KindTorus {
		return nil, fmt.Errorf("routing dor: topology %s is a %q, not a torus", t.Name, t.Kind)
	}
	if torusDims != nil && !slices.Equal(torusDims, t.Dims) {
		return nil, fmt.Errorf("routing dor: dims %v differ from topology %s's %v", torusDims, t.Name, t.Dims)
	}
	r := &dor{nd: len(t.Dims), nics: t.NICsPerSwitch, trunk: t.Trunk, size: t.Dims, dateline: true}
	switch o.Ties {
	case "", TiesBalanced:
		r.balanced = true
	case TiesPlus:
	default:
		return nil, fmt.Errorf("routing dor: ties %q is unknown (known: %s)", o.Ties, strings.Join(TieRules(), ", "))
	}
	switch o.TrunkSelect {
	case "", TrunkSrcDst:
		r.sel = selSrcDst
	case TrunkDstMod:
		r.sel = selDstMod
	case TrunkHash:
		r.sel = selHash
	default:
		return nil, fmt.Errorf("routing dor: trunk selection %q is unknown (known: %s)", o.TrunkSelect, strings.Join(TrunkSelects(), ", "))
	}
	if err := r.setSCs(sl2sc, sc2sl); err != nil {
		return nil, err
	}
	g := newTorusLayout(t)
	r.base = g.base
	r.coord = make([]int32, g.switches*r.nd)
	r.tieOdd = make([]uint8, g.switches*r.nd)
	for s := 0; s < g.switches; s++ {
		sum := 0
		for i := r.nd - 1; i >= 0; i-- {
			r.coord[s*r.nd+i] = int32(g.coord(s, i))
			sum += g.coord(s, i)
			r.tieOdd[s*r.nd+i] = uint8(sum & 1)
		}
	}
	r.inDim = make([]int8, g.radix)
	r.member = make([]int32, g.radix)
	for p := range r.inDim {
		r.inDim[p], r.member[p] = -1, -1
	}
	for i, b := range g.base {
		for p := b; b >= 0 && p < b+2*g.trunk; p++ {
			r.inDim[p], r.member[p] = int8(i), int32((p-b)%g.trunk)
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
	q := dst - ds*r.nics // the destination's port
	if ds == sw {
		return q, sc
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
		// A tie is only ever seen at the first switch of the dimension:
		// one hop on, delta is size/2 ∓ 1 and the shorter way is the way
		// already taken.
		plus := 2*delta < size || 2*delta == size && (!r.balanced || (int(r.tieOdd[ds*r.nd+i])+q)&1 == 0)
		port := r.base[i] + r.memberOf(sw, inPort, dst)
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

// memberOf is the trunk member a packet for dst takes out of switch sw,
// having entered on inPort. src_dst and hash choose it at the source
// switch (inPort is the source NIC's port, so src = sw*nics + inPort) and
// keep the member the packet came in on after that.
func (r *dor) memberOf(sw, inPort, dst int) int {
	if r.sel == selDstMod {
		return dst % r.trunk
	}
	if m := r.member[inPort]; m >= 0 {
		return int(m)
	}
	src := sw*r.nics + inPort
	if r.sel == selSrcDst {
		return (src*r.nics + dst) % r.trunk
	}
	return int(mix(uint64(src)<<32|uint64(dst)) % uint64(r.trunk))
}

// mix is SplitMix64's finalizer: a fixed, well-spread hash.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

package route

import "github.com/opasim/opasim/flow/graph"

// DModK is deterministic up/down routing on a k-ary n-tree with the d-mod-k
// choice of up port (Zahavi; seed 001 section 3.2): a flow to server d
// (base-k digits d_0..d_{n-1}) climbs from its leaf to the lowest level L
// whose switches have both source and destination below them, taking up
// port k+d_l at level l, then descends taking down port d_l at level l. The
// choice depends on the destination only, so all flows to d converge on
// one top switch per level: the routing spreads destinations, not sources.
// A flow crosses 2(L+1) links. Cost O(n) per flow, no division (divisions
// by k^i are multiplications).
type DModK struct {
	t    *graph.Tree
	k    int32
	kdiv divisor
	pdiv []divisor // pdiv[i] divides by k^i
	pow  []uint32  // k^i
	base uint32    // the first switch link: NumServers()
	per  uint32    // switches per level, k^(n-1)
	top  uint32    // the top level, n-1
	buf  []int32
}

// NewDModK returns d-mod-k routing for tree t.
func NewDModK(t *graph.Tree) *DModK {
	r := &DModK{t: t, k: int32(t.K), kdiv: newDivisor(uint32(t.K)), base: uint32(t.NumServers()),
		per: uint32(t.Pow(t.N - 1)), top: uint32(t.N - 1)}
	for i := 0; i <= t.N; i++ {
		r.pdiv = append(r.pdiv, newDivisor(uint32(t.Pow(i))))
		r.pow = append(r.pow, uint32(t.Pow(i)))
	}
	return r
}

// Name returns "dmodk".
func (r *DModK) Name() string { return "dmodk" }

// Graph returns the tree's graph.
func (r *DModK) Graph() *graph.Graph { return r.t.Graph }

// Clone returns a copy with its own path buffer.
func (r *DModK) Clone() Router {
	c := *r
	c.buf = nil
	return &c
}

// Route calls fn with the flow's one path, share 1.
func (r *DModK) Route(src, dst int32, fn PathFunc) error {
	if err := CheckPair(r.t.Graph, src, dst); err != nil {
		return err
	}
	r.buf = r.AppendPath(r.buf[:0], src, dst)
	fn(r.buf, 1)
	return nil
}

// AppendPath appends the path from server src to server dst (distinct,
// not checked) to buf.
//
// Link ids are computed, not looked up (a chain of lookups, one per hop,
// would cost a memory access each): the links of switch (l, w) start at
// NumServers() + l·k^(n-1)·2k + w·2k, as the tree builder lays them out
// (w·k at the top level, whose switches have no up links).
// With q_l = dst / k^l and digit d_l = q_l - k·q_{l+1}, the switch crossed
// at level l on the way up has label dst mod k^l + (src / k^(l+1))·k^l,
// on the way down dst mod k^l + q_{l+1}·k^l.
func (r *DModK) AppendPath(buf []int32, src, dst int32) []int32 {
	k := uint32(r.k)
	k2 := 2 * k
	base, per, top := r.base, r.per, r.top
	us, ud := uint32(src), uint32(dst)
	buf = append(buf, src) // server p's link is link p
	qs, qd, pow := us, ud, uint32(1)
	l := uint32(0)
	for ; ; l++ {
		qs1, qd1 := r.kdiv.div(qs), r.kdiv.div(qd)
		if qs1 == qd1 {
			break
		}
		w := ud - qd*pow + qs1*pow
		buf = append(buf, int32(base+l*per*k2+w*k2+k+qd-qd1*k))
		qs, qd, pow = qs1, qd1, pow*k
	}
	next := r.kdiv.div(qd) // q_{l+1}
	for ; l > 0; l-- {
		q := r.pdiv[l].div(ud) // q_l; pow = k^l
		w := ud - q*pow + next*pow
		deg := k2
		if l == top {
			deg = k
		}
		buf = append(buf, int32(base+l*per*k2+w*deg+q-next*k))
		next, pow = q, r.pow[l-1]
	}
	return append(buf, int32(base+next*k2+ud-next*k))
}

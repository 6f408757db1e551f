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
	buf  []int32
}

// NewDModK returns d-mod-k routing for tree t.
func NewDModK(t *graph.Tree) *DModK {
	r := &DModK{t: t, k: int32(t.K), kdiv: newDivisor(uint32(t.K))}
	for i := 0; i <= t.N; i++ {
		r.pdiv = append(r.pdiv, newDivisor(uint32(t.Pow(i))))
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
func (r *DModK) AppendPath(buf []int32, src, dst int32) []int32 {
	t := r.t
	us, ud := uint32(src), uint32(dst)
	top := 0
	for r.pdiv[top+1].div(us) != r.pdiv[top+1].div(ud) {
		top++
	}
	var digit [32]int32 // n <= 31: 2n·k^n links fit an int32
	q := ud
	for l := 0; l <= top; l++ {
		next := r.kdiv.div(q)
		digit[l] = int32(q - next*uint32(r.k))
		q = next
	}
	link := t.OutStart(src)
	buf = append(buf, link)
	sw := t.Head(link)
	for l := 0; l < top; l++ {
		link = t.OutStart(sw) + r.k + digit[l]
		buf = append(buf, link)
		sw = t.Head(link)
	}
	for l := top; l > 0; l-- {
		link = t.OutStart(sw) + digit[l]
		buf = append(buf, link)
		sw = t.Head(link)
	}
	return append(buf, t.OutStart(sw)+digit[0])
}

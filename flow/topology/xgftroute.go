package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// DModK returns d-mod-k routing on the XGFT (Zahavi et al.'s
// generalization of the k-ary n-tree's): a flow climbs only as high as the
// lowest common level of its ends, taking at level i the parent
// ⌊dst / (w_1·…·w_i)⌋ mod w_{i+1}, so flows to one destination share their
// up links, and comes down the one way there is. On XGFT(n; k..k; 1,
// k..k) it is the k-ary n-tree's d-mod-k.
func (x *XGFT) DModK() route.Router { return &xgftRouter{x: x} }

type xgftRouter struct {
	x   *XGFT
	buf []int32
}

func (r *xgftRouter) Name() string        { return "dmodk" }
func (r *xgftRouter) Graph() *graph.Graph { return r.x.Graph }
func (r *xgftRouter) Clone() route.Router { return &xgftRouter{x: r.x} }

// top is the lowest level whose nodes are common ancestors of servers src
// and dst: the highest position in which their labels (a_1 fastest, radix
// m_1, m_2...) differ.
func (x *XGFT) top(src, dst int32) int {
	level := 0
	for i := 0; i < x.H; i++ {
		m := int32(x.M[i])
		if src%m != dst%m {
			level = i + 1
		}
		src, dst = src/m, dst/m
	}
	return level
}

// AppendPath appends the d-mod-k path from server src to server dst.
func (r *xgftRouter) AppendPath(buf []int32, src, dst int32) []int32 {
	x := r.x
	top := x.top(src, dst)
	v, at, ws := src, int32(src), int32(1) // v: node number; at: its number within its level; ws = w_1·…·w_i
	for i := 0; i < top; i++ {
		j := int(dst/ws) % x.W[i]
		p := x.parent(i, at, j)
		buf = append(buf, x.LinkTo(v, p))
		v, at = p, p-x.base[i+1]
		ws *= int32(x.W[i])
	}
	for i := top; i > 0; i-- {
		// Down from level i to i−1: keep b_1..b_{i−1}, set a_i to dst's.
		ws /= int32(x.W[i-1])
		low := at % ws
		rest := at / ws / int32(x.W[i-1]) // a_{i+1}, a_{i+2}... as a number
		a := digit(x.M, dst, i-1)
		c := low + ws*(a+int32(x.M[i-1])*rest)
		child := x.base[i-1] + c
		buf = append(buf, x.LinkTo(v, child))
		v, at = child, c
	}
	if v != dst {
		panic(fmt.Sprintf("xgft d-mod-k: the path from %d ends at %d, not %d", src, v, dst))
	}
	return buf
}

// digit is a_{i+1} of server s: its digit i in the mixed radix m_1, m_2...
func digit(m []int, s int32, i int) int32 {
	for j := 0; j < i; j++ {
		s /= int32(m[j])
	}
	return s % int32(m[i])
}

func (r *xgftRouter) Route(src, dst int32, fn route.PathFunc) error {
	if err := route.CheckPair(r.x.Graph, src, dst); err != nil {
		return err
	}
	r.buf = r.AppendPath(r.buf[:0], src, dst)
	fn(r.buf, 1)
	return nil
}

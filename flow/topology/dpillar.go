package topology

import (
	"github.com/opasim/opasim/flow/graph"
)

// DPillar is the server-centric DPillar_(n,k) (Liao et al., "DPillar:
// dual-port server interconnection network for large scale data centers",
// Computer Networks 56(8), 2012): k columns of servers and k columns of
// n-port switches alternating round a cylinder. With h = n/2, each server
// column holds h^k dual-port servers, labelled (c, v_(k−1)..v_0), v_i < h;
// each switch column h^(k−1) switches. Switch column i joins server
// columns i and i+1 (mod k): its switch of label w (a server label without
// digit i) has ports 0..h−1 to the servers (i, w with v_i = j) and ports
// h..2h−1 to the servers (i+1, w with v_i = j). A server's port 0 goes to
// the switch of column c (clockwise), port 1 to that of column c−1
// (counter-clockwise): one switch hop moves a flow to a neighbouring
// column, or keeps it in its column, and sets one digit — the digit of
// the switch column crossed.
//
// Node numbers: server (c, v) is c·h^k + Σ v_i·h^i; the switch of column
// i and label w is servers + i·h^(k−1) + w, w being v without digit i
// (Σ_{j<i} v_j·h^j + Σ_{j>i} v_j·h^(j−1)). Servers forward.
//
// Counts: k·h^k servers, k·h^(k−1) switches, 4·k·h^k directed links
// (every server has two cables).
//
// Diameter (Diameter): 2·max(k, ⌊3k/2⌋ − 2) links, every path alternating
// server and switch. Derived here, not taken from the literature: two
// servers whose labels differ in every digit must cross or touch every
// switch column; a flow from column s to column t (d columns clockwise)
// can cross the d switch columns between them and reach the other k − d
// by excursions from both ends, each of length x costing 2x − 1 hops (out
// and back, the last one a hop that stays in its column), or the reverse,
// giving max(k, ⌊3k/2⌋ − 2) hops at the worst d. TestDPillar checks it
// against a breadth-first search for n = 4 (k = 2..8), 6 (k = 2..4) and
// 8 (k = 2, 3).
type DPillar struct {
	*graph.Graph
	N, K int
	h    int32 // n/2
	col  int32 // h^k servers per column
	swc  int32 // h^(k−1) switches per column
}

// NewDPillar builds DPillar_(n,k) (n even, at least 4; k at least 2) with
// links of capacity c.
func NewDPillar(n, k int, c float64) (*DPillar, error) {
	if err := checkAtLeast("dpillar n", n, 4); err != nil {
		return nil, err
	}
	if n%2 != 0 {
		return nil, checkEven("dpillar n", n)
	}
	if err := checkAtLeast("dpillar k", k, 2); err != nil {
		return nil, err
	}
	if err := checkCapacity("dpillar capacity", c); err != nil {
		return nil, err
	}
	h := n / 2
	col, err := power("dpillar size", h, k)
	if err != nil {
		return nil, err
	}
	if _, err := product("dpillar size", []int{col, k, 2}); err != nil {
		return nil, err
	}
	d := &DPillar{N: n, K: k, h: int32(h), col: int32(col), swc: int32(col / h)}
	servers := k * col
	var ls []graph.Link
	add := func(u, v int32) { ls = append(ls, graph.Link{From: u, To: v, Capacity: c}) }
	for s := int32(0); s < int32(servers); s++ {
		cc := s / d.col
		add(s, d.Switch(int(cc), s%d.col))
		add(s, d.Switch(int((cc+int32(k)-1)%int32(k)), s%d.col))
	}
	for i := 0; i < k; i++ {
		hi := d.pow(i)
		for w := int32(0); w < d.swc; w++ {
			// v with digit i = 0: the low i digits of w stay, the rest move up.
			v0 := w%hi + w/hi*hi*d.h
			sw := d.Switch(i, v0)
			for side := int32(0); side < 2; side++ {
				cc := (int32(i) + side) % int32(k)
				for j := int32(0); j < d.h; j++ {
					add(sw, cc*d.col+v0+j*hi)
				}
			}
		}
	}
	g, err := serverCentric(servers, k*int(d.swc), ls)
	if err != nil {
		return nil, err
	}
	d.Graph = g
	return d, nil
}

func (d *DPillar) pow(i int) int32 {
	p := int32(1)
	for range i {
		p *= d.h
	}
	return p
}

// Switch is the node of the column-i switch joined to servers of label v
// (v's digit i is ignored).
func (d *DPillar) Switch(i int, v int32) int32 {
	hi := d.pow(i)
	w := v%hi + v/(hi*d.h)*hi
	return int32(d.K)*d.col + int32(i)*d.swc + w
}

// Server is the node of server (c, v).
func (d *DPillar) Server(c int, v int32) int32 { return int32(c)*d.col + v }

// Diameter is 2·max(k, ⌊3k/2⌋ − 2) links (see the type's comment).
func (d *DPillar) Diameter() int { return 2 * max(d.K, 3*d.K/2-2) }

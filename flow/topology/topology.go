// Package topology builds the flow engine's topologies beyond the torus
// and the k-ary n-tree of package graph (seed 001 section 3.2). Switch-
// centric: meshes, generalized fat trees (XGFT, of which thin trees are a
// case), dragonflies with their global-link arrangements, seeded
// jellyfish, and graphs read from a file. Server-centric, whose graphs
// have servers that forward (graph.WithServersForward): BCube, the
// DCell/FiConn family (GDCFiConn), DPillar, and HCN/BCN.
//
// Every builder returns a *graph.Graph whose servers are nodes
// 0..servers-1, in the order the builder's doc comment gives, and whose
// switches follow. Every cable is two directed links of the same capacity.
// Diameters are in links between servers, as graph.Diameter counts them.
package topology

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/graph"
)

// links collects the directed links of a topology, both directions of a
// cable at once.
type links struct {
	l []graph.Link
	c float64
}

func (b *links) cable(u, v int32) {
	b.l = append(b.l, graph.Link{From: u, To: v, Capacity: b.c}, graph.Link{From: v, To: u, Capacity: b.c})
}

// checkPositive refuses a count below min.
func checkAtLeast(field string, v, min int) error {
	if v < min {
		return fmt.Errorf("%s: %d is not allowed: must be at least %d", field, v, min)
	}
	return nil
}

// checkLinks refuses a graph of more than graph.MaxLinks directed links
// before its links are listed; links is a count worked out from the
// parameters (at most 2^62: no overflow).
func checkLinks(what string, links int64) error {
	if links > graph.MaxLinks {
		return fmt.Errorf("%s: %d directed links is not allowed: must be at most %d", what, links, graph.MaxLinks)
	}
	return nil
}

func checkCapacity(field string, c float64) error {
	if !(c > 0) || math.IsInf(c, 0) {
		return fmt.Errorf("%s: %v is not allowed: must be positive and finite", field, c)
	}
	return nil
}

// product multiplies xs, refusing a result past graph.MaxNodes (a factor
// past it too, before multiplying: no overflow).
func product(field string, xs []int) (int64, error) {
	p := int64(1)
	for _, x := range xs {
		if x > graph.MaxNodes {
			return 0, fmt.Errorf("%s: %v gives more than %d nodes", field, xs, graph.MaxNodes)
		}
		p *= int64(x)
		if p > graph.MaxNodes {
			return 0, fmt.Errorf("%s: %v gives more than %d nodes", field, xs, graph.MaxNodes)
		}
	}
	return p, nil
}

// Mesh is a mesh of switches (a torus without its wrap-around links) of
// any number of dimensions, with serversPerSwitch servers on every switch:
// switch s = Σ c_i·Π_{j<i} dims[j] (dimension 0 fastest) is node
// servers + s, server p sits on switch p / serversPerSwitch. Counts: W =
// Π dims switches, c·W servers, 2·c·W + 2·Σ_i (dims[i]−1)·W/dims[i] directed
// links; diameter 2 + Σ (dims[i] − 1).
func Mesh(dims []int, serversPerSwitch int, c float64) (*graph.Graph, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("mesh dims: [] is not allowed: must have at least one dimension")
	}
	for i, d := range dims {
		if err := checkAtLeast(fmt.Sprintf("mesh dims[%d]", i), d, 1); err != nil {
			return nil, err
		}
	}
	if err := checkAtLeast("mesh servers per switch", serversPerSwitch, 1); err != nil {
		return nil, err
	}
	if err := checkCapacity("mesh capacity", c); err != nil {
		return nil, err
	}
	w, err := product("mesh dims", append(append([]int(nil), dims...), serversPerSwitch))
	if err != nil {
		return nil, err
	}
	switches := int(w) / serversPerSwitch
	servers := int(w)
	// 2·c·W + 2·Σ (dims[i]−1)·W/dims[i]: at most 2·W·(c + 31) (at most 30
	// dimensions are of size 2 or more).
	count := 2 * int64(servers)
	for _, d := range dims {
		count += 2 * int64(d-1) * int64(switches/d)
	}
	if err := checkLinks(fmt.Sprintf("mesh %v with %d servers per switch", dims, serversPerSwitch), count); err != nil {
		return nil, err
	}
	b := &links{c: c}
	for p := 0; p < servers; p++ {
		b.cable(int32(p), int32(servers+p/serversPerSwitch))
	}
	stride := 1
	for _, d := range dims {
		for s := 0; s < switches; s++ {
			if (s/stride)%d < d-1 {
				b.cable(int32(servers+s), int32(servers+s+stride))
			}
		}
		stride *= d
	}
	return graph.New(servers, switches, b.l)
}

// MeshDiameter is Mesh's diameter in links: 2 + Σ (dims[i] − 1).
func MeshDiameter(dims []int) int {
	d := 2
	for _, x := range dims {
		d += x - 1
	}
	return d
}

// XGFT is the extended generalized fat tree XGFT(h; m_1..m_h; w_1..w_h)
// (Öhring et al. 1995): servers are level 0, switches levels 1..h; a node
// of level i has w_{i+1} parents and one of level i+1 has m_{i+1}
// children. A level-i node is labelled (a_h..a_{i+1}, b_i..b_1), a_j <
// m_j, b_j < w_j; it is joined to the level-(i+1) nodes whose labels equal
// its own but in position i+1, where its a_{i+1} is their b_{i+1}. Counts:
// Π m_j servers; level i has Π_{j>i} m_j · Π_{j≤i} w_j switches; each
// level i < h sends Π_{j>i} m_j · Π_{j≤i+1} w_j cables up. Diameter 2h
// (servers whose labels differ in a_h) when m_h ≥ 2.
//
// The k-ary n-tree is XGFT(n; k..k; 1, k..k); a thin tree whose switches
// have k links down and k' up is XGFT(n; k..k; 1, k'..k') (ThinTree).
//
// Node numbers: servers 0.. by their label read as a mixed-radix number
// (a_1 fastest); then the switches of level 1, 2, .., h, each level by
// its label with b_1 fastest, then b_2.., then a_{i+1}...
type XGFT struct {
	*graph.Graph
	H    int
	M, W []int   // m_1..m_h, w_1..w_h
	base []int32 // base[i]: node number of the first node of level i (i = 0..h)
}

// MaxXGFTHeight bounds an XGFT's height (len(m)): with every m_j ≥ 2 a
// graph holds at most 30 levels; levels of m_j = 1 only repeat the one
// below, and the builder's and d-mod-k's work grows as the square of the
// height.
const MaxXGFTHeight = 64

// NewXGFT builds XGFT(len(m); m; w) with links of capacity c.
func NewXGFT(m, w []int, c float64) (*XGFT, error) {
	h := len(m)
	if h == 0 || len(w) != h {
		return nil, fmt.Errorf("xgft: m of %d levels and w of %d are not allowed: must be non-empty and of the same length", len(m), len(w))
	}
	if h > MaxXGFTHeight {
		return nil, fmt.Errorf("xgft m: %d levels is not allowed: must be 1 to %d", h, MaxXGFTHeight)
	}
	for i := range m {
		if err := checkAtLeast(fmt.Sprintf("xgft m[%d]", i), m[i], 1); err != nil {
			return nil, err
		}
		if err := checkAtLeast(fmt.Sprintf("xgft w[%d]", i), w[i], 1); err != nil {
			return nil, err
		}
	}
	if err := checkCapacity("xgft capacity", c); err != nil {
		return nil, err
	}
	t := &XGFT{H: h, M: append([]int(nil), m...), W: append([]int(nil), w...), base: make([]int32, h+2)}
	total := int64(0)
	for i := 0; i <= h; i++ {
		t.base[i] = int32(total)
		n, err := t.levelSize(i)
		if err != nil {
			return nil, err
		}
		total += n
		if total > graph.MaxNodes {
			return nil, fmt.Errorf("xgft: m %v, w %v gives more than %d nodes", m, w, graph.MaxNodes)
		}
	}
	t.base[h+1] = int32(total)
	// Level i sends (its nodes)·w_(i+1) cables up: each term below 2^62,
	// the sum refused once past graph.MaxLinks.
	count := int64(0)
	for i := 0; i < h; i++ {
		count += 2 * int64(t.base[i+1]-t.base[i]) * int64(w[i])
		if err := checkLinks(fmt.Sprintf("xgft m %v, w %v", m, w), count); err != nil {
			return nil, err
		}
	}
	servers := int(t.base[1])
	b := &links{c: c}
	for i := 0; i < h; i++ {
		n := t.base[i+1] - t.base[i]
		for x := int32(0); x < n; x++ {
			for j := 0; j < w[i]; j++ {
				b.cable(t.base[i]+x, t.parent(i, x, j))
			}
		}
	}
	g, err := graph.New(servers, int(total)-servers, b.l)
	if err != nil {
		return nil, err
	}
	t.Graph = g
	return t, nil
}

// levelSize is the number of nodes of level i: Π_{j>i} m_j · Π_{j≤i} w_j.
func (t *XGFT) levelSize(i int) (int64, error) {
	xs := append(append([]int(nil), t.M[i:]...), t.W[:i]...)
	return product("xgft level", xs)
}

// parent returns the node number of the j-th parent of node x of level i
// (x counted within its level). Within level i a label is the number
// Σ b_k·Π_{l<k} w_l + (Π_{l≤i} w_l)·(a_{i+1} + m_{i+1}·(a_{i+2} + ...)),
// so the parent's number replaces a_{i+1} by j as b_{i+1}.
func (t *XGFT) parent(i int, x int32, j int) int32 {
	bs := int32(1) // Π_{l≤i} w_l
	for l := 0; l < i; l++ {
		bs *= int32(t.W[l])
	}
	low := x % bs // b_1..b_i
	a := x / bs   // a_{i+1} + m_{i+1}·(rest)
	rest := a / int32(t.M[i])
	return t.base[i+1] + low + bs*(int32(j)+int32(t.W[i])*rest)
}

// Level returns the level of node v (0 for a server).
func (t *XGFT) Level(v int32) int {
	for i := t.H; i >= 0; i-- {
		if v >= t.base[i] {
			return i
		}
	}
	return 0
}

// Diameter is 2h when m_h ≥ 2 (else that of the XGFT below the top).
func (t *XGFT) Diameter() int {
	for i := t.H - 1; i >= 0; i-- {
		if t.M[i] >= 2 {
			return 2 * (i + 1)
		}
	}
	return 0
}

// ThinTree is a thin tree of n levels whose switches have k links down
// and k' (kUp) up: XGFT(n; k..k; 1, k'..k'). It has k^n servers and
// k'^(l−1)·k^(n−l) switches at level l; with k' = k it is the k-ary
// n-tree, with k' < k its links narrow toward the top in the ratio k:k'.
func ThinTree(k, kUp, n int, c float64) (*XGFT, error) {
	if err := checkAtLeast("thin tree k", k, 2); err != nil {
		return nil, err
	}
	if kUp < 1 || kUp > k {
		return nil, fmt.Errorf("thin tree k': %d is not allowed: must be in [1, %d] (k)", kUp, k)
	}
	if n < 1 || n > MaxXGFTHeight {
		return nil, fmt.Errorf("thin tree levels: %d is not allowed: must be in [1, %d]", n, MaxXGFTHeight)
	}
	m, w := make([]int, n), make([]int, n)
	for i := range m {
		m[i], w[i] = k, kUp
	}
	w[0] = 1
	return NewXGFT(m, w, c)
}

package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opasim/opasim/flow/graph"
)

// Counts is the size of a parametric topology's graph, worked out from its
// parameters alone, before anything is built or allocated (the builders'
// doc comments give the closed forms). Counts saturate at countCap: a size
// that large is only ever refused.
type Counts struct {
	Servers, Switches int64
	// Links is the number of directed links (two a cable).
	Links int64
	// LinksAtMost: Links is an upper bound, not the count (jellyfish: its
	// random wiring may leave a few ports free).
	LinksAtMost bool
}

// countCap is where counts saturate (AddBytes' and MulBytes' 2^62).
const countCap = 1 << 62

// Nodes is servers and switches.
func (n Counts) Nodes() int64 { return AddBytes(n.Servers, n.Switches) }

// fits reports whether the graph fits graph's int32 node and link numbers.
func (n Counts) fits() bool { return n.Nodes() <= graph.MaxNodes && n.Links <= graph.MaxLinks }

// count is a count for a message: the number, or "more than 4.6e18" once
// saturated.
func count(n int64) string {
	if n >= countCap {
		return "more than 4.6e18"
	}
	return strconv.FormatInt(n, 10)
}

// String is "S servers, W switches and L links" for a message.
func (n Counts) String() string {
	links := count(n.Links)
	if n.LinksAtMost {
		links = "at most " + links
	}
	return fmt.Sprintf("%s servers, %s switches and %s links", count(n.Servers), count(n.Switches), links)
}

// add and mul are AddBytes and MulBytes for counts (saturating at 2^62).
func add(xs ...int64) int64 { return AddBytes(xs...) }
func mul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x <= 0 {
			return 0
		}
		p = MulBytes(p, x)
	}
	return p
}

// pow is base^exp for base, exp >= 0, saturating at 2^62 (at most 63
// multiplications: a base of 2 or more saturates by then).
func pow(base, exp int64) int64 {
	switch {
	case exp <= 0:
		return 1
	case base <= 1:
		return max(base, 0)
	}
	p := int64(1)
	for range min(exp, 63) {
		p = MulBytes(p, base)
	}
	return p
}

// Counts is the topology's size from its parameters alone (after Resolve),
// computed in closed form with saturating arithmetic: no allocation, no
// overflow, however large the parameters. ok is false for a graph file, an
// unknown kind, and parameters the kind's builder refuses itself (a
// number below its least value, say), before it allocates anything.
func (t *Topology) Counts() (n Counts, ok bool) {
	i64 := func(x int) int64 { return int64(x) }
	switch t.Kind {
	case KindTree: // k^n servers, n·k^(n−1) switches, 2n·k^n links
		if t.K < 2 || t.N < 1 {
			return Counts{}, false
		}
		k, lv := i64(t.K), i64(t.N)
		s := pow(k, lv)
		return Counts{Servers: s, Switches: mul(lv, pow(k, lv-1)), Links: mul(2, lv, s)}, true
	case KindTorus, KindMesh:
		return t.gridCounts()
	case KindXGFT, KindThinTree:
		return t.xgftKindCounts()
	case KindDragonfly:
		return t.dragonflyCounts()
	case KindJellyfish:
		return t.jellyfishCounts()
	case KindBCube:
		// n^(k+1) servers, (k+1)·n^k switches, 2·(k+1)·n^(k+1) links.
		if t.N < 2 || t.K < 0 {
			return Counts{}, false
		}
		n, k := i64(t.N), i64(t.K)
		s := pow(n, add(k, 1))
		return Counts{Servers: s, Switches: mul(add(k, 1), pow(n, k)), Links: mul(2, add(k, 1), s)}, true
	case KindDCell, KindFiConn:
		return gdcCounts(t)
	case KindDPillar:
		// h = n/2: k·h^k servers, k·h^(k−1) switches, 4·k·h^k links.
		if t.N < 4 || t.N%2 != 0 || t.K < 2 {
			return Counts{}, false
		}
		h, k := i64(t.N/2), i64(t.K)
		s := mul(k, pow(h, k))
		return Counts{Servers: s, Switches: mul(k, pow(h, k-1)), Links: mul(4, s)}, true
	case KindHCN: // BCN with β = 0: one copy
		if t.N < 2 || t.H < 0 {
			return Counts{}, false
		}
		return hcnCounts(i64(t.N), 0, i64(t.H), -1), true
	case KindBCN:
		if t.Beta < 1 || t.Gamma < 0 || t.Gamma > t.H || t.Alpha < 2 || t.H < 0 {
			return Counts{}, false
		}
		return hcnCounts(i64(t.Alpha), i64(t.Beta), i64(t.H), i64(t.Gamma)), true
	}
	return Counts{}, false
}

// gridCounts is Counts for a torus or a mesh.
func (t *Topology) gridCounts() (Counts, bool) {
	// W = Π dims switches, c·W servers; links: 2·c·W to and from the
	// servers, and along dimension i, 2·W on a torus (when dims[i] > 1),
	// 2·(dims[i] − 1)·W/dims[i] on a mesh.
	if len(t.Dims) == 0 || t.ServersPerSwitch < 1 {
		return Counts{}, false
	}
	for _, d := range t.Dims {
		if d < 1 {
			return Counts{}, false
		}
	}
	w := int64(1)
	for _, d := range t.Dims {
		w = mul(w, int64(d))
	}
	c := int64(t.ServersPerSwitch)
	links := mul(2, c, w)
	if w >= countCap {
		return Counts{Servers: countCap, Switches: countCap, Links: countCap}, true
	}
	for _, d := range t.Dims { // W < 2^62: W/dims[i] is exact
		switch {
		case d == 1:
		case t.Kind == KindTorus:
			links = add(links, mul(2, w))
		default:
			links = add(links, mul(2, int64(d-1), w/int64(d)))
		}
	}
	return Counts{Servers: mul(c, w), Switches: w, Links: links}, true
}

// xgftKindCounts is Counts for an XGFT or a thin tree
// (XGFT(n; k..k; 1, k'..k')).
func (t *Topology) xgftKindCounts() (Counts, bool) {
	if t.Kind == KindThinTree {
		return t.thinTreeCounts()
	}
	if len(t.M) == 0 || len(t.W) != len(t.M) {
		return Counts{}, false
	}
	for i := range t.M {
		if t.M[i] < 1 || t.W[i] < 1 {
			return Counts{}, false
		}
	}
	return xgftCounts(len(t.M), func(i int) int64 { return int64(t.M[i]) }, func(i int) int64 { return int64(t.W[i]) }), true
}

// thinTreeCounts is Counts for a thin tree, XGFT(n; k..k; 1, k'..k').
func (t *Topology) thinTreeCounts() (Counts, bool) {
	if t.K < 2 || t.KUp < 1 || t.KUp > t.K || t.N < 1 {
		return Counts{}, false
	}
	k, up := int64(t.K), int64(t.KUp)
	w := func(i int) int64 {
		if i == 0 {
			return 1
		}
		return up
	}
	return xgftCounts(t.N, func(int) int64 { return k }, w), true
}

// dragonflyCounts is Counts for a dragonfly.
func (t *Topology) dragonflyCounts() (Counts, bool) {
	// g = a·h + 1 groups of a routers of p servers: g·a routers, g·a·p
	// servers; links 2·g·a·p (servers), g·a·(a−1) (local), g·a·h
	// (global).
	if t.A < 1 || t.H < 1 || t.P < 1 {
		return Counts{}, false
	}
	a, h, p := int64(t.A), int64(t.H), int64(t.P)
	ga := mul(add(mul(a, h), 1), a)
	return Counts{Servers: mul(ga, p), Switches: ga,
		Links: add(mul(2, ga, p), mul(ga, a-1), mul(ga, h))}, true
}

// jellyfishCounts is Counts for a Jellyfish (its links: at most).
func (t *Topology) jellyfishCounts() (Counts, bool) {
	// n switches of k ports, r to switches: n·(k−r) servers; at most
	// 2·n·(k−r) + 2·⌊n·r/2⌋ links.
	n, k, r := int64(t.Switches), int64(t.Ports), int64(t.SwitchPorts)
	if n < 2 || r < 1 || r > n-1 || k < r+1 {
		return Counts{}, false
	}
	s := mul(n, k-r)
	return Counts{Servers: s, Switches: n, Links: add(mul(2, s), mul(2, mul(n, r)/2)), LinksAtMost: true}, true
}

// xgftCounts is XGFT(h; m; w)'s size: level i has L_i = Π_{j≥i} m_j ·
// Π_{j<i} w_j nodes (indices from 0: level 0 the servers), and sends
// L_i·w_i cables up, for i < h.
func xgftCounts(h int, m, w func(int) int64) Counts {
	// L_i from L_(i−1): divide out m_(i−1), multiply by w_(i−1). Kept as
	// the two products so a saturated one stays exact in the other.
	upper := int64(1) // Π_{j≥i} m_j
	for i := 0; i < h && upper < countCap; i++ {
		upper = mul(upper, m(i))
	}
	var n Counts
	lower := int64(1) // Π_{j<i} w_j
	n.Servers = upper
	for i := 0; i < h; i++ {
		li := mul(upper, lower)
		n.Links = add(n.Links, mul(2, li, w(i)))
		if upper < countCap {
			upper /= m(i)
		} else {
			upper = countCap // saturated: the remaining product is not known, but the sums are past any limit
		}
		lower = mul(lower, w(i))
		n.Switches = add(n.Switches, mul(upper, lower))
		if n.Links >= countCap && n.Switches >= countCap {
			break // h may be huge (a thin tree's n): nothing more to add
		}
	}
	return n
}

// gdcCounts is DCell_k's or FiConn_k's size (topology.GDCFiConn): t_0 = n
// servers on a switch; D_m joins g_m copies of D_(m−1), g_m = t_(m−1) + 1
// (DCell) or t_(m−1)/2^m + 1 (FiConn). t_k servers, t_k/n switches, 2·t_k
// links to the switches and (t_k/t_m)·g_m·(g_m−1) of level m: k·t_k for
// DCell, t_k − t_k/2^k for FiConn.
func gdcCounts(t *Topology) (Counts, bool) {
	if t.N < 2 || t.K < 0 || (t.Kind == KindFiConn && t.N%2 != 0) {
		return Counts{}, false
	}
	n, k := int64(t.N), int64(t.K)
	tm := n
	for m := int64(1); m <= k; m++ {
		if tm > graph.MaxNodes {
			// Past any graph; t squares (DCell) or at least doubles
			// (FiConn) at every level from here.
			return Counts{Servers: countCap, Switches: countCap, Links: countCap}, true
		}
		if t.Kind == KindFiConn {
			if tm%(1<<m) != 0 {
				return Counts{}, false // no FiConn of this size: the builder says so
			}
			tm = mul(tm>>m+1, tm)
		} else {
			tm = mul(tm+1, tm)
		}
	}
	if tm > graph.MaxNodes {
		return Counts{Servers: countCap, Switches: countCap, Links: countCap}, true
	}
	c := Counts{Servers: tm, Switches: tm / n}
	if t.Kind == KindFiConn {
		c.Links = 3*tm - tm>>k // k <= 31 here: t_k >= 2^k·... fits
	} else {
		c.Links = mul(add(k, 2), tm)
	}
	return c, true
}

// hcnCounts is BCN(α, β, h, γ)'s size, or HCN(α, h)'s with γ < 0 (β = 0):
// s = α^γ·β + 1 copies (1 for HCN), each of α^(h+1) leaders, α^h·β
// followers and α^h switches; cables: α^h·(α+β) to the switches and
// (α^(h+1) − α)/2 between leaders a copy, s·α^h·β/2 between followers.
func hcnCounts(alpha, beta, h, gamma int64) Counts {
	sw := pow(alpha, h)
	leaders := mul(sw, alpha)
	copies := int64(1)
	if gamma >= 0 {
		copies = add(mul(pow(alpha, gamma), beta), 1)
	}
	per := add(leaders, mul(sw, beta))
	links := add(mul(2, sw, add(alpha, beta)), max(leaders-alpha, 0)) // a copy's, but its followers'
	if leaders >= countCap {
		links = countCap
	}
	return Counts{
		Servers:  mul(copies, per),
		Switches: mul(copies, sw),
		Links:    add(mul(copies, links), mul(copies, sw, beta)),
	}
}

// plannedRouter is the name of the router the build will give (by which
// routingBytes goes), known before the build: the routing asked for, or
// the topology's default (a generic one with failed cables).
func (c *Config) plannedRouter() string {
	t := &c.Topology
	if r := c.Routing.Name; r != "" {
		return r
	}
	if t.FailCount == 0 && t.FailFraction == 0 {
		switch t.Kind {
		case KindTree, KindXGFT, KindThinTree:
			return "dmodk"
		case KindTorus:
			return "dor"
		case KindDragonfly:
			return "minimal"
		}
	}
	return "bfs"
}

// params is the topology's kind and the parameters its size comes from,
// as its YAML reads, for a message: {kind: tree, k: 32, n: 5}.
func (t *Topology) params() string {
	var s string
	switch t.Kind {
	case KindTree:
		s = fmt.Sprintf("k: %d, n: %d", t.K, t.N)
	case KindTorus, KindMesh:
		s = fmt.Sprintf("dims: %s, servers_per_switch: %d", list(t.Dims), t.ServersPerSwitch)
	case KindXGFT:
		s = fmt.Sprintf("m: %s, w: %s", list(t.M), list(t.W))
	case KindThinTree:
		s = fmt.Sprintf("k: %d, k_up: %d, n: %d", t.K, t.KUp, t.N)
	case KindDragonfly:
		s = fmt.Sprintf("a: %d, h: %d, p: %d", t.A, t.H, t.P)
	case KindJellyfish:
		s = fmt.Sprintf("switches: %d, ports: %d, switch_ports: %d", t.Switches, t.Ports, t.SwitchPorts)
	case KindBCube, KindDCell, KindFiConn, KindDPillar:
		s = fmt.Sprintf("n: %d, k: %d", t.N, t.K)
	case KindHCN:
		s = fmt.Sprintf("n: %d, h: %d", t.N, t.H)
	case KindBCN:
		s = fmt.Sprintf("alpha: %d, beta: %d, h: %d, gamma: %d", t.Alpha, t.Beta, t.H, t.Gamma)
	}
	s = fmt.Sprintf("{kind: %s, %s}", t.Kind, s)
	if t.Preset != "" {
		return fmt.Sprintf("preset %s %s", t.Preset, s)
	}
	return s
}

// list is xs in YAML's flow style, its first 8 elements only when it has
// more than 10.
func list(xs []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i == 8 && len(xs) > 10 {
			fmt.Fprintf(&b, ", ... (%d in all)", len(xs))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte(']')
	return b.String()
}

// checkCounts refuses, before anything is built or allocated, a
// parametric topology (Counts) whose graph passes graph.MaxNodes or
// graph.MaxLinks, or whose graph and run would take more than b: the
// graph (graph.MemoryBytesOf), the scratch of the run's workers and the
// routing's tables, as StaticBytes (or, with b.Dynamic, DynamicBytes
// before any flow) will count them once it is built.
func (c *Config) checkCounts(b Budget) error {
	t := &c.Topology
	n, ok := t.Counts()
	if !ok {
		return nil
	}
	if !n.fits() {
		return fmt.Errorf("topology %s: %s (%s nodes) is not allowed: a graph holds at most %d nodes and %d links; make the parameters smaller",
			t.params(), n, count(n.Nodes()), graph.MaxNodes, graph.MaxLinks)
	}
	workers := c.runWorkers(b)
	est := AddBytes(countsRunBytes(n.Nodes(), n.Links, workers), c.routingBytesOf(c.plannedRouter()))
	engine := fmt.Sprintf("the static engine on %s with %d workers (--workers)", n, workers)
	if b.Dynamic {
		engine = fmt.Sprintf("the dynamic engine on %s, before any flow", n)
	}
	return b.Check(est, fmt.Sprintf("topology %s, counted before building: %s", t.params(), engine))
}

// CheckSize is the check BuildWithin makes before it builds, on a copy of
// c with its preset resolved: from the topology's parameters alone,
// nothing built, it refuses a graph past the graph's limits or a graph
// and run that would take more than b. A graph file is not counted here
// (BuildWithin counts it as it reads it).
func (c Config) CheckSize(b Budget) error {
	if err := c.Resolve(); err != nil {
		return err
	}
	return c.checkCounts(b)
}

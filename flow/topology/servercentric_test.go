package topology

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// serverCentricChecks: servers forward; every link has its reverse; no
// link joins a switch to a switch; the BFS diameter is diam (connected);
// ECMP with one path routes a sample of pairs over valid paths as long as
// the BFS distance.
func serverCentricChecks(t *testing.T, name string, g *graph.Graph, diam int) {
	t.Helper()
	if !g.ServersForward() {
		t.Fatalf("%s: servers do not forward", name)
	}
	pairs := map[[2]int32]int{}
	for l := int32(0); l < int32(g.NumLinks()); l++ {
		u, v := g.Tail(l), g.Head(l)
		if !g.IsServer(u) && !g.IsServer(v) {
			t.Fatalf("%s: link %d joins switches %d and %d", name, l, u, v)
		}
		pairs[[2]int32{u, v}]++
	}
	for p, n := range pairs {
		if pairs[[2]int32{p[1], p[0]}] != n {
			t.Fatalf("%s: %d links %d→%d, %d back", name, n, p[0], p[1], pairs[[2]int32{p[1], p[0]}])
		}
	}
	if d, ok := g.Diameter(); !ok || d != diam {
		t.Errorf("%s: BFS diameter %d (connected %t), want %d", name, d, ok, diam)
	}
	r, err := route.NewECMP(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	dist := make([]int32, g.NumNodes())
	n := int32(g.NumServers())
	step := max(1, n/23)
	for s := int32(0); s < n; s += step {
		g.Distances(s, dist, nil)
		for d := int32(0); d < n; d += max(1, step/2) {
			if d == s {
				continue
			}
			p, err := route.Path(r, s, d)
			if err != nil {
				t.Fatalf("%s %d→%d: %v", name, s, d, err)
			}
			checkPath(t, g, p, s, d)
			if len(p) != int(dist[d]) {
				t.Fatalf("%s %d→%d: %d links, BFS distance %d", name, s, d, len(p), dist[d])
			}
		}
	}
}

// degrees counts the servers (or switches) of g by degree.
func degrees(g *graph.Graph, servers bool) map[int]int {
	out := map[int]int{}
	for v := int32(0); v < int32(g.NumNodes()); v++ {
		if g.IsServer(v) == servers {
			out[g.Degree(v)]++
		}
	}
	return out
}

// TestBCube: n^(k+1) servers of k+1 ports, (k+1)·n^k switches of n
// ports, 2(k+1)n^(k+1) links, diameter 2(k+1) (Guo et al.'s k+1 switch
// hops), and the documented wiring: switch port j reaches the server
// whose digit l is j.
func TestBCube(t *testing.T) {
	for _, c := range [][2]int{{2, 0}, {2, 1}, {3, 1}, {4, 1}, {2, 2}, {3, 2}, {4, 2}, {2, 3}, {3, 3}, {2, 4}} {
		n, k := c[0], c[1]
		b, err := NewBCube(n, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := ipow(n, k+1)
		name := fmt.Sprintf("bcube(%d,%d)", n, k)
		counts(t, name, b.Graph, s, (k+1)*s/n, 2*(k+1)*s, 2*(k+1))
		if b.Diameter() != 2*(k+1) {
			t.Errorf("%s: Diameter() %d", name, b.Diameter())
		}
		if d := degrees(b.Graph, true); len(d) != 1 || d[k+1] != s {
			t.Errorf("%s: server degrees %v", name, d)
		}
		if d := degrees(b.Graph, false); len(d) != 1 || d[n] != (k+1)*s/n {
			t.Errorf("%s: switch degrees %v", name, d)
		}
		serverCentricChecks(t, name, b.Graph, 2*(k+1))
		for v := int32(0); v < int32(s); v++ {
			for l := 0; l <= k; l++ {
				sw := b.ServerSwitch(v, l)
				if b.Head(b.OutStart(v)+int32(l)) != sw {
					t.Fatalf("%s: server %d port %d reaches %d, want switch %d", name, v, l, b.Head(b.OutStart(v)+int32(l)), sw)
				}
				digit := int(v) / ipow(n, l) % n
				if b.Head(b.OutStart(sw)+int32(digit)) != v {
					t.Fatalf("%s: level-%d switch %d port %d does not reach server %d", name, l, sw, digit, v)
				}
			}
		}
	}
	for _, bad := range []struct {
		n, k int
		want string
	}{{1, 1, "bcube n: 1"}, {2, -1, "bcube k: -1"}, {2, 40, "more than"}} {
		if _, err := NewBCube(bad.n, bad.k, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewBCube(%d, %d): %v, want %q", bad.n, bad.k, err, bad.want)
		}
	}
}

func ipow(b, e int) int {
	p := 1
	for range e {
		p *= b
	}
	return p
}

// TestGDCFiConn: t_m and g_m from the recurrences (DCell: g_m = t_(m−1)+1;
// FiConn: g_m = t_(m−1)/2^m + 1), t_k/n switches, links 2t_k + k·t_k
// (DCell) or 2t_k + t_k − t_k/2^k (FiConn), server degrees (k+1 for
// DCell; 2, and 1 for exactly t_k/2^k servers, for FiConn), every two
// copies of D_(m−1) in every D_m joined by exactly one cable, and the
// diameter: at most the bound 3·2^k − 1 links (the recursive routing's,
// Guo et al.'s and Li et al.'s 2^(k+1) − 1 server hops) and equal to the
// value a breadth-first search gives, recorded here for these small
// instances (a regression check, not a published figure). The bound is
// reached by FiConn in every case here and by DCell with n ≥ 3, k ≤ 2.
func TestGDCFiConn(t *testing.T) {
	for _, c := range []struct {
		rule string
		n, k int
		t    []int
		diam int // by BFS
	}{
		{DCellRule, 2, 0, []int{2}, 2},
		{DCellRule, 2, 1, []int{2, 6}, 4},
		{DCellRule, 3, 1, []int{3, 12}, 5},
		{DCellRule, 4, 1, []int{4, 20}, 5},
		{DCellRule, 2, 2, []int{2, 6, 42}, 7},
		{DCellRule, 3, 2, []int{3, 12, 156}, 11},
		{DCellRule, 4, 2, []int{4, 20, 420}, 11},
		{DCellRule, 2, 3, []int{2, 6, 42, 1806}, 15},
		{DCellBetaRule, 3, 1, []int{3, 12}, 5},
		{DCellBetaRule, 2, 2, []int{2, 6, 42}, 8},
		{DCellBetaRule, 3, 2, []int{3, 12, 156}, 9},
		{DCellBetaRule, 4, 2, []int{4, 20, 420}, 10},
		{DCellBetaRule, 5, 2, []int{5, 30, 930}, 11},
		{FiConnRule, 2, 1, []int{2, 4}, 5},
		{FiConnRule, 4, 1, []int{4, 12}, 5},
		{FiConnRule, 2, 2, []int{2, 4, 8}, 11},
		{FiConnRule, 4, 2, []int{4, 12, 48}, 11},
		{FiConnRule, 6, 2, []int{6, 24, 168}, 11},
		{FiConnRule, 8, 2, []int{8, 40, 440}, 11},
		{FiConnRule, 2, 3, []int{2, 4, 8, 16}, 23},
		{FiConnRule, 4, 3, []int{4, 12, 48, 336}, 23},
	} {
		name := fmt.Sprintf("%s(%d,%d)", c.rule, c.n, c.k)
		d, err := NewGDCFiConn(c.n, c.k, c.rule, 1)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(d.T) != fmt.Sprint(c.t) {
			t.Fatalf("%s: t = %v, want %v", name, d.T, c.t)
		}
		tk := c.t[c.k]
		links := 2*tk + c.k*tk
		if c.rule == FiConnRule {
			links = 2*tk + tk - tk>>c.k
		}
		counts(t, name, d.Graph, tk, tk/c.n, links, c.diam)
		if c.diam > d.DiameterBound() || d.DiameterBound() != 3<<c.k-1 {
			t.Errorf("%s: diameter %d, bound %d", name, c.diam, d.DiameterBound())
		}
		deg := degrees(d.Graph, true)
		switch {
		case c.rule != FiConnRule && (len(deg) != 1 || deg[c.k+1] != tk):
			t.Errorf("%s: server degrees %v, want all %d", name, deg, c.k+1)
		case c.rule == FiConnRule && c.k > 0 && (deg[1] != tk>>c.k || deg[2] != tk-tk>>c.k):
			t.Errorf("%s: server degrees %v, want %d of degree 1", name, deg, tk>>c.k)
		}
		// Every pair of copies of D_(m−1) inside each D_m is joined once.
		joined := map[[3]int]int{}
		for l := int32(0); l < int32(d.NumLinks()); l++ {
			u, v := int(d.Tail(l)), int(d.Head(l))
			if !d.IsServer(int32(u)) || !d.IsServer(int32(v)) {
				continue
			}
			// m: the level whose copies u and v are in: same D_m, different D_(m−1).
			m := 0
			for i := 1; i <= c.k; i++ {
				if u/d.T[i] == v/d.T[i] && u/d.T[i-1] != v/d.T[i-1] {
					m = i
				}
			}
			if m == 0 {
				t.Fatalf("%s: servers %d and %d joined but not in sibling copies", name, u, v)
			}
			joined[[3]int{m, u / d.T[m-1], v / d.T[m-1]}]++
		}
		want := 0
		for m := 1; m <= c.k; m++ {
			want += tk / d.T[m] * d.G[m] * (d.G[m] - 1)
		}
		if len(joined) != want {
			t.Errorf("%s: %d ordered copy pairs joined, want %d", name, len(joined), want)
		}
		for p, n := range joined {
			if n != 1 {
				t.Errorf("%s: copies %v joined by %d links", name, p, n)
			}
		}
		if tk <= 500 {
			serverCentricChecks(t, name, d.Graph, c.diam)
		}
	}
	a, _ := NewDCell(3, 2, 1)
	b, _ := NewGDCFiConn(3, 2, DCellBetaRule, 1)
	same := true
	for l := 0; l < a.NumLinks(); l++ {
		same = same && a.Head(int32(l)) == b.Head(int32(l))
	}
	if same {
		t.Error("dcell and dcell-beta wire DCell_2(3) the same way")
	}
	if f, _ := NewFiConn(4, 2, 1); f.Bridge(1, 3) != 6 || f.Bridge(2, 1) != 5 || f.Bridge(3, 0) != 3 {
		t.Errorf("ficonn bridge servers: %d %d %d, want 6 5 3", f.Bridge(1, 3), f.Bridge(2, 1), f.Bridge(3, 0))
	}
	for _, bad := range []struct {
		n, k int
		rule string
		want string
	}{
		{1, 1, DCellRule, "gdcficonn n: 1"},
		{3, 1, FiConnRule, "must be even"},
		{4, 1, "bcube", `gdcficonn rule: "bcube" is not allowed`},
		{2, -1, DCellRule, "gdcficonn k: -1"},
		{8, 5, DCellRule, "more than"},
	} {
		if _, err := NewGDCFiConn(bad.n, bad.k, bad.rule, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewGDCFiConn(%d, %d, %q): %v, want %q", bad.n, bad.k, bad.rule, err, bad.want)
		}
	}
}

// TestDPillar: k(n/2)^k servers of 2 ports, k(n/2)^(k−1) switches of n
// ports, 4k(n/2)^k links, a switch's first n/2 ports on its own column
// and the rest on the next, and the diameter 2·max(k, ⌊3k/2⌋ − 2) links
// (derived in the type's comment) equal to a breadth-first search's for
// n = 4 (k = 2..8), 6 (k = 2..4) and 8 (k = 2, 3).
func TestDPillar(t *testing.T) {
	for _, c := range [][2]int{{4, 2}, {4, 3}, {4, 4}, {4, 5}, {4, 6}, {4, 7}, {4, 8}, {6, 2}, {6, 3}, {6, 4}, {8, 2}, {8, 3}} {
		n, k := c[0], c[1]
		d, err := NewDPillar(n, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		h := n / 2
		s := k * ipow(h, k)
		name := fmt.Sprintf("dpillar(%d,%d)", n, k)
		counts(t, name, d.Graph, s, s/h, 4*s, d.Diameter())
		if want := 2 * max(k, 3*k/2-2); d.Diameter() != want {
			t.Errorf("%s: Diameter() %d, want %d", name, d.Diameter(), want)
		}
		if deg := degrees(d.Graph, true); len(deg) != 1 || deg[2] != s {
			t.Errorf("%s: server degrees %v", name, deg)
		}
		if deg := degrees(d.Graph, false); len(deg) != 1 || deg[n] != s/h {
			t.Errorf("%s: switch degrees %v", name, deg)
		}
		for sw := int32(s); sw < int32(d.NumNodes()); sw++ {
			i := int((sw - int32(s)) / int32(s/h/k))
			lo, _ := d.Out(sw)
			for p := int32(0); p < int32(n); p++ {
				v := d.Head(lo + p)
				wantCol := i
				if p >= int32(h) {
					wantCol = (i + 1) % k
				}
				if int(v)/ipow(h, k) != wantCol || int(v)%ipow(h, k)/ipow(h, i)%h != int(p)%h {
					t.Fatalf("%s: column-%d switch %d port %d reaches server %d", name, i, sw, p, v)
				}
			}
		}
		if s <= 400 {
			serverCentricChecks(t, name, d.Graph, d.Diameter())
		}
	}
	for _, bad := range []struct {
		n, k int
		want string
	}{{2, 3, "dpillar n: 2"}, {5, 3, "dpillar n: 5 is not allowed: must be even"}, {4, 1, "dpillar k: 1"}} {
		if _, err := NewDPillar(bad.n, bad.k, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewDPillar(%d, %d): %v, want %q", bad.n, bad.k, err, bad.want)
		}
	}
}

// TestHCNBCN: HCN(n, h): n^(h+1) servers, n^h switches, n of them with a
// free second port, 2n^(h+1) + n(n^h − 1) links, diameter equal to the
// bound 3·2^h − 1 by BFS for every size here. BCN(α, β, h, γ): s = α^γβ+1
// copies, the counts per copy, every follower with a second cable, α free
// leaders per copy, diameter at most 6·2^h − 1 and equal to the BFS value
// recorded here for these small instances (not a published figure: the
// definitions are reconstructed, see the type's comment). Leader cables
// follow the rule (i, j..j) – (j, i..i) on HCN(3, 2) by hand.
func TestHCNBCN(t *testing.T) {
	for _, c := range [][2]int{{2, 0}, {2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {4, 1}, {4, 2}, {3, 3}, {2, 4}} {
		n, h := c[0], c[1]
		x, err := NewHCN(n, h, 1)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("hcn(%d,%d)", n, h)
		sw := ipow(n, h)
		counts(t, name, x.Graph, n*sw, sw, 2*n*sw+n*(sw-1), 3<<h-1)
		if x.DiameterBound() != 3<<h-1 {
			t.Errorf("%s: bound %d", name, x.DiameterBound())
		}
		if deg := degrees(x.Graph, true); deg[1] != n || deg[2] != n*sw-n {
			t.Errorf("%s: server degrees %v, want %d with a free port", name, deg, n)
		}
		if n*sw <= 300 {
			serverCentricChecks(t, name, x.Graph, 3<<h-1)
		}
	}
	// HCN(3, 2): leader x2 x1 x0 is node 9x2 + 3x1 + x0.
	x, _ := NewHCN(3, 2, 1)
	for _, p := range [][2]int32{
		{0*9 + 0*3 + 1, 0*9 + 1*3 + 0}, // level 1 in copy 0: (0, 0, 1) – (0, 1, 0)
		{2*9 + 1*3 + 2, 2*9 + 2*3 + 1}, // level 1 in copy 2: (2, 1, 2) – (2, 2, 1)
		{0*9 + 1*3 + 1, 1*9 + 0*3 + 0}, // level 2: (0, 1, 1) – (1, 0, 0)
		{1*9 + 2*3 + 2, 2*9 + 1*3 + 1}, // level 2: (1, 2, 2) – (2, 1, 1)
	} {
		if x.LinkTo(p[0], p[1]) < 0 || x.LinkTo(p[1], p[0]) < 0 {
			t.Errorf("hcn(3,2): leaders %d and %d not joined", p[0], p[1])
		}
	}
	for _, free := range []int32{0, 13, 26} {
		if x.Degree(free) != 1 {
			t.Errorf("hcn(3,2): leader %d has degree %d, want 1 (free port)", free, x.Degree(free))
		}
	}
	for _, c := range []struct {
		alpha, beta, h, gamma int
		diam                  int // by BFS
	}{
		{2, 1, 0, 0, 5}, {2, 1, 1, 0, 8}, {2, 1, 1, 1, 11}, {2, 2, 1, 1, 11}, {3, 1, 1, 1, 11},
		{2, 1, 2, 1, 17}, {2, 1, 2, 2, 23}, {3, 1, 2, 1, 17}, {2, 2, 2, 0, 14}, {3, 2, 1, 0, 8},
	} {
		name := fmt.Sprintf("bcn(%d,%d,%d,%d)", c.alpha, c.beta, c.h, c.gamma)
		x, err := NewBCN(c.alpha, c.beta, c.h, c.gamma, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := ipow(c.alpha, c.gamma)*c.beta + 1
		sw := ipow(c.alpha, c.h)
		leaders, followers := sw*c.alpha, sw*c.beta
		links := s * (2*sw*(c.alpha+c.beta) + (leaders - c.alpha) + followers)
		if x.Copies != s {
			t.Errorf("%s: %d copies, want %d", name, x.Copies, s)
		}
		counts(t, name, x.Graph, s*(leaders+followers), s*sw, links, c.diam)
		if c.diam > x.DiameterBound() || x.DiameterBound() != 6<<c.h-1 {
			t.Errorf("%s: diameter %d, bound %d", name, c.diam, x.DiameterBound())
		}
		if deg := degrees(x.Graph, true); deg[1] != s*c.alpha || deg[2] != s*(leaders+followers)-s*c.alpha {
			t.Errorf("%s: server degrees %v, want %d with a free port", name, deg, s*c.alpha)
		}
		// Followers join different copies, in the same sub-HCN block.
		per := leaders + followers
		for f := int32(0); f < int32(x.NumServers()); f++ {
			if int(f)%per < leaders {
				continue
			}
			peer := x.Head(x.OutStart(f) + 1)
			block := func(v int32) int { return (int(v)%per - leaders) / (s - 1) }
			if int(peer)/per == int(f)/per || int(peer)%per < leaders || block(peer) != block(f) {
				t.Fatalf("%s: follower %d joined to %d", name, f, peer)
			}
		}
		if x.NumServers() <= 300 {
			serverCentricChecks(t, name, x.Graph, c.diam)
		}
	}
	for _, bad := range []struct {
		alpha, beta, h, gamma int
		want                  string
	}{{1, 1, 1, 1, "hcn alpha: 1"}, {2, 0, 1, 1, "bcn beta: 0"}, {2, 1, 1, 2, "bcn gamma: 2 is not allowed: must be in [0, 1]"}, {2, 1, -1, 0, "bcn gamma: 0"}} {
		if _, err := NewBCN(bad.alpha, bad.beta, bad.h, bad.gamma, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewBCN(%d, %d, %d, %d): %v, want %q", bad.alpha, bad.beta, bad.h, bad.gamma, err, bad.want)
		}
	}
}

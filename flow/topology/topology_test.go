package topology

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/static"
)

// counts checks a graph's servers, switches, directed links and BFS
// diameter against the closed forms.
func counts(t *testing.T, name string, g *graph.Graph, servers, switches, links, diameter int) {
	t.Helper()
	if g.NumServers() != servers || g.NumSwitches() != switches || g.NumLinks() != links {
		t.Errorf("%s: %d servers, %d switches, %d links; want %d, %d, %d", name, g.NumServers(), g.NumSwitches(), g.NumLinks(), servers, switches, links)
	}
	d, ok := g.Diameter()
	if !ok || d != diameter {
		t.Errorf("%s: diameter %d (connected %t), want %d", name, d, ok, diameter)
	}
}

func TestMesh(t *testing.T) {
	for _, c := range []struct {
		dims []int
		p    int
	}{{[]int{4}, 1}, {[]int{3, 5}, 2}, {[]int{2, 3, 4}, 1}, {[]int{1, 6}, 3}} {
		g, err := Mesh(c.dims, c.p, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := 1
		for _, d := range c.dims {
			w *= d
		}
		links := 2 * c.p * w
		for _, d := range c.dims {
			links += 2 * (d - 1) * (w / d)
		}
		counts(t, "mesh", g, c.p*w, w, links, MeshDiameter(c.dims))
	}
	for _, bad := range []struct {
		dims []int
		p    int
		want string
	}{{nil, 1, "mesh dims: []"}, {[]int{3, 0}, 1, "mesh dims[1]: 0"}, {[]int{3}, 0, "mesh servers per switch: 0"}} {
		if _, err := Mesh(bad.dims, bad.p, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Mesh(%v, %d): %v, want %q", bad.dims, bad.p, err, bad.want)
		}
	}
}

// TestXGFT: counts per level from the formula, every node's degree (w_{i+1}
// up, m_i down), and the diameter; the k-ary n-tree as XGFT(n; k..k; 1,
// k..k) matches graph.NewTree's counts and diameter.
func TestXGFT(t *testing.T) {
	for _, c := range []struct{ m, w []int }{
		{[]int{4, 4}, []int{1, 4}},
		{[]int{3, 3, 3}, []int{1, 3, 3}},
		{[]int{2, 3, 4}, []int{1, 2, 2}},
		{[]int{4, 2}, []int{2, 3}},
	} {
		x, err := NewXGFT(c.m, c.w, 1)
		if err != nil {
			t.Fatal(err)
		}
		h := len(c.m)
		servers, total, cables := 1, 0, 0
		for _, m := range c.m {
			servers *= m
		}
		for i := 0; i <= h; i++ {
			n := 1
			for j := i; j < h; j++ {
				n *= c.m[j]
			}
			for j := 0; j < i; j++ {
				n *= c.w[j]
			}
			total += n
			if i < h {
				cables += n * c.w[i]
			}
		}
		counts(t, "xgft", x.Graph, servers, total-servers, 2*cables, 2*h)
		if x.Diameter() != 2*h {
			t.Errorf("xgft %v %v: Diameter() %d", c.m, c.w, x.Diameter())
		}
		for v := int32(0); v < int32(x.NumNodes()); v++ {
			i := x.Level(v)
			want := 0
			if i < h {
				want += c.w[i]
			}
			if i > 0 {
				want += c.m[i-1]
			}
			if x.Degree(v) != want {
				t.Fatalf("xgft %v %v: node %d of level %d has %d links, want %d", c.m, c.w, v, i, x.Degree(v), want)
			}
		}
	}
	// A height past MaxXGFTHeight is refused before any level is sized
	// (the work grew as its square: 20,000 levels of m = w = 1 took 13 s).
	ones := slices.Repeat([]int{1}, MaxXGFTHeight+1)
	if _, err := NewXGFT(ones, ones, 1); err == nil || !strings.Contains(err.Error(), "xgft m: 65 levels is not allowed: must be 1 to 64") {
		t.Errorf("65 levels: %v", err)
	}
	if _, err := NewXGFT(ones[:64], ones[:64], 1); err != nil {
		t.Errorf("64 levels: %v", err)
	}
	if _, err := NewXGFT([]int{2, 2}, []int{1}, 1); err == nil || !strings.Contains(err.Error(), "xgft: m of 2 levels and w of 1") {
		t.Errorf("m and w of different lengths: %v", err)
	}
	tree, err := graph.NewTree(4, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, err := ThinTree(4, 4, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tree.NumServers() != x.NumServers() || tree.NumSwitches() != x.NumSwitches() || tree.NumLinks() != x.NumLinks() {
		t.Errorf("4-ary 3-tree %d/%d/%d, XGFT %d/%d/%d", tree.NumServers(), tree.NumSwitches(), tree.NumLinks(), x.NumServers(), x.NumSwitches(), x.NumLinks())
	}
}

// TestThinTree: k^n servers, k'^(l−1)·k^(n−l) switches at level l; a
// leaf has k servers and k' parents, a top switch k children.
func TestThinTree(t *testing.T) {
	x, err := ThinTree(4, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	// levels 1, 2, 3: 16, 8, 4 switches; cables 64 + 16·2 + 8·2.
	counts(t, "thin tree 4:2, 3 levels", x.Graph, 64, 28, 2*(64+32+16), 6)
	for _, bad := range []struct {
		k, kUp, n int
		want      string
	}{{1, 1, 2, "thin tree k: 1"}, {4, 5, 2, "thin tree k': 5 is not allowed: must be in [1, 4]"}, {4, 2, 0, "thin tree levels: 0"},
		{2, 2, 1 << 40, "thin tree levels: 1099511627776 is not allowed: must be in [1, 64]"}} {
		if _, err := ThinTree(bad.k, bad.kUp, bad.n, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ThinTree(%d, %d, %d): %v, want %q", bad.k, bad.kUp, bad.n, err, bad.want)
		}
	}
}

// TestDragonfly: g = a·h + 1 groups; every pair of groups joined by
// exactly one global cable under every arrangement; every router has p
// servers, a − 1 local and h global links; diameter 5 (3 with a = 1).
func TestDragonfly(t *testing.T) {
	for _, arr := range DragonflyArrangements() {
		for _, c := range []struct{ a, h, p int }{{4, 2, 2}, {2, 1, 1}, {6, 3, 3}, {1, 4, 2}, {3, 2, 1}} {
			if arr == DragonflyCirculant && c.a*c.h%2 != 0 {
				if _, err := NewDragonfly(c.a, c.h, c.p, arr, 1); err == nil || !strings.Contains(err.Error(), "circulant needs a·h even") {
					t.Errorf("%s a=%d h=%d: %v", arr, c.a, c.h, err)
				}
				continue
			}
			d, err := NewDragonfly(c.a, c.h, c.p, arr, 1)
			if err != nil {
				t.Fatal(err)
			}
			g := c.a*c.h + 1
			routers := g * c.a
			links := 2*routers*c.p + routers*(c.a-1) + routers*c.h
			counts(t, arr, d.Graph, routers*c.p, routers, links, d.Diameter())
			servers := int32(routers * c.p)
			pairs := map[[2]int]int{}
			for r := int32(0); r < int32(routers); r++ {
				v := servers + r
				lo, hi := d.Out(v)
				global := 0
				for l := lo; l < hi; l++ {
					u := d.Head(l)
					if u < servers || (u-servers)/int32(c.a) == r/int32(c.a) {
						continue
					}
					global++
					pairs[[2]int{int(r) / c.a, int(u-servers) / c.a}]++
				}
				if global != c.h || d.Degree(v) != c.p+c.a-1+c.h {
					t.Fatalf("%s a=%d h=%d: router %d has %d global links, degree %d", arr, c.a, c.h, r, global, d.Degree(v))
				}
			}
			if len(pairs) != g*(g-1) {
				t.Errorf("%s a=%d h=%d: %d ordered group pairs joined, want %d", arr, c.a, c.h, len(pairs), g*(g-1))
			}
			for p, n := range pairs {
				if n != 1 {
					t.Errorf("%s a=%d h=%d: groups %v joined by %d links", arr, c.a, c.h, p, n)
				}
			}
		}
	}
	if _, err := NewDragonfly(2, 2, 1, "palmtree", 1); err == nil || !strings.Contains(err.Error(), `dragonfly arrangement: "palmtree" is not allowed`) {
		t.Errorf("unknown arrangement: %v", err)
	}
}

// TestDragonflyArrangementsDiffer: the three arrangements wire group 0's
// first links to different groups (a = 2, h = 2: absolute 1, 2, 3, 4;
// relative the same from group 0 but not from group 2; circulant 1, 4,
// 2, 3).
func TestDragonflyArrangementsDiffer(t *testing.T) {
	want := map[string][2][]int{
		DragonflyAbsolute:  {{1, 2, 3, 4}, {0, 1, 3, 4}},
		DragonflyRelative:  {{1, 2, 3, 4}, {3, 4, 0, 1}},
		DragonflyCirculant: {{1, 4, 2, 3}, {3, 1, 4, 0}},
	}
	for arr, w := range want {
		d := &Dragonfly{A: 2, H: 2, G: 5, Arrangement: arr}
		for gi, grp := range []int{0, 2} {
			for k := 0; k < 4; k++ {
				if got := d.GlobalTarget(grp, k); got != w[gi][k] {
					t.Errorf("%s: group %d link %d reaches group %d, want %d", arr, grp, k, got, w[gi][k])
				}
				if back := d.GlobalIndex(d.GlobalTarget(grp, k), grp); d.GlobalTarget(d.GlobalTarget(grp, k), back) != grp {
					t.Errorf("%s: group %d link %d has no way back", arr, grp, k)
				}
			}
		}
	}
}

// TestJellyfish: counts, r switch neighbours each (r − 1 for one switch
// when n·r is odd), no self or double cables, connected, diameter at
// least the Moore bound, and the same seed giving the same graph.
func TestJellyfish(t *testing.T) {
	for _, c := range []struct{ n, k, r int }{{20, 6, 4}, {51, 8, 5}, {200, 12, 8}, {8, 5, 3}} {
		for seed := uint64(1); seed <= 3; seed++ {
			j, err := NewJellyfish(c.n, c.k, c.r, seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			short := 0
			for s, nb := range j.adj {
				seen := map[int32]bool{}
				for _, x := range nb {
					if int(x) == s || seen[x] {
						t.Fatalf("n=%d r=%d seed %d: switch %d neighbours %v", c.n, c.r, seed, s, nb)
					}
					seen[x] = true
				}
				switch len(nb) {
				case c.r:
				case c.r - 1:
					short++
				default:
					t.Fatalf("n=%d r=%d seed %d: switch %d has %d neighbours", c.n, c.r, seed, s, len(nb))
				}
			}
			if want := c.n * c.r % 2; short != want {
				t.Errorf("n=%d r=%d seed %d: %d switches short of a neighbour, want %d", c.n, c.r, seed, short, want)
			}
			p := c.k - c.r
			if j.NumServers() != c.n*p || j.NumSwitches() != c.n || j.NumLinks() != 2*c.n*p+2*(c.n*c.r/2) {
				t.Errorf("n=%d seed %d: %d servers, %d switches, %d links", c.n, seed, j.NumServers(), j.NumSwitches(), j.NumLinks())
			}
			d, ok := j.Diameter()
			if !ok || d < MooreDiameter(c.n, c.r) {
				t.Errorf("n=%d r=%d seed %d: diameter %d (connected %t), Moore bound %d", c.n, c.r, seed, d, ok, MooreDiameter(c.n, c.r))
			}
			again, _ := NewJellyfish(c.n, c.k, c.r, seed, 1)
			for s := range j.adj {
				if !equal(j.adj[s], again.adj[s]) {
					t.Fatalf("seed %d: switch %d neighbours %v, then %v", seed, s, j.adj[s], again.adj[s])
				}
			}
		}
	}
	a, _ := NewJellyfish(50, 8, 5, 1, 1)
	b, _ := NewJellyfish(50, 8, 5, 2, 1)
	same := true
	for s := range a.adj {
		same = same && equal(a.adj[s], b.adj[s])
	}
	if same {
		t.Error("seeds 1 and 2 give the same jellyfish")
	}
	if got := MooreDiameter(10, 3); got != 2+2 {
		t.Errorf("Moore bound for 10 switches of degree 3 (the Petersen graph's 2): %d", got)
	}
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadGraph(t *testing.T) {
	src := `# two servers on a switch pair
servers 2
switches 2
cable 0 2
cable 1 3   # the other side
cable 2 3 2.5
link 3 2 1
`
	g, err := ReadGraph(strings.NewReader(src), "pair.graph")
	if err != nil {
		t.Fatal(err)
	}
	counts(t, "pair", g, 2, 2, 7, 3)
	if c := g.Capacity(g.LinkTo(2, 3)); c != 2.5 {
		t.Errorf("capacity %v", c)
	}
	for _, bad := range []struct{ src, want string }{
		{"switches 2\n", "pair.graph:1: switches: must appear once, servers first"},
		{"servers 2\nswitches 1\ncable 0 1\n", "pair.graph:3: cable 0 1: two servers may not be joined"},
		{"servers 1\nswitches 1\ncable 0 2\n", `pair.graph:3: cable node "2" is not allowed: must be an integer in [0, 2)`},
		{"servers 1\nswitches 1\ncable 0 1 -1\n", `pair.graph:3: cable capacity "-1" is not allowed`},
		{"servers 1\nswitches 1\ncable 0 1 NaN\n", `cable capacity "NaN" is not allowed`},
		{"servers 1\nswitches 1\nwire 0 1\n", `pair.graph:3: unknown statement "wire"`},
		{"servers 1\nswitches 1\ncable 1 1\n", "a node may not be joined to itself"},
		{"servers x\n", `pair.graph:1: servers: "x" is not allowed`},
		{"", "pair.graph: no servers and switches statements"},
		{"servers 1\nswitches 1\ncable 0\n", "cable takes U V [capacity], got 1 fields"},
		{"servers 1\n" + strings.Repeat("#", MaxFileLine+1) + "\n", "lines are limited to 4096 bytes"},
	} {
		if _, err := ReadGraph(strings.NewReader(bad.src), "pair.graph"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.src, err, bad.want)
		}
	}
}

// checkPath fails unless links form a path from server src to server dst.
func checkPath(t *testing.T, g *graph.Graph, links []int32, src, dst int32) {
	t.Helper()
	if len(links) == 0 || g.Tail(links[0]) != src || g.Head(links[len(links)-1]) != dst {
		t.Fatalf("path %v does not go from %d to %d", links, src, dst)
	}
	for i := 1; i < len(links); i++ {
		if g.Tail(links[i]) != g.Head(links[i-1]) {
			t.Fatalf("path %v from %d to %d breaks after link %d", links, src, dst, links[i-1])
		}
	}
}

// TestDragonflyRouting: minimal paths are valid, cross at most one global
// link, take at most 5 links and are never shorter than the shortest path
// (they can be longer: two global hops through a third group's router
// may be shorter than local, global, local); Valiant paths visit their
// intermediate group, are at most 8 links (2 + local, global, local,
// global, local... ), and their shares sum to 1.
func TestDragonflyRouting(t *testing.T) {
	for _, arr := range DragonflyArrangements() {
		d, err := NewDragonfly(4, 2, 2, arr, 1)
		if err != nil {
			t.Fatal(err)
		}
		minimal := d.MinimalRouter()
		dist := make([]int32, d.NumNodes())
		var q []int32
		for src := int32(0); src < int32(d.NumServers()); src++ {
			q = d.Distances(src, dist, q)
			for dst := int32(0); dst < int32(d.NumServers()); dst++ {
				if src == dst {
					continue
				}
				p, err := route.Path(minimal, src, dst)
				if err != nil {
					t.Fatal(err)
				}
				checkPath(t, d.Graph, p, src, dst)
				global := 0
				for _, l := range p {
					if u, v := d.Tail(l), d.Head(l); !d.IsServer(u) && !d.IsServer(v) && (u-int32(d.NumServers()))/4 != (v-int32(d.NumServers()))/4 {
						global++
					}
				}
				if len(p) < int(dist[dst]) || len(p) > 5 || global > 1 {
					t.Fatalf("%s: minimal %d→%d has %d links (%d global), shortest %d", arr, src, dst, len(p), global, dist[dst])
				}
			}
		}
		v, err := d.ValiantRouter(3)
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]int32{{0, 70}, {5, 9}, {1, 2}, {71, 0}} {
			sum, n := 0.0, 0
			groups := map[int]bool{}
			err := v.Route(pair[0], pair[1], func(links []int32, share float64) {
				checkPath(t, d.Graph, links, pair[0], pair[1])
				if len(links) > 8 {
					t.Errorf("%s valiant %v: %d links", arr, pair, len(links))
				}
				sum += share
				n++
				for _, l := range links {
					if h := d.Head(l); !d.IsServer(h) {
						groups[int(h-int32(d.NumServers()))/d.A] = true
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			gs, gd := int(pair[0])/d.P/d.A, int(pair[1])/d.P/d.A
			wantPaths, wantGroups := 3, 5
			if gs == gd {
				wantPaths, wantGroups = 1, 1
			}
			if n != wantPaths || sum < 0.999999 || sum > 1.000001 || len(groups) != wantGroups {
				t.Errorf("%s valiant %v: %d paths, shares %.6f, %d groups visited; want %d, 1, %d", arr, pair, n, sum, len(groups), wantPaths, wantGroups)
			}
		}
	}
	if _, single := any(minimalOf(t)).(route.SinglePath); !single {
		t.Error("minimal routing does not offer its single path")
	}
	if v, _ := minimalDragonfly(t).ValiantRouter(2); v != nil {
		if _, single := v.(route.SinglePath); single {
			t.Error("Valiant routing passes for single-path: an engine would route its flows minimally")
		}
	}
	d, _ := NewDragonfly(2, 1, 1, DragonflyAbsolute, 1)
	if _, err := d.ValiantRouter(2); err == nil || !strings.Contains(err.Error(), "dragonfly valiant groups: 2 is not allowed: must be in [1, 1]") {
		t.Errorf("valiant over too many groups: %v", err)
	}
}

// TestXGFTDModK: every path is valid and climbs exactly to the lowest
// common level (2·top links); flows to one destination share their up
// links (d-mod-k); on XGFT(3; 4,4,4; 1,4,4) the link loads of all-to-all
// equal those of the k-ary n-tree's own d-mod-k, link by link sorted.
func TestXGFTDModK(t *testing.T) {
	for _, c := range []struct{ m, w []int }{{[]int{4, 4, 4}, []int{1, 4, 4}}, {[]int{2, 3, 4}, []int{1, 2, 3}}, {[]int{4, 4}, []int{2, 2}}} {
		x, err := NewXGFT(c.m, c.w, 1)
		if err != nil {
			t.Fatal(err)
		}
		r := x.DModK()
		n := int32(x.NumServers())
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				if s == d {
					continue
				}
				p, err := route.Path(r, s, d)
				if err != nil {
					t.Fatal(err)
				}
				checkPath(t, x.Graph, p, s, d)
				if len(p) != 2*x.top(s, d) {
					t.Fatalf("xgft %v %v: %d→%d has %d links, top level %d", c.m, c.w, s, d, len(p), x.top(s, d))
				}
			}
		}
		// Two sources under different leaves, one destination: their
		// paths merge at the first level both reach, and share the rest.
		if n >= 16 {
			a, _ := route.Path(r, 0, n-1)
			b, _ := route.Path(r, 5, n-1)
			if a[len(a)-1] != b[len(b)-1] || a[len(a)-2] != b[len(b)-2] {
				t.Errorf("xgft %v %v: paths to %d do not share their last links: %v, %v", c.m, c.w, n-1, a, b)
			}
		}
	}
	x, _ := NewXGFT([]int{4, 4, 4}, []int{1, 4, 4}, 1)
	tree, _ := graph.NewTree(4, 3, 1)
	p, _ := static.AllToAll(64)
	a, err := static.Run(x.DModK(), p, static.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := static.Run(route.NewDModK(tree), p, static.Options{})
	if err != nil {
		t.Fatal(err)
	}
	la, lb := slices.Clone(a.Load), slices.Clone(b.Load)
	slices.Sort(la)
	slices.Sort(lb)
	if !slices.Equal(la, lb) || a.MeanHops != b.MeanHops {
		t.Errorf("XGFT d-mod-k loads differ from the 4-ary 3-tree's: max %v/%v, hops %v/%v", a.MaxLoad, b.MaxLoad, a.MeanHops, b.MeanHops)
	}
}

func minimalDragonfly(t *testing.T) *Dragonfly {
	t.Helper()
	d, err := NewDragonfly(4, 2, 2, DragonflyAbsolute, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func minimalOf(t *testing.T) route.Router { return minimalDragonfly(t).MinimalRouter() }

// TestBuildersHostile: every builder refuses parameters past the graph's
// limits before it lists a link (its work and memory were in proportion
// to the links, or an int64 overflowed): no panic, a message naming the
// parameter, less than a megabyte allocated.
func TestBuildersHostile(t *testing.T) {
	twos := slices.Repeat([]int{2}, 29)
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"mesh of 2^80 switches", func() error { _, err := Mesh([]int{1 << 40, 1 << 40}, 1, 1); return err }, "mesh dims: [1099511627776 1099511627776 1] gives more than"},
		{"mesh of 2^50 servers a switch", func() error { _, err := Mesh([]int{1 << 20}, 1<<50, 1); return err }, "gives more than 2147483646 nodes"},
		// 2^29 switches and servers; 2·2^29 + 29·2^29 links.
		{"mesh of 29 dimensions of 2", func() error { _, err := Mesh(twos, 1, 1); return err }, "16642998272 directed links is not allowed: must be at most 2147483647"},
		{"xgft of a 2^50 level", func() error { _, err := NewXGFT([]int{1 << 20, 1 << 50}, []int{1, 1}, 1); return err }, "xgft level"},
		// One server, 2^30 parents: 2^31 links.
		{"xgft of 2^30 parents", func() error { _, err := NewXGFT([]int{1}, []int{1 << 30}, 1); return err }, "xgft m [1], w [1073741824]: 2147483648 directed links"},
		{"dragonfly of 2^32", func() error { _, err := NewDragonfly(1<<32, 1<<32, 1, DragonflyAbsolute, 1); return err }, "dragonfly a 4294967296, h 4294967296, p 1: not allowed: each must be at most 2147483646"},
		// 4,002,000 routers: 8,004,000 + 4,002,000·1999 + 4,002,000 links.
		{"dragonfly of 2000 routers a group", func() error { _, err := NewDragonfly(2000, 1, 1, DragonflyAbsolute, 1); return err }, "dragonfly a 2000, h 1, p 1: 8012004000 directed links"},
		{"jellyfish of 2^63 ports", func() error { _, err := NewJellyfish(3, math.MaxInt, 2, 1, 1); return err }, "jellyfish size"},
		// 2·50,000 + 50,000·49,999 links.
		{"jellyfish of 50,000 neighbours", func() error { _, err := NewJellyfish(50000, 50000, 49999, 1, 1); return err }, "2500050000 directed links"},
		{"bcube of k max", func() error { _, err := NewBCube(2, math.MaxInt, 1); return err }, "bcube size"},
		{"bcube of 2^31 servers", func() error { _, err := NewBCube(2, 30, 1); return err }, "bcube size: 2^31 is more than 2147483646 nodes"},
		{"dcell of 2^40 servers a switch", func() error { _, err := NewDCell(1<<40, 0, 1); return err }, "gdcficonn n: 1099511627776 is not allowed"},
		{"bcn of beta max", func() error { _, err := NewBCN(2, math.MaxInt, 1, 0, 1); return err }, "hcn alpha 2, beta 9223372036854775807: not allowed"},
		{"hcn of alpha 2^40", func() error { _, err := NewHCN(1<<40, 0, 1); return err }, "hcn alpha 1099511627776"},
		// HCN(2, 29): 2^30 servers, 2^29 switches; 2·2^30 + 2^30 − 2 links.
		{"hcn of 2^30 servers", func() error { _, err := NewHCN(2, 29, 1); return err }, "hcn alpha 2, beta 0, h 29, gamma -1: 3221225470 directed links"},
		{"dpillar of 2^40 ports", func() error { _, err := NewDPillar(1<<40, 2, 1); return err }, "dpillar size"},
		{"thin tree of 2^40 levels", func() error { _, err := ThinTree(2, 1, 1<<40, 1); return err }, "thin tree levels: 1099511627776"},
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := c.err()
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if used := m1.TotalAlloc - m0.TotalAlloc; used > 1<<20 {
			t.Errorf("%s: %d B allocated before the refusal", c.name, used)
		}
	}
}

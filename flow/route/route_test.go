package route

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
)

// checkPath checks that links is a path from server src to server dst:
// consecutive links connect, and only nodes that forward are crossed
// (switches; servers too in a server-centric graph).
func checkPath(t *testing.T, g *graph.Graph, src, dst int32, links []int32) {
	t.Helper()
	if len(links) == 0 {
		t.Fatalf("%d→%d: empty path", src, dst)
	}
	at := src
	for i, l := range links {
		if l < 0 || int(l) >= g.NumLinks() {
			t.Fatalf("%d→%d: link %d out of range in %v", src, dst, l, links)
		}
		if g.Tail(l) != at {
			t.Fatalf("%d→%d: link %d (hop %d) leaves %d, not %d, in %v", src, dst, l, i, g.Tail(l), at, links)
		}
		at = g.Head(l)
		if i < len(links)-1 && !g.Forwards(at) {
			t.Fatalf("%d→%d: hop %d reaches server %d in %v", src, dst, i, at, links)
		}
	}
	if at != dst {
		t.Fatalf("%d→%d: path ends at %d: %v", src, dst, at, links)
	}
}

// checkAllPairs routes every pair of servers and checks each path is valid
// and minimal (as long as the BFS distance), and the shares sum to 1.
func checkAllPairs(t *testing.T, r Router) {
	t.Helper()
	g := r.Graph()
	dist := make([]int32, g.NumNodes())
	var queue []int32
	for s := int32(0); s < int32(g.NumServers()); s++ {
		queue = g.Distances(s, dist, queue)
		for d := int32(0); d < int32(g.NumServers()); d++ {
			if s == d {
				continue
			}
			sum := 0.0
			err := r.Route(s, d, func(links []int32, share float64) {
				checkPath(t, g, s, d, links)
				if len(links) != int(dist[d]) {
					t.Fatalf("%s %d→%d: %d links, shortest is %d", r.Name(), s, d, len(links), dist[d])
				}
				sum += share
			})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("%s %d→%d: shares sum to %v", r.Name(), s, d, sum)
			}
		}
	}
}

func mustTree(t testing.TB, k, n int) *graph.Tree {
	t.Helper()
	tr, err := graph.NewTree(k, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustTorus(t testing.TB, dims []int, spp int) *graph.Torus {
	t.Helper()
	tor, err := graph.NewTorus(dims, spp, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tor
}

func TestDModKValidMinimal(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 2}, {3, 2}, {2, 4}, {4, 3}, {3, 3}} {
		t.Run(fmt.Sprintf("%d-ary-%d-tree", c.k, c.n), func(t *testing.T) {
			checkAllPairs(t, NewDModK(mustTree(t, c.k, c.n)))
		})
	}
}

// TestDModKHand checks routes worked out by hand on a 2-ary 2-tree: servers
// 0-3 (links 0-3), leaves 4 and 5 (links 4-7 and 8-11: down 0, down 1,
// up 2, up 3), tops 6 and 7 (links 12-13 and 14-15: down 0, down 1).
func TestDModKHand(t *testing.T) {
	r := NewDModK(mustTree(t, 2, 2))
	for _, c := range []struct {
		src, dst int32
		want     []int32
	}{
		{0, 1, []int32{0, 5}},         // same leaf: down port d_0 = 1
		{0, 3, []int32{0, 7, 15, 9}},  // up port 2+d_0 = 3 to top 7, down port d_1 = 1 to leaf 5, down d_0 = 1
		{0, 2, []int32{0, 6, 13, 8}},  // d = 2: d_0 = 0, up port 2 to top 6, down 1, down 0
		{3, 0, []int32{3, 10, 12, 4}}, // d = 0: up port 2 to top 6, down 0, down 0
		{2, 1, []int32{2, 11, 14, 5}}, // d = 1: up port 3 to top 7, down 0, down 1
		{1, 0, []int32{1, 4}},         // same leaf
		{3, 2, []int32{3, 8}},         // same leaf
		{2, 0, []int32{2, 10, 12, 4}}, // d = 0 from leaf 5
		{1, 3, []int32{1, 7, 15, 9}},  // same top switch as 0→3: destination-based
		{1, 2, []int32{1, 6, 13, 8}},  // same as 0→2
		{3, 1, []int32{3, 11, 14, 5}}, // same as 2→1
		{2, 3, []int32{2, 9}},         // same leaf
		{0, 3, []int32{0, 7, 15, 9}},  // repeated: the buffer is reused
	} {
		got, err := Path(r, c.src, c.dst)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d→%d: %v, want %v", c.src, c.dst, got, c.want)
		}
	}
}

// TestDModKDestinationBased checks that at every switch the link taken
// depends only on the destination.
func TestDModKDestinationBased(t *testing.T) {
	tr := mustTree(t, 3, 3)
	r := NewDModK(tr)
	next := make([]int32, tr.NumNodes())
	for d := int32(0); d < int32(tr.NumServers()); d++ {
		for i := range next {
			next[i] = -1
		}
		for s := int32(0); s < int32(tr.NumServers()); s++ {
			if s == d {
				continue
			}
			for _, l := range r.AppendPath(nil, s, d) {
				u := tr.Tail(l)
				if next[u] >= 0 && next[u] != l {
					t.Fatalf("to %d: node %d takes link %d and link %d", d, u, next[u], l)
				}
				next[u] = l
			}
		}
	}
}

func TestDORValidMinimal(t *testing.T) {
	for _, c := range []struct {
		dims []int
		spp  int
	}{{[]int{4}, 1}, {[]int{5}, 2}, {[]int{2}, 1}, {[]int{4, 4}, 1}, {[]int{3, 4}, 2}, {[]int{2, 3, 4}, 1}, {[]int{4, 1, 3}, 2}, {[]int{1}, 3}} {
		t.Run(fmt.Sprintf("%v-%d", c.dims, c.spp), func(t *testing.T) {
			checkAllPairs(t, NewDOR(mustTorus(t, c.dims, c.spp)))
		})
	}
}

// TestDORHand checks routes worked out by hand on a 4-node ring with one
// server per switch: servers 0-3 (links 0-3), switch s (node 4+s) has links
// 4+3s (to its server), 5+3s (+) and 6+3s (−).
func TestDORHand(t *testing.T) {
	r := NewDOR(mustTorus(t, []int{4}, 1))
	for _, c := range []struct {
		src, dst int32
		want     []int32
	}{
		{0, 1, []int32{0, 5, 7}},      // + one hop, then switch 1's server link
		{0, 3, []int32{0, 6, 13}},     // − one hop (wraps to switch 3)
		{0, 2, []int32{0, 5, 8, 10}},  // tie from even coordinate 0: +
		{1, 3, []int32{1, 9, 6, 13}},  // tie from odd coordinate 1: − via switch 0
		{2, 0, []int32{2, 11, 14, 4}}, // tie from even 2: + via 3, wraps to 0
		{3, 1, []int32{3, 15, 12, 7}}, // tie from odd 3: − via 2
		{3, 0, []int32{3, 14, 4}},     // + wraps
		{1, 0, []int32{1, 9, 4}},      // −
	} {
		got, err := Path(r, c.src, c.dst)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d→%d: %v, want %v", c.src, c.dst, got, c.want)
		}
	}
}

// TestDORDimensionOrder checks on a 4x4 torus that a flow finishes
// dimension 0 before it moves along dimension 1.
func TestDORDimensionOrder(t *testing.T) {
	tor := mustTorus(t, []int{4, 4}, 1)
	r := NewDOR(tor)
	for s := int32(0); s < 16; s++ {
		for d := int32(0); d < 16; d++ {
			if s == d {
				continue
			}
			path := r.AppendPath(nil, s, d)
			dim := 0
			for _, l := range path[1 : len(path)-1] {
				port := l - tor.OutStart(tor.Tail(l))
				ld := int((port - tor.PlusPort(0)) / 2)
				if ld < dim {
					t.Fatalf("%d→%d: dimension %d after %d in %v", s, d, ld, dim, path)
				}
				dim = ld
			}
		}
	}
}

func TestECMPValidMinimal(t *testing.T) {
	tree := mustTree(t, 3, 3)
	torus := mustTorus(t, []int{4, 3}, 2)
	for _, g := range []*graph.Graph{tree.Graph, torus.Graph} {
		for _, p := range []int{0, 1, 2, 5} {
			r, err := NewECMP(g, p)
			if err != nil {
				t.Fatal(err)
			}
			checkAllPairs(t, r)
		}
	}
}

// allShortest enumerates every shortest path from src to dst by
// depth-first search (the reference for ECMP's counts and unranking).
func allShortest(g *graph.Graph, src, dst int32) [][]int32 {
	dist := make([]int32, g.NumNodes())
	g.Distances(src, dist, nil)
	var out [][]int32
	var walk func(v int32, path []int32)
	walk = func(v int32, path []int32) {
		if v == dst {
			out = append(out, slices.Clone(path))
			return
		}
		if v != src && !g.Forwards(v) {
			return
		}
		lo, hi := g.Out(v)
		for l := lo; l < hi; l++ {
			if w := g.Head(l); dist[w] == dist[v]+1 && dist[w] <= dist[dst] {
				walk(w, append(path, l))
			}
		}
	}
	walk(src, nil)
	return out
}

// TestECMPAllPaths checks that with no bound ECMP gives exactly the set of
// shortest paths a depth-first search finds, each once, and that with a
// bound P it gives P distinct shortest paths.
func TestECMPAllPaths(t *testing.T) {
	tree := mustTree(t, 3, 3)
	torus := mustTorus(t, []int{4, 4, 2}, 1)
	for _, g := range []*graph.Graph{tree.Graph, torus.Graph} {
		all, _ := NewECMP(g, 0)
		some, _ := NewECMP(g, 3)
		for s := int32(0); s < int32(g.NumServers()); s += 3 {
			for d := int32(0); d < int32(g.NumServers()); d += 2 {
				if s == d {
					continue
				}
				want := allShortest(g, s, d)
				var got [][]int32
				all.Route(s, d, func(links []int32, share float64) {
					got = append(got, slices.Clone(links))
					if share != 1/float64(len(want)) {
						t.Fatalf("%d→%d share %v, want 1/%d", s, d, share, len(want))
					}
				})
				if n, _ := all.NumPaths(s, d); int(n) != len(want) {
					t.Fatalf("%d→%d: NumPaths %v, want %d", s, d, n, len(want))
				}
				sortPaths(got)
				sortPaths(want)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%d→%d: paths %v, want %v", s, d, got, want)
				}
				var three [][]int32
				some.Route(s, d, func(links []int32, _ float64) { three = append(three, slices.Clone(links)) })
				if len(three) != min(3, len(want)) {
					t.Fatalf("%d→%d: %d paths with bound 3 of %d", s, d, len(three), len(want))
				}
				sortPaths(three)
				for i := 1; i < len(three); i++ {
					if slices.Equal(three[i-1], three[i]) {
						t.Fatalf("%d→%d: path %v twice", s, d, three[i])
					}
				}
			}
		}
	}
}

// TestECMPHand: on the 4-node ring the half-way flow 0→2 has two paths,
// + and −, each with share 1/2; on a 2-ary 2-tree 0→3 has two, one per
// top switch.
func TestECMPHand(t *testing.T) {
	ring := mustTorus(t, []int{4}, 1)
	r, _ := NewECMP(ring.Graph, 0)
	var got [][]int32
	r.Route(0, 2, func(links []int32, share float64) {
		if share != 0.5 {
			t.Errorf("share %v", share)
		}
		got = append(got, slices.Clone(links))
	})
	sortPaths(got)
	if fmt.Sprint(got) != "[[0 5 8 10] [0 6 15 10]]" {
		t.Errorf("ring 0→2: %v", got)
	}
	tree := mustTree(t, 2, 2)
	r, _ = NewECMP(tree.Graph, 0)
	got = nil
	r.Route(0, 3, func(links []int32, _ float64) { got = append(got, slices.Clone(links)) })
	sortPaths(got)
	if fmt.Sprint(got) != "[[0 6 13 9] [0 7 15 9]]" {
		t.Errorf("tree 0→3: %v", got)
	}
}

// bcube21 is BCube(2, 1) built by hand: servers 0 (label 00), 1 (01),
// 2 (10), 3 (11); level-0 switches 4 (servers 0, 1) and 5 (2, 3), level-1
// switches 6 (0, 2) and 7 (1, 3). Switches are joined only through
// servers.
func bcube21(t *testing.T) *graph.Graph {
	t.Helper()
	var links []graph.Link
	for _, p := range [][2]int32{{0, 4}, {1, 4}, {2, 5}, {3, 5}, {0, 6}, {2, 6}, {1, 7}, {3, 7}} {
		links = append(links, graph.Link{From: p[0], To: p[1], Capacity: 1}, graph.Link{From: p[1], To: p[0], Capacity: 1})
	}
	g, err := graph.New(4, 4, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestECMPServerRelay: on BCube(2, 1) with servers forwarding, 0→3 has
// the two 4-link paths 0–4–1–7–3 and 0–6–2–5–3, each crossing one server;
// 0→1 the one 2-link path through switch 4. The same links switch-centric
// leave 0→3 unreachable: ECMP never relays through a server there.
func TestECMPServerRelay(t *testing.T) {
	sc := bcube21(t)
	fw := sc.WithServersForward(true)
	r, _ := NewECMP(fw, 0)
	checkAllPairs(t, r)
	var got [][]int32
	if err := r.Route(0, 3, func(links []int32, share float64) {
		if share != 0.5 {
			t.Errorf("share %v", share)
		}
		got = append(got, slices.Clone(links))
	}); err != nil {
		t.Fatal(err)
	}
	sortPaths(got)
	l := func(u, v int32) int32 { return fw.LinkTo(u, v) }
	want := [][]int32{{l(0, 4), l(4, 1), l(1, 7), l(7, 3)}, {l(0, 6), l(6, 2), l(2, 5), l(5, 3)}}
	sortPaths(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("0→3: %v, want %v", got, want)
	}
	if all := allShortest(fw, 0, 3); len(all) != 2 {
		t.Errorf("depth-first search finds %d shortest paths 0→3, want 2", len(all))
	}
	if p, err := Path(mustECMP(t, fw, 1), 0, 1); err != nil || !slices.Equal(p, []int32{l(0, 4), l(4, 1)}) {
		t.Errorf("0→1: %v %v", p, err)
	}
	for _, p := range []int{0, 1} {
		r := mustECMP(t, sc, p)
		if err := r.Route(0, 3, func([]int32, float64) { t.Error("switch-centric 0→3 routed") }); !errors.Is(err, ErrNoPath) {
			t.Errorf("switch-centric 0→3: %v, want ErrNoPath", err)
		}
		if err := r.Route(0, 1, func(links []int32, _ float64) { checkPath(t, sc, 0, 1, links) }); err != nil {
			t.Errorf("switch-centric 0→1: %v", err)
		}
	}
}

func mustECMP(t *testing.T, g *graph.Graph, p int) *ECMP {
	t.Helper()
	r, err := NewECMP(g, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestErrorsAndNoPath(t *testing.T) {
	tree := mustTree(t, 2, 2)
	r := NewDModK(tree)
	for _, c := range []struct {
		src, dst int32
		want     string
	}{
		{-1, 0, "flow src: -1 is not allowed"},
		{0, 4, "flow dst: 4 is not allowed: must be a server"},
		{1, 1, "flow dst: 1 is not allowed: must differ from src"},
	} {
		err := r.Route(c.src, c.dst, func([]int32, float64) { t.Fatal("called") })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d→%d: %v, want %q", c.src, c.dst, err, c.want)
		}
	}
	if _, err := NewECMP(tree.Graph, -1); err == nil || !strings.Contains(err.Error(), "ecmp max paths: -1") {
		t.Errorf("NewECMP(-1): %v", err)
	}
	// Two servers on two switches with no link between the switches.
	g, err := graph.New(2, 2, []graph.Link{{From: 0, To: 2, Capacity: 1}, {From: 2, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1}, {From: 3, To: 1, Capacity: 1}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := NewECMP(g, 0)
	if err := e.Route(0, 1, func([]int32, float64) {}); !errors.Is(err, ErrNoPath) {
		t.Errorf("disconnected: %v, want ErrNoPath", err)
	}
	// Servers do not forward: 0 - sw2 - 1 - sw3 - ... is not a path
	// through server 1.
	g, _ = graph.New(3, 2, []graph.Link{
		{From: 0, To: 3, Capacity: 1}, {From: 3, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1}, {From: 3, To: 1, Capacity: 1},
		{From: 1, To: 4, Capacity: 1}, {From: 4, To: 1, Capacity: 1}, {From: 2, To: 4, Capacity: 1}, {From: 4, To: 2, Capacity: 1},
	})
	e, _ = NewECMP(g, 0)
	if err := e.Route(0, 2, func([]int32, float64) {}); !errors.Is(err, ErrNoPath) {
		t.Errorf("through a server: %v, want ErrNoPath", err)
	}
}

// TestNoAllocs checks that routing allocates nothing per flow once warm.
func TestNoAllocs(t *testing.T) {
	tree := mustTree(t, 4, 3)
	torus := mustTorus(t, []int{6, 5, 4}, 2)
	e, _ := NewECMP(tree.Graph, 4)
	routers := []Router{NewDModK(tree), NewDOR(torus), e}
	for _, r := range routers {
		n := int32(r.Graph().NumServers())
		fn := func([]int32, float64) {}
		r.Route(0, n-1, fn)
		allocs := testing.AllocsPerRun(100, func() {
			for d := int32(1); d < n; d++ {
				r.Route(0, d, fn)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run", r.Name(), allocs)
		}
	}
}

func TestDivisor(t *testing.T) {
	for _, d := range []uint32{1, 2, 3, 7, 10, 16, 17, 1000, 65535, 1 << 20, 123456789, math.MaxUint32} {
		v := newDivisor(d)
		for _, x := range []uint32{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, 12345, 1<<31 - 1, math.MaxUint32 - 1, math.MaxUint32} {
			if got := v.div(x); got != x/d {
				t.Fatalf("%d / %d = %d, want %d", x, d, got, x/d)
			}
		}
	}
}

func sortPaths(p [][]int32) {
	slices.SortFunc(p, func(a, b []int32) int { return slices.Compare(a, b) })
}

// TestDORRuns checks that the lines partition the links and that every
// path's runs, expanded through the lines, are the path AppendPath gives.
func TestDORRuns(t *testing.T) {
	for _, c := range []struct {
		dims []int
		spp  int
	}{{[]int{4}, 1}, {[]int{5}, 2}, {[]int{2}, 1}, {[]int{4, 4}, 1}, {[]int{3, 4}, 2}, {[]int{2, 3, 4}, 1}, {[]int{4, 1, 3}, 2}, {[]int{1}, 3}} {
		tor := mustTorus(t, c.dims, c.spp)
		r := NewDOR(tor)
		var _ RunRouter = r
		ls := r.Lines()
		seen := make([]int, tor.NumLinks())
		for _, l := range ls.Links {
			seen[l]++
		}
		for l, n := range seen {
			if n != 1 {
				t.Fatalf("%v: link %d on %d lines", c.dims, l, n)
			}
		}
		n := int32(tor.NumServers())
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				if s == d {
					continue
				}
				var got []int32
				for _, run := range r.AppendRuns(nil, s, d) {
					lo, hi := ls.Start[run.Line], ls.Start[run.Line+1]
					if run.Count < 1 || run.Count > hi-lo || run.Start < 0 || run.Start >= hi-lo {
						t.Fatalf("%v %d→%d: run %+v on a line of %d", c.dims, s, d, run, hi-lo)
					}
					for k := int32(0); k < run.Count; k++ {
						got = append(got, ls.Links[lo+(run.Start+k)%(hi-lo)])
					}
				}
				if want := r.AppendPath(nil, s, d); !slices.Equal(got, want) {
					t.Fatalf("%v %d→%d: runs give %v, path is %v", c.dims, s, d, got, want)
				}
			}
		}
	}
}

// TestECMPSpreadsFlows: with fewer paths a flow than shortest paths, flows
// between different ends take different subsets (offset by a hash of
// their ends): on the 4-ary 3-tree, all-to-all over ECMP-4 (16 shortest
// paths between pods) touches 48 of the 64 links into the top switches
// (measured). Each flow's 4 paths are still distinct.
func TestECMPSpreadsFlows(t *testing.T) {
	tree, err := graph.NewTree(4, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewECMP(tree.Graph, 4)
	if err != nil {
		t.Fatal(err)
	}
	top := map[int32]bool{}
	n := int32(tree.NumServers())
	for s := int32(0); s < n; s++ {
		for d := int32(0); d < n; d++ {
			if s == d {
				continue
			}
			seen := map[string]bool{}
			err := r.Route(s, d, func(links []int32, _ float64) {
				key := fmt.Sprint(links)
				if seen[key] {
					t.Fatalf("%d→%d: a path twice", s, d)
				}
				seen[key] = true
				if len(links) == 6 { // up to the top: links[2] enters a top switch
					top[links[2]] = true
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(top) < 48 {
		t.Errorf("all-to-all over ECMP-4 uses %d of the 64 links into the top switches, want at least 48", len(top))
	}
}

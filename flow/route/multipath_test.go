package route

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/opasim/opasim/flow/graph"
)

// allSimple enumerates every simple path from server src to server dst
// crossing only nodes that forward, by depth-first search, ordered by
// length, then link ids: the reference for KSP and AllPath.
func allSimple(g *graph.Graph, src, dst int32) [][]int32 {
	var out [][]int32
	on := map[int32]bool{src: true}
	var walk func(v int32, path []int32)
	walk = func(v int32, path []int32) {
		lo, hi := g.Out(v)
		for l := lo; l < hi; l++ {
			w := g.Head(l)
			if w == dst {
				out = append(out, append(slices.Clone(path), l))
				continue
			}
			if on[w] || !g.Forwards(w) {
				continue
			}
			on[w] = true
			walk(w, append(path, l))
			on[w] = false
		}
	}
	walk(src, nil)
	slices.SortFunc(out, func(a, b []int32) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return out
}

// routes collects the paths r gives src→dst, checking each share is
// 1/(number of paths).
func routes(t *testing.T, r Router, src, dst int32) [][]int32 {
	t.Helper()
	var got [][]int32
	var shares []float64
	err := r.Route(src, dst, func(links []int32, share float64) {
		got = append(got, slices.Clone(links))
		shares = append(shares, share)
	})
	if err != nil {
		t.Fatalf("%s %d→%d: %v", r.Name(), src, dst, err)
	}
	for _, s := range shares {
		if s != 1/float64(len(got)) {
			t.Fatalf("%s %d→%d: share %v of %d paths", r.Name(), src, dst, s, len(got))
		}
	}
	return got
}

// nodePath turns a node sequence into the links joining it (the first
// link between each two nodes).
func nodePath(g *graph.Graph, nodes ...int32) []int32 {
	var p []int32
	for i := 1; i < len(nodes); i++ {
		p = append(p, g.LinkTo(nodes[i-1], nodes[i]))
	}
	return p
}

func mustKSP(t *testing.T, g *graph.Graph, k int) *KSP {
	t.Helper()
	r, err := NewKSP(g, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustAllPath(t *testing.T, g *graph.Graph, d, max int) *AllPath {
	t.Helper()
	r, err := NewAllPath(g, d, max, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// parallelGraph: servers 0 and 1, switches 2, 3, 4; cables 0–2, two
// parallel cables 2–3, 2–4, 4–3, 3–1. The simple paths 0→1 are
// 0–2–3–1 over either parallel cable (3 links) and 0–2–4–3–1 (4 links).
func parallelGraph(t *testing.T) *graph.Graph {
	t.Helper()
	var links []graph.Link
	for _, p := range [][2]int32{{0, 2}, {2, 3}, {2, 3}, {2, 4}, {4, 3}, {3, 1}} {
		links = append(links, graph.Link{From: p[0], To: p[1], Capacity: 1}, graph.Link{From: p[1], To: p[0], Capacity: 1})
	}
	g, err := graph.New(2, 3, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestKSPAllPathHand: paths enumerated by hand.
//
// 4-node ring (servers 0..3, switches 4..7): 0→1 has the 3-link path
// 0–4–5–1 and the 5-link path 0–4–7–6–5–1, nothing else. KSP-1 gives the
// first, KSP-2 and KSP-3 both (halves); AllPath-0 and -1 the first,
// AllPath-2 both.
//
// parallelGraph: 0→1 has two 3-link paths, over parallel cables a (the
// lower link id) and b, and one 4-link path. KSP-1: a; KSP-2: a, b;
// KSP-3: all three (thirds). AllPath-0: a, b; AllPath-1: all three;
// AllPath-1 bounded to 2: a, b.
func TestKSPAllPathHand(t *testing.T) {
	ring := mustTorus(t, []int{4}, 1).Graph
	short := nodePath(ring, 0, 4, 5, 1)
	long := nodePath(ring, 0, 4, 7, 6, 5, 1)
	for _, c := range []struct {
		r    Router
		want [][]int32
	}{
		{mustKSP(t, ring, 1), [][]int32{short}},
		{mustKSP(t, ring, 2), [][]int32{short, long}},
		{mustKSP(t, ring, 3), [][]int32{short, long}},
		{mustAllPath(t, ring, 0, 0), [][]int32{short}},
		{mustAllPath(t, ring, 1, 0), [][]int32{short}},
		{mustAllPath(t, ring, 2, 0), [][]int32{short, long}},
		{mustAllPath(t, ring, 5, 1), [][]int32{short}},
	} {
		if got := routes(t, c.r, 0, 1); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ring %s 0→1: %v, want %v", c.r.Name(), got, c.want)
		}
	}
	pg := parallelGraph(t)
	up, down := pg.LinkTo(0, 2), pg.LinkTo(3, 1)
	lo, hi := pg.Out(2)
	var par []int32 // the two links 2→3, in id order
	for l := lo; l < hi; l++ {
		if pg.Head(l) == 3 {
			par = append(par, l)
		}
	}
	a := []int32{up, par[0], down}
	b := []int32{up, par[1], down}
	c4 := []int32{up, pg.LinkTo(2, 4), pg.LinkTo(4, 3), down}
	for _, c := range []struct {
		r    Router
		want [][]int32
	}{
		{mustKSP(t, pg, 1), [][]int32{a}},
		{mustKSP(t, pg, 2), [][]int32{a, b}},
		{mustKSP(t, pg, 3), [][]int32{a, b, c4}},
		{mustKSP(t, pg, 9), [][]int32{a, b, c4}},
		{mustAllPath(t, pg, 0, 0), [][]int32{a, b}},
		{mustAllPath(t, pg, 1, 0), [][]int32{a, b, c4}},
		{mustAllPath(t, pg, 1, 2), [][]int32{a, b}},
	} {
		if got := routes(t, c.r, 0, 1); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("parallel %s 0→1: %v, want %v", c.r.Name(), got, c.want)
		}
	}
}

// smallGraphs are the graphs the brute-force comparisons run on: a 2-ary
// 2-tree, a 3x3 torus, a 2x3 torus (parallel links), BCube(2, 1) with
// servers forwarding and switch-centric, and a seeded random graph with a
// server on two switches (a server that is its own end node).
func smallGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var links []graph.Link
	cable := func(u, v int32) {
		links = append(links, graph.Link{From: u, To: v, Capacity: 1}, graph.Link{From: v, To: u, Capacity: 1})
	}
	// servers 0..4, switches 5..11: a random tree of switches plus extra cables
	for s := int32(6); s < 12; s++ {
		cable(s, 5+rng.Int32N(s-5))
	}
	for range 4 {
		u, v := 5+rng.Int32N(7), 5+rng.Int32N(7)
		if u != v {
			cable(u, v)
		}
	}
	for s := int32(0); s < 5; s++ {
		cable(s, 5+rng.Int32N(7))
	}
	cable(4, 11)
	random, err := graph.New(5, 7, links)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*graph.Graph{
		"tree 2-ary 2":        mustTree(t, 2, 2).Graph,
		"torus 3x3":           mustTorus(t, []int{3, 3}, 1).Graph,
		"torus 2x3":           mustTorus(t, []int{2, 3}, 1).Graph,
		"bcube(2,1) relay":    bcube21(t).WithServersForward(true),
		"bcube(2,1) no relay": bcube21(t),
		"random":              random,
		"random relay":        random.WithServersForward(true),
	}
}

// TestKSPBruteForce: for every pair of servers of the small graphs, KSP-k
// (k = 1, 2, 3, 5, 8, 30) gives exactly the first k simple paths of a
// depth-first enumeration ordered by length then link ids (all of them if
// fewer), each crossing only nodes that forward.
func TestKSPBruteForce(t *testing.T) {
	for name, g := range smallGraphs(t) {
		for _, k := range []int{1, 2, 3, 5, 8, 30} {
			r := mustKSP(t, g, k)
			for s := int32(0); s < int32(g.NumServers()); s++ {
				for d := int32(0); d < int32(g.NumServers()); d++ {
					if s == d {
						continue
					}
					want := allSimple(g, s, d)
					if len(want) == 0 {
						if err := r.Route(s, d, func([]int32, float64) {}); !errors.Is(err, ErrNoPath) {
							t.Fatalf("%s %s %d→%d: %v, want ErrNoPath", name, r.Name(), s, d, err)
						}
						continue
					}
					want = want[:min(k, len(want))]
					got := routes(t, r, s, d)
					for _, p := range got {
						checkPath(t, g, s, d, p)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s %s %d→%d: %v, want %v", name, r.Name(), s, d, got, want)
					}
				}
			}
		}
	}
}

// TestAllPathBruteForce: AllPath-d (d = 0, 1, 2, 3), unbounded and bounded
// to 3, gives exactly the enumerated simple paths at most d links longer
// than the shortest, in order, cut at the bound; with d = 64 and bound k
// it gives KSP-k's paths.
func TestAllPathBruteForce(t *testing.T) {
	for name, g := range smallGraphs(t) {
		for _, d := range []int{0, 1, 2, 3} {
			for _, bound := range []int{0, 3} {
				r := mustAllPath(t, g, d, bound)
				for s := int32(0); s < int32(g.NumServers()); s++ {
					for e := int32(0); e < int32(g.NumServers()); e++ {
						if s == e {
							continue
						}
						all := allSimple(g, s, e)
						if len(all) == 0 {
							if err := r.Route(s, e, func([]int32, float64) {}); !errors.Is(err, ErrNoPath) {
								t.Fatalf("%s %s %d→%d: %v, want ErrNoPath", name, r.Name(), s, e, err)
							}
							continue
						}
						var want [][]int32
						for _, p := range all {
							if len(p) <= len(all[0])+d && (bound == 0 || len(want) < bound) {
								want = append(want, p)
							}
						}
						if got := routes(t, r, s, e); fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%s %s %d→%d: %v, want %v", name, r.Name(), s, e, got, want)
						}
					}
				}
			}
		}
		for _, k := range []int{2, 4} {
			a, kk := mustAllPath(t, g, 64, k), mustKSP(t, g, k)
			for s := int32(0); s < int32(g.NumServers()); s++ {
				for e := int32(0); e < int32(g.NumServers()); e++ {
					if s != e && len(allSimple(g, s, e)) > 0 {
						if x, y := routes(t, a, s, e), routes(t, kk, s, e); fmt.Sprint(x) != fmt.Sprint(y) {
							t.Fatalf("%s %d→%d: %s %v, %s %v", name, s, e, a.Name(), x, kk.Name(), y)
						}
					}
				}
			}
		}
	}
}

// TestMultiPathNoRelay: on three servers 0–3–1–4–2 with a switch chain
// 3–5–6–4, switch-centric KSP and AllPath take 0→2 only by the chain (one
// path, 5 links), never through server 1; with servers forwarding the
// 4-link path through server 1 comes first.
func TestMultiPathNoRelay(t *testing.T) {
	var links []graph.Link
	for _, p := range [][2]int32{{0, 3}, {3, 1}, {1, 4}, {4, 2}, {3, 5}, {5, 6}, {6, 4}} {
		links = append(links, graph.Link{From: p[0], To: p[1], Capacity: 1}, graph.Link{From: p[1], To: p[0], Capacity: 1})
	}
	sc, err := graph.New(3, 4, links)
	if err != nil {
		t.Fatal(err)
	}
	chain := nodePath(sc, 0, 3, 5, 6, 4, 2)
	via1 := nodePath(sc, 0, 3, 1, 4, 2)
	for _, r := range []Router{mustKSP(t, sc, 4), mustAllPath(t, sc, 3, 0)} {
		if got := routes(t, r, 0, 2); fmt.Sprint(got) != fmt.Sprint([][]int32{chain}) {
			t.Errorf("switch-centric %s 0→2: %v, want only %v", r.Name(), got, chain)
		}
	}
	fw := sc.WithServersForward(true)
	for _, r := range []Router{mustKSP(t, fw, 4), mustAllPath(t, fw, 3, 0)} {
		if got := routes(t, r, 0, 2); fmt.Sprint(got) != fmt.Sprint([][]int32{via1, chain}) {
			t.Errorf("server-centric %s 0→2: %v, want %v", r.Name(), got, [][]int32{via1, chain})
		}
	}
}

// TestPathCache: servers on the same switches share a cache entry (2-ary
// 2-tree: 0→2 then 1→3 is one miss and one hit); under a bound of a few
// entries the cache stays within it, evicts, and routes exactly as an
// unbounded one; a cache serves one routing of one graph.
func TestPathCache(t *testing.T) {
	tree := mustTree(t, 2, 2)
	c, _ := NewPathCache(1 << 20)
	r, err := NewKSP(tree.Graph, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	routes(t, r, 0, 2)
	routes(t, r, 1, 3)
	if st := c.Stats(); st.Entries != 1 || st.Hits != 1 || st.Misses != 1 {
		t.Errorf("after 0→2, 1→3: %+v, want 1 entry, 1 hit, 1 miss", st)
	}
	if r.Cache() != c {
		t.Error("Cache() is not the cache given")
	}
	if _, err := NewKSP(tree.Graph, 3, c); err == nil || !strings.Contains(err.Error(), "path cache: already used by ksp-2") {
		t.Errorf("a second routing on the cache: %v", err)
	}
	if _, err := NewKSP(mustTree(t, 2, 2).Graph, 2, c); err == nil {
		t.Error("the same routing of another graph accepted the cache")
	}
	if _, err := NewKSP(tree.Graph, 2, c); err != nil {
		t.Errorf("the same routing and graph: %v", err)
	}

	torus := mustTorus(t, []int{4, 4}, 2).Graph
	small, _ := NewPathCache(2048)
	bounded, _ := NewAllPath(torus, 1, 0, small)
	free := mustAllPath(t, torus, 1, 0)
	for rep := 0; rep < 2; rep++ {
		for s := int32(0); s < int32(torus.NumServers()); s += 3 {
			for d := int32(0); d < int32(torus.NumServers()); d += 5 {
				if s == d {
					continue
				}
				if x, y := routes(t, bounded, s, d), routes(t, free, s, d); fmt.Sprint(x) != fmt.Sprint(y) {
					t.Fatalf("%d→%d: bounded cache %v, unbounded %v", s, d, x, y)
				}
				if st := small.Stats(); st.Bytes > st.Limit {
					t.Fatalf("cache holds %d bytes, bound %d", st.Bytes, st.Limit)
				}
			}
		}
	}
	if st := small.Stats(); st.Evictions == 0 || st.Entries == 0 || st.Bytes > 2048 {
		t.Errorf("bounded cache: %+v, want evictions and at most 2048 bytes", st)
	}
	if st := free.Cache().Stats(); st.Evictions != 0 || st.Hits == 0 || st.Limit != DefaultCacheBytes {
		t.Errorf("default cache: %+v", st)
	}
	if _, err := NewPathCache(10); err == nil || !strings.Contains(err.Error(), "path cache bytes: 10") {
		t.Errorf("NewPathCache(10): %v", err)
	}
}

// TestMultiPathErrors: bad k, d and bounds; pairs that are not two
// servers; an unreachable destination (ErrNoPath, also from the cache);
// more than MaxKSP paths with no bound.
func TestMultiPathErrors(t *testing.T) {
	tree := mustTree(t, 2, 2).Graph
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(NewKSP(tree, 0, nil)), "ksp k: 0 is not allowed"},
		{second(NewKSP(tree, MaxKSP+1, nil)), "ksp k: 65537"},
		{second(NewAllPath(tree, -1, 0, nil)), "allpath d: -1"},
		{second(NewAllPath(tree, 1, -2, nil)), "allpath max paths: -2"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%v, want %q", c.err, c.want)
		}
	}
	r := mustKSP(t, tree, 2)
	if err := r.Route(1, 1, func([]int32, float64) {}); err == nil || !strings.Contains(err.Error(), "must differ from src") {
		t.Errorf("1→1: %v", err)
	}
	if err := r.Route(0, 4, func([]int32, float64) {}); err == nil || !strings.Contains(err.Error(), "must be a server") {
		t.Errorf("0→4: %v", err)
	}
	g, _ := graph.New(2, 2, []graph.Link{{From: 0, To: 2, Capacity: 1}, {From: 2, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1}, {From: 3, To: 1, Capacity: 1}})
	for _, r := range []Router{mustKSP(t, g, 3), mustAllPath(t, g, 2, 0)} {
		for range 2 { // the second time from the cache
			if err := r.Route(0, 1, func([]int32, float64) { t.Error("called") }); !errors.Is(err, ErrNoPath) {
				t.Errorf("%s: %v, want ErrNoPath", r.Name(), err)
			}
		}
	}
	// A 9x9x9 torus has more than 65,536 paths of at most 12+2 links
	// between opposite corners... a 5x5x5 torus is enough for d = 4.
	big := mustTorus(t, []int{5, 5, 5}, 1).Graph
	if err := mustAllPath(t, big, 4, 0).Route(0, 62, func([]int32, float64) {}); err == nil || !strings.Contains(err.Error(), "give a maximum number of paths") {
		t.Errorf("allpath-4 on a 5x5x5 torus: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestMultiPathNoAllocs: a flow whose pair is cached allocates nothing.
func TestMultiPathNoAllocs(t *testing.T) {
	tor := mustTorus(t, []int{4, 4}, 1).Graph
	for _, r := range []Router{mustKSP(t, tor, 4), mustAllPath(t, tor, 1, 8)} {
		fn := func([]int32, float64) {}
		r.Route(0, 10, fn)
		if a := testing.AllocsPerRun(100, func() { r.Route(0, 10, fn) }); a != 0 {
			t.Errorf("%s: %v allocations per cached flow", r.Name(), a)
		}
	}
}

// TestMultiPathClones: clones routing concurrently (sharing the cache)
// give the paths one router gives alone.
func TestMultiPathClones(t *testing.T) {
	tor := mustTorus(t, []int{4, 3}, 2).Graph
	for _, mk := range []func() Router{
		func() Router { return mustKSP(t, tor, 3) },
		func() Router { return mustAllPath(t, tor, 2, 5) },
	} {
		alone, shared := mk(), mk()
		n := int32(tor.NumServers())
		want := map[[2]int32]string{}
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				if s != d {
					want[[2]int32{s, d}] = fmt.Sprint(routes(t, alone, s, d))
				}
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		bad := 0
		for w := range 3 {
			c := shared.Clone()
			wg.Go(func() {
				for s := int32(0); s < n; s++ {
					for d := int32(0); d < n; d++ {
						if s == d || (int(s)+int(d))%3 == w {
							continue
						}
						var got [][]int32
						sum := 0.0
						c.Route(s, d, func(l []int32, share float64) { got = append(got, slices.Clone(l)); sum += share })
						if fmt.Sprint(got) != want[[2]int32{s, d}] || math.Abs(sum-1) > 1e-12 {
							mu.Lock()
							bad++
							mu.Unlock()
						}
					}
				}
			})
		}
		wg.Wait()
		if bad != 0 {
			t.Errorf("%s: %d flows differ between clones and a lone router", alone.Name(), bad)
		}
	}
}

package route_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/internal/testlong"
)

// fullBFS is ECMP's lookup as it was before the distance rows: a full
// breadth-first search from the flow's root for every root met, the last
// one kept. It is the reference the rows must match path for path.
type fullBFS struct {
	g        *graph.Graph
	maxPaths int
	src      int32
	dist     []int32
	count    []float64
	queue    []int32
}

func newFullBFS(g *graph.Graph, maxPaths int) *fullBFS {
	return &fullBFS{g: g, maxPaths: maxPaths, src: -1}
}

func (r *fullBFS) search(src int32) (root, first int32) {
	root, first = src, -1
	g := r.g
	if lo, hi := g.Out(src); hi-lo == 1 {
		if in := g.In(src); len(in) == 1 {
			if v := g.Head(lo); g.Tail(in[0]) == v && g.Forwards(v) {
				root, first = v, lo
			}
		}
	}
	if r.src == root {
		return root, first
	}
	if r.dist == nil {
		r.dist = make([]int32, g.NumNodes())
		r.count = make([]float64, g.NumNodes())
	}
	r.queue = g.Distances(root, r.dist, r.queue)
	clear(r.count)
	r.count[root] = 1
	relay := g.FirstForwarder()
	for _, u := range r.queue {
		if u != root && u < relay {
			continue
		}
		lo, hi := g.Out(u)
		for l := lo; l < hi; l++ {
			if v := g.Head(l); r.dist[v] == r.dist[u]+1 {
				r.count[v] += r.count[u]
			}
		}
	}
	r.src = root
	return root, first
}

func (r *fullBFS) numPaths(src, dst int32) float64 {
	if root, _ := r.search(src); dst == root {
		return 1
	}
	return r.count[dst]
}

// route returns the paths and shares of src→dst, or an error, as ECMP's
// Route did.
func (r *fullBFS) route(src, dst int32) ([][]int32, []float64, error) {
	root, first := r.search(src)
	total := r.count[dst]
	if dst == root {
		total = 1
	}
	if total == 0 {
		return nil, nil, fmt.Errorf("ecmp from %d to %d: %w", src, dst, route.ErrNoPath)
	}
	p := r.maxPaths
	switch {
	case p == 0 && total > route.MaxAllPaths:
		return nil, nil, fmt.Errorf("ecmp from %d to %d: %v shortest paths is more than %d: give a maximum number of paths", src, dst, total, route.MaxAllPaths)
	case p == 0 || total <= float64(p):
		p = int(total)
	}
	off := 0.0
	if stride := math.Floor(total / float64(p)); p > 1 && stride > 1 {
		x := uint64(uint32(src))<<32 | uint64(uint32(dst))
		x ^= x >> 30
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 27
		x *= 0x94d049bb133111eb
		off = float64((x ^ x>>31) % uint64(stride))
	}
	var paths [][]int32
	var shares []float64
	for j := range p {
		rank := math.Floor(float64(j)*total/float64(p)) + off
		if p == 1 || off == 0 {
			rank = math.Floor((float64(j) + 0.5) * total / float64(p))
		}
		path := make([]int32, r.dist[dst])
		r.unrank(root, dst, math.Min(rank, total-1), path)
		if first >= 0 {
			path = append([]int32{first}, path...)
		}
		paths = append(paths, path)
		shares = append(shares, 1/float64(p))
	}
	return paths, shares, nil
}

func (r *fullBFS) unrank(src, dst int32, rank float64, path []int32) {
	g := r.g
	relay := g.FirstForwarder()
	v := dst
	for i := len(path) - 1; i >= 0; i-- {
		want := r.dist[v] - 1
		chosen := int32(-1)
		for _, l := range g.In(v) {
			u := g.Tail(l)
			if r.dist[u] != want || u != src && u < relay {
				continue
			}
			chosen = l
			if rank < r.count[u] {
				break
			}
			rank -= r.count[u]
		}
		path[i] = chosen
		v = g.Tail(chosen)
	}
}

// equivGraphs are the graphs TestECMPRowsMatchFullBFS routes on.
func equivGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	gs := map[string]*graph.Graph{}
	jf, err := topology.NewJellyfish(64, 12, 8, 7, 1)
	check(err)
	gs["jellyfish"] = jf.Graph
	gs["jellyfish, servers forward"] = jf.Graph.WithServersForward(true)
	tor, err := graph.NewTorus([]int{6, 5, 4}, 2, 1)
	check(err)
	gs["torus"] = tor.Graph
	df, err := topology.NewDragonfly(4, 2, 2, topology.DragonflyAbsolute, 1)
	check(err)
	gs["dragonfly"] = df.Graph
	tr, err := graph.NewTree(4, 3, 1)
	check(err)
	gs["tree"] = tr.Graph
	failed, err := graph.FailFraction(jf.Graph, 0.15, 3)
	check(err)
	gs["jellyfish, 15% of cables failed"] = failed.Graph
	bc, err := topology.NewBCube(4, 2, 1)
	check(err)
	gs["bcube"] = bc.Graph
	// Servers on two switches each: their roots do not forward.
	var links []graph.Link
	const servers, switches = 40, 10
	link := func(a, b int32) {
		links = append(links, graph.Link{From: a, To: b, Capacity: 1}, graph.Link{From: b, To: a, Capacity: 1})
	}
	for s := range int32(servers) {
		link(s, servers+s%switches)
		if s%3 == 0 {
			link(s, servers+(s+1)%switches)
		}
	}
	for w := range int32(switches) {
		link(servers+w, servers+(w+1)%switches)
		link(servers+w, servers+(w+3)%switches)
	}
	dual, err := graph.New(servers, switches, links)
	check(err)
	gs["dual-homed servers"] = dual
	// A ring too long for a byte of distance.
	links = nil
	const ring = 600
	for w := range int32(ring) {
		link(4+w, 4+(w+1)%ring)
	}
	for s := range int32(4) {
		link(s, 4+s*ring/4)
	}
	long, err := graph.New(4, ring, links)
	check(err)
	gs["long ring"] = long
	return gs
}

// TestECMPRowsMatchFullBFS checks that ECMP, BFS and ECMP-4 route every
// pair of servers (a seeded sample of 20,000 on bigger graphs), met in a
// random order or source by source, on the same paths in the same order with the same shares
// and the same count of shortest paths as a full search from each root
// gives; on a jellyfish, a torus, a dragonfly, a tree, a jellyfish with
// failed cables, server-centric graphs, servers on two switches, a ring
// too long for the rows, and with a row bound small enough that rows are
// dropped and rebuilt, a clone sharing the rows routing every other flow.
//
// Source by source, a router switches to the full search for a root
// once its flows' DAGs have cost as much: both ways are compared.
func TestECMPRowsMatchFullBFS(t *testing.T) {
	gs := equivGraphs(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range gs {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		g := gs[name]
		ps, smalls := []int{0, 1, 4}, []bool{false, true}
		if testlong.Reduced(t) {
			ps, smalls = []int{0, 4}, []bool{true} // the row limit's paths, whole and capped
		}
		for _, p := range ps {
			for _, small := range smalls {
				for _, bySource := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/paths %d/small bound %v/by source %v", name, p, small, bySource), func(t *testing.T) {
						compareECMP(t, g, p, small, bySource)
					})
				}
			}
		}
	}
}

func compareECMP(t *testing.T, g *graph.Graph, p int, small, bySource bool) {
	r, err := route.NewECMP(g, p)
	if err != nil {
		t.Fatal(err)
	}
	if small {
		// Room for 17 rows of the forwarding nodes: rows are dropped.
		route.SetECMPRowLimit(r, 17*int64(g.NumNodes()-int(g.FirstForwarder())+64))
	}
	clone := r.Clone().(*route.ECMP)
	ref := newFullBFS(g, p)
	n := int32(g.NumServers())
	var pairs [][2]int32
	for s := range n {
		for d := range n {
			if s != d {
				pairs = append(pairs, [2]int32{s, d})
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(p), uint64(len(pairs))))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if len(pairs) > 20000 {
		pairs = pairs[:20000]
	}
	if bySource {
		slices.SortStableFunc(pairs, func(a, b [2]int32) int { return int(a[0] - b[0]) })
	}
	routed := 0
	for i, pr := range pairs {
		s, d := pr[0], pr[1]
		rr := r
		if i%2 == 1 {
			rr = clone
		}
		wantPaths, wantShares, wantErr := ref.route(s, d)
		var paths [][]int32
		var shares []float64
		err := rr.Route(s, d, func(links []int32, share float64) {
			paths = append(paths, slices.Clone(links))
			shares = append(shares, share)
		})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%d→%d: error %v, want %v", s, d, err, wantErr)
		}
		if len(paths) != len(wantPaths) {
			t.Fatalf("%d→%d: %d paths, want %d", s, d, len(paths), len(wantPaths))
		}
		for k := range paths {
			if !slices.Equal(paths[k], wantPaths[k]) || shares[k] != wantShares[k] {
				t.Fatalf("%d→%d path %d: %v share %v, want %v share %v", s, d, k, paths[k], shares[k], wantPaths[k], wantShares[k])
			}
		}
		if got, err := rr.NumPaths(s, d); err != nil || got != ref.numPaths(s, d) {
			t.Fatalf("%d→%d: NumPaths %v, %v, want %v", s, d, got, err, ref.numPaths(s, d))
		}
		if err == nil {
			routed++
		}
	}
	if routed == 0 {
		t.Fatal("no pair routed")
	}
	rows, bytes := route.ECMPRows(r)
	if small && bytes > 17*int64(g.NumNodes()-int(g.FirstForwarder())+64) {
		t.Errorf("%d rows, %d bytes: over the bound", rows, bytes)
	}
	if rows == 0 {
		t.Error("no distance row kept: the rows were not tried")
	}
}

package route

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/graph"
)

// MaxAllPaths bounds the number of paths ECMP enumerates when asked for
// all shortest paths (MaxPaths 0): a flow with more fails with an error
// that asks for a bound.
const MaxAllPaths = 1 << 16

// ECMP is equal-cost multipath routing over the shortest paths of any
// graph (seed 001 section 3.2, "ECMP" and "BFS" routing): a flow is split
// in equal shares over all its shortest paths, or over up to maxPaths of
// them spread evenly through the list of all of them. With maxPaths 1 it
// is single-path BFS routing. Only nodes that forward are crossed
// (graph.Forwards): in a switch-centric graph a path never crosses a
// server other than its ends; in a server-centric one servers relay.
//
// Algorithm: a breadth-first search from the source counts, for every
// node v, the shortest paths from the source to v (count[v], a float64,
// exact below 2^53). The shortest paths to dst, ordered by the ids of the
// links taken from dst backward, are numbered 0..count[dst]-1; path number
// r is rebuilt from dst backward: among the links u→v entering the current
// node v from a node one step closer to the source, in id order, take the
// first whose cumulative count[u] exceeds r, subtract the counts skipped,
// and continue from u. With P paths asked of T, paths number
// floor((j+0.5)·T/P) for j in [0, P) are taken, all of them when P = T;
// when several are taken of more, floor(j·T/P) + o instead, o a hash of
// the flow's ends below floor(T/P), so that flows spread over all paths.
//
// Cost: the search, O(nodes + links), runs once per distinct source and is
// kept for the next flow from the same source (engines route flows source
// by source); each path costs O(length · in-degree). Scratch space: 16
// bytes per node.
type ECMP struct {
	g        *graph.Graph
	maxPaths int
	src      int32     // the root of the search in dist and count; -1 before the first
	dist     []int32   // links from src
	count    []float64 // shortest paths from src
	queue    []int32
	buf      []int32
}

// NewECMP returns ECMP routing over g using up to maxPaths paths per flow,
// or all shortest paths (at most MaxAllPaths) when maxPaths is 0.
func NewECMP(g *graph.Graph, maxPaths int) (*ECMP, error) {
	if maxPaths < 0 || maxPaths > MaxAllPaths {
		return nil, fmt.Errorf("ecmp max paths: %d is not allowed: must be in [0, %d] (0: all shortest paths)", maxPaths, MaxAllPaths)
	}
	return &ECMP{g: g, maxPaths: maxPaths, src: -1}, nil
}

// Name returns "ecmp" (all shortest paths), "bfs" (one) or "ecmp-P".
func (r *ECMP) Name() string {
	switch r.maxPaths {
	case 0:
		return "ecmp"
	case 1:
		return "bfs"
	}
	return fmt.Sprintf("ecmp-%d", r.maxPaths)
}

// Graph returns the graph routed over.
func (r *ECMP) Graph() *graph.Graph { return r.g }

// Clone returns a router with the same bound and its own search state.
func (r *ECMP) Clone() Router { return &ECMP{g: r.g, maxPaths: r.maxPaths, src: -1} }

// NumPaths returns the number of shortest paths from src to dst (0 when
// dst is unreachable), as a float64 (exact below 2^53).
func (r *ECMP) NumPaths(src, dst int32) (float64, error) {
	if err := CheckPair(r.g, src, dst); err != nil {
		return 0, err
	}
	root, _ := r.search(src)
	if dst == root {
		return 1, nil
	}
	return r.count[dst], nil
}

// Route calls fn once per path, each with share 1/P.
func (r *ECMP) Route(src, dst int32, fn PathFunc) error {
	if err := CheckPair(r.g, src, dst); err != nil {
		return err
	}
	root, first := r.search(src)
	total := r.count[dst]
	if dst == root {
		total = 1
	}
	if total == 0 {
		return fmt.Errorf("ecmp from %d to %d: %w", src, dst, ErrNoPath)
	}
	var p int
	switch {
	case r.maxPaths == 0 && total > MaxAllPaths:
		return fmt.Errorf("ecmp from %d to %d: %v shortest paths is more than %d: give a maximum number of paths", src, dst, total, MaxAllPaths)
	case r.maxPaths == 0 || total <= float64(r.maxPaths):
		p = int(total)
	default:
		p = r.maxPaths
	}
	n := int(r.dist[dst])
	if first >= 0 {
		n++ // the source's one link, then root's paths
	}
	if cap(r.buf) < n {
		r.buf = make([]int32, n)
	}
	path := r.buf[:n]
	if first >= 0 {
		path[0] = first
	}
	share := 1 / float64(p)
	// With fewer paths than there are, each flow starts its evenly spaced
	// picks at its own offset within the first gap (a hash of its ends,
	// as a switch hashes a flow onto its ECMP group): flows between
	// different ends spread over all the paths instead of all taking the
	// same P.
	off := 0.0
	if stride := math.Floor(total / float64(p)); p > 1 && stride > 1 {
		off = float64(mix64(uint64(uint32(src))<<32|uint64(uint32(dst))) % uint64(stride))
	}
	for j := range p {
		rank := math.Floor(float64(j)*total/float64(p)) + off
		if p == 1 || off == 0 {
			rank = math.Floor((float64(j) + 0.5) * total / float64(p))
		}
		r.unrank(root, dst, math.Min(rank, total-1), path[n-int(r.dist[dst]):])
		fn(path, share)
	}
	return nil
}

// mix64 is splitmix64's finalizer: a well-spread hash of x.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// search runs the breadth-first search from src's root unless it is the
// last one, and returns the root and, if the root is not src, src's link
// to it (else -1). A server whose only link out and only link in join it
// to one forwarding node has that node as its root: every path from it
// is that link then a path from the node, and a shortest path from the
// node never returns through the server (its one link leads back), so
// the servers of a switch share one search, with the same paths in the
// same order as searches of their own would give.
func (r *ECMP) search(src int32) (root, first int32) {
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
	src = root
	if r.dist == nil {
		r.dist = make([]int32, g.NumNodes())
		r.count = make([]float64, g.NumNodes())
	}
	r.queue = g.Distances(src, r.dist, r.queue)
	clear(r.count)
	r.count[src] = 1
	relay := g.FirstForwarder()
	// queue holds the reached nodes in non-decreasing distance: count[u]
	// is final when u is dequeued.
	for _, u := range r.queue {
		if u != src && u < relay {
			continue
		}
		du, cu := r.dist[u], r.count[u]
		lo, hi := g.Out(u)
		for l := lo; l < hi; l++ {
			if v := g.Head(l); r.dist[v] == du+1 {
				r.count[v] += cu
			}
		}
	}
	r.src = src
	return root, first
}

// unrank fills path with shortest path number rank from src to dst.
func (r *ECMP) unrank(src, dst int32, rank float64, path []int32) {
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
			if c := r.count[u]; rank < c {
				break
			} else {
				rank -= c
			}
		}
		// chosen is the last eligible link if rounding left rank too big.
		path[i] = chosen
		v = g.Tail(chosen)
	}
}

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
// Lookup: a router keeps, per source root it has met (see rootOf), one
// row of breadth-first distances from the root to every forwarding node
// (graph.FirstForwarder() and up: the switches of a switch-centric graph,
// every node of a server-centric one), one byte a node. A flow's paths
// need count[u] only for the nodes u of the shortest-path DAG between its
// root and dst (the nodes from which dst is reached, one link a step, at
// the distance from the root that is one more each step): they are found
// backward from dst over the in-links whose tail relays and is one step
// closer to the root, and counted forward over the same links. Every
// shortest path from the root to such a u lies in the DAG, so count[u] is
// the number the full search gives, and the ranks and paths are the same.
// The DAG's counts are added in another order than the full search's: the
// sums are integers, exact below 2^53, so when a count exceeds 2^53 the
// flow is routed with the full search instead, whose roundings are then
// reproduced bit for bit.
//
// Cost: a row, O(nodes + links) to build, is made once per root and kept
// in a least-recently-used table of at most ECMPRowBytes bytes shared by
// the router and its clones (a 4,096-switch jellyfish's 4,096 rows take
// 16 MiB); a flow then costs O(DAG links) to count and
// O(length · in-degree) a path. The full search from the root (O(nodes +
// links), the last root kept) is used instead where the row would not do:
// when the root does not forward (a server of a switch-centric graph with
// several links), when a node is 255 links or more from the root, or when
// fewer than 16 rows fit the bound; and for flows from one root in a row
// (as the static engine routes them) once their DAGs have scanned as
// many links as the graph has nodes and links, since the full search
// then costs less per flow. Scratch space: 12 bytes per node for
// the DAG's marks and counts, 4 per link of the largest DAG (its links'
// tails), 20 for the full search if used, and the
// last 8 DAGs counted (of at most 65,536 nodes each, 12 bytes a node).
type ECMP struct {
	g        *graph.Graph
	maxPaths int
	rows     *ecmpRows // distance rows per root, shared with clones

	// the full search
	src     int32     // the root of the search in dist and count; -1 before the first
	dist    []int32   // links from src, -1 for the nodes not reached
	count   []float64 // shortest paths from src, 0 for the nodes not reached
	reached []int32   // the nodes src reaches, in non-decreasing distance
	queue   []int32
	buf     []int32

	// the lookup in a row: distances from the flow's root; mark[v] ==
	// stamp for the nodes of the flow's DAG, dagCount[v] their counts
	row      []uint8
	runRoot  int32 // the root of the last flow, runWork the links its DAGs scanned since it changed
	runWork  int64
	stamp    uint32
	mark     []uint32
	dagCount []float64
	dag      []int32
	tails    []int32 // the DAG's links' tails, by head (see countDAG)
	ends     []int32

	// the last dagMemo DAGs counted, by root and target (see countDAG),
	// replaced in turn
	memo     [dagMemo]dagEntry
	memoNext int
}

// NewECMP returns ECMP routing over g using up to maxPaths paths per flow,
// or all shortest paths (at most MaxAllPaths) when maxPaths is 0.
func NewECMP(g *graph.Graph, maxPaths int) (*ECMP, error) {
	if maxPaths < 0 || maxPaths > MaxAllPaths {
		return nil, fmt.Errorf("ecmp max paths: %d is not allowed: must be in [0, %d] (0: all shortest paths)", maxPaths, MaxAllPaths)
	}
	return newECMP(g, maxPaths, &ecmpRows{rows: map[int32]*ecmpRow{}, limit: ECMPRowBytes}), nil
}

func newECMP(g *graph.Graph, maxPaths int, rows *ecmpRows) *ECMP {
	r := &ECMP{g: g, maxPaths: maxPaths, src: -1, runRoot: -1, rows: rows}
	for i := range r.memo {
		r.memo[i].target = -1
	}
	return r
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
// The clone shares r's distance rows.
func (r *ECMP) Clone() Router {
	return newECMP(r.g, r.maxPaths, r.rows)
}

// NumPaths returns the number of shortest paths from src to dst (0 when
// dst is unreachable), as a float64 (exact below 2^53).
func (r *ECMP) NumPaths(src, dst int32) (float64, error) {
	if err := CheckPair(r.g, src, dst); err != nil {
		return 0, err
	}
	_, _, total, _ := r.lookup(src, dst)
	return total, nil
}

// Route calls fn once per path, each with share 1/P.
func (r *ECMP) Route(src, dst int32, fn PathFunc) error {
	if err := CheckPair(r.g, src, dst); err != nil {
		return err
	}
	root, first, total, d := r.lookup(src, dst)
	if total == 0 {
		return &noPath{"ecmp", src, dst}
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
	n := d
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
		r.unrank(root, dst, math.Min(rank, total-1), path[n-d:])
		fn(path, share)
	}
	return nil
}

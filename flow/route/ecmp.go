package route

import (
	"fmt"
	"math"
	"sync"

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

// dagMemo is how many recent DAGs a router keeps; dagMemoNodes bounds the
// nodes of a DAG kept.
const (
	dagMemo      = 8
	dagMemoNodes = 1 << 16
)

// dagEntry is a counted DAG: its nodes (in countDAG's order, farthest
// from root first) and their counts, and the target's distance.
type dagEntry struct {
	root, target int32 // target -1: empty
	dist         uint8
	nodes        []int32
	counts       []float64
}

// ECMPRowBytes bounds the memory of the distance rows a router and its
// clones keep (see ECMP): 64 MiB.
const ECMPRowBytes = 64 << 20

// minRows is the fewest rows that must fit ECMPRowBytes for rows to be
// used.
const minRows = 16

// unreached marks a node no row distance reaches.
const unreached = math.MaxUint8

// ecmpRows is the least-recently-used table of distance rows by root,
// safe for concurrent use.
type ecmpRows struct {
	mu           sync.Mutex
	rows         map[int32]*ecmpRow
	bytes, limit int64 // counted and bound (ECMPRowBytes)
	tick         uint64
}

type ecmpRow struct {
	dist []uint8 // dist[v-FirstForwarder()]; nil if a node is too far
	used uint64
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

// mix64 is splitmix64's finalizer: a well-spread hash of x.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// rootOf returns src's root and, if the root is not src, src's link to it
// (else -1). A server whose only link out and only link in join it to one
// forwarding node has that node as its root: every path from it is that
// link then a path from the node, and a shortest path from the node never
// returns through the server (its one link leads back), so the servers of
// a switch share one search, with the same paths in the same order as
// searches of their own would give.
func (r *ECMP) rootOf(src int32) (root, first int32) {
	g := r.g
	if lo, hi := g.Out(src); hi-lo == 1 {
		if in := g.In(src); len(in) == 1 {
			if v := g.Head(lo); g.Tail(in[0]) == v && g.Forwards(v) {
				return v, lo
			}
		}
	}
	return src, -1
}

// lookup returns src's root and link to it (rootOf), the number of
// shortest paths from the root to dst (1 if dst is the root, 0 if it is
// unreachable) and their length, with what unrank needs to rebuild them:
// the DAG's counts in r.row, r.mark and r.dagCount (r.row non-nil), or
// else the full search's in r.dist and r.count (r.row nil).
func (r *ECMP) lookup(src, dst int32) (root, first int32, total float64, length int) {
	root, first = r.rootOf(src)
	if dst == root {
		r.row = nil
		return root, first, 1, 0
	}
	if root != r.runRoot {
		r.runRoot, r.runWork = root, 0
	}
	// The full search is used where it is current: for flows from one
	// root in a row, once their DAGs have cost as much as a search.
	if r.src != root {
		if r.row = r.rowOf(root); r.row != nil {
			if total, length, ok := r.countDAG(root, dst); ok {
				if r.runWork > int64(r.g.NumNodes())+int64(r.g.NumLinks()) {
					r.search(root)
				}
				return root, first, total, length
			}
		}
	}
	r.row = nil
	r.search(root)
	return root, first, r.count[dst], int(max(r.dist[dst], 0))
}

// rowOf returns the distances from root to the forwarding nodes, from the
// table or built and added to it, or nil if rows are not used for root.
func (r *ECMP) rowOf(root int32) []uint8 {
	g := r.g
	relay := g.FirstForwarder()
	n := int64(g.NumNodes()) - int64(relay)
	t := r.rows
	if root < relay || n*minRows > t.limit {
		return nil
	}
	t.mu.Lock()
	e := t.rows[root]
	if e != nil {
		t.tick++
		e.used = t.tick
	}
	t.mu.Unlock()
	if e != nil {
		return e.dist
	}
	dist := make([]uint8, n)
	for i := range dist {
		dist[i] = unreached
	}
	dist[root-relay] = 0
	queue := append(r.queue[:0], root)
	for i := 0; i < len(queue) && dist != nil; i++ {
		u := queue[i]
		du := dist[u-relay] + 1
		lo, hi := g.Out(u)
		for l := lo; l < hi; l++ {
			if v := g.Head(l); v >= relay && dist[v-relay] == unreached {
				if du == unreached {
					dist = nil // too far for a byte
					break
				}
				dist[v-relay] = du
				queue = append(queue, v)
			}
		}
	}
	r.queue = queue
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.rows[root]; old != nil { // built meanwhile by a clone
		return old.dist
	}
	t.tick++
	t.rows[root] = &ecmpRow{dist: dist, used: t.tick}
	t.bytes += rowBytes(dist)
	for t.bytes > t.limit {
		var lru int32 = -1
		for k, v := range t.rows {
			if lru < 0 || v.used < t.rows[lru].used {
				lru = k
			}
		}
		t.bytes -= rowBytes(t.rows[lru].dist)
		delete(t.rows, lru)
	}
	return dist
}

// rowBytes is what a row counts against ECMPRowBytes: its distances and
// its entry.
func rowBytes(dist []uint8) int64 { return int64(len(dist)) + 64 }

// countDAG finds the DAG of the shortest paths from root to dst in r.row
// and counts, for each of its nodes, the shortest paths from root to it.
// It returns dst's count and distance from root, and false if dst is
// unreachable in the row or a count is above 2^53 (the full search is
// then used).
//
// A dst that does not forward and whose one link in comes from a
// forwarding node v (a server on its switch) is reached over v: its DAG
// is v's and that link, so the DAG counted is v's, the target, shared by
// the servers of v. The last dagMemo DAGs counted are kept by root and
// target: flows between the servers of two switches, as applications
// send them, count theirs once.
func (r *ECMP) countDAG(root, dst int32) (total float64, length int, ok bool) {
	g := r.g
	target, extra, dd := r.dagTarget(dst)
	if dd == unreached || (dd == 0 && extra == 0) {
		return 0, 0, false
	}
	if r.mark == nil {
		r.mark = make([]uint32, g.NumNodes())
		r.dagCount = make([]float64, g.NumNodes())
	}
	if dist, ok := r.recallDAG(root, target); ok {
		return r.dagCount[target], int(dist) + extra, true
	}
	r.collectDAG(target, dd)
	if !r.countPaths(root) {
		return 0, 0, false
	}
	if len(r.dag) <= dagMemoNodes {
		r.rememberDAG(root, target, dd)
	}
	return r.dagCount[target], int(dd) + extra, true
}

// dagTarget is the node whose DAG countDAG counts for dst: dst itself,
// or the forwarding node v whose one link into dst is dst's only one
// (extra 1: that link). dd is the target's distance from the row's root
// (unreached if none): its row entry if it forwards, else one more than
// its nearest forwarding in-neighbour's (the root forwards).
func (r *ECMP) dagTarget(dst int32) (target int32, extra int, dd uint8) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	target, extra = dst, 0
	if dst < relay {
		if in := g.In(dst); len(in) == 1 {
			if v := g.Tail(in[0]); v >= relay {
				target, extra = v, 1
			}
		}
	}
	dd = uint8(unreached)
	if target >= relay {
		dd = row[target-relay]
	} else {
		for _, l := range g.In(target) {
			if u := g.Tail(l); u >= relay {
				dd = min(dd, row[u-relay])
			}
		}
		if dd != unreached {
			dd++
		}
	}
	return target, extra, dd
}

// recallDAG sets the counts of the DAG from root to target from the memo,
// if it holds it, and returns the target's distance.
func (r *ECMP) recallDAG(root, target int32) (dist uint8, ok bool) {
	for i := range r.memo {
		if e := &r.memo[i]; e.target == target && e.root == root {
			for k, v := range e.nodes {
				r.dagCount[v] = e.counts[k]
			}
			r.runWork += int64(len(e.nodes))
			return e.dist, true
		}
	}
	return 0, false
}

// collectDAG lists in r.dag the nodes of the DAG of the shortest paths
// into target, at distance dd from the row's root, backward from target a
// level at a time: the list is in non-increasing distance from root. The
// DAG's links are kept as they are found: the tails of dag[i]'s links are
// tails[ends[i-1]:ends[i]].
func (r *ECMP) collectDAG(target int32, dd uint8) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	if r.stamp++; r.stamp == 0 {
		clear(r.mark)
		r.stamp = 1
	}
	stamp, mark := r.stamp, r.mark
	mark[target] = stamp
	dag := append(r.dag[:0], target)
	tails, ends := r.tails[:0], r.ends[:0]
	for i := 0; i < len(dag); i++ {
		v := dag[i]
		want := dd - 1
		if i > 0 {
			want = row[v-relay] - 1
		}
		in := g.In(v)
		r.runWork += int64(len(in))
		if want != unreached { // else v is root
			for _, l := range in {
				if u := g.Tail(l); u >= relay && row[u-relay] == want {
					tails = append(tails, u)
					if mark[u] != stamp {
						mark[u] = stamp
						dag = append(dag, u)
					}
				}
			}
		}
		ends = append(ends, int32(len(tails)))
	}
	r.dag, r.tails, r.ends = dag, tails, ends
}

// countPaths counts the shortest paths from root to every node of the
// DAG collectDAG listed, forward, nearest root first: a node's
// in-neighbours one step closer are counted before it, in the order of
// its links. It returns false if a count is above 2^53.
func (r *ECMP) countPaths(root int32) bool {
	dag, tails, ends := r.dag, r.tails, r.ends
	const exact = 1 << 53
	for i := len(dag) - 1; i >= 0; i-- {
		v := dag[i]
		if v == root {
			r.dagCount[v] = 1
			continue
		}
		lo := int32(0)
		if i > 0 {
			lo = ends[i-1]
		}
		c := 0.0
		for _, u := range tails[lo:ends[i]] {
			c += r.dagCount[u]
		}
		if c > exact {
			return false
		}
		r.dagCount[v] = c
	}
	return true
}

// rememberDAG keeps the DAG counted from root to target, at distance dd,
// in the memo, in place of the oldest.
func (r *ECMP) rememberDAG(root, target int32, dd uint8) {
	e := &r.memo[r.memoNext]
	r.memoNext = (r.memoNext + 1) % dagMemo
	e.root, e.target, e.dist = root, target, dd
	e.nodes = append(e.nodes[:0], r.dag...)
	e.counts = e.counts[:0]
	for _, v := range r.dag {
		e.counts = append(e.counts, r.dagCount[v])
	}
}

// search runs the full breadth-first search from root unless it is the
// last one: dist and count for every node.
func (r *ECMP) search(root int32) {
	if r.src == root {
		return
	}
	g := r.g
	src := root
	if r.dist == nil {
		r.dist = make([]int32, g.NumNodes())
		r.count = make([]float64, g.NumNodes())
		for i := range r.dist {
			r.dist[i] = -1
		}
	}
	// Only the nodes the last search reached are reset: a search costs
	// what it reaches (from a server with no links, O(1)), not the
	// graph's size, so routing every flow of a disconnected network is
	// not quadratic.
	for _, v := range r.reached {
		r.count[v] = 0
	}
	r.reached = g.Reach(src, r.dist, r.reached)
	r.count[src] = 1
	relay := g.FirstForwarder()
	// reached holds the reached nodes in non-decreasing distance: count[u]
	// is final when u is dequeued.
	for _, u := range r.reached {
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
}

// unrank fills path with shortest path number rank from src to dst, from
// the DAG's counts (r.row non-nil) or the full search's.
func (r *ECMP) unrank(src, dst int32, rank float64, path []int32) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	v := dst
	for i := len(path) - 1; i >= 0; i-- {
		var want int32
		switch {
		case row == nil:
			want = r.dist[v] - 1
		case v == dst:
			want = int32(len(path)) - 1
		default:
			want = int32(row[v-relay]) - 1
		}
		chosen := int32(-1)
		for _, l := range g.In(v) {
			u := g.Tail(l)
			if u != src && u < relay {
				continue
			}
			var c float64
			if row == nil {
				if r.dist[u] != want {
					continue
				}
				c = r.count[u]
			} else {
				if int32(row[u-relay]) != want {
					continue
				}
				c = r.dagCount[u]
			}
			chosen = l
			if rank < c {
				break
			}
			rank -= c
		}
		// chosen is the last eligible link if rounding left rank too big.
		path[i] = chosen
		v = g.Tail(chosen)
	}
}

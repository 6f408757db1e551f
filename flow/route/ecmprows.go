package route

import (
	"math"
	"sync"
)

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

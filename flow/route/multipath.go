package route

import (
	"container/heap"
	"fmt"
	"slices"
	"unsafe"

	"github.com/opasim/opasim/flow/graph"
)

// pathFinder computes the paths between two end nodes into s.out (links
// and ends), in increasing order of length, then of link ids (compared
// lexicographically): the order KSP and AllPath take paths in.
type pathFinder interface {
	find(s *searcher, u, v int32) error
}

// multiPath is what KSP and AllPath share: a flow from server src to
// server dst takes the paths the finder gives between their end nodes —
// for a server with exactly one link out, to a node that has exactly one
// link back to it, that node (its switch, in most networks), else the
// server itself — each with an equal share. A server with one link
// cannot be on a simple path between two other nodes, so the paths
// between end nodes, with the servers' own links added, are exactly the
// simple paths between the servers; every server of a switch shares its
// switch's cache entries.
type multiPath struct {
	g      *graph.Graph
	finder pathFinder
	cache  *PathCache
	s      *searcher
	buf    []int32
}

func newMultiPath(g *graph.Graph, f pathFinder, name string, cache *PathCache) (multiPath, error) {
	if cache == nil {
		var err error
		if cache, err = NewPathCache(DefaultCacheBytes); err != nil {
			return multiPath{}, err
		}
	}
	if err := cache.claim(name, g); err != nil {
		return multiPath{}, err
	}
	return multiPath{g: g, finder: f, cache: cache, s: newSearcher(g)}, nil
}

func (r *multiPath) clone() multiPath {
	return multiPath{g: r.g, finder: r.finder, cache: r.cache, s: newSearcher(r.g)}
}

// end returns the node a server's paths start or end at, and the link
// from the server to it and back (-1, -1 when the server is its own end).
func (r *multiPath) end(v int32) (node, up, down int32) {
	g := r.g
	if lo, hi := g.Out(v); hi-lo == 1 {
		if in := g.In(v); len(in) == 1 && g.Tail(in[0]) == g.Head(lo) {
			return g.Head(lo), lo, in[0]
		}
	}
	return v, -1, -1
}

// Cache returns the router's path cache.
func (r *multiPath) Cache() *PathCache { return r.cache }

// Route calls fn once per path of the flow src→dst, each with share 1/P.
func (r *multiPath) Route(src, dst int32, fn PathFunc) error {
	if err := CheckPair(r.g, src, dst); err != nil {
		return err
	}
	u, up, _ := r.end(src)
	v, _, down := r.end(dst)
	key := uint64(uint32(u))<<32 | uint64(uint32(v))
	e := r.cache.get(key)
	if e == nil {
		if err := r.finder.find(r.s, u, v); err != nil {
			return fmt.Errorf("route from %d to %d: %w", src, dst, err)
		}
		e = &cacheEntry{key: key, links: slices.Clone(r.s.out), ends: slices.Clone(r.s.ends)}
		r.cache.put(e)
	}
	if len(e.ends) == 0 {
		return &noPath{"route", src, dst}
	}
	share := 1 / float64(len(e.ends))
	start := int32(0)
	for _, end := range e.ends {
		buf := r.buf[:0]
		if up >= 0 {
			buf = append(buf, up)
		}
		buf = append(buf, e.links[start:end]...)
		if down >= 0 {
			buf = append(buf, down)
		}
		r.buf = buf
		fn(buf, share)
		start = end
	}
	return nil
}

// searcher is the scratch space of the path searches: 16 bytes per node
// and 4 per link.
type searcher struct {
	g        *graph.Graph
	dist     []int32  // links to the target, -1 if not reached
	queue    []int32  // nodes whose dist is set
	nodeMark []uint32 // node blocked (or on the current path) when == stamp
	linkMark []uint32 // link removed when == stamp
	stamp    uint32
	out      []int32 // the paths found, back to back
	ends     []int32 // where each ends in out
	path     []int32 // scratch path
}

func newSearcher(g *graph.Graph) *searcher { return &searcher{g: g} }

// next starts a new set of blocked nodes and removed links.
func (s *searcher) next() uint32 {
	if s.dist == nil {
		n := s.g.NumNodes()
		s.dist = make([]int32, n)
		for i := range s.dist {
			s.dist[i] = -1
		}
		s.nodeMark = make([]uint32, n)
		s.linkMark = make([]uint32, s.g.NumLinks())
	}
	s.stamp++
	if s.stamp == 0 { // wrapped: old marks could match
		clear(s.nodeMark)
		clear(s.linkMark)
		s.stamp = 1
	}
	return s.stamp
}

func (s *searcher) reset(out bool) {
	if out {
		s.out, s.ends = s.out[:0], s.ends[:0]
	}
}

// distances sets dist[x] to the number of links of a shortest path from x
// to target that crosses only unblocked nodes that forward, over links not
// removed (nodes that do not forward get a distance but are not searched
// through). With stopAt >= 0 the search stops once stopAt has its
// distance (the nodes nearer the target then all have theirs). The dist
// entries set are those of the nodes in queue; clearDist resets them.
func (s *searcher) distances(target, stopAt int32) {
	g := s.g
	relay := g.FirstForwarder()
	st := s.stamp
	s.queue = append(s.queue[:0], target)
	s.dist[target] = 0
	if target == stopAt {
		return
	}
	for i := 0; i < len(s.queue); i++ {
		x := s.queue[i]
		if x != target && x < relay {
			continue
		}
		dx := s.dist[x] + 1
		for _, l := range g.In(x) {
			if s.linkMark[l] == st {
				continue
			}
			w := g.Tail(l)
			if s.dist[w] >= 0 || s.nodeMark[w] == st {
				continue
			}
			s.dist[w] = dx
			s.queue = append(s.queue, w)
			if w == stopAt {
				return
			}
		}
	}
}

func (s *searcher) clearDist() {
	for _, v := range s.queue {
		s.dist[v] = -1
	}
	s.queue = s.queue[:0]
}

// shortest appends to path the shortest path from u to v whose link ids
// are lexicographically smallest among the shortest, avoiding blocked
// nodes and removed links, crossing only nodes that forward; it returns
// false, path unchanged, if there is none.
func (s *searcher) shortest(u, v int32, path []int32) ([]int32, bool) {
	s.distances(v, u)
	defer s.clearDist()
	if s.dist[u] < 0 {
		return path, false
	}
	g := s.g
	relay := g.FirstForwarder()
	st := s.stamp
	for x := u; x != v; {
		want := s.dist[x] - 1
		lo, hi := g.Out(x)
		next := int32(-1)
		for l := lo; l < hi; l++ {
			h := g.Head(l)
			if s.linkMark[l] == st || s.nodeMark[h] == st || s.dist[h] != want || h != v && h < relay {
				continue
			}
			next = l
			break
		}
		path = append(path, next)
		x = g.Head(next)
	}
	return path, true
}

// less orders paths by length, then by link ids.
func less(a, b []int32) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return slices.Compare(a, b) < 0
}

// candidate is a path Yen's algorithm may take next, and the index of
// the node where it leaves the path it was derived from.
type candidate struct {
	path []int32
	dev  int
}

// candidates is Yen's heap of candidate paths.
type candidates []candidate

func (c candidates) Len() int           { return len(c) }
func (c candidates) Less(i, j int) bool { return less(c[i].path, c[j].path) }
func (c candidates) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }
func (c *candidates) Push(x any)        { *c = append(*c, x.(candidate)) }
func (c *candidates) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}

func pathKey(p []int32) string {
	if len(p) == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 4*len(p)))
}

// MaxKSP bounds KSP's k and AllPath's number of paths.
const MaxKSP = MaxAllPaths

// KSP is k-shortest-path routing over any graph (seed 001 section 3.2,
// "KSP"): a flow is split in equal shares over the k shortest simple
// paths between its servers (fewer if there are fewer), crossing only
// nodes that forward. Paths are compared by number of links, ties broken
// by their link ids compared lexicographically, so the k paths are the k
// first of all simple paths in that order, whatever computes them.
//
// Algorithm: Yen's (1971). The first path is a shortest path, the one with
// the smallest link ids (a breadth-first search back from the target,
// then the smallest link one step closer at each node); path i+1 is the
// least candidate, candidates being for every node j of path i the root
// (path i up to node j) followed by the least spur path from node j to the
// target avoiding the root's nodes and the links that paths already found
// with the same root take next — only from the node where path i left
// the path it was derived from on (Lawler's refinement: earlier roots were
// tried before). Paths go from end node to end node (a
// server's switch, see multiPath) and are kept in a PathCache.
//
// Cost per pair of end nodes: O(k · L · (nodes + links)) for paths of L
// links, and the candidates' memory; nothing for a pair in the cache.
type KSP struct {
	multiPath
	k int
}

// NewKSP returns KSP routing over g with k paths per flow, caching paths
// in cache (nil: a new cache of DefaultCacheBytes).
func NewKSP(g *graph.Graph, k int, cache *PathCache) (*KSP, error) {
	if k < 1 || k > MaxKSP {
		return nil, fmt.Errorf("ksp k: %d is not allowed: must be in [1, %d]", k, MaxKSP)
	}
	r := &KSP{k: k}
	mp, err := newMultiPath(g, r, r.Name(), cache)
	if err != nil {
		return nil, err
	}
	r.multiPath = mp
	return r, nil
}

// Name returns "ksp-k".
func (r *KSP) Name() string { return fmt.Sprintf("ksp-%d", r.k) }

// Graph returns the graph routed over.
func (r *KSP) Graph() *graph.Graph { return r.g }

// Clone returns a router sharing the cache, with its own search space.
func (r *KSP) Clone() Router { return &KSP{multiPath: r.multiPath.clone(), k: r.k} }

func (r *KSP) find(s *searcher, u, v int32) error {
	s.reset(true)
	if u == v {
		s.ends = append(s.ends, 0)
		return nil
	}
	s.next()
	first, ok := s.shortest(u, v, nil)
	if !ok {
		return nil
	}
	g := s.g
	found := [][]int32{first}
	devs := []int{0} // the node where each found path leaves the one it came from
	seen := map[string]bool{pathKey(first): true}
	var cand candidates
	nodes := []int32{}
	for len(found) < r.k {
		prev := found[len(found)-1]
		nodes = append(nodes[:0], u)
		for _, l := range prev {
			nodes = append(nodes, g.Head(l))
		}
		// Lawler's refinement: spurs from nodes before prev's deviation
		// were tried from the path prev came from (and from the paths
		// deviating there).
		for j := devs[len(devs)-1]; j < len(prev); j++ {
			st := s.next()
			root := prev[:j]
			for _, p := range found {
				if len(p) > j && slices.Equal(p[:j], root) {
					s.linkMark[p[j]] = st
				}
			}
			for _, x := range nodes[:j] {
				s.nodeMark[x] = st
			}
			spur, ok := s.shortest(nodes[j], v, append(s.path[:0], root...))
			s.path = spur
			if !ok {
				continue
			}
			if k := pathKey(spur); !seen[k] {
				seen[k] = true
				heap.Push(&cand, candidate{slices.Clone(spur), j})
			}
		}
		if len(cand) == 0 {
			break
		}
		c := heap.Pop(&cand).(candidate)
		found = append(found, c.path)
		devs = append(devs, c.dev)
	}
	for _, p := range found {
		s.out = append(s.out, p...)
		s.ends = append(s.ends, int32(len(s.out)))
	}
	return nil
}

// AllPath is AllPath-d routing over any graph (seed 001 section 3.2): a
// flow is split in equal shares over all simple paths between its
// servers at most d links longer than a shortest one, crossing only nodes
// that forward — or, with a bound P, over the first P of them in the
// order KSP uses (length, then link ids), so AllPath with a large d and
// bound P gives KSP-P's paths.
//
// Algorithm: a breadth-first search back from the target gives every
// node's distance to it (a lower bound on what remains of a simple path);
// then, for each length L from the shortest D to D + d, a depth-first
// search from the source in link-id order extends a path only while its
// length plus its last node's distance is at most L, and never through a
// node already on it. It yields the paths of L links in lexicographic
// order; it stops at the bound. Paths go from end node to end node and are
// kept in a PathCache.
//
// Cost per pair of end nodes: O(nodes + links) for the search plus the
// depth-first searches, which visit every simple prefix that could still
// be completed within L links (a number that grows quickly with d).
type AllPath struct {
	multiPath
	d, max int
}

// NewAllPath returns AllPath-d routing over g using at most maxPaths paths
// per flow (0: all of them, a flow with more than MaxKSP being an error),
// caching paths in cache (nil: a new cache of DefaultCacheBytes).
func NewAllPath(g *graph.Graph, d, maxPaths int, cache *PathCache) (*AllPath, error) {
	if d < 0 || d > 64 {
		return nil, fmt.Errorf("allpath d: %d is not allowed: must be in [0, 64]", d)
	}
	if maxPaths < 0 || maxPaths > MaxKSP {
		return nil, fmt.Errorf("allpath max paths: %d is not allowed: must be in [0, %d] (0: all)", maxPaths, MaxKSP)
	}
	r := &AllPath{d: d, max: maxPaths}
	mp, err := newMultiPath(g, r, r.Name(), cache)
	if err != nil {
		return nil, err
	}
	r.multiPath = mp
	return r, nil
}

// Name returns "allpath-d" (all paths) or "allpath-d-P".
func (r *AllPath) Name() string {
	if r.max == 0 {
		return fmt.Sprintf("allpath-%d", r.d)
	}
	return fmt.Sprintf("allpath-%d-%d", r.d, r.max)
}

// Graph returns the graph routed over.
func (r *AllPath) Graph() *graph.Graph { return r.g }

// Clone returns a router sharing the cache, with its own search space.
func (r *AllPath) Clone() Router { return &AllPath{multiPath: r.multiPath.clone(), d: r.d, max: r.max} }

// find lists in s the paths from u to v up to r.d links longer than the
// shortest, at most r.max of them (0: all, an error past MaxKSP).
func (r *AllPath) find(s *searcher, u, v int32) error {
	s.reset(true)
	if u == v {
		s.ends = append(s.ends, 0)
		return nil
	}
	st := s.next()
	s.distances(v, -1)
	defer s.clearDist()
	if s.dist[u] < 0 {
		return nil
	}
	limit := r.pathLimit()
	g := s.g
	relay := g.FirstForwarder()
	s.nodeMark[u] = st
	var walk func(x int32, depth, length int) bool // false: the bound is reached
	walk = func(x int32, depth, length int) bool {
		lo, hi := g.Out(x)
		for l := lo; l < hi; l++ {
			h := g.Head(l)
			if h == v {
				if depth+1 == length {
					s.out = append(append(s.out, s.path...), l)
					s.ends = append(s.ends, int32(len(s.out)))
					if len(s.ends) == limit {
						return false
					}
				}
				continue
			}
			if h < relay || s.nodeMark[h] == st || s.dist[h] < 0 || depth+1+int(s.dist[h]) > length {
				continue
			}
			s.nodeMark[h] = st
			s.path = append(s.path, l)
			more := walk(h, depth+1, length)
			s.path = s.path[:len(s.path)-1]
			s.nodeMark[h] = 0
			if !more {
				return false
			}
		}
		return true
	}
	shortest := int(s.dist[u])
	for length := shortest; length <= shortest+r.d; length++ {
		s.path = s.path[:0]
		if !walk(u, 0, length) {
			break
		}
	}
	s.nodeMark[u] = 0
	return r.checkAll(s)
}

// pathLimit is the most paths find lists: r.max, or one past MaxKSP when
// it lists them all (so that too many is seen).
func (r *AllPath) pathLimit() int {
	if r.max == 0 {
		return MaxKSP + 1
	}
	return r.max
}

// checkAll refuses, once find is done, more than MaxKSP paths listed when
// r lists them all, and then empties s.
func (r *AllPath) checkAll(s *searcher) error {
	if r.max == 0 && len(s.ends) > MaxKSP {
		s.reset(true)
		return fmt.Errorf("allpath-%d: more than %d paths: give a maximum number of paths", r.d, MaxKSP)
	}
	return nil
}

package route

import (
	"container/heap"
	"fmt"
	"slices"

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

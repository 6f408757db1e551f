package route

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

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

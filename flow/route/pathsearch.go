package route

import (
	"slices"
	"unsafe"

	"github.com/opasim/opasim/flow/graph"
)

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

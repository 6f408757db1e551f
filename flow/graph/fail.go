package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Cable is a pair of opposite links, Fwd u→v and Back v→u, or a lone link
// with no reverse (Back = -1).
type Cable struct{ Fwd, Back int32 }

// Cables pairs g's links into cables: the i-th link u→v (in id order) with
// the i-th link v→u, so parallel cables pair in order; a link left without
// a reverse is a cable on its own. Cables are ordered by Fwd, the lower id
// of the two. Cost O(links · log links) time, 16 bytes per link.
func (g *Graph) Cables() []Cable {
	type end struct {
		key uint64 // the two nodes, lower first
		dir bool   // the link goes from the higher node to the lower
		id  int32
	}
	ends := make([]end, len(g.tail))
	for l := range g.tail {
		u, v := g.tail[l], g.head[l]
		lo, hi := min(u, v), max(u, v)
		ends[l] = end{uint64(lo)<<32 | uint64(hi), u > v, int32(l)}
	}
	slices.SortFunc(ends, func(a, b end) int {
		switch {
		case a.key != b.key:
			if a.key < b.key {
				return -1
			}
			return 1
		case a.dir != b.dir:
			if !a.dir {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	cables := make([]Cable, 0, len(ends)/2+1)
	for i := 0; i < len(ends); {
		j := i
		for j < len(ends) && ends[j].key == ends[i].key {
			j++
		}
		k := i // first link of the other direction
		for k < j && !ends[k].dir {
			k++
		}
		a, b := ends[i:k], ends[k:j]
		for x := 0; x < max(len(a), len(b)); x++ {
			c := Cable{-1, -1}
			if x < len(a) {
				c.Fwd = a[x].id
			}
			if x < len(b) {
				c.Back = b[x].id
			}
			if c.Fwd < 0 || c.Back >= 0 && c.Back < c.Fwd {
				c.Fwd, c.Back = c.Back, c.Fwd
			}
			cables = append(cables, c)
		}
		i = j
	}
	slices.SortFunc(cables, func(a, b Cable) int { return int(a.Fwd - b.Fwd) })
	return cables
}

// Failed is a graph with some links removed (failed), and the mapping
// between its link ids and those of the graph it was made from.
type Failed struct {
	*Graph               // the network without the removed links; its servers forward as the original's do
	Original     *Graph  // the graph the links were removed from
	Removed      []int32 // the removed links, ids in Original, increasing
	FailedCables int     // the cables failed (FailCables, FailFraction), 0 for RemoveLinks
	NewID        []int32 // NewID[l]: the id in Graph of Original's link l, -1 if removed
	OldID        []int32 // OldID[l]: the id in Original of Graph's link l
}

// RemoveLinks returns g without the given links (ids of g, in any order,
// repeats ignored). The links that remain keep their order: a node's
// links keep their relative order, so its ports shift down past a removed
// one.
func RemoveLinks(g *Graph, links []int32) (*Failed, error) {
	gone := make([]bool, len(g.tail))
	for i, l := range links {
		if l < 0 || int(l) >= len(g.tail) {
			return nil, fmt.Errorf("removed link %d: %d is not allowed: must be in [0, %d)", i, l, len(g.tail))
		}
		gone[l] = true
	}
	f := &Failed{Original: g, NewID: make([]int32, len(g.tail))}
	kept := make([]Link, 0, len(g.tail))
	for l := range g.tail {
		if gone[l] {
			f.NewID[l] = -1
			f.Removed = append(f.Removed, int32(l))
			continue
		}
		f.NewID[l] = int32(len(kept))
		f.OldID = append(f.OldID, int32(l))
		kept = append(kept, Link{From: g.tail[l], To: g.head[l], Capacity: g.capacity[l]})
	}
	h, err := New(int(g.servers), int(g.switches), kept)
	if err != nil {
		return nil, err
	}
	// New numbers links leaving a node in the order given, which is id
	// order: ids are unchanged relative to each other, so NewID holds.
	f.Graph = h.WithServersForward(g.fwd)
	return f, nil
}

// FailCables returns g with count of its cables (Cables), chosen at random
// from seed, removed — both links of each. The same graph, count and seed
// remove the same cables. Seed 001 section 3.1: INRFlow fails "a number
// of network links ... given as the percentage of the total number of
// links or as an absolute number".
func FailCables(g *Graph, count int, seed uint64) (*Failed, error) {
	return failCables(g, g.Cables(), count, seed)
}

func failCables(g *Graph, cables []Cable, count int, seed uint64) (*Failed, error) {
	if count < 0 || count > len(cables) {
		return nil, fmt.Errorf("failed cables: %d is not allowed: must be in [0, %d] (the cables)", count, len(cables))
	}
	rng := rand.New(rand.NewPCG(seed, 0x6661696c))
	idx := make([]int32, len(cables))
	for i := range idx {
		idx[i] = int32(i)
	}
	var links []int32
	for i := 0; i < count; i++ { // partial Fisher–Yates: idx[:count] is a uniform sample
		j := i + rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		c := cables[idx[i]]
		links = append(links, c.Fwd)
		if c.Back >= 0 {
			links = append(links, c.Back)
		}
	}
	f, err := RemoveLinks(g, links)
	if err != nil {
		return nil, err
	}
	f.FailedCables = count
	return f, nil
}

// FailFraction fails round(fraction · cables) cables (fraction in [0, 1])
// as FailCables does.
func FailFraction(g *Graph, fraction float64, seed uint64) (*Failed, error) {
	if !(fraction >= 0 && fraction <= 1) {
		return nil, fmt.Errorf("failed fraction: %v is not allowed: must be in [0, 1]", fraction)
	}
	cables := g.Cables()
	return failCables(g, cables, int(math.Round(fraction*float64(len(cables)))), seed)
}

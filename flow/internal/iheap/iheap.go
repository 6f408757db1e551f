// Package iheap is an indexed min-heap: each id (a small
// non-negative int32) is in the heap at most once, and its key can be
// changed in place, so a heap never holds stale entries. Ties between
// equal keys break by id, so the order of pops is a function of the
// (key, id) pairs alone.
package iheap

import "github.com/opasim/opasim/flow/internal/grow"

// Heap is an indexed min-heap of (key, id): a 4-ary heap (half the
// depth of a binary one, the four children of a node in one or two cache
// lines) whose sifts move entries into a hole rather than swapping them.
// The zero value is empty. Memory: 16 bytes per entry and 4 bytes per id
// ever set.
type Heap struct {
	e    []entry
	pos  []int32 // pos[id]: index in e, or -1
	peak int     // the most entries at once since the last Trim
}

type entry struct {
	key float64
	id  int32
}

// arity is the number of children of a node: node i's are
// arity·i+1 .. arity·i+arity, its parent (i-1)/arity.
const arity = 4

// Len returns the number of entries.
func (h *Heap) Len() int { return len(h.e) }

// Has reports whether id is in the heap.
func (h *Heap) Has(id int32) bool { return int(id) < len(h.pos) && h.pos[id] >= 0 }

// Min returns the entry with the smallest key (then id); the heap must
// not be empty.
func (h *Heap) Min() (id int32, key float64) { return h.e[0].id, h.e[0].key }

// Set inserts id with key, or changes its key if it is in the heap.
func (h *Heap) Set(id int32, key float64) {
	for int(id) >= len(h.pos) {
		h.pos = append(h.pos, -1)
	}
	i := h.pos[id]
	if i < 0 {
		h.e = append(h.e, entry{})
		h.peak = max(h.peak, len(h.e))
		h.up(len(h.e)-1, entry{key, id})
		return
	}
	old := h.e[i].key
	if key < old {
		h.up(int(i), entry{key, id})
	} else {
		h.down(int(i), entry{key, id})
	}
}

// Pop removes and returns the entry with the smallest key (then id).
func (h *Heap) Pop() (id int32, key float64) {
	id, key = h.e[0].id, h.e[0].key
	h.Remove(id)
	return id, key
}

// Remove takes id out of the heap if it is in it.
func (h *Heap) Remove(id int32) {
	if !h.Has(id) {
		return
	}
	i := int(h.pos[id])
	n := len(h.e) - 1
	last := h.e[n]
	h.e = h.e[:n]
	h.pos[id] = -1
	if i < n {
		// The last entry fills the hole at i, moving up or down.
		if i > 0 && less(last, h.e[(i-1)/arity]) {
			h.up(i, last)
		} else {
			h.down(i, last)
		}
	}
}

// Clear empties the heap.
func (h *Heap) Clear() {
	for _, x := range h.e {
		h.pos[x.id] = -1
	}
	h.e = h.e[:0]
}

// Trim releases the entry space a burst left: if the heap's capacity
// exceeds what grow.Oversized allows for the most entries it held since the
// last Trim, its entries move to a smaller array. The positions by id are
// kept (ids are the caller's, and reused).
func (h *Heap) Trim() {
	h.e = grow.Shrink(h.e, h.peak)
	h.peak = len(h.e)
}

func less(a, b entry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.id < b.id
}

// up places x at hole i or above it, moving the parents it precedes down.
func (h *Heap) up(i int, x entry) {
	for i > 0 {
		p := (i - 1) / arity
		if !less(x, h.e[p]) {
			break
		}
		h.e[i] = h.e[p]
		h.pos[h.e[i].id] = int32(i)
		i = p
	}
	h.e[i] = x
	h.pos[x.id] = int32(i)
}

// down places x at hole i or below it, moving the least children it
// follows up.
func (h *Heap) down(i int, x entry) {
	n := len(h.e)
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+arity, n); j++ {
			if less(h.e[j], h.e[m]) {
				m = j
			}
		}
		if !less(h.e[m], x) {
			break
		}
		h.e[i] = h.e[m]
		h.pos[h.e[i].id] = int32(i)
		i = m
	}
	h.e[i] = x
	h.pos[x.id] = int32(i)
}

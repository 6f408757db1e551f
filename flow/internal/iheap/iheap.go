// Package iheap is an indexed binary min-heap: each id (a small
// non-negative int32) is in the heap at most once, and its key can be
// changed in place, so a heap never holds stale entries. Ties between
// equal keys break by id, so the order of pops is a function of the
// (key, id) pairs alone.
package iheap

import "github.com/opasim/opasim/flow/internal/grow"

// Heap is an indexed min-heap of (key, id). The zero value is empty.
// Memory: 12 bytes per entry and 4 bytes per id up to the largest ever
// set or reserved (grown as grow.Append grows an array: by an eighth
// above grow.Slack ids).
type Heap struct {
	ids  []int32
	keys []float64
	pos  []int32   // pos[id]: index in ids, or -1
	fpos []float64 // Borrowed's: the caller's array of positions (pos is nil)
	peak int       // the most entries at once since the last Trim
}

// Len returns the number of entries.
func (h *Heap) Len() int { return len(h.ids) }

// Has reports whether id is in the heap.
func (h *Heap) Has(id int32) bool { return int(id) < len(h.pos) && h.pos[id] >= 0 }

// Key returns id's key and whether id is in the heap.
func (h *Heap) Key(id int32) (float64, bool) {
	if !h.Has(id) {
		return 0, false
	}
	return h.keys[h.pos[id]], true
}

// Min returns the entry with the smallest key (then id); the heap must
// not be empty.
func (h *Heap) Min() (id int32, key float64) { return h.ids[0], h.keys[0] }

// Set inserts id with key, or changes its key if it is in the heap.
func (h *Heap) Set(id int32, key float64) {
	for int(id) >= len(h.pos) {
		h.pos = grow.Append(h.pos, -1)
	}
	i := h.pos[id]
	if i < 0 {
		i = int32(len(h.ids))
		h.ids = append(h.ids, id)
		h.keys = append(h.keys, key)
		h.peak = max(h.peak, len(h.ids))
		h.pos[id] = i
		h.up(int(i))
		return
	}
	old := h.keys[i]
	h.keys[i] = key
	if key < old {
		h.up(int(i))
	} else {
		h.down(int(i))
	}
}

// Reserve makes room for the positions of ids below n at once, in an
// array of exactly that size: for ids known in advance (a solver's
// links), so that the heap does not grow it, with slack, while it runs.
func (h *Heap) Reserve(n int) {
	if n <= len(h.pos) {
		return
	}
	pos := make([]int32, n)
	copy(pos, h.pos)
	for i := len(h.pos); i < n; i++ {
		pos[i] = -1
	}
	h.pos = pos
}

// Pop removes and returns the entry with the smallest key (then id).
func (h *Heap) Pop() (id int32, key float64) {
	id, key = h.ids[0], h.keys[0]
	h.Remove(id)
	return id, key
}

// Remove takes id out of the heap if it is in it.
func (h *Heap) Remove(id int32) {
	if !h.Has(id) {
		return
	}
	i := int(h.pos[id])
	n := len(h.ids) - 1
	h.swap(i, n)
	h.ids, h.keys = h.ids[:n], h.keys[:n]
	h.pos[id] = -1
	if i < n {
		h.down(i)
		h.up(i)
	}
}

// Clear empties the heap.
func (h *Heap) Clear() {
	for _, id := range h.ids {
		h.pos[id] = -1
	}
	h.ids, h.keys = h.ids[:0], h.keys[:0]
}

// Trim releases the entry space a burst left: if the heap's capacity
// exceeds what grow.Oversized allows for the most entries it held since
// the last Trim, its entries move to smaller arrays. The positions by id
// are kept (ids are the caller's, and reused).
func (h *Heap) Trim() {
	h.ids = grow.Shrink(h.ids, h.peak)
	h.keys = grow.Shrink(h.keys, h.peak)
	h.peak = len(h.ids)
}

func (h *Heap) less(i, j int) bool {
	if h.keys[i] != h.keys[j] {
		return h.keys[i] < h.keys[j]
	}
	return h.ids[i] < h.ids[j]
}

func (h *Heap) swap(i, j int) {
	h.ids[i], h.ids[j] = h.ids[j], h.ids[i]
	h.keys[i], h.keys[j] = h.keys[j], h.keys[i]
	if h.pos != nil {
		h.pos[h.ids[i]] = int32(i)
		h.pos[h.ids[j]] = int32(j)
	} else {
		h.fpos[h.ids[i]] = float64(i)
		h.fpos[h.ids[j]] = float64(j)
	}
}

func (h *Heap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *Heap) down(i int) {
	n := len(h.ids)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

// Borrowed is an indexed min-heap of (key, id) that keeps its entries'
// positions in an array of the caller's (Bind): while id is in the heap,
// pos[id] holds its position (as a float64), and the caller must not
// use it; Pop and Remove return the key, for the caller to put back
// what it keeps there once id is out. For ids whose own field is idle
// while they wait in the heap (a solver's rate while the key holds it),
// so that the heap needs no position array. Ties break by id, as in
// Heap. Memory: 12 bytes an entry. The zero value is empty.
type Borrowed struct {
	h Heap // h.pos stays nil; h.fpos is the caller's
}

// Bind makes pos the array of positions (pos[id] for every id pushed);
// call it again whenever the caller's array moves.
func (q *Borrowed) Bind(pos []float64) { q.h.fpos = pos }

// Len returns the number of entries.
func (q *Borrowed) Len() int { return len(q.h.ids) }

// Min returns the entry with the smallest key (then id); the heap must
// not be empty.
func (q *Borrowed) Min() (id int32, key float64) { return q.h.Min() }

// Push adds id, which must not be in the heap, with key.
func (q *Borrowed) Push(id int32, key float64) {
	h := &q.h
	i := len(h.ids)
	h.ids = append(h.ids, id)
	h.keys = append(h.keys, key)
	h.peak = max(h.peak, len(h.ids))
	h.fpos[id] = float64(i)
	h.up(i)
}

// Pop removes and returns the entry with the smallest key (then id).
func (q *Borrowed) Pop() (id int32, key float64) {
	id = q.h.ids[0]
	return id, q.Remove(id)
}

// Remove takes id, which must be in the heap, out of it and returns its
// key.
func (q *Borrowed) Remove(id int32) float64 {
	h := &q.h
	i := int(h.fpos[id])
	key := h.keys[i]
	n := len(h.ids) - 1
	h.swap(i, n)
	h.ids, h.keys = h.ids[:n], h.keys[:n]
	if i < n {
		h.down(i)
		h.up(i)
	}
	return key
}

// Clear empties the heap (the positions it held are the caller's to
// restore).
func (q *Borrowed) Clear() { q.h.ids, q.h.keys = q.h.ids[:0], q.h.keys[:0] }

// Trim releases the entry space a burst left, as Heap.Trim does.
func (q *Borrowed) Trim() { q.h.Trim() }

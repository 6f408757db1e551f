package dynamic

import (
	"math"

	"github.com/opasim/opasim/flow/internal/grow"
)

// Completions. A running path with a positive rate is scheduled: it has
// a predicted completion time, in the completion heap (doneHeap), either
// as an entry of its own or as a member of a group — paths rescheduled
// one after another in a solve with equal completion times, which
// complete with one heap operation (an FCFS application's flows, all of
// one size and rate, complete in groups of thousands). A path's
// remaining size is not kept while it is scheduled: it is (its
// completion time − now) × its rate, the solver's, which has not changed
// since that time was set.

// sub is one path of a flow, a max-min solver flow: 8 bytes.
//   - Scheduled alone: own is its flow's slot, k its index in the
//     completion heap.
//   - Scheduled in a group: own is its flow's slot, k is inGroup | its
//     member record.
//   - Parked — just added, at rate 0, or completed: own is ^(its flow's
//     slot), k the index of its remaining size in Engine.rest (noRest
//     once completed).
type sub struct {
	own int32
	k   uint32
}

const (
	inGroup uint32 = 1 << 31
	noRest  uint32 = math.MaxUint32
)

// owner returns the slot of path s's flow.
func (s *sub) owner() int32 {
	if s.own < 0 {
		return ^s.own
	}
	return s.own
}

// member is a grouped path's place in its group: 16 bytes (a path alone
// in the heap has none; its heap entry is 12).
type member struct {
	path, group, next, prev int32
}

// group is a heap entry's paths, a doubly linked list of members in the
// order they joined.
type group struct {
	pos  int32 // index in the completion heap
	head int32 // first member
}

// doneHeap is the completion heap: a binary min-heap of (time, id), id a
// path (>= 0) or ^group, ties broken by id. Entries' indices are kept in
// the paths' and groups' records (Engine.place). 12 bytes an entry, its
// arrays grown by an eighth (grow.Append) and trimmed after bursts.
type doneHeap struct {
	keys []float64
	ids  []int32
	peak int // the most entries at once since the last trim
}

func (h *doneHeap) len() int { return len(h.ids) }

// trim gives back the entry space a burst left (grow.Shrink).
func (h *doneHeap) trim() {
	h.keys, h.ids = grow.Shrink(h.keys, h.peak), grow.Shrink(h.ids, h.peak)
	h.peak = len(h.ids)
}

// place records that heap entry id is at index k.
func (e *Engine) place(id int32, k int) {
	if id >= 0 {
		e.subs.At(id).k = uint32(k)
	} else {
		e.groups[^id].pos = int32(k)
	}
}

// due returns the heap index of scheduled path s's completion.
func (e *Engine) due(s *sub) int {
	if s.k&inGroup == 0 {
		return int(s.k)
	}
	return int(e.groups[e.members[s.k&^inGroup].group].pos)
}

// push schedules path id, alone, at t.
func (e *Engine) push(id int32, t float64) {
	h := &e.done
	h.keys, h.ids = grow.Append(h.keys, t), grow.Append(h.ids, id)
	h.peak = max(h.peak, len(h.ids))
	e.up(len(h.ids) - 1)
}

// join schedules path id with path last, scheduled just before it (the
// last of its group, if it has one) at the same time.
func (e *Engine) join(id, last int32) {
	ls := e.subs.At(last)
	var g, tail int32
	if ls.k&inGroup == 0 {
		// last's entry becomes a group's: same time, a new id.
		k := int(ls.k)
		g = take(&e.groups, &e.freeGr, group{pos: int32(k), head: -1})
		m := take(&e.members, &e.freeM, member{path: last, group: g, next: -1, prev: -1})
		e.groups[g].head = m
		ls.k = inGroup | uint32(m)
		e.done.ids[k] = ^g // below every path's id: it can only move up
		e.up(k)
		tail = m
	} else {
		tail = int32(ls.k &^ inGroup)
		g = e.members[tail].group
	}
	m := take(&e.members, &e.freeM, member{path: id, group: g, next: -1, prev: tail})
	e.members[tail].next = m
	e.subs.At(id).k = inGroup | uint32(m)
}

// unschedule takes scheduled path s out of the heap or its group (and a
// group left empty out of the heap).
func (e *Engine) unschedule(s *sub) {
	if s.k&inGroup == 0 {
		e.remove(int(s.k))
		return
	}
	m := int32(s.k &^ inGroup)
	x := e.members[m]
	if x.prev >= 0 {
		e.members[x.prev].next = x.next
	} else {
		e.groups[x.group].head = x.next
	}
	if x.next >= 0 {
		e.members[x.next].prev = x.prev
	}
	e.freeM = append(e.freeM, m)
	if e.groups[x.group].head < 0 {
		e.remove(int(e.groups[x.group].pos))
		e.freeGr = append(e.freeGr, x.group)
	}
}

// pop removes the earliest heap entry and returns its id.
func (e *Engine) pop() int32 {
	id := e.done.ids[0]
	e.remove(0)
	return id
}

// complete1 completes the paths of popped heap entry id, a path or a
// group (in the order they joined).
func (e *Engine) complete1(id int32) {
	if id >= 0 {
		e.finishSub(id)
		return
	}
	g := ^id
	m := e.groups[g].head
	e.freeGr = append(e.freeGr, g)
	for m >= 0 && e.err == nil {
		x := e.members[m]
		e.freeM = append(e.freeM, m)
		e.finishSub(x.path)
		m = x.next
	}
}

// remove takes heap entry k out.
func (e *Engine) remove(k int) {
	h := &e.done
	n := len(h.ids) - 1
	if k < n {
		h.keys[k], h.ids[k] = h.keys[n], h.ids[n]
	}
	h.keys, h.ids = h.keys[:n], h.ids[:n]
	if k < n {
		e.down(k)
		e.up(k)
	}
}

// before reports whether (t, id) comes before heap entry k.
func (h *doneHeap) before(t float64, id int32, k int) bool {
	return t < h.keys[k] || t == h.keys[k] && id < h.ids[k]
}

// put sets heap entry k to (t, id).
func (e *Engine) put(k int, t float64, id int32) {
	e.done.keys[k], e.done.ids[k] = t, id
	e.place(id, k)
}

// up and down move heap entry k to its place, recording the moved
// entries' indices.
func (e *Engine) up(k int) {
	h := &e.done
	t, id := h.keys[k], h.ids[k]
	for k > 0 {
		p := (k - 1) / 2
		if !h.before(t, id, p) {
			break
		}
		e.put(k, h.keys[p], h.ids[p])
		k = p
	}
	e.put(k, t, id)
}

func (e *Engine) down(k int) {
	h := &e.done
	n := len(h.ids)
	t, id := h.keys[k], h.ids[k]
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && h.before(h.keys[c+1], h.ids[c+1], c) {
			c++
		}
		if h.before(t, id, c) {
			break
		}
		e.put(k, h.keys[c], h.ids[c])
		k = c
	}
	e.put(k, t, id)
}

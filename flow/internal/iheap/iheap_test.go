package iheap

import (
	"cmp"
	"slices"
	"testing"
)

// popMin pops an entry with pop and checks it is the smallest of live
// (by key, then id), which it then drops from live; it returns its id.
func popMin(t *testing.T, step int, live map[int32]float64, pop func() (int32, float64)) int32 {
	t.Helper()
	type e struct {
		id int32
		k  float64
	}
	var all []e
	for id, k := range live {
		all = append(all, e{id, k})
	}
	slices.SortFunc(all, func(a, b e) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	gid, gk := pop()
	if gid != all[0].id || gk != all[0].k {
		t.Fatalf("step %d: pop (%d, %v), want (%d, %v)", step, gid, gk, all[0].id, all[0].k)
	}
	delete(live, gid)
	return gid
}

// TestAgainstSort applies random sets, removals and pops and checks every
// pop against a sorted copy of the live entries.
func TestAgainstSort(t *testing.T) {
	var h Heap
	live := map[int32]float64{}
	x := uint64(7)
	next := func(n int) int { x = x*6364136223846793005 + 1442695040888963407; return int(x>>33) % n }
	for step := range 20000 {
		id := int32(next(200))
		switch op := next(10); {
		case op < 6:
			k := float64(next(50)) // many equal keys: ties break by id
			h.Set(id, k)
			live[id] = k
		case op < 8:
			h.Remove(id)
			delete(live, id)
		default:
			if len(live) == 0 {
				continue
			}
			popMin(t, step, live, h.Pop)
		}
		if h.Len() != len(live) {
			t.Fatalf("step %d: %d entries, want %d", step, h.Len(), len(live))
		}
	}
	h.Clear()
	if h.Len() != 0 || h.Has(3) {
		t.Fatalf("not empty after Clear")
	}
}

// TestTrim: after 5,000 entries the heap is emptied and holds 10 at
// most: Trim keeps the space while the peak is recent, then gives it
// back (capacity twice the new peak), and the heap works on.
func TestTrim(t *testing.T) {
	var h Heap
	for i := range 5000 {
		h.Set(int32(i), float64(5000-i))
	}
	for h.Len() > 0 {
		h.Pop()
	}
	h.Trim() // the peak of 5,000 is this period's: kept
	if cap(h.ids) < 5000 {
		t.Fatalf("trimmed during its peak: cap %d", cap(h.ids))
	}
	for i := range 10 {
		h.Set(int32(i), float64(i%3))
	}
	h.Trim()
	if cap(h.ids) != 20 || cap(h.keys) != 20 || h.Len() != 10 {
		t.Fatalf("cap %d/%d len %d: want 20, 20, 10", cap(h.ids), cap(h.keys), h.Len())
	}
	want := []int32{0, 3, 6, 9, 1, 4, 7, 2, 5, 8}
	for _, w := range want {
		if id, _ := h.Pop(); id != w {
			t.Fatalf("popped %d, want %d", id, w)
		}
	}
}

// TestKey: Key reports an id's current key while it is in the heap.
func TestKey(t *testing.T) {
	var h Heap
	if _, ok := h.Key(3); ok {
		t.Fatal("empty heap has id 3")
	}
	h.Set(3, 2.5)
	h.Set(1, 1)
	h.Set(3, 0.5)
	if k, ok := h.Key(3); !ok || k != 0.5 {
		t.Fatalf("Key(3) = %v, %v, want 0.5, true", k, ok)
	}
	h.Pop()
	if _, ok := h.Key(3); ok {
		t.Fatal("id 3 popped but still has a key")
	}
	if k, ok := h.Key(1); !ok || k != 1 {
		t.Fatalf("Key(1) = %v, %v, want 1, true", k, ok)
	}
}

// TestBorrowedAgainstSort applies random pushes, removals and pops to a
// Borrowed heap, many with equal keys, and checks every pop and removal
// against a sorted copy of the live entries, and that the caller's array
// holds every live entry's position; a pushed id's slot is overwritten
// while it is in, and restored from the key returned once it is out.
func TestBorrowedAgainstSort(t *testing.T) {
	var q Borrowed
	const ids = 200
	pos := make([]float64, ids)
	for id := range pos {
		pos[id] = -float64(id) // the caller's own values while out
	}
	q.Bind(pos)
	live := map[int32]float64{}
	x := uint64(11)
	next := func(n int) int { x = x*6364136223846793005 + 1442695040888963407; return int(x>>33) % n }
	for step := range 20000 {
		id := int32(next(ids))
		_, in := live[id]
		switch op := next(10); {
		case op < 6 && !in:
			k := float64(next(50))
			q.Push(id, k)
			live[id] = k
		case op < 8 && in:
			if k := q.Remove(id); k != live[id] {
				t.Fatalf("step %d: remove %d gave key %v, want %v", step, id, k, live[id])
			}
			delete(live, id)
			pos[id] = -float64(id)
		case op >= 8 && len(live) > 0:
			gid := popMin(t, step, live, q.Pop)
			pos[gid] = -float64(gid)
		}
		if q.Len() != len(live) {
			t.Fatalf("step %d: %d entries, want %d", step, q.Len(), len(live))
		}
		for id := range int32(ids) {
			if _, in := live[id]; in {
				if i := int(pos[id]); q.h.ids[i] != id {
					t.Fatalf("step %d: position of %d is %d, which holds %d", step, id, i, q.h.ids[i])
				}
			} else if pos[id] != -float64(id) {
				t.Fatalf("step %d: %d is out, and its slot was changed to %v", step, id, pos[id])
			}
		}
	}
	q.Clear()
	q.Trim()
	if q.Len() != 0 || q.h.pos != nil {
		t.Fatalf("after Clear: %d entries, positions %v (want none of its own)", q.Len(), q.h.pos)
	}
}

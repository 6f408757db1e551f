package dynamic

import (
	"math"

	"github.com/opasim/opasim/flow/internal/grow"
)

// slot is the engine's record of one added flow, until it is done: 24
// bytes, in a paged array (grow.Pages), as are the paths'.
type slot struct {
	start float64 // waiting: when it becomes ready, so far; running: its start time
	tag   int32   // Flow.Tag (Add checks that it fits)
	gen   uint32
	after int32 // head of the list of flows depending on it (edges), -1 if none
	x     int32 // its state, below
}

// A flow's state, slot.x: free (xFree); reported never to complete
// and kept so later dependants learn it (xNever); waiting — dependencies
// outstanding, or waiting for its start time — with pending record p
// (waitX(p), below -1); running with n paths still running (n >= 0).
const (
	xFree  int32 = -1
	xNever int32 = math.MinInt32
)

func waitX(p int32) int32      { return -2 - p }
func pendOf(x int32) int32     { return -2 - x }
func isWaiting(x int32) bool   { return x < xFree && x != xNever }
func isWaitOrRun(x int32) bool { return x != xFree && x != xNever }

// pending holds what a waiting flow needs to start. 40 bytes, freed when
// it starts.
type pending struct {
	src, dst int32
	size     float64
	delay    float64
	rateCap  float64
	waiting  int32 // dependencies not yet complete
	class    uint8
}

// edge is one dependency: flow to waits for the list's owner.
type edge struct{ to, next int32 }

// trim releases the space a burst of flows left once it has passed,
// every grow.Window batches (grow.Oversized for what they held over the
// window): the pending records if no flow waits, the ready and doomed
// queues, the heaps' entry arrays, and the parked paths' sizes if none
// is parked. Slots, paths, groups and members are reused from free lists
// instead: their arrays stay at the most held at once (slots and paths
// in pages, grow.Pages, so that they leave at most a page unused).
func (e *Engine) trim() {
	if e.trims++; e.trims < grow.Window {
		return
	}
	if len(e.freePend) == len(e.pend) && grow.Oversized(cap(e.pend), 0) {
		e.pend, e.freePend = nil, nil
	}
	e.freePend = grow.Shrink(e.freePend, len(e.pend))
	if len(e.freeR) == len(e.rest) && grow.Oversized(cap(e.rest), 0) {
		e.rest, e.freeR = nil, nil
	}
	e.freeR = grow.Shrink(e.freeR, len(e.rest))
	e.ready = grow.Shrink(e.ready, e.peakReady)
	if e.doomAt == 0 {
		e.doomed = grow.Shrink(e.doomed, 0)
	}
	e.starts.Trim()
	e.done.trim()
	e.trims, e.peakReady = 0, 0
}

func (e *Engine) allocSlot() int32 {
	var i int32
	if n := len(e.freeSlot); n > 0 {
		i = e.freeSlot[n-1]
		e.freeSlot = e.freeSlot[:n-1]
	} else {
		i = e.slots.Append(slot{x: xFree})
	}
	e.slots.At(i).gen++
	return i
}

// take stores x in a place of *arr reused from *free (the last freed
// first) or appended, and returns its index.
func take[T any](arr *[]T, free *[]int32, x T) int32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		(*arr)[i] = x
		return i
	}
	*arr = grow.Append(*arr, x)
	return int32(len(*arr) - 1)
}

func (e *Engine) allocEdge(to, next int32) int32 {
	if k := e.freeEdge; k >= 0 {
		e.freeEdge = e.edges[k].next
		e.edges[k] = edge{to, next}
		return k
	}
	e.edges = append(e.edges, edge{to, next})
	return int32(len(e.edges) - 1)
}

func (e *Engine) freeEdgeAt(k int32) {
	e.edges[k].next = e.freeEdge
	e.freeEdge = k
}

// timeHeap is a binary min-heap of wake-up times.
type timeHeap []float64

func (h timeHeap) len() int     { return len(h) }
func (h timeHeap) min() float64 { return h[0] }
func (h *timeHeap) push(t float64) {
	*h = append(*h, t)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *timeHeap) pop() {
	a := *h
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l] < a[m] {
			m = l
		}
		if l+1 < n && a[l+1] < a[m] {
			m = l + 1
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
}

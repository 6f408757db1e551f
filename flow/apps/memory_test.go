package apps

import (
	"runtime"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/internal/testlong"
)

// measured wraps a workload and, at time at, records the live heap and
// the number of active flows, then stops the run.
type measured struct {
	dynamic.Workload
	at     float64
	heap   uint64
	active int
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (w *measured) Init(e *dynamic.Engine) error {
	if err := e.WakeAt(w.at); err != nil {
		return err
	}
	return w.Workload.Init(e)
}

func (w *measured) Wake(e *dynamic.Engine) error {
	if e.Now() == w.at && w.active == 0 {
		w.heap, w.active = liveHeap(), e.Active()
		e.Stop()
		return nil
	}
	return w.Workload.Wake(e)
}

// bytesPerActiveFlow runs w on a fresh engine over the 16-ary 3-tree and
// returns the live heap the run added at time at, per active flow.
func bytesPerActiveFlow(t testing.TB, w dynamic.Workload, at float64) (float64, int) {
	r := treeRouter(t, 16, 3)
	if n := len(r.Graph().Capacities()); n > 1<<15 {
		t.Fatalf("%d links: the records' sizes assume fewer than 2^15", n)
	}
	m := &measured{Workload: w, at: at}
	e, err := dynamic.New(r, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := liveHeap()
	if _, err := e.Run(m); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(e)
	return float64(m.heap-base) / float64(m.active), m.active
}

// Bytes a running single-path flow holds, by construction: its slot
// (24: start time, tag, generation, dependants, state) and its path
// record (8: owner and completion index), in paged arrays (pagedBytes),
// the solver's rate and path reference (16); and per link of its path 6:
// the link in the solver's path store (2, the tree having fewer than
// 2^15 links) and the flow's entry in the link's user list (4). A path
// alone in the completion heap adds its entry there (12: time and id,
// loneBytes); a path in a group of paths completing at one time adds its
// member record instead (16: path, group and two list links,
// memberBytes), the group's heap entry being shared. A flow re-solved
// with a link left inactive adds nothing: its position in the share heap
// is among the 8 bytes a link the solver reserves when it is made, for
// the first flows as many as links, and its position in the deadline
// heap is kept in its rate (the heap's key holds the rate).
const (
	pagedBytes  = 24 + 8
	flowBytes   = pagedBytes + 16
	linkBytes   = 2 + 4
	loneBytes   = 12
	memberBytes = 16
)

// TestMemoryPerActiveFlow measures the live heap a run holds per active
// flow — the engine's records, the solver's, paths, user lists, heaps,
// free lists and the workload's state, with the slack of their arrays —
// and checks it against the records' sizes: at least what the flows'
// records take, and at most an eighth more for the records not in pages
// (arrays grow by an eighth) and a byte for the pages (the page left
// unused and the pages' headers) — and, for uniform traffic, a quarter
// of the user lists' entries (a list keeps up to an eighth and one entry
// beyond its flows, rounded up to the allocator's size: about a quarter
// for lists of about 4 flows) and an allowance of 4 bytes for the
// solver's scratch arrays (never trimmed below 1,024 entries each).
//
// FCFS reference with all 64 applications running (258,048 flows at
// time 500): each task sends 15 flows of 2 links inside its leaf and 48
// of 4 links, a mean of 222/63 links; an application's flows complete
// in groups. Closed-loop uniform traffic (16,384 flows at time 10, when
// every flow has been replaced about twice and the user lists have
// settled), destinations uniform over the 4,095 other servers: 15 of
// them 2 links away, 240 4 links, 3,840 6 links, a mean of 24,030/4,095;
// every flow alone in the heap.
func TestMemoryPerActiveFlow(t *testing.T) {
	testlong.Skip(t, "builds 258,048 flows")
	w, err := NewFCFS(4096, FCFSConfig{Apps: 100, Tasks: 64, FlowSize: 8192, Interval: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, n := bytesPerActiveFlow(t, w, 500)
	lo := flowBytes + memberBytes + linkBytes*222.0/63
	hi := lo + (lo-pagedBytes)/8 + 1
	t.Logf("FCFS: %d active flows, %.1f bytes each (records %.1f)", n, b, lo)
	if n != 64*4032 || b < lo || b > hi {
		t.Errorf("FCFS: %d active flows, %.1f bytes each: want 258048, in [%.1f, %.1f]", n, b, lo, hi)
	}
	u, err := NewUniform(4096, UniformConfig{PerServer: 4, MaxFlows: 1 << 40, MinSize: 0.5, MaxSize: 1.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, n = bytesPerActiveFlow(t, u, 10)
	links := 24030.0 / 4095
	lo = flowBytes + loneBytes + linkBytes*links
	hi = lo + (lo-pagedBytes)/8 + 1 + 4*links/4 + 4
	t.Logf("uniform: %d active flows, %.1f bytes each (records %.1f)", n, b, lo)
	if n != 16384 || b < lo || b > hi {
		t.Errorf("uniform: %d active flows, %.1f bytes each: want 16384, in [%.1f, %.1f]", n, b, lo, hi)
	}
}

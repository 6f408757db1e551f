package apps

import (
	"runtime"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
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
// (24) and state word (4) and its path record (24), in paged arrays
// (pagedBytes), the solver's rate and path reference (16); and per link
// of its path 6: the link in the solver's path store (2, the tree having
// fewer than 2^15 links) and the flow's entry in the link's user list
// (4). A path alone in its completion bucket adds loneBucketBytes: the
// bucket's heap entry (12: time and id), heap position (4) and path
// (4), its time made being kept in the path record. A flow re-solved
// with a link left inactive adds nothing: its position in the share
// heap is among the 8 bytes a link the solver reserves when it is made,
// for the first flows as many as links, and its position in the
// deadline heap is kept in its rate (the heap's key holds the rate).
// growSlack is what grow.Append and the user lists' growth (by an
// eighth) may leave unused on top.
const (
	pagedBytes      = 24 + 4 + 24
	flowBytes       = pagedBytes + 16
	linkBytes       = 2 + 4
	loneBucketBytes = 12 + 4 + 4
	growSlack       = 1.125
)

// TestMemoryPerActiveFlow measures the live heap a run holds per active
// flow — the engine's records, the solver's, paths, user lists, heaps,
// free lists and the workload's state, with the slack of their arrays —
// and checks it against the records' sizes: at least what the flows'
// records take. For uniform traffic, where every flow is alone in its
// completion bucket, the records include loneBucketBytes a flow, and the
// bound above is growSlack times the records (the solver's scratch
// arrays are still at twice the most flows a solve re-solved in the last
// window). For FCFS it is tighter: an eighth more for the records
// not in pages and a byte for the pages (the page left unused and the
// pages' headers).
//
// FCFS reference with all 64 applications running (258,048 flows at
// time 500): each task sends 15 flows of 2 links inside its leaf and 48
// of 4 links, a mean of 222/63 links. Closed-loop uniform traffic (16,384
// flows at time 2), destinations uniform over the 4,095 other servers:
// 15 of them 2 links away, 240 4 links, 3,840 6 links, a mean of
// 24,030/4,095.
func TestMemoryPerActiveFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 258,048 flows")
	}
	w, err := NewFCFS(4096, FCFSConfig{Apps: 100, Tasks: 64, FlowSize: 8192, Interval: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, n := bytesPerActiveFlow(t, w, 500)
	lo := flowBytes + linkBytes*222.0/63
	hi := lo + (lo-pagedBytes)*(growSlack-1) + 1
	t.Logf("FCFS: %d active flows, %.1f bytes each (records %.1f)", n, b, lo)
	if n != 64*4032 || b < lo || b > hi {
		t.Errorf("FCFS: %d active flows, %.1f bytes each: want 258048, in [%.1f, %.1f]", n, b, lo, hi)
	}
	u, err := NewUniform(4096, UniformConfig{PerServer: 4, MaxFlows: 1 << 40, MinSize: 0.5, MaxSize: 1.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, n = bytesPerActiveFlow(t, u, 2)
	lo = flowBytes + linkBytes*24030.0/4095 + loneBucketBytes
	t.Logf("uniform: %d active flows, %.1f bytes each (records %.1f)", n, b, lo)
	if n != 16384 || b < lo || b > lo*growSlack {
		t.Errorf("uniform: %d active flows, %.1f bytes each: want 16384, in [%.1f, %.1f]", n, b, lo, lo*growSlack)
	}
}

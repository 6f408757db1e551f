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

// TestMemoryPerActiveFlow measures the heap held per active flow — the
// engine's records, the solver's, paths, user lists, heaps, free lists
// and the workload's state, with their slack — and checks it stays
// within bounds: the FCFS reference with all 64 applications running
// (258,048 flows of 2 or 4 links, at time 500), and closed-loop uniform
// traffic (16,384 flows, mostly of 6 links, at time 2). The uniform
// figure is higher: its flows all arrive at time 0, so the arrays sized
// by that burst (pending records, the ready queue, the solver's scratch)
// stay allocated, and each flow has a completion bucket of its own.
func TestMemoryPerActiveFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 258,048 flows")
	}
	w, err := NewFCFS(4096, FCFSConfig{Apps: 100, Tasks: 64, FlowSize: 8192, Interval: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, n := bytesPerActiveFlow(t, w, 500)
	t.Logf("FCFS: %d active flows, %.1f bytes each", n, b)
	if n != 64*4032 || b > 130 {
		t.Errorf("FCFS: %d active flows, %.1f bytes each: want 258048, at most 130", n, b)
	}
	u, err := NewUniform(4096, UniformConfig{PerServer: 4, MaxFlows: 1 << 40, MinSize: 0.5, MaxSize: 1.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, n = bytesPerActiveFlow(t, u, 2)
	t.Logf("uniform: %d active flows, %.1f bytes each", n, b)
	if n != 16384 || b > 330 {
		t.Errorf("uniform: %d active flows, %.1f bytes each: want 16384, at most 330", n, b)
	}
}

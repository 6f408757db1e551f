package dynamic

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/internal/grow"
	"github.com/opasim/opasim/flow/route"
)

// funcs is a Workload made of functions; nil ones do nothing.
type funcs struct {
	init func(*Engine) error
	done func(*Engine, Done) error
	wake func(*Engine) error
}

func (w funcs) Init(e *Engine) error {
	if w.init == nil {
		return nil
	}
	return w.init(e)
}

func (w funcs) FlowDone(e *Engine, d Done) error {
	if w.done == nil {
		return nil
	}
	return w.done(e, d)
}

func (w funcs) Wake(e *Engine) error {
	if w.wake == nil {
		return nil
	}
	return w.wake(e)
}

func newEngine(t *testing.T, r route.Router) *Engine {
	t.Helper()
	e, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustAdd(t *testing.T, e *Engine, f Flow, after ...Ref) Ref {
	t.Helper()
	ref, err := e.Add(f, after)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// record collects Done reports by tag, as "tag@start-finish".
type record struct{ log []string }

func (r *record) done(_ *Engine, d Done) error {
	r.log = append(r.log, fmt.Sprintf("%d@%g-%g", d.Tag, d.Start, d.Finish))
	return nil
}

func (r *record) String() string { return strings.Join(r.log, " ") }

// TestOnlineChain: TestDependencyAndDelay's flows, with C added by the
// workload when A completes (at 2), after A with delay 0.5: a dependency
// that has just completed counts as completing now, so C starts at 2.5
// and the times are those of the list form: A 2, C 4.5, B 5.
func TestOnlineChain(t *testing.T) {
	e := newEngine(t, ring(t, 1))
	var rec record
	st, err := e.Run(funcs{
		init: func(e *Engine) error {
			mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 1, Tag: 0})
			mustAdd(t, e, Flow{Src: 0, Dst: 2, Size: 3, Tag: 1})
			return nil
		},
		done: func(e *Engine, d Done) error {
			rec.done(e, d)
			if d.Tag == 0 {
				mustAdd(t, e, Flow{Src: 1, Dst: 2, Size: 1, Delay: 0.5, Tag: 2}, d.Ref)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.String(), "0@0-2 2@2.5-4.5 1@0-5"; got != want {
		t.Errorf("done %s, want %s", got, want)
	}
	if st.Flows != 3 || st.Completed != 3 || st.Unfinished != 0 || st.Makespan != 5 || st.MaxActive != 2 || st.Batches != 5 {
		t.Errorf("stats %+v", st)
	}
}

// TestWake: a wake-up at 1.5 adds a flow whose Start (0) has passed: it
// starts at 1.5 and, alone, completes at 2.5. A wake-up at A's completion
// time (1) comes after the completion is reported.
func TestWake(t *testing.T) {
	e := newEngine(t, ring(t, 1))
	var rec record
	wakes := 0
	_, err := e.Run(funcs{
		init: func(e *Engine) error {
			mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 1, Tag: 0})
			if err := e.WakeAt(1.5); err != nil {
				return err
			}
			return e.WakeAt(1)
		},
		done: rec.done,
		wake: func(e *Engine) error {
			wakes++
			rec.log = append(rec.log, fmt.Sprintf("wake@%g", e.Now()))
			if e.Now() == 1.5 {
				mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 1, Tag: 1})
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.String(), "0@0-1 wake@1 wake@1.5 1@1.5-2.5"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestAfterPending: B is added after A while A runs (size 2, alone: done
// at 2); with delay 1 B starts at 3. D depends on A twice and on B.
func TestAfterPending(t *testing.T) {
	e := newEngine(t, ring(t, 1))
	var rec record
	_, err := e.Run(funcs{
		init: func(e *Engine) error {
			a := mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 2, Tag: 0})
			b := mustAdd(t, e, Flow{Src: 2, Dst: 3, Size: 1, Delay: 1, Tag: 1}, a)
			mustAdd(t, e, Flow{Src: 3, Dst: 0, Size: 0, Tag: 2}, a, b, a)
			return nil
		},
		done: rec.done,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.String(), "0@0-2 1@3-4 2@4-4"; got != want {
		t.Errorf("done %s, want %s", got, want)
	}
}

// TestNeverCompletes: A's destination is unreachable (Done at its start,
// 0, with Finish +Inf); B, waiting on A, never starts; C, added after A
// once A is reported, never starts either; D runs.
func TestNeverCompletes(t *testing.T) {
	g, err := graph.New(3, 2, []graph.Link{
		{From: 0, To: 3, Capacity: 1}, {From: 3, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1},
		{From: 3, To: 1, Capacity: 1}, {From: 2, To: 4, Capacity: 1}, {From: 4, To: 2, Capacity: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := route.NewECMP(g, 1)
	e := newEngine(t, r)
	var rec record
	st, err := e.Run(funcs{
		init: func(e *Engine) error {
			a := mustAdd(t, e, Flow{Src: 0, Dst: 2, Size: 1, Tag: 0})
			mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 1, Tag: 1}, a)
			mustAdd(t, e, Flow{Src: 1, Dst: 0, Size: 2, Tag: 3})
			return nil
		},
		done: func(e *Engine, d Done) error {
			rec.done(e, d)
			if d.Tag == 0 {
				mustAdd(t, e, Flow{Src: 1, Dst: 0, Size: 1, Tag: 2}, d.Ref)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.String(), "0@0-+Inf 1@+Inf-+Inf 2@+Inf-+Inf 3@0-2"; got != want {
		t.Errorf("done %s, want %s", got, want)
	}
	if st.Unfinished != 3 || st.Completed != 1 || st.Makespan != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestSlotsReused: a closed loop of 10,000 flows, never more than two at
// a time, keeps two slots and at most four solver flows (a removed
// solver flow's id is reused from the next solve on).
func TestSlotsReused(t *testing.T) {
	e := newEngine(t, ring(t, 1))
	n := 0
	add := func(e *Engine) {
		n++
		mustAdd(t, e, Flow{Src: int32(n % 4), Dst: int32((n + 1) % 4), Size: float64(1 + n%3)})
	}
	st, err := e.Run(funcs{
		init: func(e *Engine) error { add(e); add(e); return nil },
		done: func(e *Engine, d Done) error {
			if n < 10000 {
				add(e)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Completed != 10000 || st.MaxActive != 2 || e.slots.Len() != 2 || e.subs.Len() > 4 || len(e.pend) > 2 {
		t.Errorf("stats %+v, %d slots, %d subs, %d pending records", st, e.slots.Len(), e.subs.Len(), len(e.pend))
	}
}

func TestAddErrors(t *testing.T) {
	e := newEngine(t, ring(t, 1))
	a := mustAdd(t, e, Flow{Src: 0, Dst: 1, Size: 1})
	for _, c := range []struct {
		f     Flow
		after []Ref
		want  string
	}{
		{Flow{Src: 0, Dst: 9}, nil, "dynamic add dst: 9 is not allowed: must be a server, in [0, 4)"},
		{Flow{Src: 0, Dst: 1, Size: math.NaN()}, nil, "dynamic add size: NaN is not allowed"},
		{Flow{Src: 0, Dst: 1, Deps: []int{0}}, nil, "dynamic add deps: [0] is not allowed: an added flow names its dependencies in after"},
		{Flow{Src: 0, Dst: 1}, []Ref{a + 1}, "dynamic add after[0]: 4294967297 is not allowed: must be a flow added before"},
		{Flow{Src: 0, Dst: 1}, []Ref{a, a + 1<<32}, "dynamic add after[1]"},
		{Flow{Src: 0, Dst: 1}, []Ref{-1}, "dynamic add after[0]: -1 is not allowed"},
		{Flow{Src: 0, Dst: 1, Tag: 1 << 31}, nil, "dynamic add tag: 2147483648 is not allowed: must be in [-2147483648, 2147483647]"},
	} {
		if _, err := e.Add(c.f, c.after); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v after %v: %v, want %q", c.f, c.after, err, c.want)
		}
	}
	if err := e.WakeAt(math.Inf(1)); err == nil {
		t.Errorf("wake at +Inf: no error")
	}
	boom := errors.New("boom")
	if _, err := e.Run(funcs{done: func(*Engine, Done) error { return boom }}); !errors.Is(err, boom) {
		t.Errorf("a workload error: %v", err)
	}
	if _, err := e.Run(funcs{}); err == nil {
		t.Errorf("a second Run: no error")
	}
	e = newEngine(t, ring(t, 1))
	if _, err := e.Run(funcs{init: func(e *Engine) error {
		if err := e.WakeAt(1); err != nil {
			return err
		}
		return nil
	}, wake: func(e *Engine) error { return e.WakeAt(0.5) }}); err == nil || !strings.Contains(err.Error(), "dynamic wake time: 0.5 is not allowed: must be finite and at least now (1)") {
		t.Errorf("a wake-up in the past: %v", err)
	}
}

// TestNoPathIsError: server 2 is cut off from 0 and 1; with
// NoPathIsError a flow to it ends the run when it is to start (after its
// dependency, at 2), naming it; without, it is reported never to
// complete (TestNeverCompletes).
func TestNoPathIsError(t *testing.T) {
	g, err := graph.New(3, 2, []graph.Link{
		{From: 0, To: 3, Capacity: 1}, {From: 3, To: 0, Capacity: 1}, {From: 1, To: 3, Capacity: 1},
		{From: 3, To: 1, Capacity: 1}, {From: 2, To: 4, Capacity: 1}, {From: 4, To: 2, Capacity: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := route.NewECMP(g, 1)
	flows := []Flow{{Src: 0, Dst: 1, Size: 2}, {Src: 1, Dst: 2, Size: 1, Deps: []int{0}}}
	_, err = RunWith(r, flows, Options{NoPathIsError: true})
	var np *NoPathError
	if !errors.As(err, &np) || *np != (NoPathError{Tag: 1, Src: 1, Dst: 2, At: 2}) || !errors.Is(err, route.ErrNoPath) {
		t.Fatalf("error %v, want flow 1 from 1 to 2 at 2", err)
	}
	res, err := RunWith(r, flows, Options{})
	if err != nil || res.Unfinished != 1 || res.Finish[0] != 2 {
		t.Fatalf("without the option: %v, %+v", err, res)
	}
}

// TestBurstTrimmed: a burst of 2,000 flows added at time 0 (each server
// of the 8-ary 2-tree sends 31 or 32, of sizes 1 to 2) fills the pending
// records, the ready queue and the solver's scratch. Trimming happens
// every grow.Window batches; the run has far more batches than that (the
// flows complete at many distinct times), and after the burst no flow
// waits, so at the end the pending records are released and the queues
// are back within grow.Slack, while the slots stay (2,000 of them).
// Server 0 sends 32 flows of size at least 1 over its one link of
// capacity 1, so the run cannot end before 32.
func TestBurstTrimmed(t *testing.T) {
	tr, err := graph.NewTree(8, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, route.NewDModK(tr))
	const n = 2000
	w := funcs{
		init: func(e *Engine) error {
			for i := range n {
				src := int32(i % 64)
				if _, err := e.Add(Flow{Src: src, Dst: (src + 1 + int32(i/64)%63) % 64, Size: 1 + float64(i%97)/97}, nil); err != nil {
					return err
				}
			}
			return nil
		},
	}
	st, err := e.Run(w)
	if err != nil {
		t.Fatal(err)
	}
	if st.Completed != n || st.Makespan < 32 || st.Batches < 2*grow.Window {
		t.Fatalf("%d completed, makespan %v, %d batches: want %d, at least 32, at least %d", st.Completed, st.Makespan, st.Batches, n, 2*grow.Window)
	}
	if cap(e.pend) != 0 || cap(e.freePend) > grow.Slack || cap(e.ready) > grow.Slack {
		t.Errorf("after the burst: pending %d, free %d, ready %d: want 0, at most %d, at most %d",
			cap(e.pend), cap(e.freePend), cap(e.ready), grow.Slack, grow.Slack)
	}
	if e.slots.Len() != n {
		t.Errorf("%d slots, want %d", e.slots.Len(), n)
	}
}

// TestCompletionGroups: on an 8-node ring, A (0→1), B (2→3) and C (4→5)
// use disjoint links, each alone at rate 1 with size 4: they get one
// completion time, 4, in one solve, and so one heap entry (a group of
// three). At 1, D (size 1) joins one of them, X: both run at 1/2; D
// completes at 1 + 1/(1/2) = 3, X has 4 − 1 − 1 = 2 left and runs alone
// again at 1: 5. The two others still complete at 4, in the order they
// joined the group. X is the group's first, middle or last path, or all
// three get a D (the group is left empty and gone).
func TestCompletionGroups(t *testing.T) {
	tor, err := graph.NewTorus([]int{8}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := route.NewDOR(tor)
	for _, c := range []struct {
		joined []int32 // sources of the paths D joins
		want   string
	}{
		{[]int32{0}, "10@1-3 1@0-4 2@0-4 0@0-5"},
		{[]int32{2}, "12@1-3 0@0-4 2@0-4 1@0-5"},
		{[]int32{4}, "14@1-3 0@0-4 1@0-4 2@0-5"},
		{[]int32{0, 2, 4}, "10@1-3 12@1-3 14@1-3 0@0-5 1@0-5 2@0-5"},
	} {
		e := newEngine(t, r)
		var rec record
		var entries []int
		w := funcs{
			init: func(e *Engine) error {
				for i := range int32(3) {
					mustAdd(t, e, Flow{Src: 2 * i, Dst: 2*i + 1, Size: 4, Tag: int64(i)})
				}
				return e.WakeAt(1)
			},
			done: rec.done,
			wake: func(e *Engine) error {
				entries = append(entries, e.done.len(), len(e.groups)-len(e.freeGr))
				for _, s := range c.joined {
					mustAdd(t, e, Flow{Src: s, Dst: s + 1, Size: 1, Tag: 10 + int64(s)})
				}
				return e.WakeAt(2)
			},
		}
		w.wake = func(wake func(*Engine) error) func(*Engine) error {
			return func(e *Engine) error {
				if e.Now() == 2 {
					entries = append(entries, e.done.len(), len(e.groups)-len(e.freeGr))
					return nil
				}
				return wake(e)
			}
		}(w.wake)
		if _, err := e.Run(w); err != nil {
			t.Fatal(err)
		}
		// At 1, one entry, a group; at 2, the group (unless emptied) and
		// an entry for each path that left it and each D.
		n := len(c.joined)
		want := fmt.Sprint([]int{1, 1, 2 * n, 0})
		if n < 3 {
			want = fmt.Sprint([]int{1, 1, 1 + 2*n, 1})
		}
		if got := fmt.Sprint(entries); got != want {
			t.Errorf("D on %v: heap entries and groups at 1 and 2: %s, want %s", c.joined, got, want)
		}
		if rec.String() != c.want {
			t.Errorf("D on %v: %s, want %s", c.joined, rec.String(), c.want)
		}
	}
}

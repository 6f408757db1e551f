// Package dynamic is the flow engine's dynamic mode (seed 001 section
// 3.1): flows have sizes, start times and dependencies; links share their
// capacity max-min fairly among the flows crossing them at each moment;
// the engine reports when each flow starts and completes.
//
// Flows come from a Workload, which the Engine calls at time 0, whenever
// a flow completes and at the times it asks to be woken, and which adds
// flows (Engine.Add) as the run goes: an application model, a trace, a
// closed-loop generator. Run takes a fixed flow list and is a thin
// wrapper: it adds the whole list at time 0.
//
// Events are kept in time order: flows waiting for a start time in an
// indexed heap (flow/internal/iheap), running paths in a completion heap
// by predicted completion time — a path alone, or a group of paths whose
// rates were recomputed together and came out with equal times, which
// complete with one heap operation — wake-ups in a small heap. All
// events with one timestamp form a batch: completed paths leave the
// max-min solver (their flows' dependants become ready, and the workload
// hears of the completions), then wake-ups and ready flows are processed
// — ready flows are routed and join the solver — until none is left at
// that time; then flow/maxmin re-solves what the batch's changes can
// have affected, and every path whose rate changed gets a new predicted
// completion (its remaining size, (old completion − now) × old rate,
// first); the others keep theirs.
//
// Units: sizes are in capacity units × time units (bits with capacities
// in bit/s and times in seconds), rates in capacity units.
//
// Memory: the engine keeps nothing for a flow once it is done, so a long
// run holds only its active flows (docs/flow.md gives the bytes per
// active flow).
//
// Links can be shared among traffic classes under a priority policy
// (Options.Policy, Flow.Class: flow/maxmin's NP, BA and FP).
//
// Cost: each batch costs what its max-min re-solve costs — in proportion
// to the part of the system whose filling history the batch changes, not
// to its connected component (flow/maxmin) — plus O(log) per event.
package dynamic

import (
	"fmt"
	"math"
	"strconv"

	"github.com/opasim/opasim/flow/route"
)

// Flow is one transfer.
type Flow struct {
	Src, Dst int32   // servers (or a Resources router's endpoints); a flow from a server to itself uses no link and completes when it starts
	Size     float64 // >= 0; a flow of size 0 completes when it starts
	Start    float64 // earliest start time, >= 0
	// Deps lists flows (indices into the flow list given to Run) that
	// must complete before this one starts: it starts at max(Start, the
	// last of their completions + Delay). Without dependencies it starts
	// at Start. Engine.Add takes refs in its after argument instead.
	Deps  []int
	Delay float64 // >= 0
	// RateCap bounds the flow's rate (0: no bound); a flow split over
	// paths bounds each path's part by its share of the cap.
	RateCap float64
	// Class is the flow's traffic class, for the engine's link-sharing
	// policy (Options.Policy; ignored under NP, the default).
	Class uint8
	// Tag is handed back in the flow's Done; the engine does not read it
	// (Run sets it to the flow's index). Engine.Add takes tags that fit
	// in 32 bits (the engine keeps 32).
	Tag int64
}

// Result holds every flow's start and completion times.
type Result struct {
	Start, Finish []float64 // per flow; +Inf for flows that never started or never completed
	Makespan      float64   // the last completion (0 with no flows)
	// Unfinished counts flows that never completed: their destination is
	// unreachable, or they wait on such a flow.
	Unfinished int
	Batches    int   // distinct event timestamps processed
	Resolved   int64 // flow rates recomputed by the solver, summed over batches
	Changed    int64 // flow rates that changed, summed over batches
	// Interrupted: Options.Interrupt ended the run at Makespan's batch;
	// flows not completed by then have Finish +Inf but are not counted
	// in Unfinished.
	Interrupted bool
}

// Run simulates flows routed by r, sharing links max-min fairly, and
// returns their start and completion times. It adds every flow to an
// Engine at time 0 (dependencies first).
func Run(r route.Router, flows []Flow) (*Result, error) {
	return RunWith(r, flows, Options{})
}

// RunWith is Run with engine options (a link-sharing policy).
func RunWith(r route.Router, flows []Flow, opt Options) (*Result, error) {
	servers, _ := ends(r)
	if len(flows) > math.MaxInt32 {
		return nil, fmt.Errorf("dynamic flows: %d is not allowed: must be at most %d", len(flows), math.MaxInt32)
	}
	for i, f := range flows {
		if err := checkFields(servers, "dynamic flow "+strconv.Itoa(i), f); err != nil {
			return nil, err
		}
		for k, d := range f.Deps {
			if d < 0 || d >= len(flows) || d == i {
				return nil, fmt.Errorf("dynamic flow %d deps[%d]: %d is not allowed: must be another flow, in [0, %d)", i, k, d, len(flows))
			}
		}
	}
	order, err := topoOrder(flows)
	if err != nil {
		return nil, err
	}
	e, err := New(r, opt)
	if err != nil {
		return nil, err
	}
	w := &listWorkload{flows: flows, order: order, refs: make([]Ref, len(flows)), progress: opt.Progress,
		res: &Result{Start: make([]float64, len(flows)), Finish: make([]float64, len(flows))}}
	for i := range flows {
		w.res.Start[i], w.res.Finish[i] = math.Inf(1), math.Inf(1)
	}
	st, err := e.Run(w)
	if err != nil {
		return nil, err
	}
	res := w.res
	res.Makespan, res.Unfinished = st.Makespan, int(st.Unfinished)
	res.Batches, res.Resolved, res.Changed, res.Interrupted = st.Batches, st.Resolved, st.Changed, st.Interrupted
	return res, nil
}

// listWorkload adds a flow list at time 0 and records the times.
type listWorkload struct {
	flows []Flow
	order []int32 // dependencies before dependants
	refs  []Ref
	after []Ref
	res   *Result

	progress func(done, total int) // Options.Progress
	done     int
}

func (w *listWorkload) Init(e *Engine) error {
	for k, i := range w.order {
		if k%(1<<16) == 0 && k > 0 && e.Interrupted() {
			return nil // adding a long list is work too: stop with the flows added so far
		}
		f := w.flows[i]
		w.after = w.after[:0]
		for _, d := range f.Deps {
			w.after = append(w.after, w.refs[d])
		}
		f.Deps, f.Tag = nil, int64(i)
		ref, err := e.Add(f, w.after)
		if err != nil {
			return err
		}
		w.refs[i] = ref
	}
	return nil
}

func (w *listWorkload) FlowDone(_ *Engine, d Done) error {
	w.res.Start[d.Tag], w.res.Finish[d.Tag] = d.Start, d.Finish
	if w.done++; w.progress != nil && (w.done%1024 == 0 || w.done == len(w.flows)) {
		w.progress(w.done, len(w.flows))
	}
	return nil
}

func (w *listWorkload) Wake(*Engine) error { return nil }

// checkFields checks a flow's servers and numbers; name prefixes errors.
func checkFields(servers int32, name string, f Flow) error {
	if f.Src < 0 || f.Src >= servers {
		return fmt.Errorf("%s src: %d is not allowed: must be a server, in [0, %d)", name, f.Src, servers)
	}
	if f.Dst < 0 || f.Dst >= servers {
		return fmt.Errorf("%s dst: %d is not allowed: must be a server, in [0, %d)", name, f.Dst, servers)
	}
	for _, c := range [...]struct {
		name string
		v    float64
	}{{"size", f.Size}, {"start", f.Start}, {"delay", f.Delay}, {"rate cap", f.RateCap}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%s %s: %v is not allowed: must be finite and at least 0", name, c.name, c.v)
		}
	}
	return nil
}

// topoOrder returns the flows in an order where every flow comes after
// its dependencies: the index order if it is one, else Kahn's order. It
// fails if the dependencies form a cycle.
func topoOrder(flows []Flow) ([]int32, error) {
	order := make([]int32, len(flows))
	sorted := true
	for i, f := range flows {
		order[i] = int32(i)
		for _, d := range f.Deps {
			sorted = sorted && d < i
		}
	}
	if sorted {
		return order, nil
	}
	left := make([]int32, len(flows))
	after := make([][]int32, len(flows))
	order = order[:0]
	for i, f := range flows {
		left[i] = int32(len(f.Deps))
		for _, d := range f.Deps {
			after[d] = append(after[d], int32(i))
		}
		if len(f.Deps) == 0 {
			order = append(order, int32(i))
		}
	}
	for k := 0; k < len(order); k++ {
		for _, j := range after[order[k]] {
			if left[j]--; left[j] == 0 {
				order = append(order, j)
			}
		}
	}
	if len(order) < len(flows) {
		for i, w := range left {
			if w > 0 {
				return nil, fmt.Errorf("dynamic flow %d deps: %v is not allowed: the dependencies form a cycle", i, flows[i].Deps)
			}
		}
	}
	return order, nil
}

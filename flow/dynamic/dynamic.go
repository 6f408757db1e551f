// Package dynamic is the flow engine's dynamic mode (seed 001 section
// 3.1): flows have sizes, start times and dependencies; links share their
// capacity max-min fairly among the flows crossing them at each moment;
// the engine reports when each flow starts and completes.
//
// Events (a flow becoming ready, a flow completing) are processed in time
// order from two indexed heaps (flow/internal/iheap: one entry per flow
// waiting to start, one per running path, moved in place when its
// predicted completion changes). All events with one timestamp form a
// batch:
// completed flows leave the max-min solver, ready flows are routed and
// join it, then flow/maxmin re-solves only the connected components the
// batch touched, and every flow whose rate changed gets a new predicted
// completion (its remaining size is brought up to date from its old rate
// first; flows whose rate did not change keep their pending event).
//
// Units: sizes are in capacity units × time units (bits with capacities
// in bit/s and times in seconds), rates in capacity units.
//
// Cost: each batch costs what its max-min re-solve costs, O(E log E) for
// the E path links of the flows in the touched components, plus O(log)
// per event. When active flows share links with one another (one large
// component, as with all-to-all traffic), every completion re-solves all
// of them.
package dynamic

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/internal/iheap"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
)

// Flow is one transfer.
type Flow struct {
	Src, Dst int32   // servers; a flow from a server to itself uses no link and completes when it starts
	Size     float64 // >= 0; a flow of size 0 completes when it starts
	Start    float64 // earliest start time, >= 0
	// Deps lists flows (indices into the flow list) that must complete
	// before this one starts: it starts at max(Start, the last of their
	// completions + Delay). Without dependencies it starts at Start.
	Deps  []int
	Delay float64 // >= 0
	// RateCap bounds the flow's rate (0: no bound); a flow split over
	// paths bounds each path's part by its share of the cap.
	RateCap float64
}

// Result holds every flow's start and completion times.
type Result struct {
	Start, Finish []float64 // per flow; +Inf for flows that never started or never completed
	Makespan      float64   // the last completion (0 with no flows)
	// Unfinished counts flows that never completed: their destination is
	// unreachable or their path crosses a link of capacity 0, or they wait
	// on such a flow.
	Unfinished int
	Batches    int   // distinct event timestamps processed
	Resolved   int64 // flow rates recomputed by the solver, summed over batches
}

// sub is one path of a started flow: a max-min solver flow.
type sub struct {
	owner     int32   // flow index
	remaining float64 // size left at time last
	last      float64
	rate      float64
	active    bool
}

type engine struct {
	r       route.Router
	flows   []Flow
	solver  *maxmin.Solver
	subs    []sub // indexed by maxmin.FlowID
	open    []int32
	waiting []int32    // dependencies not yet complete, per flow
	readyAt []float64  // the latest dependency completion + Delay so far
	after   [][]int32  // after[f]: flows depending on f
	starts  iheap.Heap // flow index → the time it becomes ready
	ends    iheap.Heap // sub id → its predicted completion
	res     *Result
	now     float64
	err     error
}

// Run simulates flows routed by r and returns their start and completion
// times.
func Run(r route.Router, flows []Flow) (*Result, error) {
	g := r.Graph()
	if len(flows) > math.MaxInt32 {
		return nil, fmt.Errorf("dynamic flows: %d is not allowed: must be at most %d", len(flows), math.MaxInt32)
	}
	e := &engine{
		r:       r,
		flows:   flows,
		open:    make([]int32, len(flows)),
		waiting: make([]int32, len(flows)),
		readyAt: make([]float64, len(flows)),
		after:   make([][]int32, len(flows)),
		res:     &Result{Start: make([]float64, len(flows)), Finish: make([]float64, len(flows))},
	}
	for i, f := range flows {
		if err := checkFlow(g.NumServers(), len(flows), i, f); err != nil {
			return nil, err
		}
		e.waiting[i] = int32(len(f.Deps))
		for _, d := range f.Deps {
			e.after[d] = append(e.after[d], int32(i))
		}
		e.res.Start[i], e.res.Finish[i] = math.Inf(1), math.Inf(1)
	}
	if err := e.checkAcyclic(); err != nil {
		return nil, err
	}
	var err error
	if e.solver, err = maxmin.New(g.Capacities()); err != nil {
		return nil, err
	}
	for i, f := range flows {
		if len(f.Deps) == 0 {
			e.starts.Set(int32(i), f.Start)
		}
	}
	for (e.starts.Len() > 0 || e.ends.Len() > 0) && e.err == nil {
		e.batch()
	}
	if e.err != nil {
		return nil, e.err
	}
	for _, t := range e.res.Finish {
		if math.IsInf(t, 1) {
			e.res.Unfinished++
		} else {
			e.res.Makespan = max(e.res.Makespan, t)
		}
	}
	return e.res, nil
}

func checkFlow(servers, n, i int, f Flow) error {
	if f.Src < 0 || int(f.Src) >= servers {
		return fmt.Errorf("dynamic flow %d src: %d is not allowed: must be a server, in [0, %d)", i, f.Src, servers)
	}
	if f.Dst < 0 || int(f.Dst) >= servers {
		return fmt.Errorf("dynamic flow %d dst: %d is not allowed: must be a server, in [0, %d)", i, f.Dst, servers)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"size", f.Size}, {"start", f.Start}, {"delay", f.Delay}, {"rate cap", f.RateCap}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("dynamic flow %d %s: %v is not allowed: must be finite and at least 0", i, c.name, c.v)
		}
	}
	for k, d := range f.Deps {
		if d < 0 || d >= n || d == i {
			return fmt.Errorf("dynamic flow %d deps[%d]: %d is not allowed: must be another flow, in [0, %d)", i, k, d, n)
		}
	}
	return nil
}

// checkAcyclic fails if dependencies form a cycle (Kahn's algorithm).
func (e *engine) checkAcyclic() error {
	left := append([]int32(nil), e.waiting...)
	var queue []int32
	for i, w := range left {
		if w == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, j := range e.after[queue[k]] {
			if left[j]--; left[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if len(queue) < len(left) {
		for i, w := range left {
			if w > 0 {
				return fmt.Errorf("dynamic flow %d deps: %v is not allowed: the dependencies form a cycle", i, e.flows[i].Deps)
			}
		}
	}
	return nil
}

// batch processes every event at the earliest time — completions first,
// then flows becoming ready, including those readied by this batch's
// completions — then re-solves.
func (e *engine) batch() {
	t := math.Inf(1)
	if e.ends.Len() > 0 {
		_, t = e.ends.Min()
	}
	if e.starts.Len() > 0 {
		_, st := e.starts.Min()
		t = min(t, st)
	}
	e.now = t
	e.res.Batches++
	for e.err == nil {
		if e.ends.Len() > 0 {
			if id, at := e.ends.Min(); at == t {
				e.ends.Pop()
				e.finishSub(maxmin.FlowID(id))
				continue
			}
		}
		if e.starts.Len() > 0 {
			if i, at := e.starts.Min(); at == t {
				e.starts.Pop()
				e.start(i)
				continue
			}
		}
		break
	}
	if e.err != nil {
		return
	}
	changed := e.solver.Solve()
	e.res.Resolved += int64(len(changed))
	for _, id := range changed {
		e.reschedule(id)
	}
}

// start routes flow i and adds its paths to the solver.
func (e *engine) start(i int32) {
	f := &e.flows[i]
	e.res.Start[i] = e.now
	if f.Size == 0 || f.Src == f.Dst {
		e.complete(i)
		return
	}
	err := e.r.Route(f.Src, f.Dst, func(links []int32, share float64) {
		rc := maxmin.NoCap
		if f.RateCap > 0 {
			rc = f.RateCap * share
		}
		id, err := e.solver.AddFlow(links, rc)
		if err != nil {
			e.err = fmt.Errorf("dynamic flow %d: %w", i, err)
			return
		}
		for int(id) >= len(e.subs) {
			e.subs = append(e.subs, sub{})
		}
		e.subs[id] = sub{owner: i, remaining: f.Size * share, last: e.now, active: true}
		e.open[i]++
	})
	switch {
	case errors.Is(err, route.ErrNoPath):
		// Never completes: Finish stays +Inf.
	case err != nil:
		e.err = fmt.Errorf("dynamic flow %d: %w", i, err)
	}
}

func (e *engine) finishSub(id maxmin.FlowID) {
	s := &e.subs[id]
	s.active, s.remaining, s.rate = false, 0, 0
	if err := e.solver.RemoveFlow(id); err != nil {
		e.err = err
		return
	}
	if e.open[s.owner]--; e.open[s.owner] == 0 {
		e.complete(s.owner)
	}
}

// complete records flow i's completion and readies its dependants.
func (e *engine) complete(i int32) {
	e.res.Finish[i] = e.now
	for _, j := range e.after[i] {
		e.readyAt[j] = max(e.readyAt[j], e.now+e.flows[j].Delay)
		if e.waiting[j]--; e.waiting[j] == 0 {
			e.starts.Set(j, max(e.flows[j].Start, e.readyAt[j]))
		}
	}
}

// reschedule brings sub id's remaining size up to now at its old rate,
// takes its new rate and schedules its completion.
func (e *engine) reschedule(id maxmin.FlowID) {
	s := &e.subs[id]
	s.remaining = max(s.remaining-s.rate*(e.now-s.last), 0)
	s.last = e.now
	s.rate = e.solver.Rate(id)
	if s.rate > 0 {
		e.ends.Set(int32(id), e.now+s.remaining/s.rate)
	} else {
		e.ends.Remove(int32(id))
	}
}

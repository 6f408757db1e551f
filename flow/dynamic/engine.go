package dynamic

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/internal/grow"
	"github.com/opasim/opasim/flow/internal/iheap"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
)

// Ref names a flow added to an Engine. It holds the slot the flow
// occupies and the slot's generation, so a ref stays unambiguous after
// the flow is done and its slot serves another flow.
type Ref int64

func makeRef(slot int32, gen uint32) Ref { return Ref(int64(gen)<<32 | int64(uint32(slot))) }
func (r Ref) slot() int32                { return int32(uint32(r)) }
func (r Ref) gen() uint32                { return uint32(uint64(r) >> 32) }

// Done reports the end of a flow to its workload.
type Done struct {
	Ref Ref
	Tag int64 // the flow's Tag
	// Start is when the flow started: +Inf if it never starts (a
	// dependency never completes).
	Start float64
	// Finish is when it completed: +Inf if it never completes (its
	// destination is unreachable, or it never starts).
	Finish float64
}

// Workload adds flows to an Engine while it runs. Each method is called
// at simulated time e.Now() and may call e.Add and e.WakeAt; an error
// stops the run and is returned by Run.
type Workload interface {
	// Init is called once, at time 0, before any event.
	Init(e *Engine) error
	// FlowDone is called once for every flow added: when it completes
	// (at d.Finish), or when it is known never to complete.
	FlowDone(e *Engine, d Done) error
	// Wake is called once for each e.WakeAt(t), at time t.
	Wake(e *Engine) error
}

// NoPathError is a flow whose destination the routing cannot reach, under
// Options.NoPathIsError.
type NoPathError struct {
	Tag      int64 // the flow's Tag (its index in Run's list)
	Src, Dst int32
	At       float64 // when it was to start
}

func (e *NoPathError) Error() string {
	return fmt.Sprintf("flow %d from server %d to server %d (at time %v): no path: the network does not connect them", e.Tag, e.Src, e.Dst, e.At)
}

// Unwrap lets errors.Is see route.ErrNoPath.
func (e *NoPathError) Unwrap() error { return route.ErrNoPath }

// Stats summarises a run.
type Stats struct {
	Flows      int64   // flows added
	Completed  int64   // flows that completed
	Unfinished int64   // flows reported never to complete
	Batches    int     // distinct event times processed
	Resolved   int64   // solver rates recomputed, summed over batches
	Changed    int64   // rates that changed, summed over batches (paths rescheduled)
	MaxActive  int     // the most flows added and not yet done at one time
	Makespan   float64 // the last completion (0 with none)
	// Interrupted: Options.Interrupt ended the run; flows active then
	// are neither completed nor unfinished.
	Interrupted bool
}

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

// Engine is the dynamic engine: it runs the flows a Workload adds.
// Not safe for concurrent use; Run may be called once.
type Engine struct {
	interrupt func() bool // Options.Interrupt
	quantum   float64     // Options.StartQuantum
	noPathErr bool        // Options.NoPathIsError
	r         route.Router
	servers   int32
	solver    *maxmin.Solver
	w         Workload
	now       float64
	ran       bool
	stop      bool
	err       error

	slots    grow.Pages[slot]
	freeSlot []int32
	pend     []pending
	freePend []int32
	edges    []edge
	freeEdge int32

	subs    grow.Pages[sub] // by solver id
	starts  iheap.Heap      // slot → the time it becomes ready, when after now
	ready   []int32         // slots ready now, first in first out
	readyAt int
	done    doneHeap // scheduled paths and groups by predicted completion
	members []member
	freeM   []int32
	groups  []group
	freeGr  []int32
	rest    []float64 // parked paths' remaining sizes
	freeR   []int32
	wakes   timeHeap
	doomed  []int32 // slots to report as never completing
	doomAt  int

	// the flow being routed, for onPath
	cur      int32
	curSize  float64
	curCap   float64
	curClass uint8
	onPathF  route.PathFunc

	active int
	stats  Stats

	// trimming: batches since the last trim, the longest ready queue since
	trims, peakReady int
}

// Options configures an Engine.
type Options struct {
	// Policy says how links share their capacity among traffic classes
	// (Flow.Class); the zero value is NP, max-min over all flows.
	Policy maxmin.Policy
	// ComponentSolve re-solves whole touched components at every batch
	// (maxmin.Solver.SetComponentSolve), for comparison.
	ComponentSolve bool
	// NoPathIsError makes a flow whose destination the routing cannot
	// reach end the run with a *NoPathError, at once, instead of being
	// reported never to complete: for causal workloads (an application, a
	// trace), where it and everything after it could never run.
	NoPathIsError bool
	// Interrupt, if set, is asked after every batch of events (from the
	// goroutine running the engine); once it returns true the run ends
	// as if the workload had called Stop: flows active then are left
	// unfinished. For a signal to stop a long run.
	Interrupt func() bool
	// StartQuantum, if positive, rounds every flow's start time up to the
	// next multiple of it: flows that become ready within one quantum
	// start together, in one batch and one solve. A cheaper model, not
	// the exact one, for runs whose cost is one solve per distinct start
	// time (docs/flow-engines.md, "Grouped starts"): each start is delayed by less
	// than the quantum, by that much per causal step of a workload with
	// dependencies. Flows that cross no link (size 0, or to their own
	// source: barriers) are not delayed, and completions keep their exact
	// times. 0, the default, starts every flow at its own time.
	StartQuantum float64
	// Progress, if set, hears from RunWith how many of its flows have
	// completed (every 1,024 and the last; Engine.Run does not call it:
	// only a workload knows its total).
	Progress func(done, total int)
}

// Resources is implemented by a router whose paths also cross resources
// beyond its graph's links — storage devices, a separate storage network
// (flow/storage) — and whose flows may have ends beyond the graph's
// servers. The engine then takes the endpoints and capacities from it.
type Resources interface {
	// Endpoints is the number of flow ends: a flow's Src and Dst are in
	// [0, Endpoints()), the graph's servers first.
	Endpoints() int32
	// Capacities is every resource's capacity, indexed as in the paths:
	// the graph's links first, then the others. The engine does not
	// modify it.
	Capacities() []float64
}

// ends returns the number of flow endpoints and the capacities of the
// resources r's paths cross.
func ends(r route.Router) (int32, []float64) {
	if x, ok := r.(Resources); ok {
		return x.Endpoints(), x.Capacities()
	}
	g := r.Graph()
	return int32(g.NumServers()), g.Capacities()
}

// New returns an engine over r's network.
func New(r route.Router, opt Options) (*Engine, error) {
	if q := opt.StartQuantum; !(q >= 0) || q > 1e300 {
		return nil, fmt.Errorf("dynamic start quantum: %v is not allowed: must be in [0, 1e300] (0: exact start times)", q)
	}
	servers, caps := ends(r)
	s, err := maxmin.NewPolicy(caps, opt.Policy)
	if err != nil {
		return nil, err
	}
	s.SetComponentSolve(opt.ComponentSolve)
	e := &Engine{r: r, servers: servers, solver: s, freeEdge: -1, interrupt: opt.Interrupt, noPathErr: opt.NoPathIsError,
		quantum: opt.StartQuantum}
	e.onPathF = e.onPath
	return e, nil
}

// Now returns the simulated time.
func (e *Engine) Now() float64 { return e.now }

// Active returns the number of flows added and not yet done.
func (e *Engine) Active() int { return e.active }

// Add adds flow f (f.Deps must be empty) and returns its ref. It starts
// at max(f.Start, now) or, if it depends on flows in after, at the latest
// of that and their completions + f.Delay. A flow of after that has
// already completed counts as completing now; one reported never to
// complete makes f never start. after may name only flows added before.
func (e *Engine) Add(f Flow, after []Ref) (Ref, error) {
	if len(f.Deps) > 0 {
		return 0, fmt.Errorf("dynamic add deps: %v is not allowed: an added flow names its dependencies in after", f.Deps)
	}
	if err := checkFields(e.servers, "dynamic add", f); err != nil {
		return 0, err
	}
	if err := e.solver.CheckClass(f.Class); err != nil {
		return 0, fmt.Errorf("dynamic add: %w", err)
	}
	if f.Tag != int64(int32(f.Tag)) {
		return 0, fmt.Errorf("dynamic add tag: %d is not allowed: must be in [%d, %d]", f.Tag, math.MinInt32, math.MaxInt32)
	}
	ready := max(f.Start, e.now)
	waiting, never := int32(0), false
	for k, d := range after {
		ds, dg := d.slot(), d.gen()
		if ds < 0 || int(ds) >= e.slots.Len() || dg == 0 || dg > e.slots.At(ds).gen {
			return 0, fmt.Errorf("dynamic add after[%d]: %d is not allowed: must be a flow added before", k, d)
		}
		o := e.slots.At(ds)
		switch {
		case dg < o.gen || o.x == xFree:
			ready = max(ready, e.now+f.Delay)
		case o.x == xNever:
			never = true
		default:
			waiting++
		}
	}
	id := e.allocSlot()
	p := take(&e.pend, &e.freePend, pending{src: f.Src, dst: f.Dst, size: f.Size, delay: f.Delay, rateCap: f.RateCap, waiting: waiting, class: f.Class})
	s := e.slots.At(id)
	s.tag, s.start, s.after, s.x = int32(f.Tag), ready, -1, waitX(p)
	ref := makeRef(id, s.gen)
	if waiting > 0 {
		for _, d := range after {
			if o := e.slots.At(d.slot()); d.gen() == o.gen && isWaitOrRun(o.x) {
				o.after = e.allocEdge(id, o.after)
			}
		}
	}
	e.stats.Flows++
	e.active++
	e.stats.MaxActive = max(e.stats.MaxActive, e.active)
	switch {
	case never:
		e.slots.At(id).start = math.Inf(1)
		e.doom(id)
	case waiting == 0:
		e.schedule(id, ready)
	}
	return ref, nil
}

// WakeAt asks for a call of the workload's Wake at time t (>= now).
func (e *Engine) WakeAt(t float64) error {
	if !(t >= e.now) || math.IsInf(t, 1) {
		return fmt.Errorf("dynamic wake time: %v is not allowed: must be finite and at least now (%v)", t, e.now)
	}
	e.wakes.push(t)
	return nil
}

// Stop ends the run once the current batch of events is processed:
// flows still active then are left as they are (not reported), and
// pending wake-ups are dropped.
func (e *Engine) Stop() { e.stop = true }

// Interrupted asks Options.Interrupt, for a workload doing long work
// between events: if it says to stop, the run ends as after a batch when
// it does (Stats.Interrupted) and Interrupted returns true.
func (e *Engine) Interrupted() bool {
	if e.interrupt != nil && e.interrupt() {
		e.stop, e.stats.Interrupted = true, true
	}
	return e.stats.Interrupted
}

// Run runs the workload until no flow is left and no wake-up is pending,
// or until the workload calls Stop.
func (e *Engine) Run(w Workload) (Stats, error) {
	if e.ran {
		return e.stats, errors.New("dynamic engine: Run is not allowed twice")
	}
	e.ran, e.w = true, w
	e.call(w.Init(e))
	e.drain()
	for e.err == nil && !e.stop {
		t, ok := e.next()
		if !ok {
			break
		}
		e.batch(t)
		if e.interrupt != nil && e.interrupt() {
			e.stop, e.stats.Interrupted = true, true
		}
	}
	if e.err == nil && !e.stop && e.active > 0 {
		e.err = fmt.Errorf("dynamic engine: %d flows neither completed nor reported", e.active)
	}
	return e.stats, e.err
}

// next returns the time of the earliest pending event.
func (e *Engine) next() (float64, bool) {
	if e.readyAt < len(e.ready) {
		return e.now, true
	}
	t := math.Inf(1)
	if e.done.len() > 0 {
		t = e.done.keys[0]
	}
	if e.starts.Len() > 0 {
		_, st := e.starts.Min()
		t = min(t, st)
	}
	if e.wakes.len() > 0 {
		t = min(t, e.wakes.min())
	}
	return t, !math.IsInf(t, 1)
}

// batch processes every event at time t — paths completing, then
// wake-ups and flows becoming ready (including those the completions and
// wake-ups add) until none is left at t — then re-solves the rates and
// reschedules the paths whose rate changed.
func (e *Engine) batch(t float64) {
	e.now = t
	e.stats.Batches++
	for e.err == nil && e.done.len() > 0 && e.done.keys[0] == t {
		e.complete1(e.pop())
	}
	for e.err == nil {
		switch {
		case e.wakes.len() > 0 && e.wakes.min() == t:
			e.wakes.pop()
			e.call(e.w.Wake(e))
			e.drain()
		case e.startsAt(t):
			i, _ := e.starts.Pop()
			e.ready = append(e.ready, i)
		case e.readyAt < len(e.ready):
			i := e.ready[e.readyAt]
			e.readyAt++
			e.start(i)
			e.drain()
		default:
			e.peakReady = max(e.peakReady, len(e.ready))
			e.ready, e.readyAt = e.ready[:0], 0
			e.solve()
			return
		}
	}
}

// startsAt reports whether a waiting flow becomes ready at t.
func (e *Engine) startsAt(t float64) bool {
	if e.starts.Len() == 0 {
		return false
	}
	_, st := e.starts.Min()
	return st == t
}

func (e *Engine) call(err error) {
	if err != nil && e.err == nil {
		e.err = err
	}
}

// schedule makes waiting flow i ready at t (on the start quantum's grid
// at or after t, if there is one and the flow crosses links: a flow of
// size 0 or to its own source completes as it starts and costs no solve,
// so a barrier is not delayed).
func (e *Engine) schedule(i int32, t float64) {
	if e.quantum > 0 {
		if p := &e.pend[pendOf(e.slots.At(i).x)]; p.size > 0 && p.src != p.dst {
			t = onGrid(t, e.quantum)
		}
	}
	if t <= e.now {
		e.ready = append(e.ready, i)
	} else {
		e.starts.Set(i, t)
	}
}

// onGrid returns the least multiple k·q of q (k an integer) that is at
// least t, or t itself where t/q is beyond float64's range (a grid that
// fine is no grid at all).
func onGrid(t, q float64) float64 {
	k := math.Ceil(t / q)
	if math.IsInf(k, 0) {
		return t
	}
	if g := k * q; g >= t {
		return g
	}
	return (k + 1) * q
}

// start routes flow i and adds its paths to the solver.
func (e *Engine) start(i int32) {
	s := e.slots.At(i)
	k := pendOf(s.x)
	p := e.pend[k]
	e.freePend = append(e.freePend, k)
	s.start, s.x = e.now, 0
	if p.size == 0 || p.src == p.dst {
		e.complete(i)
		return
	}
	e.cur, e.curSize, e.curCap, e.curClass = i, p.size, p.rateCap, p.class
	err := e.r.Route(p.src, p.dst, e.onPathF)
	switch {
	case errors.Is(err, route.ErrNoPath) && e.noPathErr:
		e.call(&NoPathError{Tag: int64(s.tag), Src: p.src, Dst: p.dst, At: e.now})
	case errors.Is(err, route.ErrNoPath):
		e.doom(i)
	case err != nil:
		e.call(fmt.Errorf("dynamic flow (tag %d): %w", s.tag, err))
	}
}

// onPath adds one path of the flow being started to the solver.
func (e *Engine) onPath(links []int32, share float64) {
	rc := maxmin.NoCap
	if e.curCap > 0 {
		rc = e.curCap * share
	}
	id, err := e.solver.AddClassFlow(links, rc, e.curClass)
	if err != nil {
		e.call(fmt.Errorf("dynamic flow (tag %d): %w", e.slots.At(e.cur).tag, err))
		return
	}
	for int(id) >= e.subs.Len() {
		e.subs.Append(sub{})
	}
	*e.subs.At(int32(id)) = sub{own: ^e.cur, k: uint32(take(&e.rest, &e.freeR, e.curSize*share))}
	e.slots.At(e.cur).x++
}

// finishSub removes path id, just taken out of the completion heap, from
// the solver; its flow completes with its last path.
func (e *Engine) finishSub(id int32) {
	s := e.subs.At(id)
	s.own, s.k = ^s.own, noRest
	if err := e.solver.RemoveFlow(maxmin.FlowID(id)); err != nil {
		e.call(err)
		return
	}
	o := s.owner()
	x := &e.slots.At(o).x
	if *x--; *x == 0 {
		e.complete(o)
	}
}

// complete records flow i's completion, readies its dependants and tells
// the workload.
func (e *Engine) complete(i int32) {
	for k := e.slots.At(i).after; k >= 0; {
		j, next := e.edges[k].to, e.edges[k].next
		e.freeEdgeAt(k)
		k = next
		if sj := e.slots.At(j); isWaiting(sj.x) {
			p := &e.pend[pendOf(sj.x)]
			sj.start = max(sj.start, e.now+p.delay)
			if p.waiting--; p.waiting == 0 {
				e.schedule(j, sj.start)
			}
		}
	}
	s := e.slots.At(i)
	d := Done{Ref: makeRef(i, s.gen), Tag: int64(s.tag), Start: s.start, Finish: e.now}
	s.after, e.slots.At(i).x = -1, xFree
	e.freeSlot = append(e.freeSlot, i)
	e.active--
	e.stats.Completed++
	e.stats.Makespan = e.now
	e.call(e.w.FlowDone(e, d))
}

// doom marks flow i as never completing; drain reports it.
func (e *Engine) doom(i int32) {
	if isWaiting(e.slots.At(i).x) {
		e.freePend = append(e.freePend, pendOf(e.slots.At(i).x))
	}
	e.slots.At(i).x = xNever
	e.doomed = append(e.doomed, i)
}

// drain reports the doomed flows, dooming the flows waiting on them.
func (e *Engine) drain() {
	for e.err == nil && e.doomAt < len(e.doomed) {
		i := e.doomed[e.doomAt]
		e.doomAt++
		for k := e.slots.At(i).after; k >= 0; {
			j, next := e.edges[k].to, e.edges[k].next
			e.freeEdgeAt(k)
			k = next
			if isWaiting(e.slots.At(j).x) {
				e.slots.At(j).start = math.Inf(1)
				e.doom(j)
			}
		}
		s := e.slots.At(i)
		s.after = -1
		e.active--
		e.stats.Unfinished++
		e.call(e.w.FlowDone(e, Done{Ref: makeRef(i, s.gen), Tag: int64(s.tag), Start: s.start, Finish: math.Inf(1)}))
	}
	if e.doomAt == len(e.doomed) {
		e.doomed, e.doomAt = e.doomed[:0], 0
	}
}

// solve re-solves the rates the batch's changes touched and reschedules
// every path whose rate changed: its remaining size is brought up to now
// at its old rate, and its predicted completion is set anew (or it is
// parked, at rate 0). A path whose rate did not change keeps its
// predicted completion.
func (e *Engine) solve() {
	changed := e.solver.Solve()
	prev := e.solver.Previous()
	e.stats.Resolved += int64(e.solver.Recomputed())
	e.stats.Changed += int64(len(changed))
	last, lastT := int32(-1), 0.0
	for i, fid := range changed {
		id := int32(fid)
		s := e.subs.At(id)
		var r float64
		if s.own < 0 {
			r = e.rest[s.k]
			e.freeR = append(e.freeR, int32(s.k))
			s.own = ^s.own
		} else {
			// Its rate was prev[i] since its completion was set.
			r = max((e.done.keys[e.due(s)]-e.now)*prev[i], 0)
			e.unschedule(s)
		}
		rate := e.solver.Rate(fid)
		if !(rate > 0) {
			s.own, s.k = ^s.own, uint32(take(&e.rest, &e.freeR, r))
			continue
		}
		if t := e.now + r/rate; last >= 0 && t == lastT {
			e.join(id, last)
		} else {
			e.push(id, t)
			lastT = t
		}
		last = id
	}
	e.trim()
}

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

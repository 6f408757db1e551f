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

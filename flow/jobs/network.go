package jobs

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/workload"
)

// Network runs a job stream on a network: the batch system decides when
// and where each job starts, and the job then runs its application's
// causal flows on the dynamic engine, sharing the links with every other
// job running; the job ends when its last flow completes. So a job's
// runtime is its application's execution on the shared network — jobs
// interfere — not the runtime the stream gives, which (or the estimate,
// when given) is only the user's estimate that backfilling plans with.
type Network struct {
	Config
	// App is the jobs' application: its kind, iterations, flow size,
	// compute time and seed; its tasks are the job's size, and job i's
	// random draws (unstructured, dcntraffic) use seed App.Seed + i. A
	// job whose App names another (the stream's APP field) runs that one,
	// with App's values for what it does not give.
	App workload.App
	// Mapping places a job's tasks on its servers: Consecutive or Random
	// (job i's shuffle seeded with Seed + i).
	Mapping string
	// Progress, if set, is told the number of jobs ended each time one
	// ends.
	Progress func(ended int)
}

// NetworkJob is one job's outcome on the network.
type NetworkJob struct {
	Placement
	App   workload.App // the application it ran (Tasks: its size)
	Flows int          // its application's flows (a bench's barriers between rounds not counted)
}

// NetworkResult is a stream's outcome on the network.
type NetworkResult struct {
	*Result
	Jobs  []NetworkJob
	Flows int64
	Stats dynamic.Stats
	// Interrupted: dynamic.Options.Interrupt ended the run at time Now;
	// the figures cover the jobs that ended (Placement.Ended), Ended of
	// them.
	Interrupted bool
	Now         float64
	Ended       int
}

// RunNetwork runs jobs on r's network (Config.Servers is set to its
// servers). A job of one task has no flows: it ends when it starts. A
// flow with no path between its servers (a failed network) is an error
// naming the job and the servers.
func RunNetwork(r route.Router, n Network, jobs []Job, opt dynamic.Options) (*NetworkResult, error) {
	n.Servers = r.Graph().NumServers()
	if _, err := Map(nil, n.Mapping, 0); err != nil {
		return nil, err
	}
	s, err := NewScheduler(n.Config, jobs)
	if err != nil {
		return nil, err
	}
	apps := make([]workload.App, len(jobs))
	for i, j := range jobs {
		if apps[i], err = n.appOf(i, j); err != nil {
			return nil, err
		}
	}
	w := &netWorkload{n: n, s: s, jobs: jobs, apps: apps, left: make([]int, len(jobs)), flows: make([]int, len(jobs)), wake: math.Inf(-1)}
	opt.NoPathIsError = true
	e, err := dynamic.New(r, opt)
	if err != nil {
		return nil, err
	}
	st, err := e.Run(w)
	var np *dynamic.NoPathError
	if errors.As(err, &np) {
		return nil, fmt.Errorf("job %d: a flow from server %d to server %d has no path (at time %v): the network does not connect them: %w", np.Tag, np.Src, np.Dst, np.At, route.ErrNoPath)
	}
	if err != nil {
		return nil, err
	}
	if !st.Interrupted && !s.Done() {
		return nil, fmt.Errorf("jobs: %d of %d jobs ended; the others never could", s.finished, len(jobs))
	}
	if st.Interrupted {
		s.settle(e.Now()) // the jobs that ended by now, not yet taken by a decision
	}
	res := &NetworkResult{Result: s.Result(), Stats: st, Flows: st.Flows, Interrupted: st.Interrupted, Now: e.Now(), Ended: s.finished}
	for i, p := range res.Result.Jobs {
		res.Jobs = append(res.Jobs, NetworkJob{Placement: p, App: apps[i], Flows: w.flows[i]})
	}
	return res, nil
}

// appOf is job i's application, checked: a job of one task has none to
// check (it has no flows).
func (n Network) appOf(i int, j Job) (workload.App, error) {
	app := n.App
	if j.App != "" {
		var err error
		if app, err = JobApp(j.App, n.App); err != nil {
			return app, fmt.Errorf("job %d: %w", i, err)
		}
	}
	app.Tasks, app.Seed = j.Size, n.App.Seed+uint64(i)
	if j.Size >= 2 {
		if err := app.Check(); err != nil {
			return app, fmt.Errorf("job %d (size %d): %w", i, j.Size, err)
		}
	}
	return app, nil
}

// netWorkload is the dynamic engine's workload: the scheduler's decisions
// at arrivals and ends, each started job's flows.
type netWorkload struct {
	n     Network
	s     *Scheduler
	jobs  []Job
	apps  []workload.App // each job's application
	left  []int          // flows of each job not yet completed
	flows []int          // flows of each job
	refs  []dynamic.Ref  // scratch: the flows of the job being started
	after []dynamic.Ref
	wake  float64 // the wake-up asked for the next arrival, -Inf none
	ended int     // jobs ended
	asked bool    // a wake-up asked for now, to decide once the ends of this time are in
}

func (w *netWorkload) Init(e *dynamic.Engine) error { return w.step(e) }

func (w *netWorkload) Wake(e *dynamic.Engine) error {
	if e.Now() == w.wake {
		w.wake = math.Inf(-1)
	}
	w.asked = false
	return w.step(e)
}

func (w *netWorkload) FlowDone(e *dynamic.Engine, d dynamic.Done) error {
	i := int(d.Tag)
	if math.IsInf(d.Finish, 1) { // cannot happen: a flow with no path ends the run (NoPathIsError)
		return fmt.Errorf("job %d: a flow never completes", i)
	}
	if w.left[i]--; w.left[i] == 0 {
		w.s.Finish(i, e.Now())
		w.progress()
		if !w.asked { // decide once every end of this time is in: the engine wakes after the batch's completions
			w.asked = true
			return e.WakeAt(e.Now())
		}
	}
	return nil
}

// progress counts a job ended and tells Network.Progress.
func (w *netWorkload) progress() {
	w.ended++
	if w.n.Progress != nil {
		w.n.Progress(w.ended)
	}
}

// step lets the scheduler decide now, starts the jobs it starts (a job
// with no flows ends at once, which may start others), and asks to be
// woken at the next arrival.
func (w *netWorkload) step(e *dynamic.Engine) error {
	for {
		started, err := w.s.Step(e.Now())
		if err != nil {
			return err
		}
		ended := false
		for _, i := range started {
			n, err := w.start(e, i)
			if err != nil {
				return err
			}
			if n == 0 {
				w.s.Finish(i, e.Now())
				w.progress()
				ended = true
			}
		}
		if !ended {
			break
		}
	}
	if t := w.s.NextArrival(); !math.IsInf(t, 1) && t != w.wake {
		w.wake = t
		return e.WakeAt(t)
	}
	return nil
}

// start adds job i's flows, its tasks on its servers by the mapping, and
// returns how many.
func (w *netWorkload) start(e *dynamic.Engine, i int) (int, error) {
	j := w.jobs[i]
	if j.Size < 2 {
		return 0, nil
	}
	servers, err := Map(w.s.Placement(i).Servers, w.n.Mapping, w.n.Seed+uint64(i))
	if err != nil {
		return 0, err
	}
	flows, barriers, err := w.apps[i].FlowsAndBarriers()
	if err != nil {
		return 0, fmt.Errorf("job %d (size %d): %w", i, j.Size, err)
	}
	now := e.Now()
	w.refs = w.refs[:0]
	for k, f := range flows {
		w.after = w.after[:0]
		for _, d := range f.Deps {
			if d >= k {
				return 0, fmt.Errorf("job %d: application flow %d depends on flow %d, not before it", i, k, d)
			}
			w.after = append(w.after, w.refs[d])
		}
		f.Deps = nil
		f.Src, f.Dst = servers[f.Src], servers[f.Dst]
		f.Start += now
		f.Tag = int64(i)
		ref, err := e.Add(f, w.after)
		if err != nil {
			return 0, fmt.Errorf("job %d: %w", i, err)
		}
		w.refs = append(w.refs, ref)
	}
	w.left[i], w.flows[i] = len(flows), len(flows)-len(barriers)
	return len(flows), nil
}

// Package apps holds workloads for the dynamic engine (flow/dynamic)
// that add flows as the simulation runs (seed 001 sections 3.3.3 and
// 3.4): applications that arrive over time, wait first come first served
// for servers, exchange flows among their tasks and free their servers
// when done; and a closed-loop generator of uniform random traffic.
//
// It imports only the standard library and flow/ packages.
package apps

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/route"
)

// FCFSConfig describes a stream of identical all-to-all applications.
type FCFSConfig struct {
	Apps     int     // applications; application i arrives at i × Interval
	Tasks    int     // tasks per application, one per server
	FlowSize float64 // every task sends one flow of this size to every other task
	Interval float64 // time between arrivals, >= 0
	// Progress, if set, is told the number of applications finished each
	// time one finishes.
	Progress func(finished int) `json:"-"`
}

// AppBytes is what an application of the workload takes (its App record,
// flow count, flag and server list header: 61 bytes), as the process'
// peak resident memory grows: measured as the slope of the peak RSS
// (/usr/bin/time -f %M) between opasim flow fcfs --preset tree-8ary-2
// --tasks 1 --apps 1000000 and 4000000 (applications of one task: no
// flows), 58.4 B an application; rounded up. TestAppBytes checks the heap
// it takes against it.
const AppBytes = 64

// MaxFlowsAtOnce is the most flows an FCFS workload has running at once
// on servers servers: every application running holds Tasks servers and
// Tasks·(Tasks−1) flows.
func (c FCFSConfig) MaxFlowsAtOnce(servers int) int64 {
	if c.Tasks < 2 {
		return 0
	}
	return int64(servers/c.Tasks) * int64(c.Tasks) * int64(c.Tasks-1)
}

// App is one application's life.
type App struct {
	Arrival float64
	Start   float64 // when it was given its servers (+Inf if never)
	Finish  float64 // when its last flow completed (+Inf if never)
	First   int32   // its lowest-numbered server (-1 if never placed)
}

// Wait returns the time the application spent in the queue.
func (a App) Wait() float64 { return a.Start - a.Arrival }

// Runtime returns the time from its start to its last flow's completion.
func (a App) Runtime() float64 { return a.Finish - a.Start }

// FCFS is a dynamic.Workload: applications arrive one every Interval and
// queue first come first served, with no backfilling: the application at
// the head of the queue starts as soon as Tasks servers are free, and the
// ones behind it wait even if they would fit.
//
// Allocation: an application gets the Tasks lowest-numbered free
// servers, and its task i runs on the i-th lowest of them (consecutive
// mapping, seed 001 section 3.4). It then adds its Tasks × (Tasks-1)
// flows at once — task i to task j for i in order, then j in order,
// tagged with the application's number — and frees its servers when the
// last of them completes, at which point queued applications start (in
// the same batch of events). An application of one task has no flows: it
// completes when it starts.
//
// With k^n servers and Tasks = k^m, every free set is a union of aligned
// blocks of Tasks servers, so an application always lands on one block:
// on a k-ary n-tree with d-mod-k routing its flows then stay inside that
// block's subtree and never share a link with another application's.
//
// A flow that never completes (unreachable destination) leaves its
// application unfinished, holding its servers.
type FCFS struct {
	cfg      FCFSConfig
	apps     []App
	left     []int32  // flows not yet done, per application
	stuck    []bool   // a flow of the application will never complete
	free     []uint64 // free servers, one bit each
	nfree    int
	held     [][]int32 // servers of each running application
	spare    [][]int32 // server lists to reuse
	arrived  int       // applications arrived so far
	started  int       // applications started so far (the queue is [started, arrived))
	finished int       // applications finished so far
	flows    int64
}

// NewFCFS returns the workload for a network of servers servers.
func NewFCFS(servers int, cfg FCFSConfig) (*FCFS, error) {
	switch {
	case cfg.Apps < 0 || cfg.Apps > math.MaxInt32:
		return nil, fmt.Errorf("fcfs apps (--apps): %d is not allowed: must be in [0, %d]", cfg.Apps, math.MaxInt32)
	case cfg.Tasks < 1 || cfg.Tasks > servers:
		return nil, fmt.Errorf("fcfs tasks (--tasks): %d is not allowed: must be in [1, %d] (the servers)", cfg.Tasks, servers)
	case !(cfg.FlowSize >= 0) || cfg.FlowSize > 1e300:
		return nil, fmt.Errorf("fcfs flow size (--flow-size): %v is not allowed: must be in [0, 1e300]", cfg.FlowSize)
	case !(cfg.Interval >= 0) || cfg.Interval > 1e300:
		return nil, fmt.Errorf("fcfs interval (--interval): %v is not allowed: must be in [0, 1e300]", cfg.Interval)
	}
	w := &FCFS{cfg: cfg, apps: make([]App, cfg.Apps), left: make([]int32, cfg.Apps), stuck: make([]bool, cfg.Apps),
		free: make([]uint64, (servers+63)/64), nfree: servers, held: make([][]int32, cfg.Apps)}
	for s := range servers {
		w.free[s/64] |= 1 << (s % 64)
	}
	for i := range w.apps {
		w.apps[i] = App{Arrival: float64(i) * cfg.Interval, Start: math.Inf(1), Finish: math.Inf(1), First: -1}
	}
	return w, nil
}

// Apps returns every application's arrival, start and finish (shared: do
// not modify).
func (w *FCFS) Apps() []App { return w.apps }

// Flows returns the number of flows added so far.
func (w *FCFS) Flows() int64 { return w.flows }

// Makespan returns the time from the first arrival to the last
// application's completion (+Inf if one never completes).
func (w *FCFS) Makespan() float64 {
	m := 0.0
	for _, a := range w.apps {
		m = max(m, a.Finish)
	}
	return m
}

// Init handles the first arrival.
func (w *FCFS) Init(e *dynamic.Engine) error {
	if w.cfg.Apps == 0 {
		return nil
	}
	return w.Wake(e)
}

// Wake handles an arrival: the application joins the queue, the next
// arrival is scheduled, and queued applications start if they fit.
func (w *FCFS) Wake(e *dynamic.Engine) error {
	w.arrived++
	if w.arrived < w.cfg.Apps {
		if err := e.WakeAt(w.apps[w.arrived].Arrival); err != nil {
			return err
		}
	}
	return w.startQueued(e)
}

// FlowDone counts an application's flows down; the last one frees its
// servers.
func (w *FCFS) FlowDone(e *dynamic.Engine, d dynamic.Done) error {
	a := d.Tag
	if math.IsInf(d.Finish, 1) {
		w.stuck[a] = true
	}
	if w.left[a]--; w.left[a] > 0 {
		return nil
	}
	if w.stuck[a] {
		return nil
	}
	w.finish(int(a), e.Now())
	return w.startQueued(e)
}

// Finished returns the number of applications finished so far.
func (w *FCFS) Finished() int { return w.finished }

// startQueued starts applications from the head of the queue while they
// fit.
func (w *FCFS) startQueued(e *dynamic.Engine) error {
	for w.started < w.arrived && w.nfree >= w.cfg.Tasks {
		a := w.started
		w.started++
		srv := w.take()
		w.held[a] = srv
		w.apps[a].Start, w.apps[a].First = e.Now(), srv[0]
		n := len(srv)
		w.left[a] = int32(n * (n - 1))
		if n == 1 {
			w.finish(a, e.Now())
			continue
		}
		for _, s := range srv {
			for _, d := range srv {
				if s == d {
					continue
				}
				if _, err := e.Add(dynamic.Flow{Src: s, Dst: d, Size: w.cfg.FlowSize, Tag: int64(a)}, nil); err != nil {
					return err
				}
			}
		}
		w.flows += int64(n * (n - 1))
	}
	return nil
}

func (w *FCFS) finish(a int, now float64) {
	w.apps[a].Finish = now
	w.finished++
	if w.cfg.Progress != nil {
		w.cfg.Progress(w.finished)
	}
	for _, s := range w.held[a] {
		w.free[s/64] |= 1 << (s % 64)
	}
	w.nfree += len(w.held[a])
	w.spare = append(w.spare, w.held[a])
	w.held[a] = nil
}

// take removes the Tasks lowest-numbered free servers from the free set
// and returns them in increasing order.
func (w *FCFS) take() []int32 {
	var srv []int32
	if n := len(w.spare); n > 0 {
		srv = w.spare[n-1][:0]
		w.spare = w.spare[:n-1]
	}
	for i := 0; len(srv) < w.cfg.Tasks; i++ {
		for w.free[i] != 0 && len(srv) < w.cfg.Tasks {
			b := bits.TrailingZeros64(w.free[i])
			w.free[i] &^= 1 << b
			srv = append(srv, int32(i*64+b))
		}
	}
	w.nfree -= len(srv)
	return srv
}

// Report is the outcome of RunFCFS. Interrupted (the run's
// dynamic.Options.Interrupt ended it at time Now): the applications not
// finished then have Finish +Inf (and Start +Inf if not started), and
// Makespan is the last finish of those that did, Finished of them.
type Report struct {
	Apps        []App
	Flows       int64
	Makespan    float64
	Stats       dynamic.Stats
	Interrupted bool
	Now         float64
	Finished    int
}

// RunFCFS runs cfg's applications on r's network.
func RunFCFS(r route.Router, cfg FCFSConfig, opt dynamic.Options) (*Report, error) {
	w, err := NewFCFS(r.Graph().NumServers(), cfg)
	if err != nil {
		return nil, err
	}
	e, err := dynamic.New(r, opt)
	if err != nil {
		return nil, err
	}
	st, err := e.Run(w)
	if err != nil {
		return nil, err
	}
	rep := &Report{Apps: w.Apps(), Flows: w.Flows(), Makespan: w.Makespan(), Stats: st, Interrupted: st.Interrupted, Now: e.Now(), Finished: w.finished}
	if st.Interrupted {
		rep.Makespan = 0
		for _, a := range rep.Apps {
			if !math.IsInf(a.Finish, 1) {
				rep.Makespan = max(rep.Makespan, a.Finish)
			}
		}
	}
	return rep, nil
}

// Summary condenses applications' waiting times and runtimes.
type Summary struct {
	Apps                                int
	MinWait, MeanWait, MaxWait          float64
	MinRuntime, MeanRuntime, MaxRuntime float64
	Unfinished                          int // applications that never completed (left out of the figures)
}

// Summarize returns the minimum, mean and maximum waiting time and
// runtime of the applications that completed.
func Summarize(apps []App) Summary {
	s := Summary{Apps: len(apps), MinWait: math.Inf(1), MinRuntime: math.Inf(1), MaxWait: math.Inf(-1), MaxRuntime: math.Inf(-1)}
	n := 0
	for _, a := range apps {
		if math.IsInf(a.Finish, 1) {
			s.Unfinished++
			continue
		}
		n++
		w, r := a.Wait(), a.Runtime()
		s.MinWait, s.MaxWait, s.MeanWait = min(s.MinWait, w), max(s.MaxWait, w), s.MeanWait+w
		s.MinRuntime, s.MaxRuntime, s.MeanRuntime = min(s.MinRuntime, r), max(s.MaxRuntime, r), s.MeanRuntime+r
	}
	if n > 0 {
		s.MeanWait /= float64(n)
		s.MeanRuntime /= float64(n)
	}
	return s
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/flow/storage"
	"github.com/opasim/opasim/flow/trace"
)

// Results are a flow-level run's: its config, network, figures and
// digest; `opasim flow` prints them and writes them with --out.
type Results struct {
	Engine       string          `json:"engine"`
	Config       spec.Config     `json:"config"`
	Servers      int             `json:"servers"`
	Switches     int             `json:"switches"`
	Links        int             `json:"links"`
	GraphBytes   int64           `json:"graph_bytes"`
	FailedCables int             `json:"failed_cables,omitempty"`
	Static       *StaticSummary  `json:"static,omitempty"`
	Dynamic      *DynamicSummary `json:"dynamic,omitempty"`
	Interrupted  bool            `json:"interrupted"`
	Digest       string          `json:"digest"`
	BuildSecs    float64         `json:"build_seconds"`
	RunSecs      float64         `json:"run_seconds"`
	CPUSecs      float64         `json:"cpu_seconds"`
	MaxRSSBytes  int64           `json:"max_rss_bytes"`
	// PathCache: ksp's and allpath's path cache after the run.
	PathCache *route.CacheStats `json:"path_cache,omitempty"`
}

type StaticSummary struct {
	Routing, Pattern           string
	Flows, Unrouted, Paths     int64
	Sources                    int // servers whose flows were routed (all but when interrupted)
	RatedSources               int // servers whose flows' rates were found (all but when interrupted)
	MaxLoad, MeanLoad          float64
	MaxRelativeLoad            float64
	LoadHistogram              static.Histogram
	Hops                       []float64
	MeanHops                   float64
	MaxHops                    int
	MinRate, MeanRate, MaxRate float64
	NonRestricted, Restricted  float64
	NonRestrictedPerPort       float64
	RestrictedPerPort          float64
	Connectivity               *static.Connectivity `json:",omitempty"` // with failed cables
}

type DynamicSummary struct {
	// Apps: the applications of apps, run together.
	Apps                      []storage.AppResult `json:",omitempty"`
	Flows, Phases, Unfinished int
	Makespan                  float64
	MeanCompletion            float64 // mean of finish − start over the pattern's flows
	Batches                   int
	Resolved                  int64
	// With --trace: the trace's tasks, messages and collective parts.
	Trace *TraceSummary `json:",omitempty"`
	// With failed cables: the same run on the network without failures,
	// with the same routing, and the ratio of the makespans.
	HealthyMakespan   float64 `json:",omitempty"`
	FailedOverHealthy float64 `json:",omitempty"`
}

type TraceSummary struct {
	File                   string
	CPUFactor              float64
	Tasks                  int
	Messages, Parts        int64
	TaskEndMin, TaskEndMax float64
	SerialSends            bool `json:",omitempty"`
	// MessageLatency: the mean time from a message's issue to its
	// arrival (trace.Result.MessageLatency), as the cycle level's
	// message latency.
	MessageLatency float64
}

// runStatic routes every flow of pat at once (flow/static).
func runStatic(ctx context.Context, show Show, net *spec.Network, pat static.Pattern, cfg spec.Config, res *Results) error {
	servers := net.Graph.NumServers()
	bar := show.start("flow static", "chunks", 0, true,
		"routing the %s flows of %d servers (chunks of sources, routed in two passes)", pat.Name(), servers)
	o := static.Options{Workers: cfg.Workers, Stop: func() bool { return ctx.Err() != nil }, Connectivity: net.FailedCables > 0}
	if bar != nil {
		o.Progress = func(done, total int) { bar.Set(int64(done), int64(total)) }
	}
	r, err := static.Run(net.Router, pat, o)
	finish(bar, finishState(err, r != nil && r.Interrupted))
	if err != nil {
		return bad(err)
	}
	res.Interrupted = r.Interrupted
	res.Static = &StaticSummary{Routing: r.Routing, Pattern: r.Pattern, Flows: r.Flows, Unrouted: r.Unrouted, Paths: r.Paths,
		Sources: r.Sources, RatedSources: r.RatedSources, MaxLoad: r.MaxLoad, MeanLoad: r.MeanLoad, MaxRelativeLoad: r.MaxRelativeLoad, LoadHistogram: r.LoadHistogram,
		Hops: r.Hops, MeanHops: r.MeanHops, MaxHops: r.MaxHops, MinRate: r.MinRate, MeanRate: r.MeanRate, MaxRate: r.MaxRate,
		NonRestricted: r.NonRestricted, Restricted: r.Restricted, NonRestrictedPerPort: r.NonRestrictedPerPort, RestrictedPerPort: r.RestrictedPerPort,
		Connectivity: r.Connectivity}
	h := fnv.New64a()
	put := func(x float64) { hashFloat(h, x) }
	for _, x := range r.Load {
		put(x)
	}
	for _, x := range []float64{float64(r.Flows), float64(r.Unrouted), float64(r.Sources), r.NonRestricted, r.Restricted, r.MeanHops} {
		put(x)
	}
	res.Digest = fmt.Sprintf("%016x", h.Sum64())
	return nil
}

// runDynamic runs the configured workload under max-min sharing
// (flow/dynamic, or flow/storage for apps) and, with failed cables, the
// same on the intact network.
func runDynamic(ctx context.Context, show Show, net *spec.Network, pat static.Pattern, cfg spec.Config, budget spec.Budget, res *Results) error {
	d := cfg.Dynamic
	policy, err := d.PolicyOf(cfg.Classes())
	if err != nil {
		return bad(err)
	}
	interrupt := func() bool { return ctx.Err() != nil }
	if len(cfg.Apps) > 0 {
		return runApps(ctx, show, net, cfg, budget, policy, res)
	}
	opt := dynamic.Options{Policy: policy, Interrupt: interrupt, StartQuantum: d.StartQuantum}
	sum, digest, err := dynamicOnce(net, pat, cfg, opt, budget, show)
	if errors.Is(err, trace.ErrStopped) {
		res.Interrupted = true // stopped while the trace was read
		return nil
	}
	if err != nil {
		return err
	}
	if net.FailedCables > 0 && !sum.interrupted && ctx.Err() == nil {
		// The same run on the intact network, with the same routing.
		h := cfg
		h.Topology.Preset, h.Topology.FailCount, h.Topology.FailFraction = "", 0, 0
		if h.Routing.Name == "" {
			h.Routing.Name = "bfs"
		}
		healthy, err := h.Build()
		if err != nil {
			return bad(err)
		}
		hs, _, err := dynamicOnce(healthy, pat, h, opt, budget, nil)
		if errors.Is(err, trace.ErrStopped) {
			hs, err = &dynamicRun{interrupted: true}, nil
		}
		if err != nil {
			return fmt.Errorf("the network without failures: %w", err)
		}
		if hs.interrupted {
			sum.interrupted = true // the comparison is what was not finished
		} else {
			sum.HealthyMakespan = hs.Makespan
			if hs.Makespan > 0 {
				sum.FailedOverHealthy = sum.Makespan / hs.Makespan
			}
		}
	}
	res.Interrupted = sum.interrupted
	res.Dynamic, res.Digest = &sum.DynamicSummary, digest
	return nil
}

type dynamicRun struct {
	DynamicSummary
	interrupted bool
}

// dynamicOnce runs the configured workload — a trace, the Markov model, an
// application or the pattern in phases — on net, once its estimated
// memory is within budget. A trace's, an application's or the Markov
// model's flow that the network cannot route (failed cables) is an error
// naming its servers; a pattern's is counted unfinished.
func dynamicOnce(net *spec.Network, pat static.Pattern, cfg spec.Config, opt dynamic.Options, budget spec.Budget, show Show) (*dynamicRun, string, error) {
	var pr Progress
	defer func() { finish(pr, "stopped") }() // a no-op after the run's own finish
	w, err := dynamicWorkload(net, pat, &cfg, opt.Interrupt, budget, show, &pr)
	if err != nil {
		return nil, "", err
	}
	flows, barriers := w.flows, w.barriers
	capRates(flows, cfg.Dynamic.RateCap)
	if w.tsum == nil {
		what := fmt.Sprintf("running %d flows", len(flows))
		if len(barriers) > 0 {
			what = fmt.Sprintf("running %d flows (%d, and %d barriers between phases)", len(flows), len(flows)-len(barriers), len(barriers))
		}
		pr = show.start("flow dynamic", "flows", int64(len(flows)), false, "%s", what)
		if pr != nil {
			opt.Progress = func(done, total int) { pr.Set(int64(done), int64(total)) }
		}
	}
	opt.NoPathIsError = w.causal // its dependants could never run: no execution time
	r, err := dynamic.RunWith(net.Router, flows, opt)
	finish(pr, finishState(err, r != nil && r.Interrupted))
	var np *dynamic.NoPathError
	if errors.As(err, &np) {
		return nil, "", fmt.Errorf("%w (%d cables failed)", err, net.FailedCables)
	}
	if err != nil {
		return nil, "", bad(err)
	}
	sum := &dynamicRun{DynamicSummary: DynamicSummary{Flows: len(flows) - len(barriers), Phases: len(barriers) + 1, Unfinished: r.Unfinished,
		Makespan: r.Makespan, Batches: r.Batches, Resolved: r.Resolved, Trace: w.tsum}, interrupted: r.Interrupted}
	digest := sum.completions(r, flows, barriers)
	if w.tsum != nil {
		sum.traceEnds(w.plan, r)
	}
	return sum, digest, nil
}

// capRates caps every flow's rate at c, if c > 0.
func capRates(flows []dynamic.Flow, c float64) {
	if !(c > 0) {
		return
	}
	for i := range flows {
		if flows[i].RateCap == 0 || flows[i].RateCap > c {
			flows[i].RateCap = c
		}
	}
}

// completions sets the mean completion time of the flows of r that
// completed, barriers aside, and returns the digest of every flow's start
// and finish.
func (sum *dynamicRun) completions(r *dynamic.Result, flows []dynamic.Flow, barriers []int) string {
	h := fnv.New64a()
	isBarrier := make(map[int]bool, len(barriers))
	for _, b := range barriers {
		isBarrier[b] = true
	}
	total, done := 0.0, 0
	for i := range flows {
		hashFloat(h, r.Start[i])
		hashFloat(h, r.Finish[i])
		if !isBarrier[i] && !math.IsInf(r.Finish[i], 1) {
			total += r.Finish[i] - r.Start[i]
			done++
		}
	}
	if done > 0 {
		sum.MeanCompletion = total / float64(done) // over the flows that completed
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// traceEnds sets a trace's execution time, message latency and the range
// of its tasks' ends from plan's run r.
func (sum *dynamicRun) traceEnds(plan *trace.Plan, r *dynamic.Result) {
	tsum := sum.Trace
	tr := plan.Summarize(r)
	sum.Makespan, tsum.MessageLatency = tr.Execution, tr.MessageLatency
	tsum.TaskEndMin = math.Inf(1)
	for _, e := range tr.TaskEnds {
		tsum.TaskEndMin, tsum.TaskEndMax = min(tsum.TaskEndMin, e), max(tsum.TaskEndMax, e)
	}
}

// runApps runs the applications of cfg.Apps together on the network and
// its storage.
func runApps(ctx context.Context, show Show, net *spec.Network, cfg spec.Config, budget spec.Budget, policy maxmin.Policy, res *Results) error {
	if q := cfg.Dynamic.StartQuantum; q != 0 {
		return bad(fmt.Errorf("dynamic.start_quantum: %v is not allowed with apps (the storage study): must be 0", q))
	}
	if c := cfg.Dynamic.RateCap; c != 0 {
		return bad(fmt.Errorf("dynamic.rate_cap: %v is not allowed with apps (the storage study): must be 0", c))
	}
	// The applications' fields first (the estimate reads them), then the
	// estimate.
	if _, err := storage.Partitions(cfg.Apps, net.Graph.NumServers()); err != nil {
		return bad(err)
	}
	n := int64(0)
	for i := range cfg.Apps {
		m := cfg.Apps[i].Markov
		if err := m.CheckChain(fmt.Sprintf("apps[%d].markov.", i), net.Graph.NumServers()); err != nil {
			return bad(err)
		}
		n = spec.AddBytes(n, m.MaxFlows(math.MaxInt64/2))
	}
	if err := budget.Check(cfg.DynamicBytes(net, n), fmt.Sprintf("apps: %d applications of at most %d flows in all (dynamic engine: about %d B a flow)", len(cfg.Apps), n, spec.DynamicFlowBytes)); err != nil {
		return bad(err)
	}
	pr := show.start("flow dynamic", "", 0, false, "running %d applications with storage", len(cfg.Apps))
	r, err := storage.Run(net.Router, cfg.Storage, cfg.Apps, cfg.Seed, policy, func() bool { return ctx.Err() != nil })
	finish(pr, finishState(err, r != nil && r.Interrupted))
	if err != nil {
		return bad(err)
	}
	res.Interrupted = r.Interrupted
	sum := &DynamicSummary{Apps: r.Apps, Flows: r.Flows, Phases: 0, Unfinished: r.Unfinished, Makespan: r.Makespan,
		Batches: r.Batches, Resolved: r.Resolved}
	h := fnv.New64a()
	for i := range r.Start {
		hashFloat(h, r.Start[i])
		hashFloat(h, r.Finish[i])
	}
	total := 0.0
	sum.Flows = 0
	for _, a := range r.Apps {
		sum.Phases += len(a.Walk)
		sum.Flows += a.IOFlows + a.CommFlows
		total += a.IOMean*float64(a.IOFlows) + a.CommMean*float64(a.CommFlows)
	}
	if sum.Flows > 0 {
		sum.MeanCompletion = total / float64(sum.Flows) // storage and communication flows; the phases' barriers not counted
	}
	res.Dynamic, res.Digest = sum, fmt.Sprintf("%016x", h.Sum64())
	return nil
}

// hashFloat adds x's bits to h, little-endian.
func hashFloat(h hash.Hash64, x float64) {
	var b [8]byte
	u := math.Float64bits(x)
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	h.Write(b[:])
}

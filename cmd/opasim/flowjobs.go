package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/jobs"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/sweep"
)

// jobsReport is what `opasim flow jobs` writes to jobs.json.
type jobsReport struct {
	Topology    spec.Topology `json:"topology"`
	Routing     string        `json:"routing"`
	Servers     int           `json:"servers"`
	Policy      string        `json:"policy"`
	Allocation  string        `json:"allocation"`
	Mapping     string        `json:"mapping"`
	App         workload.App  `json:"app"`
	Jobs        []jobRow      `json:"jobs"`
	Makespan    float64       `json:"makespan"`
	MeanWait    float64       `json:"mean_wait"`
	MeanRuntime float64       `json:"mean_runtime"`
	MeanTotal   float64       `json:"mean_total"`
	Utilization float64       `json:"utilization"`
	Throughput  float64       `json:"throughput"`
	// Busy[i] servers from Times[i] until Times[i+1] (the makespan).
	Times   []float64 `json:"times"`
	Busy    []int     `json:"busy"`
	Flows   int64     `json:"flows"`
	RunSecs float64   `json:"run_seconds"`
	// Interrupted: a signal stopped the run at InterruptedAt (simulated
	// time); Jobs and the figures cover the JobsEnded jobs that ended by
	// then, of JobsTotal.
	Interrupted   bool    `json:"interrupted"`
	InterruptedAt float64 `json:"interrupted_at,omitempty"`
	JobsEnded     int     `json:"jobs_ended"`
	JobsTotal     int     `json:"jobs_total"`
}

// jobBytes is what a job of the stream takes, the files and figures
// written at the end included, as the process' peak resident memory
// grows: measured as the slope of the peak RSS (/usr/bin/time -f %M)
// between opasim flow jobs --preset tree-8ary-2 --min-size 1 --max-size 1
// --jobs 20000 and 80000 (jobs of one server: no flows), 2.59 KB a job;
// rounded up.
const jobBytes = 3000

type jobRow struct {
	Job         int          `json:"job"`
	Arrival     float64      `json:"arrival"`
	Size        int          `json:"size"`
	Estimate    float64      `json:"estimate"`
	Start       float64      `json:"start"`
	End         float64      `json:"end"`
	Wait        float64      `json:"wait"`
	Runtime     float64      `json:"runtime"`
	Total       float64      `json:"total"`
	FirstServer int32        `json:"first_server"`
	Flows       int          `json:"flows"`
	App         workload.App `json:"app"` // the application it ran (tasks: its size)
}

// flowJobsOptions holds the flags of `opasim flow jobs`.
type flowJobsOptions struct {
	f                       flowFlags
	stream, outDir, mapping string
	policy, allocation      string
	gen                     jobs.Generator
	appKind, appPattern     string
	appIterations           int
	appSize, appCompute     float64
}

func newFlowJobsCmd() *cobra.Command {
	var o flowJobsOptions
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "The batch system on the dynamic engine: jobs' runtimes are their applications' execution on the shared network",
		Long: `Jobs from a stream file (ARRIVAL SIZE RUNTIME [ESTIMATE [APP]] a line) or drawn (--jobs, --rate, ...) are selected
(--policy fcfs, sjf, easy, conservative), allocated servers (--allocation consecutive, random, locality) and
their tasks mapped (--mapping consecutive, random); each then runs its application (--app, --iterations,
--flow-size, --compute; tasks = the job's size; a stream line's APP, e.g. mapreduce,size=50, names another for
its job) on the network, sharing it with the jobs running beside it, and ends when its last flow completes. The stream's runtime (or its estimate, when given) is only the user's
estimate that backfilling and SJF plan with. Writes jobs.json, jobs.csv (a line a job), utilization.csv and
the figures utilization and jobs (png, svg) to --out.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFlowJobs(cmd, &o) },
	}
	registerFlowJobsFlags(cmd.Flags(), &o)
	return cmd
}

// registerFlowJobsFlags registers the flags of `opasim flow jobs` on fl.
func registerFlowJobsFlags(fl *pflag.FlagSet, o *flowJobsOptions) {
	f, gen := &o.f, &o.gen
	fl.StringVar(&f.config, "config", "", "YAML config file of the network (topology, routing, seed), as for flow static|dynamic")
	fl.StringVar(&f.preset, "preset", "", "topology preset ("+strings.Join(spec.Presets(), ", ")+"; default tree-16ary-3)")
	fl.StringVar(&f.routing, "routing", "", "routing (default: the topology's own)")
	fl.IntVar(&f.paths, "paths", 0, "ecmp, ksp, allpath, valiant: paths (as for flow static)")
	fl.Float64Var(&f.capacity, "capacity", 0, "every link's capacity (default 1)")
	fl.IntVar(&f.failCount, "fail-count", 0, "cables to fail at random (seeded); routed with a generic routing (default bfs)")
	fl.Float64Var(&f.failFraction, "fail-fraction", 0, "fraction of the cables to fail at random (seeded), in [0, 1]")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the generator, the random allocation and mapping, the applications' draws (default 1)")
	fl.StringVar(&o.stream, "stream", "", "job stream file: ARRIVAL SIZE RUNTIME [ESTIMATE [APP]] a line (RUNTIME: the estimate when none is given or it is 0; APP: the job's application when not --app's, KIND[,iterations=N][,size=S][,compute=C][,pattern=NAME])")
	fl.IntVar(&gen.Jobs, "jobs", 100, "without --stream: jobs to draw")
	fl.Float64Var(&gen.Rate, "rate", 0.01, "without --stream: Poisson arrivals, jobs per time unit")
	fl.IntVar(&gen.MinSize, "min-size", 2, "without --stream: smallest job (sizes are powers of two)")
	fl.IntVar(&gen.MaxSize, "max-size", 64, "without --stream: largest job")
	fl.Float64Var(&gen.MeanRuntime, "mean-runtime", 100, "without --stream: mean of the drawn runtimes (the estimates' basis)")
	fl.Float64Var(&gen.Overestimate, "overestimate", 2, "without --stream: estimates are this many times the drawn runtimes")
	fl.StringVar(&o.policy, "policy", jobs.FCFS, "job selection: "+strings.Join(jobs.Policies(), ", "))
	fl.StringVar(&o.allocation, "allocation", jobs.Consecutive, "resource allocation: "+strings.Join(jobs.Allocations(), ", "))
	fl.StringVar(&o.mapping, "mapping", jobs.Consecutive, "task mapping: consecutive, random")
	fl.StringVar(&o.appKind, "app", workload.NBody, "every job's application ("+strings.Join(workload.AppKinds(), ", ")+")")
	fl.StringVar(&o.appPattern, "pattern", "", "--app bench: the pattern of its rounds ("+strings.Join(workload.Patterns(), ", ")+")")
	fl.IntVar(&o.appIterations, "iterations", 1, "the application's time steps, sweeps, rounds")
	fl.Float64Var(&o.appSize, "flow-size", 10, "the application's flow size (capacity × time units)")
	fl.Float64Var(&o.appCompute, "compute", 0, "compute time before each causal flow")
	fl.StringVar(&o.outDir, "out", "", "directory for jobs.json, jobs.csv, utilization.csv and the figures (required)")
	fl.Int64Var(&f.budgetMB, "memory-budget-mb", 0, budgetHelp+" (memory_budget_mb)")
	f.progress = registerProgress(fl, "the jobs ended of the total")
}

// runFlowJobs runs `opasim flow jobs`: it builds the network, reads or
// draws the jobs, runs them and writes the report.
func runFlowJobs(cmd *cobra.Command, o *flowJobsOptions) error {
	cfg, budget, err := flowJobsConfig(cmd.Flags(), o)
	if err != nil {
		return err
	}
	ctx, stopped := onSignals(cmd.Context())
	defer stopped()
	halt := func() bool { return ctx.Err() != nil }
	net, err := cfg.BuildWithin(budget, halt)
	if errors.Is(err, topology.ErrStopped) {
		fmt.Fprintln(cmd.OutOrStdout(), "INTERRUPTED while the network was built: no job ran")
		return stopped()
	}
	if err != nil {
		return badInput(err)
	}
	app := workload.App{Kind: o.appKind, Pattern: o.appPattern, Iterations: o.appIterations, Size: o.appSize, Compute: o.appCompute, Seed: cfg.Seed}
	check := jobsMemoryCheck(budget, &cfg, net, app)
	js, err := loadJobs(o, cfg.Seed, check, halt)
	if errors.Is(err, jobs.ErrStopped) {
		fmt.Fprintln(cmd.OutOrStdout(), "INTERRUPTED while the stream was read: no job ran")
		return stopped()
	}
	if err != nil {
		return err
	}
	largest := 0
	for _, j := range js {
		largest = max(largest, j.Size)
	}
	if err := check(int64(len(js)), largest, fmt.Sprintf("%d jobs of up to %d servers running %s", len(js), largest, app.Name())); err != nil {
		return badInput(err)
	}
	n := jobs.Network{Config: jobs.Config{Policy: o.policy, Allocation: o.allocation, Seed: cfg.Seed}, App: app, Mapping: o.mapping}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return err
	}
	bar := startProgress(cmd.ErrOrStderr(), o.f.progress, "flow jobs", "jobs", int64(len(js)), "running %d jobs on %d servers", len(js), net.Graph.NumServers()).withTenths()
	n.Progress = func(ended int) { bar.set(int64(ended), int64(len(js))) }
	began := time.Now()
	res, err := jobs.RunNetwork(net.Router, n, js, dynamic.Options{Interrupt: halt})
	bar.finish(finishState(err, halt()))
	if err != nil {
		return badInput(err)
	}
	rep := newJobsReport(o, cfg, net, app, js, res, time.Since(began))
	sig := stopped()
	printJobs(cmd.OutOrStdout(), rep, cfg)
	if err := writeJobs(o.outDir, rep); err != nil {
		return err
	}
	if rep.Interrupted && sig != nil {
		return sig
	}
	return nil
}

// flowJobsConfig checks the flags of `opasim flow jobs` and returns the
// network's configuration and the memory budget, on the dynamic engine.
func flowJobsConfig(fl *pflag.FlagSet, o *flowJobsOptions) (spec.Config, spec.Budget, error) {
	if o.outDir == "" {
		return spec.Config{}, spec.Budget{}, badInput(errors.New("--out: a directory is required"))
	}
	cfg, err := o.f.effective(fl)
	if err != nil {
		return spec.Config{}, spec.Budget{}, badInput(err)
	}
	budget, err := spec.NewBudget(cfg.MemoryBudgetMB)
	if err != nil {
		return spec.Config{}, spec.Budget{}, badInput(err)
	}
	budget.Dynamic = true // jobs run on the dynamic engine: its estimate of the network
	if o.appPattern != "" && o.appKind != workload.Bench {
		return spec.Config{}, spec.Budget{}, badInput(fmt.Errorf("--pattern: %q is not allowed with --app %s: only --app bench takes a pattern", o.appPattern, o.appKind))
	}
	return cfg, budget, nil
}

// jobsMemoryCheck returns the memory check of `opasim flow jobs`: n jobs
// take jobBytes each, and the flows of the jobs that can run at once, at
// most the network's servers in jobs of the largest size; what names the
// jobs in the error.
func jobsMemoryCheck(budget spec.Budget, cfg *spec.Config, net *spec.Network, app workload.App) func(n int64, largest int, what string) error {
	return func(n int64, largest int, what string) error {
		flows := int64(0)
		if largest >= 2 {
			a := app
			a.Tasks = min(largest, net.Graph.NumServers())
			if per, err := a.MaxFlows(1 << 40); err == nil {
				flows = spec.MulBytes(int64(net.Graph.NumServers()/max(a.Tasks, 1)), per)
			}
		}
		est := spec.AddBytes(spec.MulBytes(n, jobBytes), cfg.DynamicBytes(net, flows))
		how := fmt.Sprintf("about %d B a job", jobBytes)
		if flows > 0 {
			how += fmt.Sprintf(", and %d flows of the jobs running at once at most", flows)
		}
		return budget.Check(est, fmt.Sprintf("%s (%s)", what, how))
	}
}

// loadJobs reads the jobs from --stream or draws them with seed, checking
// their memory as it goes; it returns an error wrapping jobs.ErrStopped
// when halt stopped the reading, and bad-input errors otherwise.
func loadJobs(o *flowJobsOptions, seed uint64, check func(int64, int, string) error, halt func() bool) ([]jobs.Job, error) {
	if o.stream == "" {
		if err := check(int64(o.gen.Jobs), 0, fmt.Sprintf("--jobs %d", o.gen.Jobs)); err != nil {
			return nil, badInput(err)
		}
		o.gen.Seed = seed
		js, err := o.gen.Generate()
		if err != nil {
			return nil, badInput(err)
		}
		return js, nil
	}
	fh, err := os.Open(o.stream)
	if err != nil {
		return nil, badInput(fmt.Errorf("--stream: %w", err))
	}
	limit := func(n int64) error { return check(n, 0, fmt.Sprintf("--stream %s: %d jobs so far", o.stream, n)) }
	js, err := jobs.ReadStreamWith(fh, o.stream, limit, halt)
	fh.Close()
	if errors.Is(err, jobs.ErrStopped) {
		return nil, err
	}
	if err != nil {
		return nil, badInput(err)
	}
	return js, nil
}

// newJobsReport gathers the report of a run of `opasim flow jobs` that
// took took: the jobs that ended, and the figures.
func newJobsReport(o *flowJobsOptions, cfg spec.Config, net *spec.Network, app workload.App, js []jobs.Job, res *jobs.NetworkResult, took time.Duration) *jobsReport {
	rep := &jobsReport{Topology: cfg.Topology, Routing: net.Router.Name(), Servers: net.Graph.NumServers(), Policy: o.policy,
		Allocation: o.allocation, Mapping: o.mapping, App: app, Makespan: res.Makespan, MeanWait: res.MeanWait, MeanTotal: res.MeanTotal,
		Utilization: res.Utilization, Throughput: res.Throughput, Times: res.Times, Busy: res.Busy, Flows: res.Flows,
		RunSecs: took.Seconds(), Interrupted: res.Interrupted, JobsEnded: res.Ended, JobsTotal: len(js)}
	if res.Interrupted {
		rep.InterruptedAt = res.Now
	}
	for i, p := range res.Jobs {
		if !p.Ended() {
			continue // running or waiting when the run was interrupted
		}
		j := js[i]
		est := j.Estimate
		if est == 0 {
			est = j.Runtime
		}
		first := int32(-1)
		if len(p.Servers) > 0 {
			first = p.Servers[0]
		}
		rep.Jobs = append(rep.Jobs, jobRow{Job: i, Arrival: j.Arrival, Size: j.Size, Estimate: est, Start: p.Start, End: p.End,
			Wait: p.Start - j.Arrival, Runtime: p.End - p.Start, Total: p.End - j.Arrival, FirstServer: first, Flows: p.Flows, App: p.App})
		rep.MeanRuntime += p.End - p.Start
	}
	if len(rep.Jobs) > 0 {
		rep.MeanRuntime /= float64(len(rep.Jobs))
	}
	return rep
}

func printJobs(w io.Writer, r *jobsReport, cfg spec.Config) {
	name := cfg.Topology.Preset
	if name == "" {
		name = cfg.Topology.Kind
	}
	fmt.Fprintf(w, "network      %s, %d servers, %s routing\n", name, r.Servers, r.Routing)
	fmt.Fprintf(w, "jobs         %d, %s selection, %s allocation, %s mapping; application %s (iterations %d, flows of %g, compute %g)\n",
		len(r.Jobs), r.Policy, r.Allocation, r.Mapping, r.App.Name(), r.App.Iterations, r.App.Size, r.App.Compute)
	fmt.Fprintf(w, "makespan     %.10g\n", r.Makespan)
	fmt.Fprintf(w, "mean         wait %.10g, runtime %.10g, total %.10g\n", r.MeanWait, r.MeanRuntime, r.MeanTotal)
	fmt.Fprintf(w, "utilization  %.6g; throughput %.6g jobs per time unit\n", r.Utilization, r.Throughput)
	fmt.Fprintf(w, "flows        %d; run %.2f s\n", r.Flows, r.RunSecs)
	if r.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED at time %.10g: %d of %d jobs ended; the figures above and the files cover those\n", r.InterruptedAt, r.JobsEnded, r.JobsTotal)
	}
}

func writeJobs(dir string, r *jobsReport) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "jobs.json"), append(data, '\n')); err != nil {
		return err
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var b strings.Builder
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"job", "arrival", "size", "estimate", "start", "end", "wait", "runtime", "total", "first_server", "flows", "app"})
	for _, j := range r.Jobs {
		_ = cw.Write([]string{strconv.Itoa(j.Job), g(j.Arrival), strconv.Itoa(j.Size), g(j.Estimate), g(j.Start), g(j.End), g(j.Wait),
			g(j.Runtime), g(j.Total), strconv.Itoa(int(j.FirstServer)), strconv.Itoa(j.Flows), j.App.Name()})
	}
	cw.Flush()
	if err := writeFileAtomic(filepath.Join(dir, "jobs.csv"), []byte(b.String())); err != nil {
		return err
	}
	b.Reset()
	cw = csv.NewWriter(&b)
	_ = cw.Write([]string{"time", "busy_servers", "utilization"})
	util := sweep.Line{Name: "busy servers / servers"}
	for i, t := range r.Times {
		u := float64(r.Busy[i]) / float64(r.Servers)
		_ = cw.Write([]string{g(t), strconv.Itoa(r.Busy[i]), g(u)})
		if i > 0 { // a step function: the level before, up to t
			util.X, util.Y = append(util.X, t), append(util.Y, util.Y[len(util.Y)-1])
		}
		util.X, util.Y = append(util.X, t), append(util.Y, u)
	}
	cw.Flush()
	if err := writeFileAtomic(filepath.Join(dir, "utilization.csv"), []byte(b.String())); err != nil {
		return err
	}
	f := sweep.LineFigure{Title: fmt.Sprintf("Utilization over time (%s, %s)", r.Policy, r.Allocation), XLabel: "time",
		YLabel: "busy servers / servers", Lines: []sweep.Line{util}}
	if _, err := sweep.WriteLines(f, filepath.Join(dir, "utilization")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	per := []sweep.Line{{Name: "wait"}, {Name: "runtime"}, {Name: "total"}}
	for _, j := range r.Jobs {
		x := float64(j.Job)
		for k, y := range []float64{j.Wait, j.Runtime, j.Total} {
			per[k].X, per[k].Y = append(per[k].X, x), append(per[k].Y, y)
		}
	}
	f = sweep.LineFigure{Title: fmt.Sprintf("Jobs (%s, %s): wait, runtime on the network, total", r.Policy, r.Allocation), XLabel: "job",
		YLabel: "time", Lines: per}
	if _, err := sweep.WriteLines(f, filepath.Join(dir, "jobs")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	return nil
}

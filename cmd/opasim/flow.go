package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/flow/runner"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/storage"
	"github.com/opasim/opasim/flow/workload"
)

func newFlowCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "flow",
		Short: "Flow-level engine (seed 001): static link loads and throughput, dynamic max-min completion times",
		Long: `Flow-level simulation for networks far larger than the cycle-level engine reaches.

  opasim flow static                 all-to-all on the 4,096-server 16-ary 3-tree
  opasim flow static --preset torus-32x32x16
  opasim flow dynamic --preset tree-8ary-2 --pattern uniform --flows-per-server 4 --flow-size 1000
  opasim flow dynamic --config docs/examples/storage-study.yaml --policy fp
                                     applications with NVM storage under a priority policy
  opasim flow scale --out scale      throughput of topology families against their size (seed 001 Fig. 7)
  opasim flow apps --out apps        application execution times and multipath effects (Figs. 8 and 9)
  opasim flow fcfs --apps 1000       the FCFS application workload (4.03M flows)
  opasim flow jobs --out jobs        a job stream through the batch system, runtimes from the network
  opasim flow presets                the named topologies

A config file (--config) holds the same fields as YAML (docs/flow.md); flags override it.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.AddCommand(newFlowRunCmd("static"), newFlowRunCmd("dynamic"), newFlowScaleCmd(), newFlowAppsCmd(), newFlowFCFSCmd(), newFlowJobsCmd(), &cobra.Command{
		Use:   "presets",
		Short: "List the flow topology presets",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range spec.Presets() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-18s %s\n", p, spec.AboutPreset(p))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "\npatterns:")
			for _, p := range workload.Patterns() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-18s %s\n", p, workload.About(p))
			}
			return nil
		},
	})
	profileFlowCmds(root)
	return root
}

// profileFlowCmds gives every subcommand of `opasim flow` the flags
// --cpuprofile and --memprofile (as `opasim run` has them): the CPU
// profile covers the command's whole run, the heap profile is written
// at its end, whether it succeeded, failed or was interrupted.
func profileFlowCmds(root *cobra.Command) {
	var cpu, mem string
	root.PersistentFlags().StringVar(&cpu, "cpuprofile", "", "write a pprof CPU profile of the command's run here")
	root.PersistentFlags().StringVar(&mem, "memprofile", "", "write a pprof heap profile here at the end of the run")
	for _, c := range root.Commands() {
		run := c.RunE
		if run == nil {
			continue
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := checkOptional([2]string{"--cpuprofile", cpu}, [2]string{"--memprofile", mem}); err != nil {
				return err
			}
			stop, err := startProfiles(cpu, mem, "")
			if err != nil {
				return badInput(err)
			}
			err = run(cmd, args)
			if perr := stop(); perr != nil && err == nil {
				err = perr
			}
			return err
		}
	}
}

// flowFlags are the flags of `opasim flow static|dynamic`.
type flowFlags struct {
	config, out, preset, kind, routing, pattern           string
	paths, flowsPerServer, region, groupSize              int
	shift, workers, phaseFlows                            int
	probability, mean, flowSize, phaseDelay, startQuantum float64
	capacity, failFraction, rateCap                       float64
	failCount, allpathD, cacheMB                          int
	app, policy, storagePolicy                            string
	shares                                                []float64
	tasks, iterations                                     int
	compute, cpuFactor                                    float64
	traceFile                                             string
	seed                                                  uint64
	serialSends                                           bool
	progress                                              *progressFlags
	budgetMB                                              int64
}

// budgetHelp is the --memory-budget-mb flag's help.
const budgetHelp = "refuse a run estimated to take more memory than this, in MiB, before it starts (0: this machine's memory)"

func newFlowRunCmd(engine string) *cobra.Command {
	var f flowFlags
	cmd := &cobra.Command{
		Use:   engine,
		Short: map[string]string{"static": "Route every flow of a pattern at once: link loads, hop counts, aggregate throughput", "dynamic": "Flows with sizes and causality phases under max-min fair sharing: completion times"}[engine],
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runFlow(cmd, engine, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "YAML config file (unknown keys are errors); flags override it")
	fl.StringVar(&f.out, "out", "", "write the results here as JSON (config, figures, digest)")
	fl.StringVar(&f.preset, "preset", "", "topology preset ("+strings.Join(spec.Presets(), ", ")+"; default tree-16ary-3)")
	fl.StringVar(&f.kind, "kind", "", "topology kind instead of a preset ("+strings.Join(spec.Kinds(), ", ")+"), with its fields in --config")
	fl.StringVar(&f.routing, "routing", "", "routing: dmodk, dor, ecmp, bfs, ksp, allpath, minimal, valiant (default: the topology's own)")
	fl.IntVar(&f.paths, "paths", 0, "ecmp: most paths a flow (0: all shortest); ksp: k (default 4); allpath: most paths (0: all); valiant: intermediate groups")
	fl.StringVar(&f.pattern, "pattern", "", "traffic pattern ("+strings.Join(workload.Patterns(), ", ")+"; default all-to-all)")
	fl.IntVar(&f.flowsPerServer, "flows-per-server", 0, "uniform, hot-spot, hot-region, local: flows a server (default 1)")
	fl.Float64Var(&f.probability, "probability", 0, "hot-spot, hot-region: share of the flows sent to the hot servers")
	fl.IntVar(&f.region, "region", 0, "hot-region: servers in the hot region")
	fl.Float64Var(&f.mean, "mean", 0, "local: mean ring distance")
	fl.IntVar(&f.groupSize, "group-size", 0, "many-all-to-all: servers a group")
	fl.IntVar(&f.shift, "shift", 0, "shift: offset (default 1)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the random patterns and topologies (default 1)")
	fl.Float64Var(&f.capacity, "capacity", 0, "every link's capacity (default 1)")
	fl.IntVar(&f.failCount, "fail-count", 0, "cables to fail at random (seeded); routed with a generic routing (default bfs)")
	fl.Float64Var(&f.failFraction, "fail-fraction", 0, "fraction of the cables to fail at random (seeded), in [0, 1]")
	fl.IntVar(&f.allpathD, "d", 0, "allpath: paths up to d links longer than the shortest")
	fl.IntVar(&f.cacheMB, "cache-mb", 0, "ksp, allpath: bound of the path cache in MiB, least recently used pairs dropped past it (default 64)")
	fl.IntVar(&f.workers, "workers", 0, "static: goroutines routing flows (0: one per core)")
	if engine == "dynamic" {
		fl.Float64Var(&f.flowSize, "flow-size", 0, "every flow's size, in capacity × time units (default 1)")
		fl.IntVar(&f.phaseFlows, "phase-flows", 0, "flows a causality phase: a phase starts when the previous one completed (0: one phase)")
		fl.Float64Var(&f.phaseDelay, "phase-delay", 0, "time between a phase's completion and the next phase's start")
		fl.Float64Var(&f.rateCap, "rate-cap", 0, "bound every flow's rate, in capacity units (0: none), e.g. one stream's rate at the cycle level")
		fl.Float64Var(&f.startQuantum, "start-quantum", 0, "round every flow's start time up to a multiple of this (0: exact; a cheaper model, see docs/flow.md)")
		fl.StringVar(&f.policy, "policy", "", "link sharing among traffic classes: np (default), ba (with --shares), fp")
		fl.Float64SliceVar(&f.shares, "shares", nil, "ba: each class's guaranteed share of every link, e.g. 0.75,0.25")
		fl.StringVar(&f.storagePolicy, "storage-policy", "", "apps: every application's storage policy ("+strings.Join(storage.Policies(), ", ")+"), replacing its storage devices and nodes")
		fl.StringVar(&f.app, "app", "", "run an application instead of the pattern ("+strings.Join(workload.AppKinds(), ", ")+"; bench: --iterations rounds of --pattern, each a phase); --flow-size is its flows' size (allreduce, broadcast, alltoall: the collective's bytes: every task's vector, task 0's message, what each task sends to every other)")
		fl.IntVar(&f.tasks, "tasks", 0, "--app: tasks, on servers 0..tasks-1 (default: every server)")
		fl.IntVar(&f.iterations, "iterations", 0, "--app: time steps, sweeps, rounds (default 1)")
		fl.Float64Var(&f.compute, "compute", 0, "--app: compute time before each causal flow")
		fl.StringVar(&f.traceFile, "trace", "", "replay this VEF trace (plain or gzip) instead of the pattern: bytes and ns, so --capacity is in bytes/ns (12.5: 100 Gb/s)")
		fl.Float64Var(&f.cpuFactor, "cpu-factor", 1, "--trace: multiply the trace's computation times (delays, independent records' times) by this")
		fl.BoolVar(&f.serialSends, "serial-sends", false, "--trace: every server sends its messages one at a time, in the trace's order, as the cycle-level NIC does")
	}
	fl.Int64Var(&f.budgetMB, "memory-budget-mb", 0, budgetHelp+" (memory_budget_mb)")
	f.progress = registerProgress(fl, "what is done (flow static: the chunks of sources routed; flow dynamic: the flows completed, or the time elapsed for a trace or applications)")
	return cmd
}

func runFlow(cmd *cobra.Command, engine string, f *flowFlags) error {
	cfg, err := f.effective(cmd.Flags())
	if err != nil {
		return badInput(err)
	}
	if f.out != "" {
		if err := checkWritable("--out", f.out); err != nil {
			return err
		}
	}
	budget, err := spec.NewBudget(cfg.MemoryBudgetMB)
	if err != nil {
		return badInput(err)
	}
	// Signals stop the run from here on: the build of a large graph too.
	ctx, stopped := onSignals(cmd.Context())
	defer stopped()
	cpu0 := cpuSeconds()
	res, err := runner.Run(ctx, engine, cfg, budget, f.show(cmd.ErrOrStderr()))
	var ie runner.InputError
	if errors.As(err, &ie) {
		return badInput(ie.Err)
	}
	if err != nil {
		return err
	}
	return writeFlow(cmd, f, res, stopped(), cpu0)
}

// show shows the run's stages on w as --progress says.
func (f *flowFlags) show(w io.Writer) runner.Show {
	return func(what, unit string, total int64, tenths bool, format string, a ...any) runner.Progress {
		p := startProgress(w, f.progress, what, unit, total, format, a...)
		if p == nil {
			return nil
		}
		if tenths {
			p.withTenths()
		}
		return shownProgress{p}
	}
}

// shownProgress is a progress as the flow run layer sees it.
type shownProgress struct{ p *progress }

func (s shownProgress) Set(done, total int64) { s.p.set(done, total) }
func (s shownProgress) Finish(state string)   { s.p.finish(state) }

// writeFlow prints the results and writes them to --out, and returns sig
// if the run was interrupted by it.
func writeFlow(cmd *cobra.Command, f *flowFlags, res *runner.Results, sig error, cpu0 float64) error {
	res.CPUSecs, res.MaxRSSBytes = cpuSeconds()-cpu0, maxRSS()
	printFlow(cmd.OutOrStdout(), res)
	if f.out != "" {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(f.out, append(data, '\n')); err != nil {
			return err
		}
	}
	if res.Interrupted && sig != nil {
		return sig
	}
	return nil
}

// printFlow prints the summary of the flow run r.
func printFlow(w io.Writer, r *runner.Results) {
	c := r.Config
	name := c.Topology.Preset
	if name == "" {
		name = c.Topology.Kind
	}
	if r.Interrupted && r.Servers == 0 {
		fmt.Fprintf(w, "%s: INTERRUPTED while the network was built\n", name)
		fmt.Fprintf(w, "time       build %.2f s, CPU %.2f s, max RSS %.0f MB\n", r.BuildSecs, r.CPUSecs, float64(r.MaxRSSBytes)/1e6)
		return
	}
	fmt.Fprintf(w, "%s: %d servers, %d switches, %d links (%.1f MB)", name, r.Servers, r.Switches, r.Links, float64(r.GraphBytes)/1e6)
	if r.FailedCables > 0 {
		fmt.Fprintf(w, ", %d cables failed", r.FailedCables)
	}
	fmt.Fprintln(w)
	if s := r.Static; s != nil {
		printStatic(w, r, s)
	}
	if r.Interrupted && r.Static == nil && r.Dynamic == nil {
		fmt.Fprintln(w, "INTERRUPTED before the run started (while the network was built or the trace read)")
	}
	if d := r.Dynamic; d != nil {
		printDynamic(w, r, d)
	}
	if c := r.PathCache; c != nil {
		fmt.Fprintf(w, "path cache %d pairs, %.1f MB of %.1f MB; %d hits, %d misses, %d pairs dropped\n",
			c.Entries, float64(c.Bytes)/1e6, float64(c.Limit)/1e6, c.Hits, c.Misses, c.Evictions)
	}
	fmt.Fprintf(w, "digest %s\n", r.Digest)
	fmt.Fprintf(w, "time       build %.2f s, run %.2f s, CPU %.2f s, max RSS %.0f MB\n", r.BuildSecs, r.RunSecs, r.CPUSecs, float64(r.MaxRSSBytes)/1e6)
}

// printStatic prints the static engine's summary s of the run r.
func printStatic(w io.Writer, r *runner.Results, s *runner.StaticSummary) {
	fmt.Fprintf(w, "static, %s routing, %s: %d flows (%d paths), %d unrouted", s.Routing, s.Pattern, s.Flows, s.Paths, s.Unrouted)
	if r.Interrupted {
		fmt.Fprintf(w, ", INTERRUPTED: the loads cover the flows of %d of the %d servers, the rates those of %d", s.Sources, r.Servers, s.RatedSources)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "link load  max %.6g, mean %.6g (max load/capacity %.6g)\n", s.MaxLoad, s.MeanLoad, s.MaxRelativeLoad)
	fmt.Fprintf(w, "hops       mean %.4f, max %d\n", s.MeanHops, s.MaxHops)
	if c := s.Connectivity; c != nil {
		fmt.Fprintf(w, "connected  %d of %d server pairs (%.4f); %d of the pattern's %d flows reachable\n",
			c.ConnectedPairs, c.Pairs, float64(c.ConnectedPairs)/float64(max(c.Pairs, 1)), c.Reachable, c.Flows)
	}
	fmt.Fprintf(w, "throughput non-restricted %.6g (%.6g per port), restricted %.6g (%.6g per port); flow rate min %.6g, mean %.6g, max %.6g\n",
		s.NonRestricted, s.NonRestrictedPerPort, s.Restricted, s.RestrictedPerPort, s.MinRate, s.MeanRate, s.MaxRate)
}

// printDynamic prints the dynamic engine's summary d of the run r.
func printDynamic(w io.Writer, r *runner.Results, d *runner.DynamicSummary) {
	fmt.Fprintf(w, "dynamic: %d flows in %d phases, %d unfinished; makespan %.6g, mean flow completion %.6g; %d event times, %d rates recomputed\n",
		d.Flows, d.Phases, d.Unfinished, d.Makespan, d.MeanCompletion, d.Batches, d.Resolved)
	if len(d.Apps) > 0 {
		fmt.Fprintf(w, "%-10s %-12s %-8s %6s %12s %12s %12s %12s %12s %12s\n", "app", "nodes", "storage", "phases", "runtime", "I/O time", "I/O mean", "comm time", "comm mean", "comp time")
		for _, a := range d.Apps {
			fmt.Fprintf(w, "%-10s %-12s %-8s %6d %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g\n", a.Name, strings.TrimPrefix(a.Nodes, "nodes "), a.Policy,
				len(a.Walk), a.Runtime, a.IOTime, a.IOMean, a.CommTime, a.CommMean, a.CompTime)
		}
	}
	if t := d.Trace; t != nil {
		sends := "all at once"
		if t.SerialSends {
			sends = "one at a time a server"
		}
		fmt.Fprintf(w, "trace %s: %d tasks, %d messages (sent %s), %d collective parts, cpu factor %g; execution time %.10g ns (task ends %.10g to %.10g); message latency mean %.10g ns\n",
			t.File, t.Tasks, t.Messages, sends, t.Parts, t.CPUFactor, d.Makespan, t.TaskEndMin, t.TaskEndMax, t.MessageLatency)
	}
	if d.HealthyMakespan > 0 {
		fmt.Fprintf(w, "failures: makespan %.10g with %d cables failed, %.10g without (same routing): %.4fx\n",
			d.Makespan, r.FailedCables, d.HealthyMakespan, d.FailedOverHealthy)
	}
	if r.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED at time %.6g: the figures above cover the flows completed by then\n", d.Makespan)
	}
}

// cpuSeconds is the process' user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// maxRSS is the process' largest resident set so far, in bytes.
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}

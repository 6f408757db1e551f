package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/flow/apps"
	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/spec"
)

// fcfsLineBytes is what an application's line of --csv takes while it is
// written (the text, and the copy written): measured as the slope of the
// peak RSS between the --apps 1000000 and 4000000 runs of apps.AppBytes
// with --csv, 217 B an application beside AppBytes; rounded up.
const fcfsLineBytes = 240

// flowFCFSOptions holds the flags of `opasim flow fcfs`.
type flowFCFSOptions struct {
	preset, csvOut string
	cfg            apps.FCFSConfig
	budgetMB       int64
	progress       *progressFlags
}

func newFlowFCFSCmd() *cobra.Command {
	o := flowFCFSOptions{cfg: apps.FCFSConfig{Apps: 200, Tasks: 64, FlowSize: 8192, Interval: 7}}
	cmd := &cobra.Command{
		Use:   "fcfs",
		Short: "FCFS applications on the dynamic engine: all-to-all applications arriving at a fixed interval (the reference workload)",
		Long: `Applications of --tasks tasks, each an all-to-all of flows of --flow-size, arrive every --interval time units and
start first come, first served on the lowest-numbered free servers; an application frees its servers when its
flows have completed. Defaults: the 4,096-server 16-ary 3-tree, 200 applications of 64 tasks, flows of 8,192, one
every 7 (806,400 flows; --apps 1000 gives 4,032,000).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFlowFCFS(cmd, &o) },
	}
	registerFlowFCFSFlags(cmd.Flags(), &o)
	return cmd
}

// registerFlowFCFSFlags registers the flags of `opasim flow fcfs` on fl,
// with o's values as their defaults.
func registerFlowFCFSFlags(fl *pflag.FlagSet, o *flowFCFSOptions) {
	cfg := &o.cfg
	fl.StringVar(&o.preset, "preset", "tree-16ary-3", "topology preset ("+strings.Join(spec.Presets(), ", ")+")")
	fl.IntVar(&cfg.Apps, "apps", cfg.Apps, "applications")
	fl.IntVar(&cfg.Tasks, "tasks", cfg.Tasks, "tasks per application")
	fl.Float64Var(&cfg.FlowSize, "flow-size", cfg.FlowSize, "size of each flow (link capacity 1)")
	fl.Float64Var(&cfg.Interval, "interval", cfg.Interval, "time between arrivals")
	fl.StringVar(&o.csvOut, "csv", "", "write one line per application here")
	fl.Int64Var(&o.budgetMB, "memory-budget-mb", 0, budgetHelp)
	o.progress = registerProgress(fl, "the applications finished of the total")
}

// runFlowFCFS runs `opasim flow fcfs`: it builds the network, checks the
// workload and its memory, runs it and prints and writes the report.
func runFlowFCFS(cmd *cobra.Command, o *flowFCFSOptions) error {
	net, err := checkFlowFCFS(o)
	if err != nil {
		return err
	}
	cfg := &o.cfg
	ctx, stopped := onSignals(cmd.Context())
	defer stopped()
	bar := startProgress(cmd.ErrOrStderr(), o.progress, "flow fcfs", "applications", int64(cfg.Apps), "running %d applications of %d tasks on %d servers", cfg.Apps, cfg.Tasks, net.Graph.NumServers()).withTenths()
	cfg.Progress = func(done int) { bar.set(int64(done), int64(cfg.Apps)) }
	began := time.Now()
	rep, err := apps.RunFCFS(net.Router, *cfg, dynamic.Options{Interrupt: func() bool { return ctx.Err() != nil }})
	bar.finish(finishState(err, ctx.Err() != nil))
	if err != nil {
		return badInput(err)
	}
	sig := stopped()
	printFCFS(cmd.OutOrStdout(), o, net, rep, time.Since(began))
	if o.csvOut != "" {
		if err := writeFCFSCSV(o.csvOut, rep); err != nil {
			return err
		}
	}
	if rep.Interrupted && sig != nil {
		return sig
	}
	return nil
}

// checkFlowFCFS builds the network of `opasim flow fcfs` and checks --csv,
// the workload and its memory before anything runs.
func checkFlowFCFS(o *flowFCFSOptions) (*spec.Network, error) {
	cfg := o.cfg
	budget, err := spec.NewBudget(o.budgetMB)
	if err != nil {
		return nil, badInput(err)
	}
	c := spec.Config{Topology: spec.Topology{Preset: o.preset}}
	net, err := c.Build()
	if err != nil {
		return nil, badInput(err)
	}
	if o.csvOut != "" {
		if err := checkWritable("--csv", o.csvOut); err != nil {
			return nil, err
		}
	}
	probe := cfg
	if probe.Apps >= 0 && probe.Apps <= math.MaxInt32 {
		probe.Apps = 0 // checked without allocating its applications
	}
	if _, err := apps.NewFCFS(net.Graph.NumServers(), probe); err != nil {
		return nil, badInput(err)
	}
	each := int64(apps.AppBytes)
	if o.csvOut != "" {
		each += fcfsLineBytes
	}
	atOnce := cfg.MaxFlowsAtOnce(net.Graph.NumServers())
	est := spec.AddBytes(spec.MulBytes(int64(cfg.Apps), each), c.DynamicBytes(net, atOnce))
	if err := budget.Check(est, fmt.Sprintf("--apps %d (about %d B an application with --csv or not, and %d flows running at once at most)", cfg.Apps, each, atOnce)); err != nil {
		return nil, badInput(err)
	}
	return net, nil
}

// printFCFS prints the report of `opasim flow fcfs`, which took wall.
func printFCFS(w io.Writer, o *flowFCFSOptions, net *spec.Network, rep *apps.Report, wall time.Duration) {
	cfg := &o.cfg
	s := apps.Summarize(rep.Apps)
	fmt.Fprintf(w, "network      %s, %d servers, %s routing\n", o.preset, net.Graph.NumServers(), net.Router.Name())
	fmt.Fprintf(w, "workload     %d applications of %d tasks, all-to-all flows of %g, one every %g\n", cfg.Apps, cfg.Tasks, cfg.FlowSize, cfg.Interval)
	fmt.Fprintf(w, "flows        %d\n", rep.Flows)
	fmt.Fprintf(w, "makespan     %.10g\n", rep.Makespan)
	fmt.Fprintf(w, "waiting      min %.10g  mean %.10g  max %.10g\n", s.MinWait, s.MeanWait, s.MaxWait)
	fmt.Fprintf(w, "runtime      min %.10g  mean %.10g  max %.10g\n", s.MinRuntime, s.MeanRuntime, s.MaxRuntime)
	fmt.Fprintf(w, "unfinished   %d applications\n", s.Unfinished)
	st := rep.Stats
	fmt.Fprintf(w, "engine       %d batches, %d rates recomputed, %d changed, at most %d active flows\n", st.Batches, st.Resolved, st.Changed, st.MaxActive)
	fmt.Fprintf(w, "time         %.3f s wall, max RSS %.0f MB\n", wall.Seconds(), float64(maxRSS())/1e6)
	if rep.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED at time %.10g: %d of %d applications finished; the figures above cover those (the unfinished ones' finish is +Inf in --csv)\n",
			rep.Now, rep.Finished, cfg.Apps)
	}
}

// writeFCFSCSV writes --csv: a line an application.
func writeFCFSCSV(path string, rep *apps.Report) error {
	var b strings.Builder
	b.WriteString("app,first_server,arrival,start,finish,wait,runtime\n")
	for i, a := range rep.Apps {
		fmt.Fprintf(&b, "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g\n", i, a.First, a.Arrival, a.Start, a.Finish, a.Wait(), a.Runtime())
	}
	return writeFileAtomic(path, []byte(b.String()))
}

package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/flow/apps"
	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/spec"
)

// fcfsLineBytes is what an application's line of --csv takes while it is
// written (the text, and the copy written): measured as the slope of the
// peak RSS between the --apps 1000000 and 4000000 runs of apps.AppBytes
// with --csv, 217 B an application beside AppBytes; rounded up.
const fcfsLineBytes = 240

func newFlowFCFSCmd() *cobra.Command {
	var (
		preset, csvOut string
		cfg            = apps.FCFSConfig{Apps: 200, Tasks: 64, FlowSize: 8192, Interval: 7}
		budgetMB       int64
		progress       *progressFlags
	)
	cmd := &cobra.Command{
		Use:   "fcfs",
		Short: "FCFS applications on the dynamic engine: all-to-all applications arriving at a fixed interval (the reference workload)",
		Long: `Applications of --tasks tasks, each an all-to-all of flows of --flow-size, arrive every --interval time units and
start first come, first served on the lowest-numbered free servers; an application frees its servers when its
flows have completed. Defaults: the 4,096-server 16-ary 3-tree, 200 applications of 64 tasks, flows of 8,192, one
every 7 (806,400 flows; --apps 1000 gives 4,032,000).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			budget, err := spec.NewBudget(budgetMB)
			if err != nil {
				return badInput(err)
			}
			c := spec.Config{Topology: spec.Topology{Preset: preset}}
			net, err := c.Build()
			if err != nil {
				return badInput(err)
			}
			if csvOut != "" {
				if err := checkWritable("--csv", csvOut); err != nil {
					return err
				}
			}
			probe := cfg
			if probe.Apps >= 0 && probe.Apps <= math.MaxInt32 {
				probe.Apps = 0 // checked without allocating its applications
			}
			if _, err := apps.NewFCFS(net.Graph.NumServers(), probe); err != nil {
				return badInput(err)
			}
			each := int64(apps.AppBytes)
			if csvOut != "" {
				each += fcfsLineBytes
			}
			atOnce := cfg.MaxFlowsAtOnce(net.Graph.NumServers())
			est := spec.AddBytes(spec.MulBytes(int64(cfg.Apps), each), c.DynamicBytes(net, atOnce))
			if err := budget.Check(est, fmt.Sprintf("--apps %d (about %d B an application with --csv or not, and %d flows running at once at most)", cfg.Apps, each, atOnce)); err != nil {
				return badInput(err)
			}
			ctx, stopped := onSignals(cmd.Context())
			defer stopped()
			bar := startProgress(cmd.ErrOrStderr(), progress, "flow fcfs", "applications", int64(cfg.Apps), "running %d applications of %d tasks on %d servers", cfg.Apps, cfg.Tasks, net.Graph.NumServers()).withTenths()
			cfg.Progress = func(done int) { bar.set(int64(done), int64(cfg.Apps)) }
			began := time.Now()
			rep, err := apps.RunFCFS(net.Router, cfg, dynamic.Options{Interrupt: func() bool { return ctx.Err() != nil }})
			bar.finish(finishState(err, ctx.Err() != nil))
			if err != nil {
				return badInput(err)
			}
			sig := stopped()
			wall := time.Since(began)
			s := apps.Summarize(rep.Apps)
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "network      %s, %d servers, %s routing\n", preset, net.Graph.NumServers(), net.Router.Name())
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
			if csvOut != "" {
				var b strings.Builder
				b.WriteString("app,first_server,arrival,start,finish,wait,runtime\n")
				for i, a := range rep.Apps {
					fmt.Fprintf(&b, "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g\n", i, a.First, a.Arrival, a.Start, a.Finish, a.Wait(), a.Runtime())
				}
				if err := writeFileAtomic(csvOut, []byte(b.String())); err != nil {
					return err
				}
			}
			if rep.Interrupted && sig != nil {
				return sig
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&preset, "preset", "tree-16ary-3", "topology preset ("+strings.Join(spec.Presets(), ", ")+")")
	fl.IntVar(&cfg.Apps, "apps", cfg.Apps, "applications")
	fl.IntVar(&cfg.Tasks, "tasks", cfg.Tasks, "tasks per application")
	fl.Float64Var(&cfg.FlowSize, "flow-size", cfg.FlowSize, "size of each flow (link capacity 1)")
	fl.Float64Var(&cfg.Interval, "interval", cfg.Interval, "time between arrivals")
	fl.StringVar(&csvOut, "csv", "", "write one line per application here")
	fl.Int64Var(&budgetMB, "memory-budget-mb", 0, budgetHelp)
	progress = registerProgress(fl, "the applications finished of the total")
	return cmd
}

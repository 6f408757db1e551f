package main

// `opasim sweep` and `opasim plot` wire flags to package sweep: the grid of
// seed 000 section 4.2.3 (every scheduler at every injection rate, each
// point over several seeds) and Figs. 3 and 4 drawn from the averages.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/sweep"
)

// sweepFlags are the flags of `opasim sweep`: the config flags it shares
// with `run` (runFlags.registerConfig), so runFlags.effective builds the
// base config the same way `run` does, and the grid's own.
type sweepFlags struct {
	run        runFlags
	schedulers string
	loads      string
	seeds      int
	seedList   string
	jobs       int
	out        string
	shard      string
}

const defaultLoads = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1"

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	f.run.registerConfig(fs)
	fs.StringVar(&f.schedulers, "schedulers", "rr,sbt,sbt_strict,dtable", "comma-separated output schedulers")
	fs.StringVar(&f.loads, "loads", defaultLoads, "comma-separated injection rates in (0, 1] flits/cycle/NIC; FROM:TO:STEP is a range")
	fs.IntVar(&f.seeds, "seeds", 5, fmt.Sprintf("seeds per point: 1..N (N at most %d)", sweep.MaxPoints))
	fs.StringVar(&f.seedList, "seed-list", "", "comma-separated seeds per point, instead of --seeds")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "runs at once (each run is single-threaded with the sequential engine)")
	fs.StringVar(&f.out, "out", "", "directory for runs/, summary.csv, summary.json and plots/ (required)")
	fs.StringVar(&f.shard, "shard", "", "run only shard i/N of the grid: N shards, i 0-based in [0, N-1] (point k of the grid is shard k mod N's); "+
		"writes runs/ and shard.json, no summary: combine the shards with opasim sweep merge")
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run schedulers x loads x seeds, aggregate with 95% confidence intervals and plot (seed 000 Figs. 3 and 4)",
		Long: "Run schedulers x loads x seeds, aggregate with 95% confidence intervals and plot (seed 000 Figs. 3 and 4).\n\n" +
			"The config flags are those of `opasim run`; --schedulers, --loads and --seeds (or --seed-list) give the grid,\n" +
			fmt.Sprintf("of at most %d runs in all. See docs/sweeps.md.", sweep.MaxPoints),
		Example: "  opasim sweep --preset tree-8ary-2 --traffic paper-mix --schedulers rr,sbt,dtable \\\n" +
			"    --loads 0.1:1:0.1 --seeds 10 --cycles 40000 --warmup 10000 --out sweeps/tree",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := noArgs(cmd, args); err != nil {
				return fmt.Errorf("%w; its one subcommand is merge", err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.runner(cmd.Flags())
			if err != nil {
				return badInput(err)
			}
			s.Log = cmd.ErrOrStderr()
			ctx, stopped := onSignals(cmd.Context())
			var (
				p    *progress
				done atomic.Int64
			)
			s.Started = func(runs int) {
				if runs > 0 {
					p = startProgress(cmd.ErrOrStderr(), progressOf(cmd), "sweep", "runs", int64(runs), "running %d runs with %d jobs", runs, min(f.jobs, runs))
				}
			}
			s.OnRun = func(sweep.Point) { p.setOrFinish(done.Add(1)) } // the last line before the summary and the plots
			err = s.Run(ctx, cmd.OutOrStdout())
			p.finish(finishState(err, ctx.Err() != nil))
			if sig := stopped(); sig != nil {
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "opasim:", err)
				}
				return sig
			}
			return err
		},
	}
	f.register(cmd.Flags())
	registerProgress(cmd.Flags(), "the runs done of those to run")
	cmd.AddCommand(newSweepMergeCmd())
	return cmd
}

// runner builds the grid from the flags, checking every flag, the grid's
// size and every point's config before anything runs.
func (f *sweepFlags) runner(fs *pflag.FlagSet) (*sweep.Runner, error) {
	if f.out == "" {
		return nil, errors.New("--out: a directory is required")
	}
	if f.jobs < 1 {
		return nil, fmt.Errorf("--jobs: %d is not allowed: must be at least 1", f.jobs)
	}
	if fs.Changed("preset") {
		if _, err := topo.LookupPreset(f.run.preset); err != nil {
			return nil, fmt.Errorf("--preset: %q is not allowed: must be one of: %s", f.run.preset, strings.Join(topo.PresetNames(), ", "))
		}
	}
	g, err := f.grid(fs)
	if err != nil {
		return nil, err
	}
	var shard sweep.Shard
	if fs.Changed("shard") {
		if shard, err = sweep.ParseShard(f.shard, g.Size()); err != nil {
			return nil, fmt.Errorf("--shard: %w", err)
		}
	}
	r, err := sweep.New(g, sched.Default(), f.out, f.jobs, simulateSweepRun)
	if err != nil {
		return nil, err
	}
	r.Shard = shard
	return r, nil
}

// newSweepMergeCmd is `opasim sweep merge`: the shards of one sweep into
// the files the sweep run whole writes.
func newSweepMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Combine the outputs of every shard of a sweep (opasim sweep --shard i/N) into its summary.csv, summary.json and plots",
		Long: "Combine the outputs of every shard of a sweep (opasim sweep --shard i/N, each with its own --out) into DIR:\n" +
			"runs/ (copied), summary.csv, summary.json and plots/, the files the same grid run unsharded writes.\n\n" +
			"Refused, before anything is written: a directory without a valid shard.json, shards of different grids or\n" +
			"configs (the differing keys are named), of different N, a shard missing or given twice, and a run missing,\n" +
			"incomplete or of another config. See docs/sweeps.md.",
		Example: "  opasim sweep merge --out sweeps/tree sweeps/tree-shards/0 sweeps/tree-shards/1 sweeps/tree-shards/2",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("merge: want the directories of the shards (each the --out of an opasim sweep --shard i/N); got none")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(errors.New("--out: a directory is required"))
			}
			err := sweep.Merge(args, out, sched.Default(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			if errors.Is(err, sweep.ErrRefused) {
				return badInput(err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for runs/, summary.csv, summary.json and plots/ (required)")
	return cmd
}

// grid reads the axes and the base config; the grid's size is checked
// before the config file is read.
func (f *sweepFlags) grid(fs *pflag.FlagSet) (sweep.Grid, error) {
	var g sweep.Grid
	var err error
	if g.Schedulers, err = sweep.ParseSchedulers(f.schedulers, sched.Default().Names()); err != nil {
		return g, fmt.Errorf("--schedulers: %w", err)
	}
	if g.Loads, err = sweep.ParseLoads(f.loads); err != nil {
		return g, fmt.Errorf("--loads: %w", err)
	}
	if g.Seeds, err = f.seedValues(fs); err != nil {
		return g, err
	}
	if err := g.CheckSize(); err != nil {
		return g, fmt.Errorf("--schedulers, --loads, --seeds: %w", err)
	}
	if g.Base, err = f.run.effective(fs); err != nil {
		return g, err
	}
	if g.Base.Trace.File != "" {
		return g, fmt.Errorf("trace.file %s: a load sweep runs synthetic traffic for a fixed number of cycles; "+
			"for a trace with background traffic use opasim trace sweep", g.Base.Trace.File)
	}
	if !fs.Changed("engine") {
		g.Base.Engine = "sequential"
	}
	g.Topology, g.Traffic = sweep.TopologyLabel(g.Base), sweep.TrafficLabel(g.Base, f.run.traffic)
	return g, nil
}

func (f *sweepFlags) seedValues(fs *pflag.FlagSet) ([]uint64, error) {
	if fs.Changed("seed-list") {
		if fs.Changed("seeds") {
			return nil, errors.New("--seeds and --seed-list: give one of them")
		}
		seeds, err := sweep.ParseSeedList(f.seedList)
		if err != nil {
			return nil, fmt.Errorf("--seed-list: %w", err)
		}
		return seeds, nil
	}
	seeds, err := sweep.SeedRange(f.seeds)
	if err != nil {
		return nil, fmt.Errorf("--seeds: %w", err)
	}
	return seeds, nil
}

// simulateSweepRun runs one point of a sweep with no progress or observer.
func simulateSweepRun(ctx context.Context, cfg fabric.Config) (*sim.Results, error) {
	return simulate(ctx, cfg, sim.Hooks{})
}

func newPlotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plot DIR",
		Short: "Redraw a sweep's plots in DIR/plots from DIR/summary.json, without running anything; plot links draws a run's link utilization",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput(fmt.Errorf("plot: want one argument, the directory of a sweep (its --out); got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sum, err := sweep.ReadSummary(args[0])
			if err != nil {
				return badInput(err)
			}
			err = sweep.WritePlots(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], sum)
			if errors.Is(err, sweep.ErrUndrawable) {
				return badInput(err)
			}
			return err
		},
	}
	cmd.AddCommand(newPlotLinksCmd())
	return cmd
}

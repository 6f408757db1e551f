package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// scenario is one reference workload of `opasim bench`.
type scenario struct {
	name string
	cfg  func() fabric.Config
}

// scenarios are the reference workloads: uniform traffic, 16-flit
// packets, Bernoulli injection, on seed 002's buffers (PERFORMANCE.md's
// anchors, measured with them), and the paper mix on a 3D torus.
func scenarios() []scenario {
	s := []scenario{{"single-switch-48 uniform 0.9", uniformOn("", 0.9)}}
	for _, p := range []string{"tree-8ary-3", "tree-24ary-2"} {
		for _, l := range []float64{0.3, 0.7} {
			s = append(s, scenario{fmt.Sprintf("%s uniform %.1f", p, l), uniformOn(p, l)})
		}
	}
	return append(s, scenario{"torus3d-8x8x4 paper-mix 0.5", func() fabric.Config {
		c := fabric.Default()
		c.Topology.Preset = "torus3d-8x8x4"
		if err := fabric.ApplyTrafficPreset(&c, "paper-mix"); err != nil {
			panic(err) // a built-in preset
		}
		c.Traffic.Load = 0.5
		return c
	}})
}

func uniformOn(preset string, load float64) func() fabric.Config {
	return func() fabric.Config {
		c := fabric.Default()
		if err := fabric.ApplyHardwarePreset(&c, fabric.HardwareSeed002); err != nil {
			panic(err) // a built-in preset
		}
		c.Topology.Preset, c.Traffic.Load, c.Traffic.MessageFlits = preset, load, 16
		return c
	}
}

// benchOptions are the flags of `opasim bench`.
type benchOptions struct {
	cycles  int64
	repeat  int
	procs   []int
	engines []string
	only    string
	metrics bool
	project bool
	// inProcess runs every point in this process, as before whole-process
	// timing: the ratios then compare in-process totals.
	inProcess bool
	// child is the exact scenario a child process runs once (hidden flag).
	child string
}

// maxBenchProcs bounds --procs: far more than any machine's cores.
const maxBenchProcs = 1024

func newBenchCmd() *cobra.Command {
	var o benchOptions
	var procs, engines string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulated cycles/s and delivered flits/s on the reference scenarios",
		Long: "Measure simulated cycles/s and delivered flits/s on the reference scenarios. The runs of a scenario\n" +
			"alternate (every engine and GOMAXPROCS once, then again, --repeat times) and its rows, the medians,\n" +
			"are printed when they are done. Each run is a process of its own (this binary, GOMAXPROCS set in its\n" +
			"environment), timed from its start to its exit as a user waits for it; the ratios compare those\n" +
			"times. --in-process runs them in this process instead (the ratios then compare build plus run).\n" +
			"The default (10,000 cycles, 3 rounds) takes a few minutes on two cores.\n" +
			"--project adds, from the per-window costs of the actor runs at GOMAXPROCS 1 and the most procs, the\n" +
			"projected total time on 4, 8 and 16 workers. Ctrl-C stops after the current run.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.procs, err = parseProcs(procs); err != nil {
				return badInput(err)
			}
			o.engines = strings.Split(engines, ",")
			if err := o.check(); err != nil {
				return badInput(err)
			}
			if o.child != "" {
				return benchChild(cmd.Context(), cmd.OutOrStdout(), o)
			}
			ctx, stopped := onSignals(cmd.Context())
			err = bench(ctx, cmd.OutOrStdout(), o)
			if sig := stopped(); sig != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "opasim: bench stopped; the rows above are complete")
				return sig
			}
			return err
		},
	}
	cmd.Flags().Int64Var(&o.cycles, "cycles", 10000, "cycles per run (a fifth of them warm-up), at least 1000")
	cmd.Flags().IntVar(&o.repeat, "repeat", 3, "runs per point, 1 to 100; the median is reported")
	cmd.Flags().StringVar(&procs, "procs", strconv.Itoa(runtime.GOMAXPROCS(0)), "comma-separated GOMAXPROCS values")
	cmd.Flags().StringVar(&engines, "engines", "sequential,actors", "comma-separated engines")
	cmd.Flags().StringVar(&o.only, "scenario", "", "run only the scenarios whose name contains this")
	cmd.Flags().BoolVar(&o.metrics, "metrics", false, "run with the live metrics observer on (not served), to measure its cost")
	cmd.Flags().BoolVar(&o.project, "project", false, "project the actor engine's time on 4, 8 and 16 workers (needs --procs with 1 and more)")
	cmd.Flags().BoolVar(&o.inProcess, "in-process", false, "run every point in this process (no process start, GOMAXPROCS set at run time)")
	cmd.Flags().StringVar(&o.child, "child", "", "run this scenario once and print its figures as JSON (used by bench itself)")
	_ = cmd.Flags().MarkHidden("child")
	return cmd
}

// check refuses options that would run nothing or far too much.
func (o *benchOptions) check() error {
	if o.cycles < 1000 {
		return fmt.Errorf("--cycles: %d is not allowed: must be at least 1000", o.cycles)
	}
	if o.repeat < 1 || o.repeat > 100 {
		return fmt.Errorf("--repeat: %d is not allowed: must be in [1, 100]", o.repeat)
	}
	for _, e := range o.engines {
		if _, ok := engines[e]; !ok {
			return fmt.Errorf("--engines: %q is not allowed: must be sequential or actors, separated by commas", e)
		}
	}
	if o.project && o.child == "" {
		if o.metrics {
			return fmt.Errorf("--project and --metrics are not allowed together: each is an observer of the run")
		}
		if !slices.Contains(o.procs, 1) || slices.Max(o.procs) < 2 || !slices.Contains(o.engines, "actors") || !slices.Contains(o.engines, "sequential") {
			return fmt.Errorf("--project needs both engines (--engines sequential,actors) and --procs with 1 and a value above 1")
		}
	}
	var names []string
	for _, sc := range scenarios() {
		if o.child != "" {
			if sc.name == o.child {
				if len(o.engines) != 1 {
					return fmt.Errorf("--child needs exactly one engine in --engines")
				}
				return nil
			}
		} else if strings.Contains(sc.name, o.only) {
			return nil
		}
		names = append(names, sc.name)
	}
	if o.child != "" {
		return fmt.Errorf("--child: %q is no scenario; the scenarios are: %s", o.child, strings.Join(names, "; "))
	}
	return fmt.Errorf("--scenario: %q matches no scenario; the scenarios are: %s", o.only, strings.Join(names, "; "))
}

func parseProcs(s string) ([]int, error) {
	var ps []int
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 || p > maxBenchProcs {
			return nil, fmt.Errorf("--procs: %q is not allowed: must be integers in [1, %d] separated by commas", f, maxBenchProcs)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// benchRow is the format of a row of `opasim bench`: fixed widths, so each
// row can be printed as soon as its runs finish.
const benchRow = "%-30s %-10s %10s %12s %12s %8s %8s %9s  %-16s\n"

func bench(ctx context.Context, w io.Writer, o benchOptions) error {
	fmt.Fprintf(w, benchRow, "scenario", "engine", "GOMAXPROCS", "cycles/s", "flits/s", "run s", "total s", "process s", "digest")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sc := range scenarios() {
		if !strings.Contains(sc.name, o.only) {
			continue
		}
		var points []benchPoint
		for _, p := range o.procs {
			for _, e := range o.engines {
				points = append(points, benchPoint{engine: e, procs: p})
			}
		}
		runs := map[benchPoint][]benchRun{}
		for i := 0; i < o.repeat; i++ {
			for _, pt := range points {
				var r benchRun
				var err error
				if o.inProcess {
					runtime.GOMAXPROCS(pt.procs)
					r, err = benchOnce(ctx, sc, pt.engine, o)
				} else {
					r, err = benchProcess(ctx, sc, pt, o)
				}
				if err != nil || ctx.Err() != nil {
					return err
				}
				runs[pt] = append(runs[pt], r)
			}
		}
		medians := map[benchPoint]benchRun{}
		for _, pt := range points {
			r := median(runs[pt])
			medians[pt] = r
			fmt.Fprintf(w, benchRow, sc.name, pt.engine, strconv.Itoa(pt.procs), fmt.Sprintf("%.0f", r.res.CyclesPerSecond),
				fmt.Sprintf("%.0f", r.res.FlitsPerSecond), fmt.Sprintf("%.2f", r.res.WallSeconds),
				fmt.Sprintf("%.2f", r.total.Seconds()), processColumn(r), r.res.Digest)
		}
		printRatios(w, medians, o.procs)
		if o.project {
			a1, am := medians[benchPoint{"actors", 1}], medians[benchPoint{"actors", slices.Max(o.procs)}]
			if m := am.res.Partitions; m < 2 {
				fmt.Fprintf(w, "%-30s no projection: the actor engine ran this network on one partition\n", "")
			} else {
				newProjection(a1.proj, a1.run(), am.proj, am.run(), m, am.whole()-am.run(),
					medians[benchPoint{"sequential", 1}].whole()).print(w)
			}
		}
	}
	return nil
}

// benchPoint is one engine at one GOMAXPROCS.
type benchPoint struct {
	engine string
	procs  int
}

// printRatios prints the actors/sequential ratios of a scenario's times
// (whole process, or in-process totals with --in-process): at each
// GOMAXPROCS, and actors at the most procs against sequential at one (what
// the cores buy).
func printRatios(w io.Writer, medians map[benchPoint]benchRun, procs []int) {
	total := func(e string, p int) float64 { return medians[benchPoint{e, p}].whole().Seconds() }
	var parts []string
	for _, p := range procs {
		a, s := total("actors", p), total("sequential", p)
		if a > 0 && s > 0 {
			parts = append(parts, fmt.Sprintf("%.2f at GOMAXPROCS %d", a/s, p))
		}
	}
	most := slices.Max(procs)
	if a, s := total("actors", most), total("sequential", 1); most > 1 && a > 0 && s > 0 {
		parts = append(parts, fmt.Sprintf("actors at %d / sequential at 1: %.2f", most, a/s))
	}
	if len(parts) > 0 {
		what := "process time"
		for _, r := range medians {
			if r.process == 0 {
				what = "total time"
			}
		}
		fmt.Fprintf(w, "%-30s actors/sequential %s: %s\n", "", what, strings.Join(parts, "; "))
	}
}

// benchRun is one run of a scenario: its results and its total time
// (building the network and running it, what a user waits for apart from
// the process' start), and with --project the per-window costs of an
// actor run.
type benchRun struct {
	res     *sim.Results
	total   time.Duration
	process time.Duration // the whole process, from its start to its exit; 0 in process
	proj    *projector
}

// whole is the time a user waits for the run: the whole process, or the
// in-process total when the run had no process of its own.
func (r benchRun) whole() time.Duration {
	if r.process > 0 {
		return r.process
	}
	return r.total
}

func processColumn(r benchRun) string {
	if r.process == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r.process.Seconds())
}

// run is the engine's run time, without building the network.
func (r benchRun) run() time.Duration { return time.Duration(r.res.WallSeconds * float64(time.Second)) }

// benchOnce builds and runs a scenario once.
func benchOnce(ctx context.Context, sc scenario, engine string, o benchOptions) (benchRun, error) {
	cfg := sc.cfg()
	cfg.Engine, cfg.Cycles, cfg.Warmup = engine, o.cycles, o.cycles/5
	start := time.Now()
	n, err := buildNetwork(cfg)
	if err != nil {
		return benchRun{}, err
	}
	var proj *projector
	obs := benchObserver(o.metrics, n)
	if o.project && engine == "actors" {
		proj = &projector{}
		obs = proj
	}
	r, err := runNetwork(ctx, n, sim.Hooks{Observer: obs})
	if err != nil {
		return benchRun{}, err
	}
	return benchRun{res: r, total: time.Since(start), proj: proj}, nil
}

// median returns the run of median time (whole process, else total).
func median(runs []benchRun) benchRun {
	runs = slices.Clone(runs)
	sort.Slice(runs, func(i, j int) bool { return runs[i].whole() < runs[j].whole() })
	return runs[len(runs)/2]
}

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
// packets, Bernoulli injection (PERFORMANCE.md's anchors).
func scenarios() []scenario {
	s := []scenario{{"single-switch-48 uniform 0.9", uniformOn("", 0.9)}}
	for _, p := range []string{"tree-8ary-3", "tree-24ary-2"} {
		for _, l := range []float64{0.3, 0.7} {
			s = append(s, scenario{fmt.Sprintf("%s uniform %.1f", p, l), uniformOn(p, l)})
		}
	}
	return s
}

func uniformOn(preset string, load float64) func() fabric.Config {
	return func() fabric.Config {
		c := fabric.Default()
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
}

// maxBenchProcs bounds --procs: far more than any machine's cores.
const maxBenchProcs = 1024

func newBenchCmd() *cobra.Command {
	var o benchOptions
	var procs, engines string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulated cycles/s and delivered flits/s on the reference scenarios",
		Long: "Measure simulated cycles/s and delivered flits/s on the reference scenarios, each row printed as it finishes.\n" +
			"The default (10,000 cycles, the median of 3 runs) takes about two minutes on two cores; the figures of\n" +
			"docs/performance.md use --cycles 40000, about four times as long. Ctrl-C stops after the current run.",
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
	var names []string
	for _, sc := range scenarios() {
		if strings.Contains(sc.name, o.only) {
			return nil
		}
		names = append(names, sc.name)
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
const benchRow = "%-30s %-10s %10s %12s %12s %8s %8s  %-16s\n"

func bench(ctx context.Context, w io.Writer, o benchOptions) error {
	fmt.Fprintf(w, benchRow, "scenario", "engine", "GOMAXPROCS", "cycles/s", "flits/s", "run s", "total s", "digest")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sc := range scenarios() {
		if !strings.Contains(sc.name, o.only) {
			continue
		}
		totals := map[string]float64{} // engine@procs -> total seconds
		for _, p := range o.procs {
			for _, e := range o.engines {
				runtime.GOMAXPROCS(p)
				r, err := median(ctx, sc, e, o.cycles, o.repeat, o.metrics)
				if err != nil || ctx.Err() != nil {
					return err
				}
				totals[fmt.Sprintf("%s@%d", e, p)] = r.total.Seconds()
				fmt.Fprintf(w, benchRow, sc.name, e, strconv.Itoa(p), fmt.Sprintf("%.0f", r.res.CyclesPerSecond),
					fmt.Sprintf("%.0f", r.res.FlitsPerSecond), fmt.Sprintf("%.2f", r.res.WallSeconds),
					fmt.Sprintf("%.2f", r.total.Seconds()), r.res.Digest)
			}
		}
		printRatios(w, totals, o.procs)
	}
	return nil
}

// printRatios prints the actors/sequential ratios of total time of a
// scenario: at each GOMAXPROCS, and actors at the most procs against
// sequential at one (what the cores buy).
func printRatios(w io.Writer, totals map[string]float64, procs []int) {
	var parts []string
	for _, p := range procs {
		a, s := totals[fmt.Sprintf("actors@%d", p)], totals[fmt.Sprintf("sequential@%d", p)]
		if a > 0 && s > 0 {
			parts = append(parts, fmt.Sprintf("%.2f at GOMAXPROCS %d", a/s, p))
		}
	}
	most := slices.Max(procs)
	if a, s := totals[fmt.Sprintf("actors@%d", most)], totals["sequential@1"]; most > 1 && a > 0 && s > 0 {
		parts = append(parts, fmt.Sprintf("actors at %d / sequential at 1: %.2f", most, a/s))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "%-30s actors/sequential total time: %s\n", "", strings.Join(parts, "; "))
	}
}

// benchRun is one run of a scenario: its results and its total time
// (building the network and running it, what a user waits for apart from
// the process' start).
type benchRun struct {
	res   *sim.Results
	total time.Duration
}

// median runs a scenario repeat times and returns the run of median total
// time.
func median(ctx context.Context, sc scenario, engine string, cycles int64, repeat int, metrics bool) (benchRun, error) {
	var runs []benchRun
	for i := 0; i < max(repeat, 1) && ctx.Err() == nil; i++ {
		cfg := sc.cfg()
		cfg.Engine, cfg.Cycles, cfg.Warmup = engine, cycles, cycles/5
		start := time.Now()
		n, err := buildNetwork(cfg)
		if err != nil {
			return benchRun{}, err
		}
		r, err := runNetwork(ctx, n, sim.Hooks{Observer: benchObserver(metrics, n)})
		if err != nil {
			return benchRun{}, err
		}
		runs = append(runs, benchRun{res: r, total: time.Since(start)})
	}
	if len(runs) == 0 {
		return benchRun{}, ctx.Err()
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].total < runs[j].total })
	return runs[len(runs)/2], nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

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

func newBenchCmd() *cobra.Command {
	var cycles int64
	var repeat int
	var procs, engines, only string
	var metrics bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulated cycles/s and delivered flits/s on the reference scenarios",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ps, err := parseProcs(procs)
			if err != nil {
				return badInput(err)
			}
			return bench(cmd.Context(), cmd.OutOrStdout(), cycles, repeat, ps, strings.Split(engines, ","), only, metrics)
		},
	}
	cmd.Flags().Int64Var(&cycles, "cycles", 40000, "cycles per run (a fifth of them warm-up)")
	cmd.Flags().IntVar(&repeat, "repeat", 3, "runs per point; the median is reported")
	cmd.Flags().StringVar(&procs, "procs", strconv.Itoa(runtime.GOMAXPROCS(0)), "comma-separated GOMAXPROCS values")
	cmd.Flags().StringVar(&engines, "engines", "sequential,actors", "comma-separated engines")
	cmd.Flags().StringVar(&only, "scenario", "", "run only the scenarios whose name contains this")
	cmd.Flags().BoolVar(&metrics, "metrics", false, "run with the live metrics observer on (not served), to measure its cost")
	return cmd
}

func parseProcs(s string) ([]int, error) {
	var ps []int
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 {
			return nil, fmt.Errorf("--procs: %q is not allowed: must be positive integers separated by commas", f)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func bench(ctx context.Context, w io.Writer, cycles int64, repeat int, procs []int, engines []string, only string, metrics bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tengine\tGOMAXPROCS\tcycles/s\tflits/s\twall s\tdigest\t")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sc := range scenarios() {
		if !strings.Contains(sc.name, only) {
			continue
		}
		for _, p := range procs {
			for _, e := range engines {
				runtime.GOMAXPROCS(p)
				r, err := median(ctx, sc, e, cycles, repeat, metrics)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.0f\t%.2f\t%s\t\n", sc.name, e, p, r.CyclesPerSecond, r.FlitsPerSecond, r.WallSeconds, r.Digest)
			}
		}
	}
	return tw.Flush()
}

// median runs a scenario repeat times and returns the run of median speed.
func median(ctx context.Context, sc scenario, engine string, cycles int64, repeat int, metrics bool) (*sim.Results, error) {
	var runs []*sim.Results
	for i := 0; i < max(repeat, 1); i++ {
		cfg := sc.cfg()
		cfg.Engine, cfg.Cycles, cfg.Warmup = engine, cycles, cycles/5
		n, err := buildNetwork(cfg)
		if err != nil {
			return nil, err
		}
		r, err := runNetwork(ctx, n, sim.Hooks{Observer: benchObserver(metrics, n)})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].CyclesPerSecond < runs[j].CyclesPerSecond })
	return runs[len(runs)/2], nil
}

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/flow/scale"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/sweep"
)

// flowScaleOptions holds the flags of `opasim flow scale`.
type flowScaleOptions struct {
	out, pattern          string
	families              []string
	maxServers, perServer int
	workers               int
	budgetMB              int64
	seed                  uint64
	progress              *progressFlags
}

func newFlowScaleCmd() *cobra.Command {
	var o flowScaleOptions
	cmd := &cobra.Command{
		Use:   "scale",
		Short: "Scalability study (seed 001 Fig. 7): throughput of topology families against their endpoints",
		Long: `Runs the static engine on every instance of each topology family up to --max-servers endpoints,
under one pattern (seed 001: random uniform), and writes scale.csv, scale.json and the figures
non-restricted, restricted and their per-port versions (PNG and SVG) to --out.

Families: ` + strings.Join(scale.FamilyNames(), ", ") + ` (docs/flow-studies.md lists their instances).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFlowScale(cmd, &o) },
	}
	registerFlowScaleFlags(cmd.Flags(), &o)
	return cmd
}

// registerFlowScaleFlags registers the flags of `opasim flow scale` on fl.
func registerFlowScaleFlags(fl *pflag.FlagSet, o *flowScaleOptions) {
	fl.StringVar(&o.out, "out", "", "directory for scale.csv, scale.json and the figures (required)")
	fl.StringSliceVar(&o.families, "families", nil, "families to run (default: all)")
	fl.IntVar(&o.maxServers, "max-servers", 70000, "largest instance, in endpoints")
	fl.StringVar(&o.pattern, "pattern", "uniform", "traffic pattern")
	fl.IntVar(&o.perServer, "flows-per-server", 1, "uniform and the like: flows a server")
	fl.IntVar(&o.workers, "workers", 0, "goroutines routing flows (0: one per core)")
	fl.Int64Var(&o.budgetMB, "memory-budget-mb", 0, "refuse a study whose largest instance is estimated to take more memory than this, in MiB, before it starts (0: this machine's memory)")
	fl.Uint64Var(&o.seed, "seed", 1, "seed of the pattern and the random topologies")
	o.progress = registerProgress(fl, "the instances measured of the total")
}

// runFlowScale runs `opasim flow scale`: it checks the study, measures
// every instance, printing a line each, and writes the results.
func runFlowScale(cmd *cobra.Command, o *flowScaleOptions) error {
	fams, pat, err := checkFlowScale(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	ctx, stopped := onSignals(cmd.Context())
	instances := 0
	for _, f := range fams {
		instances += len(f.Sizes)
	}
	bar := startProgress(cmd.ErrOrStderr(), o.progress, "flow scale", "instances", int64(instances), "measuring %d instances of %d families", instances, len(fams)).withTenths()
	done := 0
	pts, err := scale.Run(ctx, fams, pat, o.seed, o.workers, func(p scale.Point) {
		done++
		bar.set(int64(done), int64(instances))
		fmt.Fprintf(w, "%-14s %-44s %9d servers  NR %12.6g  R %12.6g  per port %.4f / %.4f  (%.2f s)\n",
			p.Family, p.Topology, p.Servers, p.NonRestricted, p.Restricted, p.NonRestrictedPerPort, p.RestrictedPerPort, p.Seconds)
	})
	bar.finish(finishState(err, ctx.Err() != nil))
	sig := stopped()
	if err != nil {
		return badInput(err)
	}
	if sig != nil {
		fmt.Fprintf(w, "INTERRUPTED: %d instances measured (the one under way left out); scale.csv, scale.json and the figures hold those\n", len(pts))
	}
	if err := writeScale(o.out, pts); err != nil {
		return err
	}
	return sig
}

// checkFlowScale checks the flags of `opasim flow scale` and the size of
// every instance of the study before any is built; it returns the
// families and the pattern, and sets --workers 0 to one per core.
func checkFlowScale(o *flowScaleOptions) ([]scale.Family, workload.Spec, error) {
	if o.out == "" {
		return nil, workload.Spec{}, badInput(fmt.Errorf("--out: a directory is required"))
	}
	if o.maxServers < 2 {
		return nil, workload.Spec{}, badInput(fmt.Errorf("--max-servers: %d is not allowed: must be at least 2", o.maxServers))
	}
	if o.workers < 0 || o.workers > 256 {
		return nil, workload.Spec{}, badInput(fmt.Errorf("--workers: %d is not allowed: must be in [0, 256] (0: one per core)", o.workers))
	}
	if o.workers == 0 {
		o.workers = runtime.GOMAXPROCS(0)
	}
	fams, err := scale.Families(o.families, o.maxServers)
	if err != nil {
		return nil, workload.Spec{}, badInput(err)
	}
	budget, err := spec.NewBudget(o.budgetMB)
	if err != nil {
		return nil, workload.Spec{}, badInput(err)
	}
	for _, f := range fams { // every instance counted before any is built
		for _, t := range f.Sizes {
			if err := (spec.Config{Topology: t, Workers: o.workers}).CheckSize(budget); err != nil {
				return nil, workload.Spec{}, badInput(fmt.Errorf("--max-servers %d: family %s: %w; give a smaller --max-servers", o.maxServers, f.Name, err))
			}
		}
	}
	pat := workload.Spec{Name: o.pattern, FlowsPerServer: o.perServer}
	if _, err := workload.Build(pat, 64, o.seed); err != nil {
		return nil, workload.Spec{}, badInput(err)
	}
	return fams, pat, nil
}

// writeScale writes the points as CSV and JSON and draws the figures.
func writeScale(dir string, pts []scale.Point) error {
	data, err := json.MarshalIndent(pts, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "scale.json"), append(data, '\n')); err != nil {
		return err
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"family", "topology", "servers", "switches", "links", "routing", "flows", "max_load", "mean_hops",
		"non_restricted", "restricted", "non_restricted_per_port", "restricted_per_port", "seconds"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range pts {
		_ = cw.Write([]string{p.Family, p.Topology, strconv.Itoa(p.Servers), strconv.Itoa(p.Switches), strconv.Itoa(p.Links), p.Routing,
			strconv.FormatInt(p.Flows, 10), g(p.MaxLoad), g(p.MeanHops), g(p.NonRestricted), g(p.Restricted),
			g(p.NonRestrictedPerPort), g(p.RestrictedPerPort), g(p.Seconds)})
	}
	cw.Flush()
	if err := writeFileAtomic(filepath.Join(dir, "scale.csv"), []byte(b.String())); err != nil {
		return err
	}
	for _, fig := range []struct {
		name, label string
		y           func(scale.Point) float64
	}{
		{"non-restricted", "aggregate non-restricted throughput", func(p scale.Point) float64 { return p.NonRestricted }},
		{"restricted", "aggregate restricted throughput", func(p scale.Point) float64 { return p.Restricted }},
		{"non-restricted-per-port", "non-restricted throughput per port", func(p scale.Point) float64 { return p.NonRestrictedPerPort }},
		{"restricted-per-port", "restricted throughput per port", func(p scale.Point) float64 { return p.RestrictedPerPort }},
	} {
		var lines []sweep.Line
		for _, p := range pts {
			if len(lines) == 0 || lines[len(lines)-1].Name != p.Family {
				lines = append(lines, sweep.Line{Name: p.Family})
			}
			l := &lines[len(lines)-1]
			l.X, l.Y = append(l.X, float64(p.Servers)), append(l.Y, fig.y(p))
		}
		f := sweep.LineFigure{Title: "Scalability: " + fig.label, XLabel: "endpoints", YLabel: fig.label + " (link capacities)",
			LogX: true, LogY: true, Lines: lines}
		if _, err := sweep.WriteLines(f, filepath.Join(dir, fig.name)); err != nil && err != sweep.ErrNoPoints {
			return err
		}
	}
	return nil
}

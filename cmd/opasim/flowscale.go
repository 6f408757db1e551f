package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/flow/scale"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/sweep"
)

func newFlowScaleCmd() *cobra.Command {
	var (
		out, pattern          string
		families              []string
		maxServers, perServer int
		workers               int
		budgetMB              int64
		seed                  uint64
		progress              *progressFlags
	)
	cmd := &cobra.Command{
		Use:   "scale",
		Short: "Scalability study (seed 001 Fig. 7): throughput of topology families against their endpoints",
		Long: `Runs the static engine on every instance of each topology family up to --max-servers endpoints,
under one pattern (seed 001: random uniform), and writes scale.csv, scale.json and the figures
non-restricted, restricted and their per-port versions (PNG and SVG) to --out.

Families: ` + strings.Join(scale.FamilyNames(), ", ") + ` (docs/flow-studies.md lists their instances).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return badInput(fmt.Errorf("--out: a directory is required"))
			}
			if maxServers < 2 {
				return badInput(fmt.Errorf("--max-servers: %d is not allowed: must be at least 2", maxServers))
			}
			if workers < 0 || workers > 256 {
				return badInput(fmt.Errorf("--workers: %d is not allowed: must be in [0, 256] (0: one per core)", workers))
			}
			if workers == 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			fams, err := scale.Families(families, maxServers)
			if err != nil {
				return badInput(err)
			}
			budget, err := spec.NewBudget(budgetMB)
			if err != nil {
				return badInput(err)
			}
			for _, f := range fams { // every instance counted before any is built
				for _, t := range f.Sizes {
					if err := (spec.Config{Topology: t, Workers: workers}).CheckSize(budget); err != nil {
						return badInput(fmt.Errorf("--max-servers %d: family %s: %w; give a smaller --max-servers", maxServers, f.Name, err))
					}
				}
			}
			spec := workload.Spec{Name: pattern, FlowsPerServer: perServer}
			if _, err := workload.Build(spec, 64, seed); err != nil {
				return badInput(err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			ctx, stopped := onSignals(cmd.Context())
			instances := 0
			for _, f := range fams {
				instances += len(f.Sizes)
			}
			bar := startProgress(cmd.ErrOrStderr(), progress, "flow scale", "instances", int64(instances), "measuring %d instances of %d families", instances, len(fams)).withTenths()
			done := 0
			pts, err := scale.Run(ctx, fams, spec, seed, workers, func(p scale.Point) {
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
			if err := writeScale(out, pts); err != nil {
				return err
			}
			return sig
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "directory for scale.csv, scale.json and the figures (required)")
	fl.StringSliceVar(&families, "families", nil, "families to run (default: all)")
	fl.IntVar(&maxServers, "max-servers", 70000, "largest instance, in endpoints")
	fl.StringVar(&pattern, "pattern", "uniform", "traffic pattern")
	fl.IntVar(&perServer, "flows-per-server", 1, "uniform and the like: flows a server")
	fl.IntVar(&workers, "workers", 0, "goroutines routing flows (0: one per core)")
	fl.Int64Var(&budgetMB, "memory-budget-mb", 0, "refuse a study whose largest instance is estimated to take more memory than this, in MiB, before it starts (0: this machine's memory)")
	fl.Uint64Var(&seed, "seed", 1, "seed of the pattern and the random topologies")
	progress = registerProgress(fl, "the instances measured of the total")
	return cmd
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

func newFlowAppsCmd() *cobra.Command {
	var (
		out, size, routings string
		multipath           string
		apps, topos, merge  []string
		limit               time.Duration
		seed                uint64
		quantum             float64
		progress            *progressFlags
	)
	cmd := &cobra.Command{
		Use:   "apps",
		Short: "Application study (seed 001 Figs. 8 and 9): execution times on topologies of about 4,096 (or 65,536) servers, and the effect of multipath routing",
		Long: `Runs each application model (stencil3d, sweep2d, nbody, mapreduce, unstructured, dcntraffic) on a 3D and a 6D
torus, a fat tree, 2:1 and 4:1 thin trees, a dragonfly and a jellyfish of about 4,096 servers (--servers 64k:
about 65,536) with their own routing, and on the fat tree, the thin trees and the jellyfish with ECMP over 4
paths too (--multipath ksp: the 4 shortest paths instead). Writes apps.csv, apps.json, normalized.png (execution time over the fat tree's, per application)
and multipath.png (the single-path time over the multipath time) to --out. A run longer than --run-limit is
stopped, reported as not finished (with the flows completed and the last one's time) and left out of the
figures; the study goes on with the next run. --start-quantum starts flows on a grid (a cheaper model whose
error docs/flow.md measures, for runs whose cost is one solve per start time); the CSV and JSON record it.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return badInput(fmt.Errorf("--out: a directory is required"))
			}
			if len(merge) > 0 {
				return mergeApps(out, merge)
			}
			ts, as, err := appsStudy(size, topos, apps)
			if err != nil {
				return badInput(err)
			}
			if limit < 0 {
				return badInput(fmt.Errorf("--run-limit: %v is not allowed: must be at least 0 (0: no limit)", limit))
			}
			if !(quantum >= 0) || quantum > 1e300 {
				return badInput(fmt.Errorf("--start-quantum: %v is not allowed: must be in [0, 1e300] (0: exact start times)", quantum))
			}
			if !slices.Contains([]string{scale.MultipathECMP, scale.MultipathKSP}, multipath) {
				return badInput(fmt.Errorf("--multipath: %q is not allowed: must be one of %s, %s", multipath, scale.MultipathECMP, scale.MultipathKSP))
			}
			if !slices.Contains([]string{scale.RoutingsBoth, scale.RoutingsSingle, scale.RoutingsMultipath}, routings) {
				return badInput(fmt.Errorf("--routings: %q is not allowed: must be one of %s, %s, %s", routings, scale.RoutingsBoth, scale.RoutingsSingle, scale.RoutingsMultipath))
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			ctx, stopped := onSignals(cmd.Context())
			runs := appRuns(ts, len(as), routings)
			bar := startProgress(cmd.ErrOrStderr(), progress, "flow apps", "runs", int64(runs), "running %d applications on %d topologies (%d runs)", len(as), len(ts), runs).withTenths()
			done := 0
			pts, err := scale.RunAppsWith(ctx, ts, as, scale.AppOptions{Seed: seed, RunLimit: limit, Routings: routings, StartQuantum: quantum, Multipath: multipath,
				Done: func(p scale.AppPoint) {
					done++
					bar.set(int64(done), 0)
					fmt.Fprintln(w, appLine(p))
				}})
			bar.finish(finishState(err, ctx.Err() != nil))
			sig := stopped()
			if err != nil {
				return err
			}
			if sig != nil {
				fmt.Fprintf(w, "INTERRUPTED: %d runs reported; apps.csv, apps.json and the figures hold those\n", len(pts))
			}
			if err := writeApps(out, pts); err != nil {
				return err
			}
			return sig
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for apps.csv, apps.json and the figures (required)")
	cmd.Flags().StringVar(&size, "servers", scale.Study4k, "the study's size: "+strings.Join(scale.StudySizes(), " or ")+" servers (about)")
	cmd.Flags().DurationVar(&limit, "run-limit", 0, "stop a run after this wall time and report it not finished (0: no limit)")
	cmd.Flags().StringVar(&multipath, "multipath", scale.MultipathECMP, "the multipath routing: ecmp (over 4 paths) or ksp (the 4 shortest paths)")
	cmd.Flags().StringVar(&routings, "routings", scale.RoutingsBoth, "which routings to run: both (each topology's own and its multipath one), single or multipath")
	cmd.Flags().StringSliceVar(&apps, "apps", nil, "only these applications of the study (default all)")
	cmd.Flags().StringSliceVar(&topos, "topologies", nil, "only these topologies of the study (default all)")
	cmd.Flags().StringSliceVar(&merge, "merge", nil, "run nothing: write the points of these directories' apps.json together, and their figures, to --out")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the random topologies")
	cmd.Flags().Float64Var(&quantum, "start-quantum", 0, "round every flow's start time up to a multiple of this (0: exact; a cheaper model, see docs/flow.md)")
	progress = registerProgress(cmd.Flags(), "the runs (an application on a topology with a routing) finished of the total; each run's line follows on stdout")
	return cmd
}

// mergeApps writes the points of several runs of the study (each
// directory's apps.json, in the order given) to out with their figures:
// a study run in parts, the cheap applications first, drawn as one.
func mergeApps(out string, dirs []string) error {
	var all []scale.AppPoint
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "apps.json"))
		if err != nil {
			return badInput(fmt.Errorf("--merge: %w", err))
		}
		var pts []scale.AppPoint
		if err := json.Unmarshal(data, &pts); err != nil {
			return badInput(fmt.Errorf("--merge: %s: %w", filepath.Join(d, "apps.json"), err))
		}
		all = append(all, pts...)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return writeApps(out, all)
}

// appsStudy returns the study of the given size, restricted to the named
// topologies and applications if any are named (each must be in it).
func appsStudy(size string, topos, apps []string) ([]scale.Topo, []workload.App, error) {
	ts, as, err := scale.StudyOf(size)
	if err != nil {
		return nil, nil, fmt.Errorf("--servers: %w", err)
	}
	var tnames, anames []string
	for _, t := range ts {
		tnames = append(tnames, t.Name)
	}
	for _, a := range as {
		anames = append(anames, a.Name())
	}
	for _, t := range topos {
		if !slices.Contains(tnames, t) {
			return nil, nil, fmt.Errorf("--topologies: %q is not allowed: must be among %s", t, strings.Join(tnames, ", "))
		}
	}
	for _, a := range apps {
		if !slices.Contains(anames, a) {
			return nil, nil, fmt.Errorf("--apps: %q is not allowed: must be among %s", a, strings.Join(anames, ", "))
		}
	}
	if len(topos) > 0 {
		ts = slices.DeleteFunc(ts, func(t scale.Topo) bool { return !slices.Contains(topos, t.Name) })
	}
	if len(apps) > 0 {
		as = slices.DeleteFunc(as, func(a workload.App) bool { return !slices.Contains(apps, a.Name()) })
	}
	return ts, as, nil
}

// appLine is the line printed after a run: its execution time, or how far
// it got if it did not finish.
func appLine(p scale.AppPoint) string {
	head := fmt.Sprintf("%-14s %-19s %-9s %9d flows  ", p.Topology, p.App, p.Routing, p.Flows)
	times := fmt.Sprintf("(%.2f s, %.2f CPU-s)", p.Seconds, p.CPUSeconds)
	if p.StartQuantum > 0 {
		times += fmt.Sprintf(" starts on a grid of %g", p.StartQuantum)
	}
	if p.Unfinished && p.Interrupted {
		return head + fmt.Sprintf("INTERRUPTED: %d of %d flows completed, the last at time %.6g  %s", p.Completed, p.Flows, p.Reached, times)
	}
	if p.Unfinished {
		return head + fmt.Sprintf("NOT FINISHED within the run limit: %d of %d flows completed, the last at time %.6g  %s", p.Completed, p.Flows, p.Reached, times)
	}
	return head + fmt.Sprintf("execution time %12.6g  %s", p.Makespan, times)
}

// ecmpName is the study's own multipath routing's name: its bars are named
// by topology alone.
const ecmpName = "ecmp-4"

// writeApps writes the points and the two figures: execution time over
// the fat tree's (single path) per application, and the multipath
// speed-up.
func writeApps(dir string, pts []scale.AppPoint) error {
	data, err := json.MarshalIndent(pts, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "apps.json"), append(data, '\n')); err != nil {
		return err
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"topology", "app", "routing", "multipath", "servers", "flows", "execution_time", "seconds", "cpu_seconds",
		"finished", "reached", "completed", "start_quantum"})
	for _, p := range pts {
		_ = cw.Write([]string{p.Topology, p.App, p.Routing, strconv.FormatBool(p.Multipath), strconv.Itoa(p.Servers), strconv.Itoa(p.Flows),
			strconv.FormatFloat(p.Makespan, 'g', -1, 64), strconv.FormatFloat(p.Seconds, 'g', 4, 64), strconv.FormatFloat(p.CPUSeconds, 'g', 4, 64),
			strconv.FormatBool(!p.Unfinished), strconv.FormatFloat(p.Reached, 'g', -1, 64), strconv.Itoa(p.Completed),
			strconv.FormatFloat(p.StartQuantum, 'g', -1, 64)})
	}
	cw.Flush()
	if err := writeFileAtomic(filepath.Join(dir, "apps.csv"), []byte(b.String())); err != nil {
		return err
	}
	var apps, topos []string
	multis := map[string][]string{} // per topology, its multipath routings in the order met
	single := map[[2]string]float64{}
	multi := map[[3]string]float64{} // topology, routing, app
	for _, p := range pts {
		if !slices.Contains(apps, p.App) {
			apps = append(apps, p.App)
		}
		if !slices.Contains(topos, p.Topology) {
			topos = append(topos, p.Topology)
		}
		if p.Multipath && !slices.Contains(multis[p.Topology], p.Routing) {
			multis[p.Topology] = append(multis[p.Topology], p.Routing)
		}
		if p.Unfinished {
			continue // not a result: no bar
		}
		if p.Multipath {
			multi[[3]string{p.Topology, p.Routing, p.App}] = p.Makespan
		} else {
			single[[2]string{p.Topology, p.App}] = p.Makespan
		}
	}
	title := "Multipath (ECMP, 4 paths): speed-up over single-path routing"
	for _, rs := range multis {
		if slices.ContainsFunc(rs, func(r string) bool { return r != ecmpName }) {
			title = "Multipath (ECMP over 4 paths unless named): speed-up over single-path routing"
		}
	}
	norm := sweep.BarFigure{Title: "Execution time relative to the fat tree (single-path routing)", YLabel: "normalized execution time", Groups: apps}
	speed := sweep.BarFigure{Title: title, YLabel: "single-path time / multipath time", Groups: apps}
	for _, t := range topos {
		ln := sweep.Line{Name: t}
		for _, a := range apps {
			ln.Y = append(ln.Y, single[[2]string{t, a}]/single[[2]string{"fat-tree", a}])
		}
		norm.Series = append(norm.Series, ln)
		for _, r := range multis[t] {
			lm := sweep.Line{Name: t}
			if r != ecmpName {
				lm.Name += " " + r
			}
			hasMulti := false
			for _, a := range apps {
				m, ok := multi[[3]string{t, r, a}]
				hasMulti = hasMulti || ok
				lm.Y = append(lm.Y, single[[2]string{t, a}]/m)
			}
			if hasMulti {
				speed.Series = append(speed.Series, lm)
			}
		}
	}
	if _, err := sweep.WriteBars(norm, filepath.Join(dir, "normalized")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	if _, err := sweep.WriteBars(speed, filepath.Join(dir, "multipath")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	return nil
}

// appRuns is how many runs `flow apps` makes: each application on each
// topology with each routing --routings selects (its own; its multipath
// one, for a topology in the multipath comparison), as scale.RunAppsWith
// runs them.
func appRuns(ts []scale.Topo, apps int, routings string) int {
	n := 0
	for _, t := range ts {
		switch {
		case routings == scale.RoutingsSingle:
			n++
		case routings == scale.RoutingsMultipath:
			if t.Multipath != nil {
				n++
			}
		default:
			n++
			if t.Multipath != nil {
				n++
			}
		}
	}
	return n * apps
}

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/flow/scale"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/sweep"
)

// flowAppsOptions holds the flags of `opasim flow apps`.
type flowAppsOptions struct {
	out, size, routings string
	multipath           string
	apps, topos, merge  []string
	limit               time.Duration
	seed                uint64
	quantum             float64
	progress            *progressFlags
}

func newFlowAppsCmd() *cobra.Command {
	var o flowAppsOptions
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runFlowApps(cmd, &o) },
	}
	registerFlowAppsFlags(cmd.Flags(), &o)
	return cmd
}

// registerFlowAppsFlags registers the flags of `opasim flow apps` on fl.
func registerFlowAppsFlags(fl *pflag.FlagSet, o *flowAppsOptions) {
	fl.StringVar(&o.out, "out", "", "directory for apps.csv, apps.json and the figures (required)")
	fl.StringVar(&o.size, "servers", scale.Study4k, "the study's size: "+strings.Join(scale.StudySizes(), " or ")+" servers (about)")
	fl.DurationVar(&o.limit, "run-limit", 0, "stop a run after this wall time and report it not finished (0: no limit)")
	fl.StringVar(&o.multipath, "multipath", scale.MultipathECMP, "the multipath routing: ecmp (over 4 paths) or ksp (the 4 shortest paths)")
	fl.StringVar(&o.routings, "routings", scale.RoutingsBoth, "which routings to run: both (each topology's own and its multipath one), single or multipath")
	fl.StringSliceVar(&o.apps, "apps", nil, "only these applications of the study (default all)")
	fl.StringSliceVar(&o.topos, "topologies", nil, "only these topologies of the study (default all)")
	fl.StringSliceVar(&o.merge, "merge", nil, "run nothing: write the points of these directories' apps.json together, and their figures, to --out")
	fl.Uint64Var(&o.seed, "seed", 1, "seed of the random topologies")
	fl.Float64Var(&o.quantum, "start-quantum", 0, "round every flow's start time up to a multiple of this (0: exact; a cheaper model, see docs/flow.md)")
	o.progress = registerProgress(fl, "the runs (an application on a topology with a routing) finished of the total; each run's line follows on stdout")
}

// runFlowApps runs `opasim flow apps`: it merges earlier runs with
// --merge, or checks the study, runs it, printing a line a run, and
// writes the results.
func runFlowApps(cmd *cobra.Command, o *flowAppsOptions) error {
	if o.out == "" {
		return badInput(fmt.Errorf("--out: a directory is required"))
	}
	if len(o.merge) > 0 {
		return mergeApps(o.out, o.merge)
	}
	ts, as, err := appsStudy(o.size, o.topos, o.apps)
	if err != nil {
		return badInput(err)
	}
	if err := checkFlowAppsFlags(o); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	ctx, stopped := onSignals(cmd.Context())
	runs := appRuns(ts, len(as), o.routings)
	bar := startProgress(cmd.ErrOrStderr(), o.progress, "flow apps", "runs", int64(runs), "running %d applications on %d topologies (%d runs)", len(as), len(ts), runs).withTenths()
	done := 0
	pts, err := scale.RunAppsWith(ctx, ts, as, scale.AppOptions{Seed: o.seed, RunLimit: o.limit, Routings: o.routings, StartQuantum: o.quantum, Multipath: o.multipath,
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
	if err := writeApps(o.out, pts); err != nil {
		return err
	}
	return sig
}

// checkFlowAppsFlags checks --run-limit, --start-quantum, --multipath and
// --routings.
func checkFlowAppsFlags(o *flowAppsOptions) error {
	if o.limit < 0 {
		return badInput(fmt.Errorf("--run-limit: %v is not allowed: must be at least 0 (0: no limit)", o.limit))
	}
	if !(o.quantum >= 0) || o.quantum > 1e300 {
		return badInput(fmt.Errorf("--start-quantum: %v is not allowed: must be in [0, 1e300] (0: exact start times)", o.quantum))
	}
	if !slices.Contains([]string{scale.MultipathECMP, scale.MultipathKSP}, o.multipath) {
		return badInput(fmt.Errorf("--multipath: %q is not allowed: must be one of %s, %s", o.multipath, scale.MultipathECMP, scale.MultipathKSP))
	}
	if !slices.Contains([]string{scale.RoutingsBoth, scale.RoutingsSingle, scale.RoutingsMultipath}, o.routings) {
		return badInput(fmt.Errorf("--routings: %q is not allowed: must be one of %s, %s, %s", o.routings, scale.RoutingsBoth, scale.RoutingsSingle, scale.RoutingsMultipath))
	}
	return nil
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
	if err := writeAppsData(dir, pts); err != nil {
		return err
	}
	norm, speed := appsFigures(pts)
	if _, err := sweep.WriteBars(norm, filepath.Join(dir, "normalized")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	if _, err := sweep.WriteBars(speed, filepath.Join(dir, "multipath")); err != nil && err != sweep.ErrNoPoints {
		return err
	}
	return nil
}

// writeAppsData writes the points to apps.json and apps.csv.
func writeAppsData(dir string, pts []scale.AppPoint) error {
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
	return writeFileAtomic(filepath.Join(dir, "apps.csv"), []byte(b.String()))
}

// appsTimes is the points of the study by topology, routing and
// application, in the order met.
type appsTimes struct {
	apps, topos []string
	multis      map[string][]string // per topology, its multipath routings in the order met
	single      map[[2]string]float64
	multi       map[[3]string]float64 // topology, routing, app
}

// appsTimesOf indexes the points; an unfinished run has no time.
func appsTimesOf(pts []scale.AppPoint) *appsTimes {
	t := &appsTimes{multis: map[string][]string{}, single: map[[2]string]float64{}, multi: map[[3]string]float64{}}
	for _, p := range pts {
		if !slices.Contains(t.apps, p.App) {
			t.apps = append(t.apps, p.App)
		}
		if !slices.Contains(t.topos, p.Topology) {
			t.topos = append(t.topos, p.Topology)
		}
		if p.Multipath && !slices.Contains(t.multis[p.Topology], p.Routing) {
			t.multis[p.Topology] = append(t.multis[p.Topology], p.Routing)
		}
		if p.Unfinished {
			continue // not a result: no bar
		}
		if p.Multipath {
			t.multi[[3]string{p.Topology, p.Routing, p.App}] = p.Makespan
		} else {
			t.single[[2]string{p.Topology, p.App}] = p.Makespan
		}
	}
	return t
}

// appsFigures is the two figures of the study: execution time over the
// fat tree's (single path) per application, and the multipath speed-up.
func appsFigures(pts []scale.AppPoint) (norm, speed sweep.BarFigure) {
	x := appsTimesOf(pts)
	apps, single, multi := x.apps, x.single, x.multi
	title := "Multipath (ECMP, 4 paths): speed-up over single-path routing"
	for _, rs := range x.multis {
		if slices.ContainsFunc(rs, func(r string) bool { return r != ecmpName }) {
			title = "Multipath (ECMP over 4 paths unless named): speed-up over single-path routing"
		}
	}
	norm = sweep.BarFigure{Title: "Execution time relative to the fat tree (single-path routing)", YLabel: "normalized execution time", Groups: apps}
	speed = sweep.BarFigure{Title: title, YLabel: "single-path time / multipath time", Groups: apps}
	for _, t := range x.topos {
		ln := sweep.Line{Name: t}
		for _, a := range apps {
			ln.Y = append(ln.Y, single[[2]string{t, a}]/single[[2]string{"fat-tree", a}])
		}
		norm.Series = append(norm.Series, ln)
		for _, r := range x.multis[t] {
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
	return norm, speed
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

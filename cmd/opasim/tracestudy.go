package main

// `opasim trace compare` and `opasim trace sweep`: the execution time of a
// trace against a baseline, and seed 000 section 4.3's experiment.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/sweep"
	"github.com/opasim/opasim/workloads/vef"
)

func newTraceCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare RESULTS BASELINE",
		Short: "A trace run's execution time normalized to a baseline run's (two results JSON files of opasim run --out)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ex [2]int64
			for i, path := range args {
				t, err := readTraceResult(path)
				if err != nil {
					return badInput(err)
				}
				ex[i] = t.ExecutionCycles
			}
			fmt.Fprintf(cmd.OutOrStdout(), "execution %d cycles, baseline %d cycles: normalized execution time %.2f%%\n",
				ex[0], ex[1], 100*float64(ex[0])/float64(ex[1]))
			return nil
		},
	}
}

// readTraceResult reads the trace part of a results JSON file: it must
// hold a trace that finished.
func readTraceResult(path string) (*sim.TraceResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r sim.Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results file: %w", path, err)
	}
	switch {
	case r.Trace == nil:
		return nil, fmt.Errorf("%s: a run without a trace (no \"trace\" in its results)", path)
	case !r.Trace.Finished || r.Trace.ExecutionCycles <= 0:
		return nil, fmt.Errorf("%s: its trace did not finish: no execution time", path)
	}
	return r.Trace, nil
}

// traceSweepFlags are the flags of `opasim trace sweep`.
type traceSweepFlags struct {
	preset, config, loads, sls, scheduler, baseline, out, engine string
	jobs                                                         int
	seed                                                         uint64
}

func newTraceSweepCmd() *cobra.Command {
	var f traceSweepFlags
	cmd := &cobra.Command{
		Use:   "sweep TRACE...",
		Short: "Seed 000 section 4.3: each trace with CBR background in another SL, normalized to the trace alone (Figs. 5 and 6)",
		Long: "Seed 000 section 4.3 (Figs. 5 and 6). For each trace and each SL of --sls: a baseline run, the trace alone in that\n" +
			"SL under --baseline; then the trace in that SL with CBR background traffic (the paper mix's message sizes,\n" +
			"uniform destinations) in the other SL at each load of --loads, under --scheduler. Each execution time is given\n" +
			"as a percentage of its baseline's. Writes traces.csv, traces.json and traces.{png,svg} into --out.\n" +
			"The network: --preset with the paper mix's QoS (traffic preset paper-mix), then --config over it.",
		Example: "  opasim trace gen stencil3d --tasks 512 --iterations 20 --out namd.vef.gz\n" +
			"  opasim trace sweep --preset tree-8ary-2 --out sweeps/traces namd.vef.gz",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.preset, "preset", "tree-8ary-2", "topology preset (seed 000 section 4.3: tree-8ary-2 or torus2d-4x4)")
	fs.StringVar(&f.config, "config", "", "YAML config applied over the preset and the paper mix")
	fs.StringVar(&f.loads, "loads", "0.01,0.05,0.1,0.2", "background loads, flits/cycle/NIC")
	fs.StringVar(&f.sls, "sls", "CL,BE", "the two SLs, by name: the trace in each in turn, the background in the other")
	fs.StringVar(&f.scheduler, "scheduler", "dtable", "output scheduler of the runs with background")
	fs.StringVar(&f.baseline, "baseline", "rr", "output scheduler of the baseline (the trace alone)")
	fs.StringVar(&f.engine, "engine", "sequential", "engine of every run")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "runs at once")
	fs.Uint64Var(&f.seed, "seed", 1, "master random seed")
	fs.StringVar(&f.out, "out", "", "directory for traces.csv, traces.json and the plot (required)")
	registerProgress(fs, "the runs done of the total")
	return cmd
}

// study checks the flags of `opasim trace sweep` and the traces, and
// returns the study and the names of its SLs.
func (f *traceSweepFlags) study(traces []string) (*sweep.TraceStudy, []string, error) {
	if f.out == "" {
		return nil, nil, errors.New("--out: required (the directory for the results)")
	}
	if f.jobs < 1 {
		return nil, nil, fmt.Errorf("--jobs %d: must be at least 1", f.jobs)
	}
	cfg, err := f.baseConfig()
	if err != nil {
		return nil, nil, err
	}
	loads, err := sweep.ParseLoads(f.loads)
	if err != nil {
		return nil, nil, fmt.Errorf("--loads: %w", err)
	}
	names, sls, err := f.studySLs(cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range traces {
		if st, err := os.Stat(t); err != nil || !st.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("trace %s: not a readable regular file", t)
		}
		if err := checkTraceFile(t, cfg.Trace.MaxInflated()); err != nil {
			return nil, nil, err
		}
	}
	if err := f.studyTable(&cfg); err != nil {
		return nil, nil, err
	}
	s := &sweep.TraceStudy{Base: cfg, Traces: traces, SLs: sls, Background: map[int]int{sls[0]: sls[1], sls[1]: sls[0]},
		Loads: loads, Scheduler: f.scheduler, Baseline: f.baseline}
	for _, p := range s.Points()[:1+len(loads)] { // one of each kind: the configs are checked before any run
		c := p.Config
		if err := c.Validate(sched.Default()); err != nil {
			return nil, nil, err
		}
	}
	return s, names, nil
}

// baseConfig is the study's base config: the default with the paper mix,
// --preset, --engine and --seed, then --config over it.
func (f *traceSweepFlags) baseConfig() (fabric.Config, error) {
	cfg := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
		return cfg, err
	}
	cfg.Topology.Preset, cfg.Engine, cfg.Seed = f.preset, f.engine, f.seed
	cfg.Cycles, cfg.Warmup = TraceCycles, 0
	if f.config != "" {
		if err := sim.LoadConfig(f.config, &cfg); err != nil {
			return cfg, fmt.Errorf("--config: %w", err)
		}
	}
	return cfg, nil
}

// studySLs is --sls: the names given and the indexes of the two SLs in
// cfg.
func (f *traceSweepFlags) studySLs(cfg fabric.Config) ([]string, []int, error) {
	names := strings.Split(f.sls, ",")
	var sls []int
	for _, n := range names {
		i := slices.IndexFunc(cfg.QoS.SLs, func(s fabric.SLConfig) bool { return s.Name == strings.TrimSpace(n) })
		if i < 0 {
			return nil, nil, fmt.Errorf("--sls %q: %q is not an SL of the config (qos.sls)", f.sls, n)
		}
		sls = append(sls, i)
	}
	if len(sls) != 2 || sls[0] == sls[1] {
		return nil, nil, fmt.Errorf("--sls %q: must name two different SLs", f.sls)
	}
	return names, sls, nil
}

// studyTable writes the dtable of the configured shares into --out when
// --scheduler needs one and the config names none, and points cfg at it.
func (f *traceSweepFlags) studyTable(cfg *fabric.Config) error {
	if !sched.Default().NeedsTable(f.scheduler) || cfg.QoS.DTableFile != "" {
		return nil
	}
	// The background moves the SLs' shares of the offered load; the
	// table stays the one the configured shares give (seed 000 Table 10).
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	res, err := dtable.Configure(cfg.DTableRequest())
	if err != nil {
		return fmt.Errorf("qos.dtable: %w", err)
	}
	cfg.QoS.DTableFile = filepath.Join(f.out, "dtable.yaml")
	return writeTable(cfg.QoS.DTableFile, res)
}

// checkTraceFile reads the trace at path through, with the reader's checks,
// so that a damaged or oversized trace is refused before any run.
// The error names the file and, for a trace past the limit on its
// decompressed size, the key that raises it.
func checkTraceFile(path string, maxInflated int64) (err error) {
	defer func() {
		if errors.Is(err, vef.ErrInflateLimit) {
			err = fmt.Errorf("%w (trace.max_inflated_mb in --config, in MiB, raises it up to %d)", err, fabric.MaxInflatedMBLimit)
		}
	}()
	rd, err := vef.OpenLimit(path, maxInflated)
	if err != nil {
		return fmt.Errorf("trace %w", err) // Open's error begins with the path
	}
	defer rd.Close()
	for {
		if _, err := rd.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("trace %s: %w", path, err)
		}
	}
}

func (f *traceSweepFlags) run(cmd *cobra.Command, traces []string) error {
	s, names, err := f.study(traces)
	if err != nil {
		return badInput(err)
	}
	ctx, stopped := onSignals(cmd.Context())
	runs := len(s.Points())
	p := startProgress(cmd.ErrOrStderr(), progressOf(cmd), "trace sweep", "runs", int64(runs), "running %d runs with %d jobs", runs, min(f.jobs, runs))
	var done atomic.Int64
	rows, err := s.Run(ctx, f.jobs, func(ctx context.Context, cfg fabric.Config) (*sim.Results, error) {
		r, err := simulate(ctx, cfg, sim.Hooks{})
		if err == nil && !r.Interrupted {
			p.set(done.Add(1), 0)
		}
		return r, err
	}, cmd.ErrOrStderr())
	p.finish(finishState(err, ctx.Err() != nil))
	sig := stopped()
	if err != nil && (sig == nil || !errors.Is(err, context.Canceled)) {
		if sig == nil {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "opasim:", err)
	}
	// Stopped by a signal, the study writes the runs that finished,
	// marked interrupted (traces.json), and exits 128 + the signal.
	expected := len(s.Points())
	sweep.WriteTraceTable(cmd.OutOrStdout(), rows)
	title := fmt.Sprintf("%s, %s; trace and background in %s", s.Base.Topology.Preset, f.scheduler, strings.Join(names, " and "))
	files, err := sweep.SaveTraceStudy(f.out, title, rows, expected)
	if len(files) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", strings.Join(files, ", "))
	}
	if sig != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "trace sweep: interrupted: %d of %d runs finished and written\n", len(rows), expected)
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "opasim:", err)
		}
		return sig
	}
	return err
}

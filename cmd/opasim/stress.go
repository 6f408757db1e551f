package main

// `opasim stress` wires flags to package stress: an adversarial search of
// the traffic space for the worst case of a scheduler property
// (docs/stress.md).

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/stress"
)

// stressFlags are the flags of `opasim stress`: the config flags of `run`
// (the network, the scheduler, run length) and the search's own.
type stressFlags struct {
	run       runFlags
	property  string
	sl        string
	bound     float64
	tolerance float64
	targets   string
	budget    int
	random    int
	jobs      int
	seed      uint64
	minLoad   float64
	out       string
}

func (f *stressFlags) register(fs *pflag.FlagSet) {
	f.run.registerConfig(fs)
	fs.StringVar(&f.run.scheduler, "scheduler", "", "output scheduler (default rr)")
	fs.StringVar(&f.property, "property", stress.PropShare, "what to break: "+strings.Join(stress.Properties(), ", "))
	fs.StringVar(&f.sl, "sl", "", "p99 and starvation: the SL, by name")
	fs.Float64Var(&f.bound, "bound", 0, "p99 and starvation: the bound in cycles")
	fs.Float64Var(&f.tolerance, "tolerance", 2, "share: points an SL may fall below its target")
	fs.StringVar(&f.targets, "targets", "", "target shares NAME=PERCENT,... for every SL (default: qos.sls[].share): share's targets; p99 and starvation hold for an SL offering at most its share")
	fs.IntVar(&f.budget, "budget", 100, "runs in all")
	fs.IntVar(&f.random, "random", 0, "runs of the random phase before CMA-ES (default: half the budget)")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "runs at once (the result does not depend on it)")
	fs.Uint64Var(&f.seed, "search-seed", 1, "seed of the search (its random points and CMA-ES's samples)")
	fs.Float64Var(&f.minLoad, "min-load", 0.3, "lowest offered load searched, in (0, 1] flits/cycle/NIC")
	fs.StringVar(&f.out, "out", "out/stress", "directory for worst.yaml (the worst case, for opasim run --config), its results and report")
}

func newStressCmd() *cobra.Command {
	var f stressFlags
	cmd := &cobra.Command{
		Use:   "stress",
		Short: "Search the traffic space for the worst case of a scheduler property (share, p99, starvation)",
		Long: "Search the traffic space (per-SL loads and message sizes, patterns, arrival processes, hot spots, seeds) for\n" +
			"the run that breaks a property of the output schedulers worst: random points, then CMA-ES. The worst case is\n" +
			"written as a config that `opasim run --config` reproduces bit for bit. See docs/stress.md.",
		Example: "  opasim stress --traffic paper-mix --ports 16 --scheduler rr --property share --budget 100\n" +
			"  opasim stress --traffic paper-mix --ports 16 --scheduler dtable --property p99 --sl VO --bound 400",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.search(cmd.Flags())
			if err != nil {
				return badInput(err)
			}
			ctx, stopped := onSignals(cmd.Context())
			done := progressTo(cmd.ErrOrStderr(), progressOf(cmd), s)
			rep, err := s.Run(ctx)
			done(err, rep == nil || rep.Interrupted)
			if rep != nil && rep.Runs > 0 {
				if werr := f.write(cmd.OutOrStdout(), s, rep); werr != nil && err == nil {
					err = werr
				}
			}
			if sig := stopped(); sig != nil {
				if rep == nil || rep.Runs == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "stress: interrupted before any run finished; nothing written to %s\n", f.out)
				}
				return sig
			}
			return err
		},
	}
	f.register(cmd.Flags())
	registerProgress(cmd.Flags(), "the runs done of the budget and the worst violation so far")
	return cmd
}

// search checks the flags and builds the search.
func (f *stressFlags) search(fs *pflag.FlagSet) (*stress.Search, error) {
	if f.budget < 1 {
		return nil, fmt.Errorf("--budget: %d is not allowed: must be at least 1 run", f.budget)
	}
	if f.jobs < 1 {
		return nil, fmt.Errorf("--jobs: %d is not allowed: must be at least 1", f.jobs)
	}
	if f.random < 0 || f.random > f.budget {
		return nil, fmt.Errorf("--random: %d is not allowed: must be in [0, --budget=%d] (0: half the budget)", f.random, f.budget)
	}
	if !(f.minLoad > 0 && f.minLoad <= 1) {
		return nil, fmt.Errorf("--min-load: %g is not allowed: must be in (0, 1] flits/cycle/NIC", f.minLoad)
	}
	base, err := f.run.effective(fs)
	if err != nil {
		return nil, err
	}
	if base.Trace.File != "" {
		return nil, fmt.Errorf("trace.file %s: the search varies synthetic traffic only", base.Trace.File)
	}
	if !fs.Changed("engine") {
		base.Engine = "sequential"
	}
	p, err := f.stressProperty(base)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	space, err := stress.NewSpace(base, f.minLoad, f.out)
	if err != nil {
		return nil, err
	}
	random := f.random
	if random == 0 {
		random = max(1, f.budget/2)
	}
	return &stress.Search{Space: space, Property: p, Budget: f.budget, Random: random, Jobs: f.jobs, Seed: f.seed,
		Simulate: func(ctx context.Context, cfg fabric.Config) (*sim.Results, error) {
			return simulate(ctx, cfg, sim.Hooks{})
		}}, nil
}

// stressProperty is the property the search looks for a violation of:
// --property, --bound, --tolerance, --targets (default: the SLs' shares
// in base) and --sl, checked against base's SLs.
func (f *stressFlags) stressProperty(base fabric.Config) (stress.Property, error) {
	var names []string
	for _, sl := range base.QoS.SLs {
		names = append(names, sl.Name)
	}
	p := stress.Property{Kind: f.property, Bound: f.bound, Tolerance: f.tolerance}
	if f.targets != "" {
		targets, err := stress.ParseTargets(f.targets, names)
		if err != nil {
			return p, err
		}
		p.Targets = targets
	} else {
		for _, sl := range base.QoS.SLs {
			p.Targets = append(p.Targets, sl.Share)
		}
	}
	switch f.property {
	case stress.PropP99, stress.PropStarvation:
		if p.SL = slices.Index(names, f.sl); p.SL < 0 {
			return p, fmt.Errorf("--sl: %q is not allowed: must name an SL of qos.sls: %s", f.sl, strings.Join(names, ", "))
		}
	}
	if err := p.Check(len(names)); err != nil {
		return p, err
	}
	return p, nil
}

// progressTo shows the search's progress on w as pf says: a bar, or a log
// (a line every pf.every and at each tenth of the budget) of the runs done,
// their rate, an ETA and the worst violation so far. The function it
// returns ends it.
func progressTo(w io.Writer, pf *progressFlags, s *stress.Search) func(err error, interrupted bool) {
	var worst atomic.Uint64 // math.Float64bits of the worst violation so far
	p := startProgress(w, pf, "stress", "runs", int64(s.Budget), "searching for the worst case of property %s in %d runs", s.Property.Kind, s.Budget).
		withTenths().withDetail(func() string { return fmt.Sprintf("worst violation so far %.2f", math.Float64frombits(worst.Load())) })
	if p != nil {
		s.Progress = func(done, _ int, v float64) {
			worst.Store(math.Float64bits(v))
			p.set(int64(done), 0)
		}
	}
	return func(err error, interrupted bool) { p.finish(finishState(err, interrupted)) }
}

// write prints the report and writes the worst case: worst.yaml (its
// whole config), worst.json (its results) and report.txt.
func (f *stressFlags) write(w io.Writer, s *stress.Search, rep *stress.Report) error {
	c := rep.Worst
	verdict := "holds in every run"
	if rep.Broken > 0 {
		verdict = fmt.Sprintf("broken in %d of %d runs", rep.Broken, rep.Runs)
	}
	var b strings.Builder
	if rep.Interrupted {
		fmt.Fprintf(&b, "interrupted after %d of %d runs: the worst case of the runs that finished\n", rep.Runs, s.Budget)
	}
	fmt.Fprintf(&b, "property %s %s (%d random runs, %d CMA-ES runs)\n", s.Property.Kind, verdict, rep.Random, rep.Evolution)
	fmt.Fprintf(&b, "worst violation %.2f: %s\n", c.Violation, c.Detail)
	fmt.Fprintf(&b, "traffic: %s\n", s.Space.Describe(c.Config))
	fmt.Fprintf(&b, "%-4s %9s %9s %7s %8s %8s\n", "SL", "offered", "accepted", "share", "p99", "max")
	for _, sl := range c.Results.PerSL {
		fmt.Fprintf(&b, "%-4s %9.4f %9.4f %7.3f %8d %8d\n", sl.SL, sl.OfferedLoad, sl.AcceptedThroughput,
			sl.NormalizedThroughput, sl.Latency.P99Cycles, sl.Latency.MaxCycles)
	}
	cfgPath := filepath.Join(f.out, "worst.yaml")
	fmt.Fprintf(&b, "digest %s; reproduce: opasim run --config %s\n", c.Results.Digest, cfgPath)
	data, err := yaml.Marshal(c.Config)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("# opasim stress: the worst case of property %s found (violation %.2f)\n# %s\n", s.Property.Kind, c.Violation, c.Detail)
	if rep.Interrupted {
		head += fmt.Sprintf("# interrupted after %d of %d runs\n", rep.Runs, s.Budget)
	}
	if err := writeFileAtomic(cfgPath, append([]byte(head), data...)); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := writeResultsJSON(filepath.Join(f.out, "worst.json"), c.Results, os.Stderr); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(f.out, "report.txt"), []byte(b.String())); err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}

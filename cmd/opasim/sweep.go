package main

// `opasim sweep` runs the grid of seed 000 section 4.2.3: every scheduler at
// every injection rate, each point averaged over several seeds, and draws
// Figs. 3 and 4 from the averages.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// sweepFlags are the flags of `opasim sweep`. Those it shares with `run`
// bind to a runFlags, so runFlags.effective builds the base config the
// same way `run` does.
type sweepFlags struct {
	run        runFlags
	schedulers string
	loads      string
	seeds      int
	seedList   string
	jobs       int
	out        string
}

const defaultLoads = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1"

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	r := &f.run
	fs.StringVar(&r.config, "config", "", "YAML config file (unknown keys are errors); flags override it")
	fs.StringVar(&r.preset, "preset", "", "topology preset: "+strings.Join(topo.PresetNames(), ", ")+" (default: the config's topology)")
	fs.StringVar(&r.traffic, "traffic", "", "traffic scenario applied before the config file: "+strings.Join(fabric.TrafficPresets(), ", "))
	fs.IntVar(&r.ports, "ports", 0, "single_switch ports, one NIC each (multiple of 4, >= 8)")
	fs.StringVar(&r.pattern, "pattern", "", "destination pattern")
	fs.Int64Var(&r.cycles, "cycles", 0, "cycles per run, warm-up included (default 20000)")
	fs.Int64Var(&r.warmup, "warmup", 0, "warm-up cycles not measured (default 5000)")
	fs.StringVar(&r.engine, "engine", "sequential", "engine of every run: sequential or actors (overrides the config file)")
	fs.StringVar(&f.schedulers, "schedulers", "rr,sbt,sbt_strict,dtable", "comma-separated output schedulers")
	fs.StringVar(&f.loads, "loads", defaultLoads, "comma-separated injection rates in (0, 1] flits/cycle/NIC; FROM:TO:STEP is a range")
	fs.IntVar(&f.seeds, "seeds", 5, "seeds per point: 1..N")
	fs.StringVar(&f.seedList, "seed-list", "", "comma-separated seeds per point, instead of --seeds")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "runs at once (each run is single-threaded with the sequential engine)")
	fs.StringVar(&f.out, "out", "", "directory for runs/, summary.csv, summary.json and plots/ (required)")
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run schedulers x loads x seeds, aggregate with 95% confidence intervals and plot (seed 000 Figs. 3 and 4)",
		Example: "  opasim sweep --preset tree-8ary-2 --traffic paper-mix --schedulers rr,sbt,dtable \\\n" +
			"    --loads 0.1:1:0.1 --seeds 10 --cycles 40000 --warmup 10000 --out sweeps/tree",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.sweeper(cmd.Flags())
			if err != nil {
				return badInput(err)
			}
			s.log = cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return s.run(ctx, cmd.OutOrStdout())
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// sweeper builds the grid from the flags, checking every flag and every
// point's config before anything runs.
func (f *sweepFlags) sweeper(fs *pflag.FlagSet) (*sweeper, error) {
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
	g := sweepGrid{}
	var err error
	if g.schedulers, err = parseSchedulers(f.schedulers, sched.Default().Names()); err != nil {
		return nil, err
	}
	if g.loads, err = parseLoads(f.loads); err != nil {
		return nil, err
	}
	if g.seeds, err = f.seedValues(fs); err != nil {
		return nil, err
	}
	if g.base, err = f.run.effective(fs); err != nil {
		return nil, err
	}
	g.base.Engine = f.run.engine
	g.topology, g.traffic = topologyLabel(g.base), trafficLabel(g.base, f.run.traffic)
	points, err := g.points()
	if err != nil {
		return nil, err
	}
	return &sweeper{grid: g, points: points, dir: f.out, jobs: f.jobs, log: io.Discard}, nil
}

func (f *sweepFlags) seedValues(fs *pflag.FlagSet) ([]uint64, error) {
	if fs.Changed("seed-list") {
		if fs.Changed("seeds") {
			return nil, errors.New("--seeds and --seed-list: give one of them")
		}
		return parseSeedList(f.seedList)
	}
	if f.seeds < 1 {
		return nil, fmt.Errorf("--seeds: %d is not allowed: must be at least 1", f.seeds)
	}
	seeds := make([]uint64, f.seeds)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds, nil
}

func parseSchedulers(s string, known []string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("--schedulers: %q is not allowed: must be one of: %s", name, strings.Join(known, ", "))
		case slices.Contains(out, name):
			return nil, fmt.Errorf("--schedulers: %q is listed twice", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// parseLoads reads "0.1,0.5,1" or ranges "0.1:1:0.1" (both ends included),
// in ascending order. Each load is rounded to 1e-9 so that a range gives
// 0.3, not 0.30000000000000004.
func parseLoads(s string) ([]float64, error) {
	var loads []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		vals, err := loadValues(part)
		if err != nil {
			return nil, fmt.Errorf("--loads: %w", err)
		}
		loads = append(loads, vals...)
	}
	slices.Sort(loads)
	for i, l := range loads {
		if !(l > 0 && l <= 1) {
			return nil, fmt.Errorf("--loads: %s is not allowed: must be in (0, 1] flits/cycle/NIC", formatLoad(l))
		}
		if i > 0 && loads[i-1] == l {
			return nil, fmt.Errorf("--loads: %s is listed twice", formatLoad(l))
		}
	}
	return loads, nil
}

func loadValues(part string) ([]float64, error) {
	fields := strings.Split(part, ":")
	nums := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		nums[i] = v
	}
	switch len(nums) {
	case 1:
		return []float64{roundLoad(nums[0])}, nil
	case 3:
		from, to, step := nums[0], nums[1], nums[2]
		if !(step > 0) || to < from {
			return nil, fmt.Errorf("%q is not allowed: a range is FROM:TO:STEP with FROM <= TO and STEP > 0", part)
		}
		var out []float64
		for i := 0; from+float64(i)*step <= to+1e-9; i++ {
			out = append(out, roundLoad(from+float64(i)*step))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%q is not allowed: give a load or a range FROM:TO:STEP", part)
}

func roundLoad(l float64) float64 { return math.Round(l*1e9) / 1e9 }

func formatLoad(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

func parseSeedList(s string) ([]uint64, error) {
	var seeds []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seed-list: %q is not allowed: must be non-negative integers separated by commas", f)
		}
		if slices.Contains(seeds, v) {
			return nil, fmt.Errorf("--seed-list: %d is listed twice", v)
		}
		seeds = append(seeds, v)
	}
	return seeds, nil
}

// sweepGrid is the base config and the three axes varied around it.
type sweepGrid struct {
	base              fabric.Config
	schedulers        []string
	loads             []float64
	seeds             []uint64
	topology, traffic string // labels for the summary and the plots
}

// sweepPoint is one run of the grid.
type sweepPoint struct {
	scheduler string
	load      float64
	seed      uint64
	cfg       fabric.Config
	cfgJSON   []byte // canonical form, to recognise a stored run of this config
}

func (p *sweepPoint) file() string {
	return fmt.Sprintf("%s_load%s_seed%d.json", p.scheduler, formatLoad(p.load), p.seed)
}

// points lists the grid by scheduler, then load, then seed, each with its
// own copy of the config, and validates every (scheduler, load) config.
func (g *sweepGrid) points() ([]sweepPoint, error) {
	names := sched.Default().Names()
	var pts []sweepPoint
	for _, s := range g.schedulers {
		for _, l := range g.loads {
			for k, seed := range g.seeds {
				cfg, data, err := cloneConfig(g.base)
				if err != nil {
					return nil, err
				}
				cfg.QoS.Scheduler, cfg.Traffic.Load, cfg.Seed = s, l, seed
				if k == 0 {
					if err := cfg.Validate(names); err != nil {
						return nil, pointProblem(len(pts) == 0, s, l, err)
					}
				}
				if data, err = json.Marshal(cfg); err != nil {
					return nil, err
				}
				pts = append(pts, sweepPoint{scheduler: s, load: l, seed: seed, cfg: cfg, cfgJSON: data})
			}
		}
	}
	return pts, nil
}

// pointProblem reports an invalid config; after the first point the base
// config is known to be good, so the scheduler and load are to blame.
func pointProblem(first bool, s string, l float64, err error) error {
	if first {
		return err
	}
	return fmt.Errorf("with scheduler %s at load %s:\n%w", s, formatLoad(l), err)
}

// cloneConfig deep-copies cfg through its JSON form, which is also the form
// a results file stores it in.
func cloneConfig(cfg fabric.Config) (fabric.Config, []byte, error) {
	data, err := json.Marshal(cfg)
	if err != nil {
		return cfg, nil, err
	}
	var c fabric.Config
	err = json.Unmarshal(data, &c)
	return c, data, err
}

func topologyLabel(c fabric.Config) string {
	t := c.Topology
	switch {
	case t.Preset != "":
		return t.Preset
	case t.Kind == "torus":
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = strconv.Itoa(d)
		}
		return "torus " + strings.Join(dims, "x")
	case t.Kind == "tree":
		return fmt.Sprintf("%d-ary %d-tree", t.K, t.N)
	}
	return fmt.Sprintf("single switch, %d ports", t.Ports)
}

func trafficLabel(c fabric.Config, preset string) string {
	if preset != "" {
		return preset
	}
	return c.Traffic.Pattern + " " + c.Traffic.Process
}

// sweeper runs the points of a grid that have no stored result, jobs at a
// time, and aggregates.
type sweeper struct {
	grid   sweepGrid
	points []sweepPoint
	dir    string
	jobs   int
	log    io.Writer        // one line per finished run
	onRun  func(sweepPoint) // called after a run is stored; a test hook

	mu      sync.Mutex
	results []*sim.Results // by point; nil: not (yet) available
	ran     int
}

// sweepCounts says where the results came from.
type sweepCounts struct {
	total, reused, stale, ran, conservationFailed int
}

func (s *sweeper) run(ctx context.Context, out io.Writer) error {
	if err := os.MkdirAll(filepath.Join(s.dir, "runs"), 0o755); err != nil {
		return err
	}
	todo, counts := s.loadStored()
	fmt.Fprintf(out, "sweep: %d runs (%d schedulers x %d loads x %d seeds) on %s, %s traffic; reused %d of %d",
		counts.total, len(s.grid.schedulers), len(s.grid.loads), len(s.grid.seeds), s.grid.topology, s.grid.traffic,
		counts.reused, counts.total)
	if counts.stale > 0 {
		fmt.Fprintf(out, "; %d stored runs are of another config or incomplete and will be rerun", counts.stale)
	}
	if len(todo) == 0 {
		fmt.Fprintln(out, "; nothing to run")
	} else {
		fmt.Fprintf(out, "; running %d with %d jobs\n", len(todo), min(s.jobs, len(todo)))
	}
	runErr := s.runAll(ctx, todo)
	counts.ran = s.ran
	sum := s.summary()
	if err := writeSummary(s.dir, sum); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(out, "ran %d; wrote %s and %s from %d of %d runs\n", counts.ran,
		filepath.Join(s.dir, "summary.csv"), filepath.Join(s.dir, "summary.json"), sum.RunsFound, sum.RunsExpected)
	if len(s.grid.seeds) == 1 {
		fmt.Fprintln(out, "one seed per point: the 95% confidence intervals are undefined (empty in summary.csv, null in summary.json)")
	}
	if err := reportPlots(out, s.dir, sum); err != nil {
		return errors.Join(runErr, err)
	}
	return s.finish(ctx, runErr, sum)
}

// finish turns an interruption or failed conservation checks into the
// command's error, after the aggregate has been written.
func (s *sweeper) finish(ctx context.Context, runErr error, sum *sweepSummary) error {
	if runErr != nil {
		return runErr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %d of %d runs are stored; run the same command again to resume", sum.RunsFound, sum.RunsExpected)
	}
	if sum.ConservationFailed > 0 {
		return fmt.Errorf("%d runs failed the conservation check (see conservation_problems in their results files)", sum.ConservationFailed)
	}
	return nil
}

// loadStored takes every run whose results file exists, parses, covers the
// whole run and was made from this point's config; it returns the others.
func (s *sweeper) loadStored() (todo []int, c sweepCounts) {
	s.results = make([]*sim.Results, len(s.points))
	c.total = len(s.points)
	for i := range s.points {
		p := &s.points[i]
		r, found := loadRun(filepath.Join(s.dir, "runs", p.file()), p)
		switch {
		case r != nil:
			s.results[i] = r
			c.reused++
		case found:
			c.stale++
			todo = append(todo, i)
		default:
			todo = append(todo, i)
		}
	}
	return todo, c
}

// loadRun returns the stored results of p, or nil (and whether a file was
// there) when the file is missing, unreadable, incomplete or of another
// config.
func loadRun(path string, p *sweepPoint) (*sim.Results, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var r sim.Results
	if json.Unmarshal(data, &r) != nil || r.Interrupted || r.SimulatedCycles != p.cfg.Cycles {
		return nil, true
	}
	stored, err := json.Marshal(r.Config)
	if err != nil || !bytes.Equal(stored, p.cfgJSON) {
		return nil, true
	}
	return &r, true
}

// runAll runs the points of todo on s.jobs workers. A cancelled ctx stops
// the workers: runs in flight are abandoned (their partial results are not
// stored), finished ones stay on disk. The first run that fails stops the
// sweep and is returned.
func (s *sweeper) runAll(ctx context.Context, todo []int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	feed := make(chan int)
	go func() {
		defer close(feed)
		for _, i := range todo {
			select {
			case feed <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(s.jobs, len(todo)) {
		wg.Go(func() {
			for i := range feed {
				if err := s.runOne(ctx, i, len(todo)); err != nil {
					cancel(err)
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func (s *sweeper) runOne(ctx context.Context, i, of int) error {
	if ctx.Err() != nil {
		return nil
	}
	p := &s.points[i]
	r, err := simulate(ctx, p.cfg, sim.Hooks{})
	if err != nil {
		return fmt.Errorf("%s: %w", p.file(), err)
	}
	if r.Interrupted {
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(s.dir, "runs", p.file()), append(data, '\n')); err != nil {
		return err
	}
	s.mu.Lock()
	s.results[i] = r
	s.ran++
	fmt.Fprintf(s.log, "[%d/%d] %s load %s seed %d: accepted %.4f flits/cycle/NIC, mean latency %.1f ns, %.1f s\n",
		s.ran, of, p.scheduler, formatLoad(p.load), p.seed, r.AcceptedThroughput, r.Latency.MeanNs, r.WallSeconds)
	s.mu.Unlock()
	if s.onRun != nil {
		s.onRun(*p)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so a reader (or a resumed sweep) never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// sweepSummary is summary.json: the grid and, per (scheduler, load), one
// row per SL in config order and an "all" row.
type sweepSummary struct {
	Topology           string       `json:"topology"`
	Traffic            string       `json:"traffic"`
	Engine             string       `json:"engine"`
	Cycles             int64        `json:"cycles"`
	Warmup             int64        `json:"warmup"`
	CycleNs            float64      `json:"cycle_ns"`
	Schedulers         []string     `json:"schedulers"`
	Loads              []float64    `json:"loads"`
	Seeds              []uint64     `json:"seeds"`
	SLs                []summarySL  `json:"sls"`
	RunsExpected       int          `json:"runs_expected"`
	RunsFound          int          `json:"runs_found"`
	ConservationFailed int          `json:"conservation_failed"`
	CI                 string       `json:"ci"`
	Rows               []summaryRow `json:"rows"`
}

type summarySL struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"` // configured fraction of the offered load
}

type summaryRow struct {
	Scheduler string              `json:"scheduler"`
	Load      float64             `json:"load"`
	SL        string              `json:"sl"`    // an SL name or "all"
	Seeds     int                 `json:"seeds"` // runs found for this point
	Metrics   map[string]estimate `json:"metrics"`
}

// estimate is a metric's mean over seeds and the half-width of its 95%
// confidence interval. Mean is nil with no run, CI95 with fewer than two.
type estimate struct {
	Mean *float64 `json:"mean"`
	CI95 *float64 `json:"ci95"`
	N    int      `json:"n"`
}

const ciMethod = "95% confidence interval half-width over seeds: t(0.975, n-1) * s / sqrt(n), " +
	"s the sample standard deviation (n-1); null when n < 2"

// estimateOf is the mean of xs and t(0.975, n-1)·s/√n.
func estimateOf(xs []float64) estimate {
	e := estimate{N: len(xs)}
	if len(xs) == 0 {
		return e
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	e.Mean = &mean
	if n := float64(len(xs)); n > 1 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
		half := t * sd / math.Sqrt(n)
		e.CI95 = &half
	}
	return e
}

// slMeasure is what one run measured for one SL, or for all of them.
type slMeasure struct {
	offered, accepted, normalized float64
	lat, net                      sim.LatencySummary
}

// measureOf picks SL sl of r; sl < 0 is the whole traffic, whose normalized
// throughput is the sum over SLs (1 once anything was delivered).
func measureOf(r *sim.Results, sl int) slMeasure {
	if sl >= 0 {
		s := r.PerSL[sl]
		return slMeasure{s.OfferedLoad, s.AcceptedThroughput, s.NormalizedThroughput, s.Latency, s.NetworkLatency}
	}
	m := slMeasure{offered: r.OfferedLoad, accepted: r.AcceptedThroughput, lat: r.Latency, net: r.NetworkLatency}
	for _, s := range r.PerSL {
		m.normalized += s.NormalizedThroughput
	}
	return m
}

// sweepMetric is one column of the summary. A latency metric counts only
// the runs in which the SL delivered a message: a run without one has no
// latency, not a latency of zero.
type sweepMetric struct {
	name    string
	latency bool
	value   func(m *slMeasure) float64
}

var sweepMetrics = []sweepMetric{
	{"offered_load", false, func(m *slMeasure) float64 { return m.offered }},
	{"accepted_throughput", false, func(m *slMeasure) float64 { return m.accepted }},
	{"normalized_throughput", false, func(m *slMeasure) float64 { return m.normalized }},
	{"latency_cycles", true, func(m *slMeasure) float64 { return m.lat.MeanCycles }},
	{"latency_ns", true, func(m *slMeasure) float64 { return m.lat.MeanNs }},
	{"latency_p99_cycles", true, func(m *slMeasure) float64 { return float64(m.lat.P99Cycles) }},
	{"network_latency_cycles", true, func(m *slMeasure) float64 { return m.net.MeanCycles }},
	{"network_latency_ns", true, func(m *slMeasure) float64 { return m.net.MeanNs }},
	{"network_latency_p99_cycles", true, func(m *slMeasure) float64 { return float64(m.net.P99Cycles) }},
}

// summary aggregates the runs available now. Points come in groups of one
// (scheduler, load) over every seed, in grid order.
func (s *sweeper) summary() *sweepSummary {
	g := &s.grid
	sum := &sweepSummary{Topology: g.topology, Traffic: g.traffic, Engine: g.base.Engine, Cycles: g.base.Cycles,
		Warmup: g.base.Warmup, CycleNs: g.base.CycleNs(), Schedulers: g.schedulers, Loads: g.loads, Seeds: g.seeds,
		RunsExpected: len(s.points), CI: ciMethod, Rows: []summaryRow{}}
	for _, sl := range g.base.QoS.SLs {
		sum.SLs = append(sum.SLs, summarySL{Name: sl.Name, Share: sl.Share})
	}
	for first := 0; first < len(s.points); first += len(g.seeds) {
		var runs []*sim.Results
		for _, r := range s.results[first : first+len(g.seeds)] {
			if r != nil {
				runs = append(runs, r)
				if !r.ConservationOK {
					sum.ConservationFailed++
				}
			}
		}
		sum.RunsFound += len(runs)
		p := &s.points[first]
		for i, sl := range sum.SLs {
			sum.Rows = append(sum.Rows, aggregateRow(p.scheduler, p.load, sl.Name, i, runs))
		}
		sum.Rows = append(sum.Rows, aggregateRow(p.scheduler, p.load, "all", -1, runs))
	}
	return sum
}

func aggregateRow(scheduler string, load float64, name string, sl int, runs []*sim.Results) summaryRow {
	row := summaryRow{Scheduler: scheduler, Load: load, SL: name, Seeds: len(runs), Metrics: map[string]estimate{}}
	measures := make([]slMeasure, len(runs))
	for i, r := range runs {
		measures[i] = measureOf(r, sl)
	}
	for _, m := range sweepMetrics {
		var xs []float64
		for i := range measures {
			if !m.latency || measures[i].lat.Messages > 0 {
				xs = append(xs, m.value(&measures[i]))
			}
		}
		row.Metrics[m.name] = estimateOf(xs)
	}
	return row
}

func writeSummary(dir string, sum *sweepSummary) error {
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "summary.json"), append(data, '\n')); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "summary.csv"), summaryCSV(sum))
}

// summaryCSV has a column pair <metric>_mean, <metric>_ci95 per metric; an
// undefined value is an empty cell. latency_seeds counts the runs that
// delivered a message of the SL, the ones the latency columns average.
func summaryCSV(sum *sweepSummary) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"scheduler", "load", "sl", "seeds", "latency_seeds"}
	for _, m := range sweepMetrics {
		head = append(head, m.name+"_mean", m.name+"_ci95")
	}
	_ = w.Write(head)
	for _, r := range sum.Rows {
		rec := []string{r.Scheduler, formatLoad(r.Load), r.SL, strconv.Itoa(r.Seeds), strconv.Itoa(r.Metrics["latency_cycles"].N)}
		for _, m := range sweepMetrics {
			e := r.Metrics[m.name]
			rec = append(rec, csvFloat(e.Mean), csvFloat(e.CI95))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

func csvFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

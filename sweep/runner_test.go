package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// simulateSequential is the SimulateFunc of the tests: the sequential
// engine, no hooks.
func simulateSequential(ctx context.Context, cfg fabric.Config) (*sim.Results, error) {
	return sim.Simulate(ctx, cfg, map[string]sim.Engine{cfg.Engine: sim.Sequential{}}, sim.Hooks{})
}

// tinyGrid is 2 schedulers x 2 loads x 2 seeds of the paper mix on an
// 8-port single switch: a run of a few thousand cycles takes milliseconds.
func tinyGrid(t *testing.T) Grid {
	t.Helper()
	cfg := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	cfg.Topology.Kind, cfg.Topology.Ports = "single_switch", 8
	cfg.Cycles, cfg.Warmup, cfg.Engine = 3000, 1000, "sequential"
	return Grid{Base: cfg, Schedulers: []string{"rr", "dtable"}, Loads: []float64{0.3, 0.9}, Seeds: []uint64{1, 2},
		Topology: TopologyLabel(cfg), Traffic: "paper-mix"}
}

func newRunner(t *testing.T, g Grid, out string, jobs int) *Runner {
	t.Helper()
	r, err := New(g, sched.Default(), out, jobs, simulateSequential)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustSweep runs the grid into out with two jobs and returns what it
// printed.
func mustSweep(t *testing.T, g Grid, out string) string {
	t.Helper()
	return mustSweepJobs(t, g, out, 2)
}

func mustSweepJobs(t *testing.T, g Grid, out string, jobs int) string {
	t.Helper()
	var stdout, log bytes.Buffer
	r := newRunner(t, g, out, jobs)
	r.Log = &log
	if err := r.Run(context.Background(), &stdout); err != nil {
		t.Fatalf("sweep: %v\n%s%s", err, stdout.String(), log.String())
	}
	return stdout.String()
}

func readResults(t *testing.T, path string) *sim.Results {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r sim.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// TestSweepWritesRunsSummaryAndPlots: every point of the grid has its
// results file, made from the point's config; the summary has one row per
// (scheduler, load, SL or all) in grid order; the plots are valid images.
func TestSweepWritesRunsSummaryAndPlots(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	stdout := mustSweep(t, tinyGrid(t), out)
	for _, w := range []string{"8 runs (2 schedulers x 2 loads x 2 seeds)", "reused 0 of 8", "ran 8", "from 8 of 8 runs"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	for _, s := range []string{"rr", "dtable"} {
		for _, l := range []float64{0.3, 0.9} {
			for _, seed := range []uint64{1, 2} {
				name := s + "_load" + FormatLoad(l) + "_seed" + strconv.FormatUint(seed, 10) + ".json"
				r := readResults(t, filepath.Join(out, "runs", name))
				c := r.Config
				if c.QoS.Scheduler != s || c.Traffic.Load != l || c.Seed != seed || c.Cycles != 3000 || c.Warmup != 1000 ||
					c.Engine != "sequential" || r.NICs != 8 || c.Traffic.Process != "cbr" || r.Interrupted {
					t.Errorf("%s: config %+v", name, c)
				}
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(entries) != 8 {
		t.Errorf("runs/ holds %d files, want 8 (no temporary files left)", len(entries))
	}
	sum := checkSummaryRows(t, out)
	checkCI(t, out, sum)
	checkPlots(t, filepath.Join(out, "plots"), []string{"latency", "throughput", "accepted", "dtable_latency"})
}

// checkSummaryRows: rows by scheduler in flag order, load ascending, SLs in
// config order then "all"; the CSV says what the JSON says.
func checkSummaryRows(t *testing.T, out string) *Summary {
	t.Helper()
	sum, err := ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]string
	for _, s := range []string{"rr", "dtable"} {
		for _, l := range []string{"0.3", "0.9"} {
			for _, sl := range []string{"VO", "VI", "CL", "BE", "BK", "all"} {
				want = append(want, [3]string{s, l, sl})
			}
		}
	}
	f, err := os.Open(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(want)+1 || len(sum.Rows) != len(want) {
		t.Fatalf("summary.csv has %d rows, summary.json %d; want %d", len(recs)-1, len(sum.Rows), len(want))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for i, w := range want {
		rec, row := recs[i+1], sum.Rows[i]
		got := [3]string{rec[0], rec[1], rec[2]}
		if got != w || row.Scheduler != w[0] || FormatLoad(row.Load) != w[1] || row.SL != w[2] {
			t.Errorf("row %d is %v / %s %v %s, want %v", i, got, row.Scheduler, row.Load, row.SL, w)
		}
		if rec[col["seeds"]] != "2" || row.Seeds != 2 {
			t.Errorf("row %d: seeds %s / %d, want 2", i, rec[col["seeds"]], row.Seeds)
		}
		lat := row.Metrics["latency_ns"]
		if lat.Mean == nil || rec[col["latency_ns_mean"]] != strconv.FormatFloat(*lat.Mean, 'g', -1, 64) {
			t.Errorf("row %d: latency_ns_mean %q, JSON %+v", i, rec[col["latency_ns_mean"]], lat)
		}
	}
	if sum.RunsFound != 8 || sum.RunsExpected != 8 || !slices.Equal(sum.Seeds, []uint64{1, 2}) {
		t.Errorf("summary counts %d of %d, seeds %v", sum.RunsFound, sum.RunsExpected, sum.Seeds)
	}
	return sum
}

// checkCI recomputes two intervals from the run files by hand: with two
// seeds, mean ± t(0.975, 1)·s/√2, t(0.975, 1) = 12.7062047361747.
func checkCI(t *testing.T, out string, sum *Summary) {
	t.Helper()
	const t975df1 = 12.706204736174707
	var a, b *sim.Results
	a = readResults(t, filepath.Join(out, "runs", "dtable_load0.9_seed1.json"))
	b = readResults(t, filepath.Join(out, "runs", "dtable_load0.9_seed2.json"))
	for _, c := range []struct {
		sl     string
		metric string
		x, y   float64
	}{
		{"VI", "latency_ns", a.PerSL[1].Latency.MeanNs, b.PerSL[1].Latency.MeanNs},
		{"all", "accepted_throughput", a.AcceptedThroughput, b.AcceptedThroughput},
		{"CL", "latency_p99_cycles", float64(a.PerSL[2].Latency.P99Cycles), float64(b.PerSL[2].Latency.P99Cycles)},
	} {
		mean := (c.x + c.y) / 2
		s := math.Sqrt((c.x-mean)*(c.x-mean) + (c.y-mean)*(c.y-mean)) // n-1 = 1
		half := t975df1 * s / math.Sqrt(2)
		i := slices.IndexFunc(sum.Rows, func(r Row) bool {
			return r.Scheduler == "dtable" && r.Load == 0.9 && r.SL == c.sl
		})
		e := sum.Rows[i].Metrics[c.metric]
		if e.N != 2 || e.Mean == nil || e.CI95 == nil || !near(*e.Mean, mean) || !near(*e.CI95, half) {
			t.Errorf("dtable 0.9 %s %s: got %+v (mean %v, ci %v), want mean %v ± %v", c.sl, c.metric, e, deref(e.Mean), deref(e.CI95), mean, half)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestSweepResumes: the same sweep again reuses every run and rewrites no
// run file; another config reuses none.
func TestSweepResumes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	g := tinyGrid(t)
	mustSweep(t, g, out)
	probe := filepath.Join(out, "runs", "rr_load0.3_seed1.json")
	old := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(probe, old, old); err != nil {
		t.Fatal(err)
	}
	stdout := mustSweep(t, g, out)
	if !strings.Contains(stdout, "reused 8 of 8") || !strings.Contains(stdout, "ran 0") {
		t.Errorf("rerun did not reuse every run:\n%s", stdout)
	}
	if st, err := os.Stat(probe); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("rerun rewrote %s", probe)
	}
	g.Base.Cycles = 3500
	stdout = mustSweep(t, g, out)
	if !strings.Contains(stdout, "reused 0 of 8") || !strings.Contains(stdout, "8 stored runs are of another config") ||
		!strings.Contains(stdout, "ran 8") {
		t.Errorf("a changed config reused runs:\n%s", stdout)
	}
	if r := readResults(t, probe); r.Config.Cycles != 3500 {
		t.Errorf("%s not rerun: cycles %d", probe, r.Config.Cycles)
	}
}

// TestSweepOneSeed: with one seed the intervals are undefined: null in the
// JSON, empty in the CSV, and the output says so.
func TestSweepOneSeed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	cfg := fabric.Default()
	cfg.Topology.Kind, cfg.Topology.Ports = "single_switch", 8
	cfg.Cycles, cfg.Warmup, cfg.Engine = 2000, 500, "sequential"
	g := Grid{Base: cfg, Schedulers: []string{"rr"}, Loads: []float64{0.5}, Seeds: []uint64{1}}
	stdout := mustSweep(t, g, out)
	if !strings.Contains(stdout, "confidence intervals are undefined") {
		t.Errorf("output does not say the CI is undefined:\n%s", stdout)
	}
	sum, err := ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Rows {
		for name, e := range r.Metrics {
			if e.CI95 != nil || (e.N == 1) != (e.Mean != nil) {
				t.Errorf("%s %s: %+v", r.SL, name, e)
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	if !strings.Contains(string(data), "\nrr,0.5,all,1,1,") || !strings.Contains(string(data), ",,") {
		t.Errorf("summary.csv:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(out, "plots", "dtable_latency.png")); err == nil {
		t.Error("a DTable plot was drawn for a sweep without dtable")
	}
}

// TestSweepInterrupted: cancelling after the first finished run keeps it on
// disk, runs nothing more, writes the aggregate from it, and a rerun
// resumes from it.
func TestSweepInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	s := newRunner(t, tinyGrid(t), out, 1)
	ctx, cancel := context.WithCancel(context.Background())
	s.OnRun = func(Point) { cancel() }
	var stdout bytes.Buffer
	err := s.Run(ctx, &stdout)
	if err == nil || !strings.Contains(err.Error(), "interrupted: 1 of 8 runs are stored") {
		t.Fatalf("error %v, want an interruption after one run", err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(entries) != 1 || entries[0].Name() != "rr_load0.3_seed1.json" {
		t.Errorf("runs/ holds %v, want the first run only", entries)
	}
	sum, err := ReadSummary(out)
	if err != nil || sum.RunsFound != 1 || sum.Rows[0].Seeds != 1 || sum.Rows[6].Seeds != 0 || !sum.Interrupted {
		t.Fatalf("summary after interruption: %+v, %v", sum, err)
	}
	if e := sum.Rows[6].Metrics["accepted_throughput"]; e.Mean != nil || e.N != 0 {
		t.Errorf("a point without runs has %+v", e)
	}
	stdout.Reset()
	if err := newRunner(t, tinyGrid(t), out, 1).Run(context.Background(), &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "reused 1 of 8") || !strings.Contains(stdout.String(), "ran 7") {
		t.Errorf("resume:\n%s", stdout.String())
	}
	if sum, err := ReadSummary(out); err != nil {
		t.Error(err)
	} else if sum.Interrupted || sum.RunsFound != 8 {
		t.Errorf("summary after the resume: interrupted %v, %d runs", sum.Interrupted, sum.RunsFound)
	}
}

// TestEstimate checks the interval against tabulated Student t quantiles.
func TestEstimate(t *testing.T) {
	e := EstimateOf([]float64{1, 2, 3}) // s = 1, t(0.975, 2) = 4.302652729911275
	if *e.Mean != 2 || !near(*e.CI95, 4.302652729911275/math.Sqrt(3)) || e.N != 3 {
		t.Errorf("estimate of 1, 2, 3: %v ± %v", *e.Mean, *e.CI95)
	}
	if e := EstimateOf([]float64{7}); *e.Mean != 7 || e.CI95 != nil {
		t.Errorf("one value: %+v", e)
	}
	if e := EstimateOf(nil); e.Mean != nil || e.CI95 != nil || e.N != 0 {
		t.Errorf("no value: %+v", e)
	}
}

// TestSweepJobsDoNotChangeResults: how many runs go at once changes
// nothing in the summary.
func TestSweepJobsDoNotChangeResults(t *testing.T) {
	dir := t.TempDir()
	var csvs [2][]byte
	for i, jobs := range []int{1, 3} {
		out := filepath.Join(dir, "jobs"+strconv.Itoa(jobs))
		mustSweepJobs(t, tinyGrid(t), out, jobs)
		var err error
		if csvs[i], err = os.ReadFile(filepath.Join(out, "summary.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Error("summary.csv differs between --jobs 1 and --jobs 3")
	}
}

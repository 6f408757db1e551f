package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/sim"
)

// cli runs opasim in-process with the root's settings (flag errors are bad
// input) and returns what it printed and its error.
func cli(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "opasim", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(newSweepCmd(), newPlotCmd())
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return o.String(), e.String(), err
}

// tinyConfig is an 8-port single switch: a run of a few thousand cycles
// takes milliseconds.
func tinyConfig(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(path, []byte("topology:\n  kind: single_switch\n  ports: 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tinySweep is 2 schedulers x 2 loads x 2 seeds of the paper mix.
func tinySweep(cfg, out string, extra ...string) []string {
	args := []string{"sweep", "--config", cfg, "--traffic", "paper-mix", "--schedulers", "rr,dtable",
		"--loads", "0.9,0.3", "--seeds", "2", "--cycles", "3000", "--warmup", "1000", "--jobs", "2", "--out", out}
	return append(args, extra...)
}

func mustSweep(t *testing.T, args []string) string {
	t.Helper()
	stdout, stderr, err := cli(t, args...)
	if err != nil {
		t.Fatalf("sweep: %v\n%s%s", err, stdout, stderr)
	}
	return stdout
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
	stdout := mustSweep(t, tinySweep(tinyConfig(t, dir), out))
	for _, w := range []string{"8 runs (2 schedulers x 2 loads x 2 seeds)", "reused 0 of 8", "ran 8", "from 8 of 8 runs"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	for _, s := range []string{"rr", "dtable"} {
		for _, l := range []float64{0.3, 0.9} {
			for _, seed := range []uint64{1, 2} {
				name := s + "_load" + formatLoad(l) + "_seed" + strconv.FormatUint(seed, 10) + ".json"
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
	checkPlots(t, filepath.Join(out, "plots"), []string{"latency", "throughput", "dtable_latency"})
}

// checkSummaryRows: rows by scheduler in flag order, load ascending, SLs in
// config order then "all"; the CSV says what the JSON says.
func checkSummaryRows(t *testing.T, out string) *sweepSummary {
	t.Helper()
	sum, err := readSummary(out)
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
		if got != w || row.Scheduler != w[0] || formatLoad(row.Load) != w[1] || row.SL != w[2] {
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
func checkCI(t *testing.T, out string, sum *sweepSummary) {
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
		i := slices.IndexFunc(sum.Rows, func(r summaryRow) bool {
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
	cfg := tinyConfig(t, dir)
	mustSweep(t, tinySweep(cfg, out))
	probe := filepath.Join(out, "runs", "rr_load0.3_seed1.json")
	old := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(probe, old, old); err != nil {
		t.Fatal(err)
	}
	stdout := mustSweep(t, tinySweep(cfg, out))
	if !strings.Contains(stdout, "reused 8 of 8") || !strings.Contains(stdout, "ran 0") {
		t.Errorf("rerun did not reuse every run:\n%s", stdout)
	}
	if st, err := os.Stat(probe); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("rerun rewrote %s", probe)
	}
	stdout = mustSweep(t, tinySweep(cfg, out, "--cycles", "3500"))
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
	stdout := mustSweep(t, []string{"sweep", "--config", tinyConfig(t, dir), "--schedulers", "rr", "--loads", "0.5",
		"--seeds", "1", "--cycles", "2000", "--warmup", "500", "--out", out})
	if !strings.Contains(stdout, "confidence intervals are undefined") {
		t.Errorf("output does not say the CI is undefined:\n%s", stdout)
	}
	sum, err := readSummary(out)
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
	args := tinySweep(tinyConfig(t, dir), out, "--jobs", "1")[1:]
	s := parseSweep(t, args)
	ctx, cancel := context.WithCancel(context.Background())
	s.onRun = func(sweepPoint) { cancel() }
	var stdout bytes.Buffer
	err := s.run(ctx, &stdout)
	if err == nil || !strings.Contains(err.Error(), "interrupted: 1 of 8 runs are stored") {
		t.Fatalf("error %v, want an interruption after one run", err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(entries) != 1 || entries[0].Name() != "rr_load0.3_seed1.json" {
		t.Errorf("runs/ holds %v, want the first run only", entries)
	}
	sum, err := readSummary(out)
	if err != nil || sum.RunsFound != 1 || sum.Rows[0].Seeds != 1 || sum.Rows[6].Seeds != 0 {
		t.Fatalf("summary after interruption: %+v, %v", sum, err)
	}
	if e := sum.Rows[6].Metrics["accepted_throughput"]; e.Mean != nil || e.N != 0 {
		t.Errorf("a point without runs has %+v", e)
	}
	stdout.Reset()
	if err := parseSweep(t, args).run(context.Background(), &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "reused 1 of 8") || !strings.Contains(stdout.String(), "ran 7") {
		t.Errorf("resume:\n%s", stdout.String())
	}
}

func parseSweep(t *testing.T, args []string) *sweeper {
	t.Helper()
	var f sweepFlags
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := f.sweeper(fs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSweepBadInput: each bad flag is named with its value and what is
// allowed, as bad input (exit status 2), before anything runs.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"load above 1", []string{"--loads", "0.5,1.5"}, []string{"--loads", "1.5", "(0, 1]"}},
		{"load zero", []string{"--loads", "0"}, []string{"--loads", "0", "(0, 1]"}},
		{"load not a number", []string{"--loads", "0.1,high"}, []string{"--loads", "high", "not a number"}},
		{"load twice", []string{"--loads", "0.5,0.5"}, []string{"--loads", "0.5", "twice"}},
		{"backward range", []string{"--loads", "1:0.1:0.1"}, []string{"--loads", "1:0.1:0.1", "FROM <= TO"}},
		{"unknown scheduler", []string{"--schedulers", "rr,fifo"}, []string{"--schedulers", "fifo", "dtable, rr"}},
		{"no seeds", []string{"--seeds", "0"}, []string{"--seeds", "0", "at least 1"}},
		{"seeds and seed list", []string{"--seeds", "2", "--seed-list", "3,4"}, []string{"--seeds and --seed-list"}},
		{"bad seed list", []string{"--seed-list", "1,x"}, []string{"--seed-list", "x", "non-negative integers"}},
		{"unknown preset", []string{"--preset", "mesh"}, []string{"--preset", "mesh", "single-switch"}},
		{"no jobs", []string{"--jobs", "0"}, []string{"--jobs", "0", "at least 1"}},
		{"warmup beyond cycles", []string{"--cycles", "100", "--warmup", "200"}, []string{"warmup", "200", "[0, cycles=100)"}},
		{"unknown traffic", []string{"--traffic", "storm"}, []string{"--traffic", "storm", "paper-mix"}},
		{"missing config", []string{"--config", filepath.Join(dir, "nope.yaml")}, []string{"--config", "nope.yaml"}},
		{"flag of the wrong type", []string{"--seeds", "many"}, []string{"--seeds", "many"}},
	} {
		args := append([]string{"sweep", "--out", out}, tc.args...)
		_, _, err := cli(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("%s: error %v is not bad input", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: message %q does not mention %q", tc.name, err, w)
			}
		}
	}
	if _, _, err := cli(t, "sweep", "--loads", "0.5"); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no --out: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input created the output directory")
	}
}

// TestSweepBadInputExitStatus: the binary exits 2 on a bad sweep flag.
func TestSweepBadInputExitStatus(t *testing.T) {
	_, stderr, code := opasim(t, "sweep", "--loads", "1.5", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--loads: 1.5 is not allowed") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestParseLoads(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
	}{
		{"0.1:1:0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"0.9, 0.1,0.5", []float64{0.1, 0.5, 0.9}},
		{"0.2:0.5:0.2,1", []float64{0.2, 0.4, 1}},
		{defaultLoads, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
	} {
		got, err := parseLoads(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseLoads(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestEstimate checks the interval against tabulated Student t quantiles.
func TestEstimate(t *testing.T) {
	e := estimateOf([]float64{1, 2, 3}) // s = 1, t(0.975, 2) = 4.302652729911275
	if *e.Mean != 2 || !near(*e.CI95, 4.302652729911275/math.Sqrt(3)) || e.N != 3 {
		t.Errorf("estimate of 1, 2, 3: %v ± %v", *e.Mean, *e.CI95)
	}
	if e := estimateOf([]float64{7}); *e.Mean != 7 || e.CI95 != nil {
		t.Errorf("one value: %+v", e)
	}
	if e := estimateOf(nil); e.Mean != nil || e.CI95 != nil || e.N != 0 {
		t.Errorf("no value: %+v", e)
	}
}

// TestSweep: a small grid writes one results file per run, a summary whose
// confidence interval matches a hand computation from those files, and
// plots; a second identical sweep reuses every run; bad input exits 2.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sw")
	args := []string{"sweep", "--ports", "8", "--schedulers", "rr,dtable", "--loads", "0.3,0.6",
		"--seeds", "3", "--cycles", "3000", "--warmup", "500", "--out", out}
	stdout, stderr, code := opasim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "runs", "*.json"))
	if len(runs) != 12 {
		t.Fatalf("%d run files, want 2 schedulers x 2 loads x 3 seeds = 12", len(runs))
	}
	// Hand computation: mean ± t(0.975, 2)·s/√3 of rr's accepted throughput
	// at load 0.6 over the three seeds.
	var xs []float64
	for _, seed := range []string{"1", "2", "3"} {
		var r sim.Results
		data, err := os.ReadFile(filepath.Join(out, "runs", "rr_load0.6_seed"+seed+".json"))
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(data, &r)
		xs = append(xs, r.AcceptedThroughput)
	}
	mean := (xs[0] + xs[1] + xs[2]) / 3
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	ci := 4.302652729911275 * math.Sqrt(ss/2) / math.Sqrt(3)
	csv, err := os.ReadFile(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	lines := strings.Split(string(csv), "\n")
	head := strings.Split(lines[0], ",")
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("summary.csv has no column %s", name)
		return -1
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) < 3 || f[0] != "rr" || f[1] != "0.6" || f[2] != "all" {
			continue
		}
		found = true
		var gotMean, gotCI float64
		json.Unmarshal([]byte(f[col("accepted_throughput_mean")]), &gotMean)
		json.Unmarshal([]byte(f[col("accepted_throughput_ci95")]), &gotCI)
		if math.Abs(gotMean-mean) > 1e-9 || math.Abs(gotCI-ci) > 1e-9 {
			t.Errorf("rr 0.6 accepted: %g ± %g, hand computation %g ± %g", gotMean, gotCI, mean, ci)
		}
	}
	if !found {
		t.Fatal("no summary row for rr, load 0.6, all SLs")
	}
	f, err := os.Open(filepath.Join(out, "plots", "latency.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(f); err != nil {
		t.Errorf("latency.png: %v", err)
	}
	f.Close()
	if svg, err := os.ReadFile(filepath.Join(out, "plots", "throughput.svg")); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("throughput.svg missing or not SVG: %v", err)
	}
	stdout, _, code = opasim(t, args...)
	if code != 0 || !strings.Contains(stdout, "reused 12 of 12") {
		t.Errorf("second sweep: exit %d, %s", code, stdout)
	}
	stdout, _, _ = opasim(t, append(args[:len(args)-2], "--pattern", "transpose", "--out", out)...)
	if strings.Contains(stdout, "reused 12 of 12") {
		t.Errorf("a changed config reused the runs: %s", stdout)
	}
	for _, bad := range [][]string{{"--loads", "1.5"}, {"--schedulers", "fifo"}, {"--seeds", "0"}, {"--preset", "mesh"}} {
		_, stderr, code := opasim(t, append([]string{"sweep", "--out", filepath.Join(dir, "bad")}, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) && !strings.Contains(stderr, bad[1]) {
			t.Errorf("sweep %v: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestSweepJobsDoNotChangeResults: how many runs go at once changes
// nothing in the summary.
func TestSweepJobsDoNotChangeResults(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	var csvs [2][]byte
	for i, jobs := range []string{"1", "3"} {
		out := filepath.Join(dir, "jobs"+jobs)
		mustSweep(t, tinySweep(cfg, out, "--jobs", jobs))
		var err error
		if csvs[i], err = os.ReadFile(filepath.Join(out, "summary.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Error("summary.csv differs between --jobs 1 and --jobs 3")
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

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
func tinySweep(cfg, out string) []string {
	return []string{"sweep", "--config", cfg, "--traffic", "paper-mix", "--schedulers", "rr,dtable",
		"--loads", "0.9,0.3", "--seeds", "2", "--cycles", "3000", "--warmup", "1000", "--jobs", "2", "--out", out}
}

func mustSweep(t *testing.T, args []string) string {
	t.Helper()
	stdout, stderr, err := cli(t, args...)
	if err != nil {
		t.Fatalf("sweep: %v\n%s%s", err, stdout, stderr)
	}
	return stdout
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
		{"unknown scheduler", []string{"--schedulers", "rr,fifo"}, []string{"--schedulers", "fifo", "dtable, dtable_sc, rr"}},
		{"no seeds", []string{"--seeds", "0"}, []string{"--seeds", "0", "[1, 10000]"}},
		{"a billion seeds", []string{"--seeds", "1000000000"}, []string{"--seeds", "1000000000", "[1, 10000]"}},
		{"tiny load step", []string{"--loads", "0.1:1:0.000000001"}, []string{"--loads", "0.1:1:0.000000001", "at most 10000 runs"}},
		{"load step zero", []string{"--loads", "0.1:1:0"}, []string{"--loads", "0.1:1:0", "STEP > 0"}},
		{"NaN load", []string{"--loads", "NaN"}, []string{"--loads", "NaN", "not a number"}},
		{"infinite load", []string{"--loads", "0.1:+Inf:0.1"}, []string{"--loads", "+Inf", "not a number"}},
		{"grid too large", []string{"--schedulers", "rr,sbt", "--loads", "0.001:1:0.001", "--seeds", "6"},
			[]string{"--schedulers, --loads, --seeds", "12000 runs (2 schedulers x 1000 loads x 6 seeds)", "at most 10000"}},
		{"extra argument", []string{"foo"}, []string{"sweep takes no arguments", "foo"}},
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
		start := time.Now()
		_, _, err := cli(t, args...)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
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

// TestPlotRedraws: `opasim plot DIR` draws the figures from summary.json
// alone: with the run files gone and the plots deleted, it draws them again.
func TestPlotRedraws(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	mustSweep(t, tinySweep(tinyConfig(t, dir), out))
	for _, sub := range []string{"runs", "plots"} {
		if err := os.RemoveAll(filepath.Join(out, sub)); err != nil {
			t.Fatal(err)
		}
	}
	stdout, _, err := cli(t, "plot", out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "ran") || !strings.Contains(stdout, "dtable_latency.svg") {
		t.Errorf("plot output:\n%s", stdout)
	}
	for _, name := range []string{"latency", "throughput", "dtable_latency"} {
		checkPNG(t, filepath.Join(out, "plots", name+".png"))
	}
	if _, err := os.Stat(filepath.Join(out, "runs")); err == nil {
		t.Error("plot ran something: runs/ is back")
	}
}

// TestPlotBadInput: a directory without a summary, or no directory, is bad
// input.
func TestPlotBadInput(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "summary.json"), []byte(`{"rows": []}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", empty}, "summary.json"},
		{[]string{"plot", bad}, "not the summary of a sweep"},
		{[]string{"plot"}, "the directory of a sweep"},
		{[]string{"plot", empty, bad}, "got 2"},
	} {
		_, _, err := cli(t, tc.args...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want bad input mentioning %q", tc.args, err, tc.want)
		}
	}
}

// TestSweepAndPlotHostileInputExitStatus: the binary refuses a grid too
// large to hold, an extra argument, and a summary with no drawable value,
// with exit status 2, a message naming the flag or field, and no panic,
// each well within 5 s.
func TestSweepAndPlotHostileInputExitStatus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	undrawable := writeSummary(t, 1e308)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"load above 1", []string{"sweep", "--loads", "1.5", "--out", out}, []string{"--loads: 1.5 is not allowed"}},
		{"a billion seeds", []string{"sweep", "--seeds", "1000000000", "--out", out}, []string{"--seeds: 1000000000 is not allowed", "[1, 10000]"}},
		{"tiny load step", []string{"sweep", "--loads", "0.1:1:0.000000001", "--out", out}, []string{"--loads", "at most 10000 runs"}},
		{"reversed range", []string{"sweep", "--loads", "0.9:0.1:0.1", "--out", out}, []string{"--loads", "FROM <= TO"}},
		{"extra argument", []string{"sweep", "foo", "--out", out}, []string{"sweep takes no arguments", `"foo"`}},
		{"plot with nothing drawable", []string{"plot", undrawable}, []string{"latency_ns mean 1e+308", "no value can be drawn"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input created the output directory")
	}
}

// TestPlotLeavesOutUndrawable: one latency too large to draw is reported
// on stderr and left out; the figures are drawn from the other points.
func TestPlotLeavesOutUndrawable(t *testing.T) {
	dir := writeSummary(t, 150, 1e308)
	stdout, stderr, code := opasim(t, "plot", dir)
	if code != 0 || !strings.Contains(stderr, "left out scheduler rr, load 0.6, SL VO: latency_ns mean 1e+308") ||
		!strings.Contains(stdout, "latency.png") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	checkPNG(t, filepath.Join(dir, "plots", "latency.png"))
}

// writeSummary writes a one-scheduler, one-SL summary.json whose latency
// at load 0.3, 0.6, ... is latencies[0], latencies[1], ...
func writeSummary(t *testing.T, latencies ...float64) string {
	t.Helper()
	var rows []map[string]any
	for i, l := range latencies {
		rows = append(rows, map[string]any{"scheduler": "rr", "load": 0.3 * float64(i+1), "sl": "VO", "seeds": 2,
			"metrics": map[string]any{"latency_ns": map[string]any{"mean": l, "ci95": 1, "n": 2},
				"normalized_throughput": map[string]any{"mean": 1, "ci95": 0, "n": 2}}})
	}
	sum := map[string]any{"schedulers": []string{"rr"}, "sls": []map[string]any{{"name": "VO", "share": 1}}, "rows": rows}
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

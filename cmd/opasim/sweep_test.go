package main

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

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
		var r fabric.Results
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

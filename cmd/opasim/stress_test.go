package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/sim"
)

// TestStressWritesAReproducibleWorstCase: a small search writes the worst
// case it found; `opasim run --config` of that file gives the same digest
// and figures as the search measured.
func TestStressWritesAReproducibleWorstCase(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := opasim(t, "stress", "--traffic", "paper-mix", "--ports", "8", "--scheduler", "dtable",
		"--cycles", "3000", "--warmup", "500", "--property", "p99", "--sl", "VO", "--bound", "200",
		"--budget", "12", "--jobs", "2", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	var searched sim.Results
	data, err := os.ReadFile(filepath.Join(dir, "worst.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &searched); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "digest "+searched.Digest) || !strings.Contains(stdout, "worst violation") {
		t.Errorf("report does not name the worst case's digest %s:\n%s", searched.Digest, stdout)
	}
	out := filepath.Join(dir, "again.json")
	if _, stderr, code := opasim(t, "run", "--config", filepath.Join(dir, "worst.yaml"), "--out", out); code != 0 {
		t.Fatalf("run --config worst.yaml: exit %d: %s", code, stderr)
	}
	var again sim.Results
	data, _ = os.ReadFile(out)
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}
	if again.Digest != searched.Digest || again.PerSL[0].Latency.P99Cycles != searched.PerSL[0].Latency.P99Cycles {
		t.Errorf("reproduced digest %s, VO p99 %d; the search measured %s, %d", again.Digest, again.PerSL[0].Latency.P99Cycles,
			searched.Digest, searched.PerSL[0].Latency.P99Cycles)
	}
}

// TestStressBadInput: the search's flags are refused with the flag, the
// value and what is allowed.
func TestStressBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown property", []string{"stress", "--property", "fairness"}, []string{"--property", "fairness", "p99, share, starvation"}},
		{"budget 0", []string{"stress", "--budget", "0"}, []string{"--budget", "0", "at least 1"}},
		{"negative tolerance", []string{"stress", "--tolerance", "-2"}, []string{"--tolerance", "-2", "[0, 100]"}},
		{"unknown SL", []string{"stress", "--property", "p99", "--sl", "XX", "--bound", "100"}, []string{"--sl", "XX", "VO, VI, CL, BE, BK"}},
		{"no bound", []string{"stress", "--property", "starvation", "--sl", "VO"}, []string{"--bound", "0", "at least 1 cycle"}},
		{"targets missing an SL", []string{"stress", "--targets", "VO=50,VI=50"}, []string{"--targets", "CL has no share"}},
		{"random above budget", []string{"stress", "--budget", "10", "--random", "11"}, []string{"--random", "11", "[0, --budget=10]"}},
		{"min load 0", []string{"stress", "--min-load", "0"}, []string{"--min-load", "0", "(0, 1]"}},
	} {
		expectRefused(t, tc.name, append(tc.args, "--out", t.TempDir()), tc.want)
	}
}

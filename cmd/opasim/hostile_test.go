package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileInput: every hostile input a new user tried is refused before
// anything is built or simulated: exit status 2, a message naming what is
// wrong, no panic, each in under 5 seconds. (plot on values it cannot
// draw: sweep/plot_test.go; the config parser's own cases and fuzzing:
// sim/yamlcheck_test.go, sim/fuzz_test.go.)
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hugeTorus := write("torus.yaml", []byte("topology:\n  kind: torus\n  dims: [1000, 1000]\n  nics_per_switch: 4\n  trunk: 1\n"))
	bigList := write("list.yaml", append([]byte("qos:\n  sc2vl: ["), bytes.Repeat([]byte("0, "), 50<<20/3)...))
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"a million ports", []string{"run", "--ports", "1000000"}, []string{"memory", "TiB", "memory_budget_mb"}},
		{"a 1000x1000 torus", []string{"run", "--config", hugeTorus}, []string{"topology", "1000000 switches", "1048576 NICs"}},
		{"a 200x200 torus", []string{"run", "--config", write("torus200.yaml", []byte("topology:\n  kind: torus\n  dims: [200, 200]\n  nics_per_switch: 8\n  trunk: 1\n"))},
			[]string{"memory", "torus 200x200", "memory_budget_mb"}},
		{"a tight memory budget", []string{"run", "--preset", "tree-8ary-3", "--config", write("budget.yaml", []byte("memory_budget_mb: 64\n"))},
			[]string{"memory", "more than the budget of 0.0625 GiB (memory_budget_mb)"}},
		{"a billion seeds", []string{"sweep", "--seeds", "1000000000", "--out", filepath.Join(dir, "s1")}, []string{"--seeds", "1000000000", "10000"}},
		{"a load step of 1e-9", []string{"sweep", "--loads", "0.1:1:0.000000001", "--out", filepath.Join(dir, "s2")}, []string{"--loads", "10000"}},
		{"100,000 procs", []string{"bench", "--procs", "100000"}, []string{"--procs", "100000", "[1, 1024]"}},
		{"100,000 partitions", []string{"run", "--config", write("parts.yaml", []byte("partitions: 100000\n"))}, []string{"partitions", "100000", "[0, 1024]"}},
		{"negative partitions", []string{"run", "--config", write("negparts.yaml", []byte("partitions: -1\n"))}, []string{"partitions", "-1", "[0, 1024]"}},
		{"config /dev/zero", []string{"run", "--config", "/dev/zero"}, []string{"--config", "not a regular file"}},
		{"config /dev/urandom", []string{"run", "--config", "/dev/urandom"}, []string{"--config", "not a regular file"}},
		{"a 50 MB YAML list", []string{"run", "--config", bigList}, []string{"--config", "more than the limit of 1048576"}},
		{"an empty config path", []string{"run", "--config", ""}, []string{"--config", "empty path"}},
		{"out under /proc", []string{"run", "--out", "/proc/x"}, []string{"--out", "/proc/x"}},
		{"cpuprofile in a missing directory", []string{"run", "--cpuprofile", filepath.Join(dir, "no", "cpu.prof")}, []string{"--cpuprofile", "cannot create"}},
		{"exectrace in a missing directory", []string{"run", "--exectrace", filepath.Join(dir, "no", "exec.trace")}, []string{"--exectrace", "cannot create"}},
		{"memprofile in a missing directory", []string{"run", "--memprofile", filepath.Join(dir, "no", "mem.prof")}, []string{"--memprofile", "cannot create"}},
		{"out is a directory", []string{"run", "--out", dir}, []string{"--out", "not a regular file"}},
		{"run with an argument", []string{"run", "extra"}, []string{"run takes no arguments", "extra"}},
		{"topo without a preset", []string{"topo"}, []string{"topo takes a preset name", "got 0 arguments"}},
		{"topo with three arguments", []string{"topo", "torus2d-4x4", "uniform", "x"}, []string{"got 3 arguments"}},
		{"an unknown subcommand", []string{"simulate"}, []string{"unknown command", "simulate", "run"}},
		{"sweep with an argument", []string{"sweep", "foo"}, []string{"sweep takes no arguments", "foo"}},
		{"qos with an unknown subcommand", []string{"qos", "sbt"}, []string{"unknown command", "sbt", "dtable"}},
		{"qos alone", []string{"qos"}, []string{"needs a subcommand"}},
		{"bench repeat 0", []string{"bench", "--repeat", "0"}, []string{"--repeat", "0", "[1, 100]"}},
		{"bench on no scenario", []string{"bench", "--scenario", "zzz"}, []string{"--scenario", "zzz", "matches no scenario"}},
		{"ports with a preset", []string{"run", "--preset", "single-switch", "--ports", "16"}, []string{"--ports 16", "single-switch", "own shape"}},
		{"ports with a torus config", []string{"run", "--config", hugeTorus, "--ports", "16"}, []string{"--ports 16", "torus"}},
		{"a misspelt key", []string{"run", "--config", write("typo.yaml", []byte("traffic:\n  laod: 0.5\n"))}, []string{"traffic.laod (line 2)", "did you mean load?"}},
		{"a misspelt key in a DTable request", []string{"qos", "dtable", "--file", write("req.yaml", []byte("entries: 128\ngmtu: 16\nw: 8\nk: 2\nsls:\n  - {name: VO, distance: 2, mtu: 2, shar: 0.1}\n"))},
			[]string{"--file", "sls[0].shar (line 6): unknown key; did you mean share?"}},
		{"a DTable request from /dev/zero", []string{"qos", "dtable", "--file", "/dev/zero"}, []string{"--file /dev/zero", "not a regular file"}},
		{"every SBT weight zero", []string{"run", "--scheduler", "wrr", "--config", write("weights.yaml", []byte("qos:\n  sls:\n    - {name: A, scs: [0], share: 1.0, sbt_weight: 0}\n  sc2vl: [0]\n"))},
			[]string{"qos.scheduler", "wrr", "SBTWeight is 0"}},
		{"metrics port out of range", []string{"run", "--metrics-addr", "127.0.0.1:70000"}, []string{"--metrics-addr", "70000", "65535"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

// TestSignalsStopCleanly: SIGINT, SIGTERM and SIGHUP stop a long run, which
// writes its partial results and exits 128 + the signal's number. The
// signal goes once the run has used half a second of CPU time (its
// handlers are installed before it builds the network), so a loaded
// machine only makes the wait longer.
func TestSignalsStopCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		out := filepath.Join(t.TempDir(), "r.json")
		cmd := exec.Command(binary, "run", "--cycles", "1000000000", "--engine", "sequential", "--out", out)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill() // a run the test gave up on does not outlive it
		waitWorked(t, cmd.Process.Pid, 500*time.Millisecond)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if got, want := cmd.ProcessState.ExitCode(), 128+int(sig); got != want {
			t.Errorf("%v: exit status %d, want %d", sig, got, want)
		}
		var r struct {
			Interrupted     bool  `json:"interrupted"`
			SimulatedCycles int64 `json:"simulated_cycles"`
			ConservationOK  bool  `json:"conservation_ok"`
		}
		data, err := os.ReadFile(out)
		if err != nil || json.Unmarshal(data, &r) != nil {
			t.Fatalf("%v: no results file: %v", sig, err)
		}
		if !r.Interrupted || r.SimulatedCycles <= 0 || !r.ConservationOK || !strings.Contains(stdout.String(), "interrupted at cycle") {
			t.Errorf("%v: results %+v, summary %q", sig, r, stdout.String())
		}
	}
}

// TestResultsOnStderrWhenTheWriteFails: a results file that cannot be
// written at the end is printed on stderr rather than lost.
func TestResultsOnStderrWhenTheWriteFails(t *testing.T) {
	var stderr bytes.Buffer
	res := map[string]any{"digest": "0123456789abcdef"}
	err := writeResultsJSON(filepath.Join(t.TempDir(), "gone", "r.json"), res, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("error %v, want one naming --out", err)
	}
	if !strings.Contains(stderr.String(), `"digest": "0123456789abcdef"`) {
		t.Errorf("stderr %q does not hold the results", stderr.String())
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestQoSDTable: the tool prints seed 000's Table 10 configuration, writes
// a table a run loads, and refuses an infeasible request with exit 2.
func TestQoSDTable(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t.yaml")
	args := []string{"qos", "dtable", "--entries", "128", "--gmtu", "16", "--w", "8", "--k", "2",
		"--sl", "VO:2:2:0.1", "--sl", "VI:4:4:0.3", "--sl", "CL:8:8:0.5", "--sl", "BE:16:16:0.05", "--sl", "BK:16:16:0.05"}
	stdout, stderr, code := opasim(t, append(args, "--out", table)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"7×32, 6×32", "416", "1248", "2080", "130", "pool = N·GMTU·k = 4096",
		// The bounds after the table (docs/dtable.md, "Bounds").
		"1 credit = 8 flits = 8 cycles, 1 cycle = 0.64 ns",
		"VO    0.1                  136    1088   696.32        2→4",
		"BK   0.05                  508    4064  2600.96      15→31"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	stdout, stderr, code = opasim(t, append(args, "--json")...)
	for _, w := range []string{`"fweight": 2080`, `"link": {`, `"flits_per_credit": 8`, `"bounds": [`,
		`"name": "VI"`, `"wait_credits": 150`, `"wait_cycles": 1200`, `"wait_ns": 768`, `"gap_from": 1`} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("--json: exit %d, output lacks %q: %s\n%s", code, w, stderr, stdout)
		}
	}
	// A run loads the table (the paper mix has the same SLs, in order).
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("cycles: 3000\nwarmup: 500\nqos:\n  dtable_file: "+table+"\n"), 0o644)
	if _, stderr, code := opasim(t, "run", "--traffic", "paper-mix", "--scheduler", "dtable", "--ports", "8",
		"--engine", "sequential", "--config", cfg); code != 0 {
		t.Errorf("run with the table: exit %d: %s", code, stderr)
	}
	_, stderr, code = opasim(t, "qos", "dtable", "--sl", "VO:2:2:0.1", "--sl", "CL:8:8:0.6", "--sl", "BE:16:16:0.3")
	if code != 2 || !strings.Contains(stderr, "SL CL: share 0.6 is above maxφ 0.5 by 0.1") {
		t.Errorf("infeasible request: exit %d, %q", code, stderr)
	}
	if _, stderr, code = opasim(t, "qos", "dtable", "--sl", "VO:2"); code != 2 || !strings.Contains(stderr, "NAME:DISTANCE:MTU:SHARE") {
		t.Errorf("malformed --sl: exit %d, %q", code, stderr)
	}
}

// TestTopo: the structure of a preset, and an unknown preset refused.
func TestTopo(t *testing.T) {
	stdout, _, code := opasim(t, "topo", "tree-24ary-2")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"switches:             48", "NICs:                 576", "48", "updown"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("topo output lacks %q:\n%s", w, stdout)
		}
	}
	if _, stderr, code := opasim(t, "topo", "mesh-9"); code != 2 || !strings.Contains(stderr, "torus2d-8x8") {
		t.Errorf("unknown preset: exit %d, %q", code, stderr)
	}
}

// TestTopoChannelLoad: the channel loads of a preset under uniform traffic
// with the default DOR rules and with the first implementation's (the
// bounds of docs/topologies.md), a deterministic pattern, hot_spot, and bad
// input refused with exit 2; the config keys reach the routing of a run.
func TestTopoChannelLoad(t *testing.T) {
	stdout, stderr, code := opasim(t, "topo", "torus2d-8x8", "--channel-load")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"routing: dor (ties balanced, trunk members src_dst)", "261632 routes",
		"switch-switch links:  2560, max 0.804305", "mean 0.801566", "dimension 1 −:      640 links",
		"saturation bound:     1.0000 flits/cycle/NIC (1 / max load 1.000000, on a NIC link)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("default rules: output lacks %q:\n%s", w, stdout)
		}
	}
	stdout, _, code = opasim(t, "topo", "torus2d-8x8", "--channel-load", "uniform", "--dor-ties", "plus", "--trunk-select", "dst_mod")
	if code != 0 || !strings.Contains(stdout, "max 1.252446") || !strings.Contains(stdout, "saturation bound:     0.7984") {
		t.Errorf("plus, dst_mod: exit %d:\n%s", code, stdout)
	}
	// transpose on 128 NICs (7 bits) is a permutation: 128 routes.
	stdout, _, code = opasim(t, "topo", "torus2d-4x4", "--channel-load=transpose")
	if code != 0 || !strings.Contains(stdout, "transpose traffic") || !strings.Contains(stdout, "(128 routes)") {
		t.Errorf("transpose: exit %d:\n%s", code, stdout)
	}
	// 63 sources send 10% + 90%/63 to NIC 3: 6.3 + 0.9.
	stdout, _, code = opasim(t, "topo", "tree-8ary-2", "--channel-load", "hot_spot", "--hot-spot", "3")
	if code != 0 || !strings.Contains(stdout, "ejection max 7.200000 (NIC 3)") || !strings.Contains(stdout, "routing: updown") {
		t.Errorf("hot_spot: exit %d:\n%s", code, stdout)
	}
	if stdout, _, code = opasim(t, "topo", "torus2d-4x4", "--channel-load", "--all"); code != 0 ||
		!strings.Contains(stdout, "0       8     dimension 0 + member 0       switch 1") {
		t.Errorf("--all: exit %d:\n%s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--channel-load", "ring"}, `--channel-load: "ring" is not allowed: must be one of: bit_complement`},
		{[]string{"--channel-load", "--dor-ties", "minus"}, `--dor-ties: "minus" is not allowed: must be one of: balanced, plus`},
		{[]string{"--trunk-select", "random"}, `--trunk-select: "random" is not allowed: must be one of: src_dst, dst_mod, hash`},
		{[]string{"uniform"}, "given only with --channel-load"},
	} {
		if _, stderr, code := opasim(t, append([]string{"topo", "torus2d-4x4"}, tc.args...)...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// The config keys: refused when unknown, and they change a run's routes.
	dir := t.TempDir()
	digests := map[string]string{}
	for _, ties := range []string{"plus", "balanced", "minus"} {
		cfg := filepath.Join(dir, ties+".yaml")
		os.WriteFile(cfg, []byte("cycles: 3000\nwarmup: 500\nengine: sequential\ntopology:\n  kind: torus\n  dims: [4]\n"+
			"  nics_per_switch: 2\n  trunk: 2\n  dor_ties: "+ties+"\n"), 0o644)
		stdout, stderr, code := opasim(t, "run", "--traffic", "paper-mix", "--load", "0.8", "--config", cfg)
		if ties == "minus" {
			if code != 2 || !strings.Contains(stderr, `topology.dor_ties: "minus" is not allowed: must be one of: balanced, plus`) {
				t.Errorf("dor_ties minus: exit %d, %q", code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("dor_ties %s: exit %d: %s", ties, code, stderr)
		}
		_, digests[ties], _ = strings.Cut(stdout, "digest ")
	}
	if digests["plus"] == "" || digests["plus"] == digests["balanced"] {
		t.Errorf("dor_ties plus and balanced give digests %q and %q", digests["plus"], digests["balanced"])
	}
}

// TestBenchRows: bench prints one row per engine with the same digest (the
// engines agree), the run, total and whole-process times, and the
// actors/sequential ratio of the process times; --in-process runs in the
// process and compares totals.
func TestBenchRows(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		ratio string
	}{
		{nil, "actors/sequential process time:"},
		{[]string{"--in-process"}, "actors/sequential total time:"},
	} {
		args := append([]string{"bench", "--scenario", "single", "--repeat", "1", "--cycles", "2000", "--procs", "1"}, tc.args...)
		stdout, stderr, code := opasim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 4 || !strings.Contains(lines[0], "process s") || !strings.Contains(lines[3], tc.ratio) {
			t.Fatalf("%v: output:\n%s", tc.args, stdout)
		}
		seq, act := strings.Fields(lines[1]), strings.Fields(lines[2])
		if seq[len(seq)-1] != act[len(act)-1] {
			t.Errorf("%v: digests differ: %s and %s", tc.args, seq[len(seq)-1], act[len(act)-1])
		}
		process := seq[len(seq)-2]
		if (process == "-") != (tc.args != nil) {
			t.Errorf("%v: process column %q", tc.args, process)
		}
	}
}

// TestBenchChildGOMAXPROCS: a child run is at the GOMAXPROCS of its point
// (the actor engine makes one partition per proc on the 8-ary 3-tree), and
// its report carries the same digest as a run in the process.
func TestBenchChildGOMAXPROCS(t *testing.T) {
	stdout, stderr, code := opasim(t, "bench", "--scenario", "tree-8ary-3 uniform 0.3", "--repeat", "1", "--cycles", "1000",
		"--procs", "1,2", "--engines", "actors", "--project")
	if code == 0 || !strings.Contains(stderr, "--project") {
		t.Fatalf("--project with one engine: exit %d, %s", code, stderr)
	}
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(binary, "bench", "--child", "tree-8ary-3 uniform 0.3", "--engines", "actors", "--cycles", "1000")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child at GOMAXPROCS %s: %v", procs, err)
		}
		var rep struct {
			Partitions int    `json:"partitions"`
			Digest     string `json:"digest"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("child report %q: %v", out, err)
		}
		if strconv.Itoa(rep.Partitions) != procs {
			t.Errorf("child at GOMAXPROCS %s ran %d partitions", procs, rep.Partitions)
		}
		stdout, _, _ = opasim(t, "bench", "--in-process", "--scenario", "tree-8ary-3 uniform 0.3", "--repeat", "1",
			"--cycles", "1000", "--procs", procs, "--engines", "actors")
		if !strings.Contains(stdout, rep.Digest) {
			t.Errorf("child digest %s not in the in-process run:\n%s", rep.Digest, stdout)
		}
	}
}

// TestBenchProject: --project prints the projection after a scenario's
// rows, and needs both engines at GOMAXPROCS 1 and above.
func TestBenchProject(t *testing.T) {
	stdout, stderr, code := opasim(t, "bench", "--scenario", "tree-8ary-3 uniform 0.3", "--repeat", "1", "--cycles", "1000",
		"--procs", "1,2", "--project")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "projected actors total time") || !strings.Contains(stdout, "16 workers") {
		t.Errorf("no projection:\n%s", stdout)
	}
	for _, args := range [][]string{{"--procs", "2"}, {"--procs", "1,2", "--engines", "actors"}, {"--procs", "1,2", "--metrics"}} {
		_, stderr, code := opasim(t, append([]string{"bench", "--project"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--project") {
			t.Errorf("bench --project %v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestExecTrace: --exectrace writes a Go execution trace of the run (a
// file go tool trace reads: it starts with the format's header).
func TestExecTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exec.trace")
	_, stderr, code := opasim(t, "run", "--cycles", "2000", "--warmup", "500", "--exectrace", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "go 1.") || len(data) < 1000 {
		t.Errorf("not an execution trace: %d bytes, starting %q", len(data), data[:min(len(data), 16)])
	}
}

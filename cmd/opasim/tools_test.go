package main

import (
	"os"
	"path/filepath"
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
	for _, w := range []string{"7×32, 6×32", "416", "1248", "2080", "130", "pool = N·GMTU·k = 4096"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
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

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/route"
)

// TestFlowStatic: the flow engine's static run on the 8-ary 2-tree,
// all-to-all, against the hand computation: 64·63 flows; d-mod-k spreads
// them evenly, so every up link of a leaf carries the 8·56/8 = 56 flows
// leaving its subtree and every server link 63; mean hops (7·2 + 56·4)/63.
// The results file holds the config and the digest, and the same run
// gives the same digest.
func TestFlowStatic(t *testing.T) {
	out := filepath.Join(t.TempDir(), "flow.json")
	stdout, stderr, code := opasim(t, "flow", "static", "--preset", "tree-8ary-2", "--workers", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r flowResults
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	s := r.Static
	if s == nil || s.Flows != 64*63 || s.MaxLoad != 63 || r.Config.Topology.Preset != "tree-8ary-2" || r.Servers != 64 {
		t.Fatalf("results %+v", r)
	}
	if want := (7.0*2 + 56*4) / 63; s.MeanHops < want-1e-9 || s.MeanHops > want+1e-9 {
		t.Errorf("mean hops %v, want %v", s.MeanHops, want)
	}
	if !strings.Contains(stdout, "digest "+r.Digest) {
		t.Errorf("stdout does not show the digest %s:\n%s", r.Digest, stdout)
	}
	again, _, _ := opasim(t, "flow", "static", "--preset", "tree-8ary-2", "--workers", "1")
	if !strings.Contains(again, "digest "+r.Digest) {
		t.Errorf("one worker gives another digest:\n%s", again)
	}
}

// TestFlowPathCache: KSP-4 all-to-all on the 8-ary 2-tree, one worker.
// The pairs are the 8 × 8 (source leaf, destination leaf); each of the
// 4,032 flows is routed twice (the engine's two passes), so 64 misses
// and 8,064 − 64 hits. Bytes, at 112 an entry, 4 a path and 4 a link:
// 8 same-leaf pairs of one empty path (116 each) and 56 of 4 paths of 2
// links (160 each): 9,888. The bound is the one given, 1 MiB.
func TestFlowPathCache(t *testing.T) {
	out := filepath.Join(t.TempDir(), "flow.json")
	stdout, stderr, code := opasim(t, "flow", "static", "--preset", "tree-8ary-2", "--routing", "ksp", "--paths", "4", "--cache-mb", "1", "--workers", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r flowResults
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	want := route.CacheStats{Entries: 64, Bytes: 8*116 + 56*160, Limit: 1 << 20, Hits: 8000, Misses: 64}
	if r.PathCache == nil || *r.PathCache != want {
		t.Fatalf("path cache %+v, want %+v", r.PathCache, want)
	}
	if !strings.Contains(stdout, "path cache 64 pairs") {
		t.Errorf("stdout does not show the cache:\n%s", stdout)
	}
	if r.Config.Routing.CacheMB != 1 {
		t.Errorf("config cache_mb %d, want 1", r.Config.Routing.CacheMB)
	}
}

// TestFlowDynamic: shift-1 on the 8-ary 2-tree, flows of size 5 in one
// phase: each server sends one flow and receives one, d-mod-k gives every
// flow its own links, so all complete at 5; in phases of 32 flows with
// delay 1, at 5 and 11.
func TestFlowDynamic(t *testing.T) {
	stdout, stderr, code := opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--pattern", "shift", "--flow-size", "5")
	if code != 0 || !strings.Contains(stdout, "64 flows in 1 phases, 0 unfinished; makespan 5,") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--pattern", "shift", "--flow-size", "5", "--phase-flows", "32", "--phase-delay", "1")
	if code != 0 || !strings.Contains(stdout, "64 flows in 2 phases, 0 unfinished; makespan 11,") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
}

// TestFlowBadInput: bad flow input is refused with the field, the value
// and what is allowed, exit status 2.
func TestFlowBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown preset", []string{"flow", "static", "--preset", "tree-9"}, []string{`topology.preset: "tree-9" is not allowed`, "tree-16ary-3"}},
		{"unknown pattern", []string{"flow", "static", "--preset", "tree-8ary-2", "--pattern", "tornado"}, []string{`unknown pattern "tornado"`}},
		{"routing for another topology", []string{"flow", "static", "--preset", "tree-8ary-2", "--routing", "dor"}, []string{`routing.name: "dor" is not allowed on a tree`}},
		{"unknown key", []string{"flow", "static", "--config", write("k.yaml", "topology:\n  kind: torus\n  dimz: [4]\n")}, []string{"dimz"}},
		{"bad torus", []string{"flow", "static", "--config", write("t.yaml", "topology:\n  kind: torus\n  dims: [4, 0]\n  servers_per_switch: 1\n")}, []string{"torus dims[1]: 0 is not allowed"}},
		{"hot spot probability", []string{"flow", "static", "--preset", "tree-8ary-2", "--pattern", "hot-spot", "--probability", "2"}, []string{"hot spot probability: 2 is not allowed"}},
		{"negative flow size", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--flow-size", "-1"}, []string{"dynamic.flow_size: -1 is not allowed"}},
		{"preset and kind", []string{"flow", "static", "--config", write("pk.yaml", "topology:\n  preset: tree-8ary-2\n  kind: mesh\n")}, []string{`topology.kind: "mesh" is not allowed with topology.preset`}},
		{"failures and d-mod-k", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-count", "3", "--routing", "dmodk"}, []string{`routing.name: "dmodk" is not allowed with failed cables`}},
		{"count and fraction", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-count", "3", "--fail-fraction", "0.1"}, []string{"topology.fail_count: 3 is not allowed with topology.fail_fraction 0.1"}},
		{"ba without shares", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--policy", "ba"}, []string{"dynamic.shares: [] is not allowed with policy ba"}},
		{"unknown policy", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--policy", "wfq"}, []string{`dynamic.policy: "wfq" is not allowed: must be one of np, ba, fp`}},
		{"cache below 1 MiB", []string{"flow", "static", "--preset", "tree-8ary-2", "--routing", "ksp", "--cache-mb", "-3"}, []string{"routing.cache_mb: -3 is not allowed"}},
		{"fraction above 1", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-fraction", "1.5"}, []string{"topology.fail_fraction: 1.5 is not allowed: must be in [0, 1]"}},
	} {
		expectRefused(t, c.name, c.args, c.want)
	}
}

// TestFlowScale: the scalability study on two families up to 600
// endpoints writes one CSV row and one JSON point per instance (8-ary
// 3-tree; tori 8x8x8) and the four figures.
func TestFlowScale(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := opasim(t, "flow", "scale", "--out", dir, "--max-servers", "600", "--families", "fat-tree,torus-3d")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "scale.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(csv), "\n"); rows != 3 || !strings.Contains(string(csv), "fat-tree,8-ary 3-tree,512,") {
		t.Errorf("scale.csv:\n%s", csv)
	}
	for _, f := range []string{"scale.json", "non-restricted.png", "restricted.svg", "restricted-per-port.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	expectRefused(t, "unknown family", []string{"flow", "scale", "--out", dir, "--families", "hypercube"}, []string{`scale family: "hypercube" is not allowed`})
	expectRefused(t, "no out", []string{"flow", "scale"}, []string{"--out: a directory is required"})
}

// TestFlowFailures: failing every cable of the 8-ary 2-tree (64 server
// cables and 8·8 between the levels: 128) leaves none of its 64·63
// ordered server pairs connected; a seeded count of 5 is reported with
// what stays connected.
func TestFlowFailures(t *testing.T) {
	stdout, stderr, code := opasim(t, "flow", "static", "--preset", "tree-8ary-2", "--fail-fraction", "1")
	if code != 0 || !strings.Contains(stdout, "128 cables failed") || !strings.Contains(stdout, "connected  0 of 4032 server pairs") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	stdout, _, code = opasim(t, "flow", "static", "--preset", "tree-8ary-2", "--fail-count", "5", "--seed", "3")
	if code != 0 || !strings.Contains(stdout, "5 cables failed") || !strings.Contains(stdout, "connected ") {
		t.Fatalf("exit %d: %s", code, stdout)
	}
}

// TestFlowApp: n-body on the 8-ary 2-tree, 64 tasks: each shift sends
// t → t+1, one flow a server and none sharing a link under d-mod-k, so 63
// shifts of 1,000 with 62 computations of 10 between: 63,620.
func TestFlowApp(t *testing.T) {
	stdout, stderr, code := opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--app", "nbody", "--flow-size", "1000", "--compute", "10")
	if code != 0 || !strings.Contains(stdout, "4032 flows in 1 phases, 0 unfinished; makespan 63620,") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	expectRefused(t, "too many tasks", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--app", "nbody", "--tasks", "65"}, []string{"app.tasks: 65 is not allowed: must be at most the network's 64 servers"})
	expectRefused(t, "unknown app", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--app", "lattice"}, []string{`application kind: "lattice" is not allowed`})
}

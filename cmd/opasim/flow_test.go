package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/internal/testlong"
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
	r := readFlowResults(t, out)
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
	r := readFlowResults(t, out)
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
	// Starts on a grid of 4: the second phase, ready at 6, starts at 8.
	stdout, stderr, code = opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--pattern", "shift", "--flow-size", "5", "--phase-flows", "32", "--phase-delay", "1", "--start-quantum", "4")
	if code != 0 || !strings.Contains(stdout, "64 flows in 2 phases, 0 unfinished; makespan 13,") {
		t.Fatalf("start quantum: exit %d: %s%s", code, stdout, stderr)
	}
	// Every flow capped at 1/4: each has links of its own, so 5 takes 20.
	stdout, stderr, code = opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--pattern", "shift", "--flow-size", "5", "--rate-cap", "0.25")
	if code != 0 || !strings.Contains(stdout, "64 flows in 1 phases, 0 unfinished; makespan 20,") {
		t.Fatalf("rate cap: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestFlowProfiles: a flow command's --cpuprofile and --memprofile write
// profiles pprof reads, with samples of the engine's code in the CPU one;
// a path that cannot be created is refused before the run.
func TestFlowProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	stdout, stderr, code := opasim(t, "flow", "static", "--cpuprofile", cpu, "--memprofile", mem)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, path := range []string{cpu, mem} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if path == cpu && !slices.ContainsFunc(p.Function, func(fn *profile.Function) bool { return strings.Contains(fn.Name, "opasim/flow/") }) {
			t.Errorf("%s: %d samples, none in the flow engine", path, len(p.Sample))
		}
	}
	expectRefused(t, "flow cpuprofile in a missing directory", []string{"flow", "dynamic", "--cpuprofile", filepath.Join(dir, "no", "cpu.prof")}, []string{"--cpuprofile", "cannot create"})
}

// TestFlowBadInput: bad flow input is refused with the field, the value
// and what is allowed, exit status 2.
// appsYAML is a config of one application of 4 tasks reading 1 on the
// 8-ary 2-tree (its markov model anchored as m).
const appsYAML = `topology: {preset: tree-8ary-2}
apps:
  - markov: &m
      tasks: 4
      read_size: 1
      matrix: [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]]
`

func TestFlowBadInput(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
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
		{"negative start quantum", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--start-quantum", "-1"}, []string{"dynamic.start_quantum: -1 is not allowed: must be in [0, 1e300]"}},
		{"negative rate cap", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--rate-cap", "-1"}, []string{"dynamic.rate_cap: -1 is not allowed: must be in [0, 1e300] (0: no bound)"}},
		{"infinite rate cap", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--rate-cap", "Inf"}, []string{"dynamic.rate_cap: +Inf is not allowed: must be in [0, 1e300] (0: no bound)"}},
		{"preset and kind", []string{"flow", "static", "--config", write("pk.yaml", "topology:\n  preset: tree-8ary-2\n  kind: mesh\n")}, []string{`topology.kind: "mesh" is not allowed with topology.preset`}},
		{"failures and d-mod-k", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-count", "3", "--routing", "dmodk"}, []string{`routing.name: "dmodk" is not allowed with failed cables`}},
		{"count and fraction", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-count", "3", "--fail-fraction", "0.1"}, []string{"topology.fail_count: 3 is not allowed with topology.fail_fraction 0.1"}},
		{"ba without shares", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--policy", "ba"}, []string{"dynamic.shares: [] is not allowed with policy ba"}},
		{"unknown policy", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--policy", "wfq"}, []string{`dynamic.policy: "wfq" is not allowed: must be one of np, ba, fp`}},
		{"cache below 1 MiB", []string{"flow", "static", "--preset", "tree-8ary-2", "--routing", "ksp", "--cache-mb", "-3"}, []string{"routing.cache_mb: -3 is not allowed"}},
		{"fraction above 1", []string{"flow", "static", "--preset", "tree-8ary-2", "--fail-fraction", "1.5"}, []string{"topology.fail_fraction: 1.5 is not allowed: must be in [0, 1]"}},
		{"negative device", []string{"flow", "dynamic", "--config", write("d.yaml", appsYAML+"storage: {device: -1}\n")}, []string{"storage.device: -1 is not allowed: must be in (0, 1e+300]"}},
		{"cache hit above 1", []string{"flow", "dynamic", "--config", write("c.yaml", appsYAML+"storage: {cache_hit: 2}\n")}, []string{"storage.cache_hit: 2 is not allowed: must be in [0, 1]"}},
		{"unknown storage key", []string{"flow", "dynamic", "--config", write("u.yaml", appsYAML+"storage: {devise: 2}\n")}, []string{"devise", "device"}},
		{"unknown storage policy", []string{"flow", "dynamic", "--config", write("a.yaml", appsYAML), "--storage-policy", "nearby"}, []string{`apps[0].storage.policy: "nearby" is not allowed: must be one of local, internal, external, san`}},
		{"storage policy without apps", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--storage-policy", "local"}, []string{`--storage-policy: "local" is not allowed without apps`}},
		{"overlapping partitions", []string{"flow", "dynamic", "--config", write("o.yaml", appsYAML+"  - {first: 3, markov: *m}\n")}, []string{"apps[1].first: 3 is not allowed: its nodes 3..6 overlap apps[0]'s at node 3"}},
		{"too many tasks", []string{"flow", "dynamic", "--config", write("n.yaml", strings.Replace(appsYAML, "tasks: 4", "tasks: 65", 1))}, []string{"apps[0].markov.tasks: 65 is not allowed: must be in [2, 64]"}},
		{"storage servers in an app", []string{"flow", "dynamic", "--config", write("s.yaml", strings.Replace(appsYAML, "read_size: 1", "read_size: 1\n      storage: [3]", 1))}, []string{"apps[0].markov.storage: [3] is not allowed here"}},
		{"internal outside", []string{"flow", "dynamic", "--config", write("i.yaml", appsYAML+"    storage: {policy: internal, nodes: [9]}\n")}, []string{"apps[0].storage.nodes[0]: 9 is not allowed with policy internal: must be a node of the partition (nodes 0..3)"}},
		{"storage without apps", []string{"flow", "dynamic", "--config", write("w.yaml", "topology: {preset: tree-8ary-2}\nstorage: {device: 2}\n")}, []string{"storage: a storage section is not allowed without apps"}},
		{"apps and markov", []string{"flow", "dynamic", "--config", write("m.yaml", appsYAML+"markov: {tasks: 2}\n")}, []string{"apps: not allowed with markov, app or trace"}},
		{"apps and trace", []string{"flow", "dynamic", "--config", write("apps-trace.yaml", appsYAML+"trace: {file: x.vef}\n")}, []string{"apps: not allowed with markov, app or trace"}},
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
	// A bench of the run's pattern: 2 rounds of a shift by one on the
	// 8-ary 2-tree, each server sending one flow and receiving one, no
	// link shared under d-mod-k: 10 + 1 + 10 = 21, every flow taking 10.
	stdout, stderr, code = opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--app", "bench", "--pattern", "shift", "--iterations", "2", "--flow-size", "10", "--compute", "1")
	if code != 0 || !strings.Contains(stdout, "128 flows in 2 phases, 0 unfinished; makespan 21, mean flow completion 10;") {
		t.Fatalf("bench: exit %d: %s%s", code, stdout, stderr)
	}
	expectRefused(t, "bench of a bit permutation on 48 tasks", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--app", "bench", "--pattern", "butterfly", "--tasks", "48"},
		[]string{"application pattern: ", "48", "power of two"})
}

// TestFlowStorageStudy: docs/examples/storage-study.yaml (three
// applications, external storage) under NP, FP and BA 50/50. Whatever the
// policy: each application draws the same phases, and the same
// computation times (drawn, not simulated; equal up to the rounding of
// the phases' ends, which the policy moves); its phases partition its
// runtime (I/O + communication + computation time = runtime); the
// makespan is the last application's end; and a second run gives the
// same digest.
func TestFlowStorageStudy(t *testing.T) {
	dir := t.TempDir()
	type app struct {
		Name     string
		Walk     []string
		End      float64
		Runtime  float64
		IOTime   float64 `json:"io_time"`
		CommTime float64 `json:"comm_time"`
		CompTime float64 `json:"comp_time"`
		IOFlows  int     `json:"io_flows"`
	}
	var walks = map[string][]string{}
	var comps = map[string]float64{}
	for _, p := range [][]string{{"np"}, {"fp"}, {"ba", "--shares", "0.5,0.5"}} {
		out := filepath.Join(dir, p[0]+".json")
		args := append([]string{"flow", "dynamic", "--config", "../../docs/examples/storage-study.yaml", "--out", out, "--policy"}, p...)
		stdout, stderr, code := opasim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", p, code, stdout, stderr)
		}
		var res struct {
			Digest  string
			Dynamic struct {
				Makespan float64
				Apps     []app
			}
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Dynamic.Apps) != 3 {
			t.Fatalf("%v: %d applications", p, len(res.Dynamic.Apps))
		}
		last := 0.0
		for _, a := range res.Dynamic.Apps {
			if sum := a.IOTime + a.CommTime + a.CompTime; math.Abs(sum-a.Runtime) > 1e-9*a.Runtime {
				t.Errorf("%v %s: I/O %v + comm %v + comp %v = %v, runtime %v", p, a.Name, a.IOTime, a.CommTime, a.CompTime, sum, a.Runtime)
			}
			if w, ok := walks[a.Name]; ok && !slices.Equal(w, a.Walk) {
				t.Errorf("%v %s: walk %v, before %v", p, a.Name, a.Walk, w)
			}
			if c, ok := comps[a.Name]; ok && math.Abs(c-a.CompTime) > 1e-9*c { // differences of times: rounding
				t.Errorf("%v %s: computation %v, before %v", p, a.Name, a.CompTime, c)
			}
			walks[a.Name], comps[a.Name] = a.Walk, a.CompTime
			last = math.Max(last, a.End)
			if a.Name != "sim" && (a.IOFlows == 0 || a.IOTime == 0) {
				t.Errorf("%v %s: no I/O (%d flows)", p, a.Name, a.IOFlows)
			}
		}
		if last != res.Dynamic.Makespan {
			t.Errorf("%v: makespan %v, last application's end %v", p, res.Dynamic.Makespan, last)
		}
		again, _, _ := opasim(t, append([]string{"flow", "dynamic", "--config", "../../docs/examples/storage-study.yaml", "--policy"}, p...)...)
		if !strings.Contains(again, "digest "+res.Digest) {
			t.Errorf("%v: second run's digest differs from %s:\n%s", p, res.Digest, again)
		}
	}
	expectRefused(t, "start quantum with storage apps", []string{"flow", "dynamic", "--config", "../../docs/examples/storage-study.yaml", "--start-quantum", "1"},
		[]string{"dynamic.start_quantum: 1 is not allowed with apps (the storage study): must be 0"})
	expectRefused(t, "rate cap with storage apps", []string{"flow", "dynamic", "--config", "../../docs/examples/storage-study.yaml", "--rate-cap", "1"},
		[]string{"dynamic.rate_cap: 1 is not allowed with apps (the storage study): must be 0"})
}

// TestFlowFailureImpact: a 2×2 stencil (flows of 10, 2 steps) on a ring
// of 4 switches, one server each, ECMP over all shortest paths. Healthy:
// every server sends 4 flows (2 to its x neighbour, adjacent on the ring,
// 2 to its y neighbour, two hops away, split over both ways), no ring
// link is over capacity with every flow at 1/4: 40 a step, 80. With the
// cable between the switches of servers 2 and 3 cut (seed 6), the ring is
// the line 3-0-1-2, and every one of the 16 flows of a step crosses the
// middle link 0→1 or 1→0, 8 flows each: 1/8, 80 a step, 160 (2×). With
// the cable between 1 and 2 cut (seed 1), the line 2-3-0-1 keeps the x
// pairs (0, 1 and 2, 3) adjacent and each middle link carries 4 flows: 80
// again. Seed 3 cuts server 0's own cable: an error naming its first
// flow, 0→1.
func TestFlowFailureImpact(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ring.yaml")
	if err := os.WriteFile(cfg, []byte("topology:\n  kind: torus\n  dims: [4]\n  servers_per_switch: 1\nrouting: {name: ecmp, paths: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tor, err := graph.NewTorus([]int{4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cut := func(seed uint64) [2]int32 { // the ends of the one cable seed fails
		f, err := graph.FailCables(tor.Graph, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		tail, head := tor.Graph.Tail(f.Removed[0]), tor.Graph.Head(f.Removed[0])
		return [2]int32{min(tail, head), max(tail, head)}
	}
	app := []string{"flow", "dynamic", "--config", cfg, "--app", "stencil2d", "--iterations", "2", "--flow-size", "10", "--fail-count", "1"}
	for _, c := range []struct {
		seed string
		ends [2]int32 // servers 0..3, switch 4+i holds server i
		want string
	}{
		{"6", [2]int32{6, 7}, "makespan 160 with 1 cables failed, 80 without (same routing): 2.0000x"},
		{"1", [2]int32{5, 6}, "makespan 80 with 1 cables failed, 80 without (same routing): 1.0000x"},
	} {
		seed, _ := strconv.ParseUint(c.seed, 10, 64)
		if got := cut(seed); got != c.ends {
			t.Fatalf("seed %s cuts the cable %v, not %v: the test's premise changed", c.seed, got, c.ends)
		}
		stdout, stderr, code := opasim(t, append(app, "--seed", c.seed)...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("seed %s: exit %d: %s%s; want %q", c.seed, code, stdout, stderr, c.want)
		}
	}
	if got := cut(3); got != [2]int32{0, 4} {
		t.Fatalf("seed 3 cuts %v, not server 0's cable", got)
	}
	_, stderr, code := opasim(t, append(app, "--seed", "3")...)
	if code != 1 || !strings.Contains(stderr, "flow 0 from server 0 to server 1 (at time 0): no path") {
		t.Errorf("seed 3: exit %d, %q; want 1 and the pair named", code, stderr)
	}
}

// TestFlowTrace: a ring trace of 16 tasks, 3 iterations of 4,096-byte
// shifts with 1,000 ns of computation between, on the 8-ary 2-tree at
// 12.5 bytes/ns: every shift has its own links under d-mod-k (327.68 ns),
// so 3·327.68 + 2·1,000 = 2,983.04 ns, and with the CPU factor 2,
// 3·327.68 + 2·2,000 = 4,983.04. The cycle-level replay of the same trace
// (trace in CL, no background) takes longer — a message there pays the
// network's latency, which the flow level does not model — but not by
// more than a quarter. Bad values are refused naming the field.
func TestFlowTrace(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.vef")
	if _, stderr, code := opasim(t, "trace", "gen", "ring", "--tasks", "16", "--iterations", "3", "--bytes", "4096", "--compute-ns", "1000", "--out", ring); code != 0 {
		t.Fatal(stderr)
	}
	flow := []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--capacity", "12.5", "--trace", ring}
	for _, c := range []struct {
		factor string
		want   string
	}{
		{"1", "16 tasks, 48 messages (sent all at once), 0 collective parts, cpu factor 1; execution time 2983.04 ns"},
		{"2", "cpu factor 2; execution time 4983.04 ns"},
	} {
		stdout, stderr, code := opasim(t, append(flow, "--cpu-factor", c.factor)...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("cpu factor %s: exit %d: %s%s; want %q", c.factor, code, stdout, stderr, c.want)
		}
	}
	if testlong.Reduced(t) {
		return
	}
	out := filepath.Join(dir, "cycle.json")
	_, stderr, code := opasim(t, "run", "--traffic", "paper-mix", "--preset", "tree-8ary-2", "--trace", ring, "--trace-sl", "2", "--load", "0", "--out", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Trace struct {
			Finished    bool    `json:"finished"`
			ExecutionNS float64 `json:"execution_ns"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if cyc := res.Trace.ExecutionNS; !res.Trace.Finished || cyc < 2983.04 || cyc > 1.25*2983.04 {
		t.Errorf("cycle level %v ns (finished %v): want between the flow level's 2,983.04 and a quarter more", cyc, res.Trace.Finished)
	}
}

func TestFlowTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.vef")
	if _, stderr, code := opasim(t, "trace", "gen", "ring", "--tasks", "4", "--iterations", "1", "--out", ring); code != 0 {
		t.Fatal(stderr)
	}
	bad := filepath.Join(dir, "bad.vef")
	if err := os.WriteFile(bad, []byte("VEF 2 1 1 0 0 FALSE\nC0 0 1\n0 0 5 8 0 0 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"flow", "dynamic", "--preset", "tree-8ary-2"}
	expectRefused(t, "negative cpu factor", append(base, "--trace", ring, "--cpu-factor", "-1"), []string{"trace cpu factor: -1 is not allowed: must be in [0, 1e+09]"})
	expectRefused(t, "missing trace", append(base, "--trace", filepath.Join(dir, "none.vef")), []string{"trace.file", "none.vef"})
	expectRefused(t, "serial sends without a trace", append(base, "--serial-sends"), []string{"trace.serial_sends: true is not allowed without trace.file"})
	expectRefused(t, "bad record", append(base, "--trace", bad), []string{"bad.vef", "line 3", "dst"})
}

// TestFlowJobs: flow/jobs' hand-computed case (TestNetworkRuntimesByHand)
// through the command: six servers, two on each of three leaves under a
// core switch (a graph file), n-body of one iteration with flows of 4;
// jobs of 3, 3 and 4 tasks arrive at 0, 0 and 1. The first two interfere
// and both take 20 (8 alone); the third waits to 20 and takes 12:
// makespan 32, mean wait 19/3, utilization 0.875, throughput 3/32. The
// files and figures are written; bad input is refused naming the field.
func TestFlowJobs(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	g := "servers 6\nswitches 4\ncable 0 6\ncable 1 6\ncable 2 7\ncable 3 7\ncable 4 8\ncable 5 8\ncable 6 9\ncable 7 9\ncable 8 9\n"
	cfg := write("leaves.yaml", "topology:\n  kind: file\n  file: "+write("leaves.graph", g)+"\n")
	stream := write("stream", "# arrival size runtime\n0 3 100\n0 3 100\n1 4 100\n")
	out := filepath.Join(dir, "out")
	args := []string{"flow", "jobs", "--config", cfg, "--stream", stream, "--app", "nbody", "--flow-size", "4", "--out", out}
	stdout, stderr, code := opasim(t, args...)
	if code != 0 || !strings.Contains(stdout, "makespan     32\n") || !strings.Contains(stdout, "utilization  0.875; throughput 0.09375") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	csvData, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "0,0,3,100,0,20,0,20,20,0,6,nbody\n1,0,3,100,0,20,0,20,20,3,6,nbody\n2,1,4,100,20,32,19,12,31,0,12,nbody\n"; !strings.HasSuffix(string(csvData), want) {
		t.Errorf("jobs.csv:\n%s\nwant the rows\n%s", csvData, want)
	}
	var rep jobsReport
	data, err := os.ReadFile(filepath.Join(out, "jobs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.MeanWait != 19.0/3 || rep.MeanRuntime != 52.0/3 || len(rep.Busy) != 3 || rep.Busy[1] != 4 {
		t.Errorf("jobs.json: %+v", rep)
	}
	for _, f := range []string{"utilization.csv", "utilization.png", "utilization.svg", "jobs.png", "jobs.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	big := write("big", "0 7 1\n")
	expectRefused(t, "job too big", []string{"flow", "jobs", "--config", cfg, "--stream", big, "--out", out}, []string{"job 0 size: 7 is not allowed: must be in [1, 6]"})
	expectRefused(t, "unknown policy", append(args, "--policy", "lifo"), []string{`jobs policy: "lifo" is not allowed`})
	expectRefused(t, "unknown mapping", append(args, "--mapping", "snake"), []string{`jobs mapping: "snake" is not allowed`})
	expectRefused(t, "stencil of 3", append(args, "--app", "stencil2d"), []string{"job 0 (size 3)", "stencil2d tasks: 3 is not allowed"})
	// Per-job applications: job 2 (4 tasks, alone from 20) runs the
	// n-body with flows of 8 instead of 4 (its APP field): three shifts
	// that share no link, 8 each, [20, 44]; the others are unchanged.
	mixed := write("mixed", "0 3 100\n0 3 100\n1 4 100 0 nbody,size=8\n")
	_, stderr, code = opasim(t, "flow", "jobs", "--config", cfg, "--stream", mixed, "--app", "nbody", "--flow-size", "4", "--out", out)
	if code != 0 {
		t.Fatalf("mixed stream: exit %d: %s", code, stderr)
	}
	if csvData, err = os.ReadFile(filepath.Join(out, "jobs.csv")); err != nil {
		t.Fatal(err)
	}
	if want := "2,1,4,100,20,44,19,24,43,0,12,nbody\n"; !strings.HasSuffix(string(csvData), want) {
		t.Errorf("mixed stream, jobs.csv:\n%s\nwant the last row\n%s", csvData, want)
	}
	// A bench job: 2 rounds of a shift by one among its 4 tasks, flows of
	// 4, no link shared: 4 + 4 = 8, [20, 28]; jobs.csv names its pattern.
	benchJob := write("bench", "0 3 100\n0 3 100\n1 4 100 0 bench,pattern=shift,iterations=2\n")
	if _, stderr, code = opasim(t, "flow", "jobs", "--config", cfg, "--stream", benchJob, "--app", "nbody", "--flow-size", "4", "--out", out); code != 0 {
		t.Fatalf("bench stream: exit %d: %s", code, stderr)
	}
	if csvData, err = os.ReadFile(filepath.Join(out, "jobs.csv")); err != nil {
		t.Fatal(err)
	}
	if want := ",20,28,19,8,27,0,8,bench-shift\n"; !strings.HasSuffix(string(csvData), want) {
		t.Errorf("bench stream, jobs.csv:\n%s\nwant the last row to end\n%s", csvData, want)
	}
	expectRefused(t, "pattern without bench", append(args, "--pattern", "shift"), []string{`--pattern: "shift" is not allowed with --app nbody: only --app bench takes a pattern`})
	badApp := write("badapp", "0 3 100\n1 2 5 0 nbody,colour=red\n")
	expectRefused(t, "bad APP", []string{"flow", "jobs", "--config", cfg, "--stream", badApp, "--out", out}, []string{`badapp:2: application "nbody,colour=red": key "colour" is not allowed`})
	expectRefused(t, "no out", []string{"flow", "jobs", "--config", cfg}, []string{"--out: a directory is required"})
}

// TestFlowAppsLimit: with a run limit of 1 ns on part of the 4k study
// (the fat tree, two applications, single path), both runs are reported
// not finished, on standard output and in apps.csv, and the second still
// runs; without the limit the sweep finishes. --merge writes both
// directories' points together; bad flags are refused naming the value.
func TestFlowAppsLimit(t *testing.T) {
	cut, whole, merged := t.TempDir(), t.TempDir(), t.TempDir()
	stdout, stderr, code := opasim(t, "flow", "apps", "--out", cut, "--topologies", "fat-tree", "--apps", "sweep2d,nbody", "--routings", "single", "--run-limit", "1ns")
	if code != 0 || strings.Count(stdout, "NOT FINISHED within the run limit") != 2 || strings.Contains(stdout, "execution time") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	rows := appsRows(t, cut)
	if len(rows) != 3 || rows[0][9] != "finished" {
		t.Fatalf("apps.csv: %q", rows)
	}
	for _, r := range rows[1:] {
		if r[3] != "false" || r[9] != "false" || r[6] != "0" {
			t.Errorf("apps.csv row %q: want single path, not finished, no execution time", r)
		}
	}
	stdout, stderr, code = opasim(t, "flow", "apps", "--out", whole, "--topologies", "fat-tree", "--apps", "sweep2d", "--routings", "single")
	if code != 0 || strings.Count(stdout, "execution time") != 1 || strings.Contains(stdout, "NOT FINISHED") {
		t.Fatalf("no limit: exit %d: %s%s", code, stdout, stderr)
	}
	if rows := appsRows(t, whole); len(rows) != 2 || rows[0][12] != "start_quantum" || rows[1][12] != "0" {
		t.Errorf("apps.csv of exact starts: %q", rows)
	}
	grid := t.TempDir()
	stdout, stderr, code = opasim(t, "flow", "apps", "--out", grid, "--topologies", "fat-tree", "--apps", "sweep2d", "--routings", "single", "--start-quantum", "0.5")
	if code != 0 || !strings.Contains(stdout, "starts on a grid of 0.5") {
		t.Fatalf("start quantum: exit %d: %s%s", code, stdout, stderr)
	}
	if rows := appsRows(t, grid); len(rows) != 2 || rows[1][12] != "0.5" || rows[1][9] != "true" {
		t.Errorf("apps.csv of starts on a grid: %q", rows)
	}
	if stdout, stderr, code = opasim(t, "flow", "apps", "--out", merged, "--merge", cut+","+whole+","+grid); code != 0 {
		t.Fatalf("merge: exit %d: %s%s", code, stdout, stderr)
	}
	if rows := appsRows(t, merged); len(rows) != 5 || rows[3][1] != "sweep2d" || rows[3][9] != "true" || rows[3][12] != "0" || rows[4][12] != "0.5" {
		t.Errorf("merged apps.csv (want a header, the 2 unfinished rows, the finished sweep, the sweep on a grid of 0.5): %q", rows)
	}
	// KSP-4 beside ECMP-4: the multipath figure has a bar series for each,
	// the KSP one named by its routing.
	both, ksp, two := t.TempDir(), t.TempDir(), t.TempDir()
	if stdout, stderr, code = opasim(t, "flow", "apps", "--out", both, "--topologies", "jellyfish", "--apps", "sweep2d"); code != 0 {
		t.Fatalf("both routings: exit %d: %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = opasim(t, "flow", "apps", "--out", ksp, "--topologies", "jellyfish", "--apps", "sweep2d", "--routings", "multipath", "--multipath", "ksp")
	if code != 0 || !strings.Contains(stdout, "ksp-4") {
		t.Fatalf("ksp: exit %d: %s%s", code, stdout, stderr)
	}
	if stdout, stderr, code = opasim(t, "flow", "apps", "--out", two, "--merge", both+","+ksp); code != 0 {
		t.Fatalf("merge: exit %d: %s%s", code, stdout, stderr)
	}
	svg, err := os.ReadFile(filepath.Join(two, "multipath.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "jellyfish ksp-4") || !strings.Contains(string(svg), "ECMP over 4 paths unless named") {
		t.Errorf("multipath.svg of ECMP-4 and KSP-4 runs: no KSP series or title")
	}
	dir := t.TempDir()
	expectRefused(t, "unknown multipath", []string{"flow", "apps", "--out", dir, "--multipath", "valiant"}, []string{`--multipath: "valiant" is not allowed: must be one of ecmp, ksp`})
	expectRefused(t, "unknown size", []string{"flow", "apps", "--out", dir, "--servers", "1m"}, []string{`--servers: study size: "1m" is not allowed: must be one of 4k, 64k`})
	expectRefused(t, "unknown app", []string{"flow", "apps", "--out", dir, "--apps", "stencil4d"}, []string{`--apps: "stencil4d" is not allowed: must be among`})
	expectRefused(t, "unknown topology", []string{"flow", "apps", "--out", dir, "--topologies", "hypercube"}, []string{`--topologies: "hypercube" is not allowed: must be among`})
	expectRefused(t, "negative limit", []string{"flow", "apps", "--out", dir, "--run-limit", "-1s"}, []string{"--run-limit: -1s is not allowed: must be at least 0"})
	expectRefused(t, "negative quantum", []string{"flow", "apps", "--out", dir, "--start-quantum", "-0.5"}, []string{"--start-quantum: -0.5 is not allowed: must be in [0, 1e300]"})
	expectRefused(t, "NaN quantum", []string{"flow", "apps", "--out", dir, "--start-quantum", "NaN"}, []string{"--start-quantum: NaN is not allowed: must be in [0, 1e300]"})
	expectRefused(t, "unknown routings", []string{"flow", "apps", "--out", dir, "--routings", "adaptive"}, []string{`--routings: "adaptive" is not allowed: must be one of both, single, multipath`})
}

// appsRows reads dir/apps.csv.
func appsRows(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "apps.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

package spec

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
)

// countCases are small instances of every parametric kind, with the
// counts worked out by hand from the kind's definition (not from
// Counts' formulas): servers, switches, directed links.
var countCases = []struct {
	topo                     Topology
	servers, switches, links int64
}{
	// k-ary n-tree: k^n servers, n·k^(n−1) switches, 2n·k^n links.
	{Topology{Kind: KindTree, K: 2, N: 1}, 2, 1, 4},
	{Topology{Kind: KindTree, K: 4, N: 3}, 64, 48, 384},
	{Topology{Kind: KindTree, K: 3, N: 4}, 81, 108, 648},
	// Torus 4x4, 2 servers a switch: 16 switches, 32 servers; 64 server
	// links, 2 a switch per dimension of size > 1: 64.
	{Topology{Kind: KindTorus, Dims: []int{4, 4}, ServersPerSwitch: 2}, 32, 16, 64 + 64},
	// 3x1x2: 6 switches; dims 3 and 2 give 2 links each way a switch
	// (two parallel along size 2), dim 1 none: 6·4 = 24, plus 12.
	{Topology{Kind: KindTorus, Dims: []int{3, 1, 2}, ServersPerSwitch: 1}, 6, 6, 12 + 24},
	{Topology{Kind: KindTorus, Dims: []int{5}, ServersPerSwitch: 3}, 15, 5, 30 + 10},
	// Mesh 3x5, 2 servers: 15 switches, 30 servers (60 links); cables
	// along dim 0: 2·5 = 10, dim 1: 3·4 = 12, 44 links.
	{Topology{Kind: KindMesh, Dims: []int{3, 5}, ServersPerSwitch: 2}, 30, 15, 60 + 44},
	// 2x3x4: 24 switches; cables 1·12 + 2·8 + 3·6 = 46, 92 links.
	{Topology{Kind: KindMesh, Dims: []int{2, 3, 4}, ServersPerSwitch: 1}, 24, 24, 48 + 92},
	{Topology{Kind: KindMesh, Dims: []int{1, 6}, ServersPerSwitch: 3}, 18, 6, 36 + 10},
	// XGFT(2; 2,3; 1,2): 6 servers; level 1: 3·1 = 3, level 2: 1·2 = 2
	// switches; cables up: 6·1 + 3·2 = 12, 24 links.
	{Topology{Kind: KindXGFT, M: []int{2, 3}, W: []int{1, 2}}, 6, 5, 24},
	// XGFT(3; 2,2,3; 2,1,2): 12 servers; levels 6·2 = 12, 3·2 = 6, 1·4 = 4
	// switches; cables 12·2 + 12·1 + 6·2 = 48, 96 links.
	{Topology{Kind: KindXGFT, M: []int{2, 2, 3}, W: []int{2, 1, 2}}, 12, 22, 96},
	// Thin tree k 4, k' 2, n 3: XGFT(3; 4,4,4; 1,2,2): 64 servers;
	// levels 16, 4·2 = 8, 1·4 = 4 switches; cables 64 + 16·2 + 8·2 = 112.
	{Topology{Kind: KindThinTree, K: 4, KUp: 2, N: 3}, 64, 28, 224},
	// k' = k: the 3-ary 2-tree.
	{Topology{Kind: KindThinTree, K: 3, KUp: 3, N: 2}, 9, 6, 36},
	// Dragonfly a 4, h 2, p 2: 9 groups, 36 routers, 72 servers; links
	// 144 + 36·3 + 36·2 = 324.
	{Topology{Kind: KindDragonfly, A: 4, H: 2, P: 2, Arrangement: "absolute"}, 72, 36, 324},
	{Topology{Kind: KindDragonfly, A: 2, H: 1, P: 3, Arrangement: "relative"}, 18, 6, 36 + 6 + 6},
	{Topology{Kind: KindDragonfly, A: 1, H: 4, P: 1, Arrangement: "circulant"}, 5, 5, 10 + 0 + 20},
	// Jellyfish 8 switches of 6 ports, 4 to switches: 16 servers (32
	// links), 16 cables between switches (32 links).
	{Topology{Kind: KindJellyfish, Switches: 8, Ports: 6, SwitchPorts: 4}, 16, 8, 64},
	// 5 switches, 3 to switches (odd n·r): 7 cables; 5·2 servers.
	{Topology{Kind: KindJellyfish, Switches: 5, Ports: 5, SwitchPorts: 3}, 10, 5, 20 + 14},
	{Topology{Kind: KindJellyfish, Switches: 20, Ports: 8, SwitchPorts: 5}, 60, 20, 120 + 100},
	// BCube(3, 1): 9 servers of 2 ports, 2·3 switches, 36 links.
	{Topology{Kind: KindBCube, N: 3, K: 1}, 9, 6, 36},
	{Topology{Kind: KindBCube, N: 2, K: 2}, 8, 12, 48},
	{Topology{Kind: KindBCube, N: 4, K: 0}, 4, 1, 8},
	// DCell n 3: t_1 = 4·3 = 12 servers, 4 switches; 12 switch cables
	// and C(4,2) = 6 level-1 cables: 24 + 12 links.
	{Topology{Kind: KindDCell, N: 3, K: 1}, 12, 4, 36},
	// DCell n 2, k 2: t_1 = 3·2 = 6, t_2 = 7·6 = 42; 21 switches; 84
	// switch links, level 1: 7 copies of 3 cables, level 2: 21 cables:
	// 84 + 42 + 42.
	{Topology{Kind: KindDCell, N: 2, K: 2}, 42, 21, 168},
	// FiConn n 4, k 2: t_1 = (4/2+1)·4 = 12, t_2 = (12/4+1)·12 = 48; 12
	// switches; 96 switch links, level 1: 4 copies of C(3,2) = 3 cables
	// (24 links), level 2: C(4,2) = 6 cables (12 links).
	{Topology{Kind: KindFiConn, N: 4, K: 2}, 48, 12, 96 + 24 + 12},
	{Topology{Kind: KindFiConn, N: 6, K: 1}, 24, 4, 48 + 12},
	// DPillar n 4 (h 2), k 3: 3·8 servers, 3·4 switches, 4 links a server.
	{Topology{Kind: KindDPillar, N: 4, K: 3}, 24, 12, 96},
	{Topology{Kind: KindDPillar, N: 6, K: 2}, 18, 6, 72},
	// HCN(3, 1): 3 switches, 9 leaders; 9 switch cables, leader cables
	// (9−3)/2 = 3: 18 + 6 links.
	{Topology{Kind: KindHCN, N: 3, H: 1}, 9, 3, 24},
	// HCN(2, 2): 4 switches, 8 leaders; 8 + 3 cables.
	{Topology{Kind: KindHCN, N: 2, H: 2}, 8, 4, 22},
	// BCN(2, 2, 1, 1): s = 2·2 + 1 = 5 copies of 4 leaders, 4 followers,
	// 2 switches; a copy: 8 switch cables, 1 leader cable; followers:
	// 5·2·2/2 = 10 cables: 5·(16 + 2) + 20 = 110 links.
	{Topology{Kind: KindBCN, Alpha: 2, Beta: 2, H: 1, Gamma: 1}, 40, 10, 110},
	// BCN(2, 1, 1, 0): s = 2 copies of 4 leaders and 2 followers, 2
	// switches; a copy 6 + 1 cables; followers 2·2·1/2 = 2 cables.
	{Topology{Kind: KindBCN, Alpha: 2, Beta: 1, H: 1, Gamma: 0}, 12, 4, 2*(12+2) + 4},
}

// TestCountsBuilt: for every parametric kind, the counts from the
// parameters alone are the hand-worked ones and those of the graph the
// builder makes (jellyfish: at most its links, here all of them).
func TestCountsBuilt(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range countCases {
		seen[c.topo.Kind] = true
		topo := c.topo
		n, ok := topo.Counts()
		if !ok {
			t.Errorf("%s: no counts", topo.params())
			continue
		}
		if n.Servers != c.servers || n.Switches != c.switches || n.Links != c.links {
			t.Errorf("%s: counts %s, want %d servers, %d switches and %d links", topo.params(), n, c.servers, c.switches, c.links)
		}
		cfg := Config{Topology: topo}
		net, err := cfg.Build()
		if err != nil {
			t.Errorf("%s: %v", topo.params(), err)
			continue
		}
		g := net.Graph
		if int64(g.NumServers()) != n.Servers || int64(g.NumSwitches()) != n.Switches || int64(g.NumLinks()) != n.Links {
			t.Errorf("%s: built %d servers, %d switches, %d links; counted %s", topo.params(), g.NumServers(), g.NumSwitches(), g.NumLinks(), n)
		}
		if n.LinksAtMost != (topo.Kind == KindJellyfish) {
			t.Errorf("%s: links an upper bound: %t", topo.params(), n.LinksAtMost)
		}
	}
	for _, k := range Kinds() {
		if k != KindFile && !seen[k] {
			t.Errorf("kind %s has no case: every parametric kind's counts are checked against its builder", k)
		}
	}
	if _, ok := (&Topology{Kind: KindFile, File: "x"}).Counts(); ok {
		t.Error("a graph file counted from its parameters")
	}
}

// TestCountsPresets: every preset is counted as its builder builds it
// (built only up to 5 million links: the 1-million-server presets are
// counted against their documented sizes).
func TestCountsPresets(t *testing.T) {
	documented := map[string][3]int64{
		// 32^4 servers, 4·32^3 switches, 8·32^4 links.
		"tree-32ary-4": {1048576, 131072, 8388608},
		// 1,059 groups of 46 routers of 23 servers: 48,714 routers,
		// 1,120,422 servers; 2·1,120,422 + 48,714·45 + 48,714·23 links.
		"dragonfly-1m": {1120422, 48714, 2*1120422 + 48714*45 + 48714*23},
	}
	for _, p := range Presets() {
		cfg := Config{Topology: Topology{Preset: p}}
		built := cfg // Resolve once: BuildWithin resolves the preset itself
		if err := cfg.Resolve(); err != nil {
			t.Fatal(err)
		}
		n, ok := cfg.Topology.Counts()
		if !ok {
			t.Errorf("preset %s: no counts", p)
			continue
		}
		if want, ok := documented[p]; ok {
			if n.Servers != want[0] || n.Switches != want[1] || n.Links != want[2] {
				t.Errorf("preset %s: %s, want %v", p, n, want)
			}
			continue
		}
		if n.Links > 5e6 {
			t.Errorf("preset %s: %s: add its documented size to this test", p, n)
			continue
		}
		net, err := built.Build()
		if err != nil {
			t.Fatal(err)
		}
		g := net.Graph
		if int64(g.NumServers()) != n.Servers || int64(g.NumSwitches()) != n.Switches || int64(g.NumLinks()) != n.Links {
			t.Errorf("preset %s: built %d servers, %d switches, %d links; counted %s", p, g.NumServers(), g.NumSwitches(), g.NumLinks(), n)
		}
	}
}

// TestCountsEstimateAgrees: the estimate made before building is the one
// made after it — StaticBytes with the config's workers, DynamicBytes
// before any flow — for every kind and every routing's tables.
func TestCountsEstimateAgrees(t *testing.T) {
	type variant struct {
		routing Routing
		fail    int
	}
	variants := []variant{{}, {routing: Routing{Name: "ecmp", Paths: 2}}, {routing: Routing{Name: "ksp", Paths: 2, CacheMB: 3}},
		{routing: Routing{Name: "allpath", D: 1, Paths: 2}}, {fail: 2}, {fail: 2, routing: Routing{Name: "ksp"}}}
	for _, c := range countCases {
		vs := variants
		if c.topo.Kind == KindDragonfly {
			vs = append(vs, variant{routing: Routing{Name: "valiant", Paths: 1}})
		}
		for _, v := range vs {
			cfg := Config{Topology: c.topo, Routing: v.routing, Workers: 3}
			cfg.Topology.FailCount = v.fail
			if v.fail > 0 && (c.topo.Kind == KindJellyfish || c.links < 40) {
				continue // failures may disconnect the smallest
			}
			n, _ := cfg.Topology.Counts()
			net, err := cfg.Build()
			if err != nil {
				t.Errorf("%s, routing %+v, fail_count %d: %v", c.topo.params(), v.routing, v.fail, err)
				continue
			}
			routing := cfg.routingBytesOf(cfg.plannedRouter())
			if routing != cfg.routingBytes(net) {
				t.Errorf("%s, routing %+v: router %s planned as %s: %d B of tables, built %d", c.topo.params(), v.routing, net.Router.Name(), cfg.plannedRouter(), routing, cfg.routingBytes(net))
			}
			if v.fail > 0 {
				continue // the graph built has fewer links than counted: the estimate before is above the one after
			}
			if got, want := AddBytes(countsRunBytes(n.Nodes(), n.Links, cfg.runWorkers(Budget{})), routing), cfg.StaticBytes(net); got != want {
				t.Errorf("%s: static estimate %d before building, %d after", c.topo.params(), got, want)
			}
			if got, want := AddBytes(countsRunBytes(n.Nodes(), n.Links, cfg.runWorkers(Budget{Dynamic: true})), routing), cfg.DynamicBytes(net, 0); got != want {
				t.Errorf("%s: dynamic estimate %d before building, %d after", c.topo.params(), got, want)
			}
		}
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestBigRefusedBeforeBuilding: the two configs that used to be built
// first (minutes and gigabytes) and refused after are refused from their
// parameters, allocating almost nothing, with the estimate the run would
// have had after building.
func TestBigRefusedBeforeBuilding(t *testing.T) {
	for _, c := range []struct {
		topo    Topology
		mb      int64
		dynamic bool
		want    []string
	}{
		// 400^3 switches, one server each: 64e6 servers and switches;
		// links 2·64e6 + 6·64e6 = 512e6. Graph 20·512e6 + 8·128e6 + 8 B
		// = 11,264,000,008 B; each worker 40·128e6 + 24·512e6 =
		// 17,408,000,000 B; with 2: 46,080,000,008 B = 42.9 GiB.
		{Topology{Kind: KindTorus, Dims: []int{400, 400, 400}, ServersPerSwitch: 1}, 24064, false, []string{
			"topology {kind: torus, dims: [400, 400, 400], servers_per_switch: 1}, counted before building: " +
				"the static engine on 64000000 servers, 64000000 switches and 512000000 links with 2 workers (--workers): " +
				"this run would take about 42.9 GiB of memory, more than the budget of 23.5 GiB (--memory-budget-mb or memory_budget_mb: 24064)"}},
		// 32-ary 5-tree: 32^5 = 33,554,432 servers, 5·32^4 = 5,242,880
		// switches, 10·32^5 = 335,544,320 links; 38,797,312 nodes. Graph
		// 6,710,886,400 + 310,378,496 + 8; a worker 1,551,892,480 +
		// 8,053,063,680; with 2: 26,232,184,328 B = 24.4 GiB.
		{Topology{Kind: KindTree, K: 32, N: 5}, 2000, false, []string{
			"topology {kind: tree, k: 32, n: 5}, counted before building: the static engine on 33554432 servers, 5242880 switches and 335544320 links with 2 workers",
			"about 24.4 GiB of memory, more than the budget of 2.0 GiB"}},
		// The dynamic engine: one worker's scratch, 16,622,956,808 B =
		// 15.5 GiB.
		{Topology{Kind: KindTree, K: 32, N: 5}, 2000, true, []string{
			"the dynamic engine on 33554432 servers, 5242880 switches and 335544320 links, before any flow: this run would take about 15.5 GiB"}},
	} {
		b, err := NewBudget(c.mb)
		if err != nil {
			t.Fatal(err)
		}
		b.Dynamic = c.dynamic
		cfg := Config{Topology: c.topo, Workers: 2}
		var net *Network
		used := allocated(func() { net, err = cfg.BuildWithin(b, nil) })
		if err == nil || net != nil {
			t.Fatalf("%s: built within %d MiB", c.topo.params(), c.mb)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", c.topo.params(), err, w)
			}
		}
		if used > 4<<20 {
			t.Errorf("%s: %d B allocated before the refusal: the graph was built", c.topo.params(), used)
		}
	}
	// Within the budget, the pre-build check lets it through (a small
	// one): 64 servers, 48 switches, 384 links: 20·384 + 8·112 + 8 =
	// 8,584 B of graph, 40·112 + 24·384 = 13,696 B a worker.
	cfg := Config{Topology: Topology{Kind: KindTree, K: 4, N: 3}, Workers: 1}
	if err := cfg.checkCounts(Budget{Bytes: 8584 + 13696, From: "x"}); err != nil {
		t.Errorf("at the budget: %v", err)
	}
	if err := cfg.checkCounts(Budget{Bytes: 8584 + 13695, From: "x"}); err == nil {
		t.Error("one byte over the budget let through")
	}
}

// TestCountsHostile: parameters far past any graph are refused before
// anything is allocated, with or without a budget, naming the parameters
// and the limits; no panic, no overflow.
func TestCountsHostile(t *testing.T) {
	const g9 = 1_000_000_000
	long := slices.Repeat([]int{2}, 100000)
	limits := "is not allowed: a graph holds at most 2147483646 nodes and 2147483647 links"
	for _, c := range []struct {
		topo Topology
		want string
	}{
		{Topology{Kind: KindTree, K: g9, N: 5}, "topology {kind: tree, k: 1000000000, n: 5}: more than 4.6e18 servers"},
		{Topology{Kind: KindTree, K: 2, N: math.MaxInt}, "n: 9223372036854775807}"},
		{Topology{Kind: KindTorus, Dims: []int{g9, g9, g9}, ServersPerSwitch: g9}, "dims: [1000000000, 1000000000, 1000000000], servers_per_switch: 1000000000"},
		// 2^31 switches: one past the limit.
		{Topology{Kind: KindTorus, Dims: []int{1 << 16, 1 << 15}, ServersPerSwitch: 1}, "2147483648 servers, 2147483648 switches"},
		{Topology{Kind: KindMesh, Dims: long, ServersPerSwitch: 1}, "dims: [2, 2, 2, 2, 2, 2, 2, 2, ... (100000 in all)]"},
		{Topology{Kind: KindXGFT, M: []int{g9, g9}, W: []int{1, g9}}, "m: [1000000000, 1000000000], w: [1, 1000000000]"},
		{Topology{Kind: KindThinTree, K: 2, KUp: 2, N: math.MaxInt}, "k_up: 2"},
		// a·h overflows an int64 in the builder.
		{Topology{Kind: KindDragonfly, A: 4 * g9, H: 4 * g9, P: 1, Arrangement: "absolute"}, "a: 4000000000, h: 4000000000, p: 1"},
		// Few nodes, too many links: 2001·2000 routers and servers; links
		// 2·4,002,000 + 4,002,000·1999 (local) + 4,002,000 (global).
		{Topology{Kind: KindDragonfly, A: 2000, H: 1, P: 1, Arrangement: "absolute"}, "4002000 servers, 4002000 switches and 8012004000 links"},
		// 100,000 nodes; 2·50,000 server links, 50,000·49,999 between
		// switches.
		{Topology{Kind: KindJellyfish, Switches: 50000, Ports: 50000, SwitchPorts: 49999}, "50000 servers, 50000 switches and at most 2500050000 links"},
		{Topology{Kind: KindBCube, N: 2, K: math.MaxInt}, "{kind: bcube, n: 2, k: 9223372036854775807}"},
		{Topology{Kind: KindDCell, N: g9, K: 3}, "{kind: dcell, n: 1000000000, k: 3}"},
		{Topology{Kind: KindDCell, N: 2, K: math.MaxInt}, "more than 4.6e18 servers"},
		{Topology{Kind: KindFiConn, N: 1 << 20, K: 2}, "{kind: ficonn, n: 1048576, k: 2}"},
		{Topology{Kind: KindDPillar, N: 2 * g9, K: g9}, "{kind: dpillar, n: 2000000000, k: 1000000000}"},
		{Topology{Kind: KindHCN, N: 2, H: math.MaxInt}, "{kind: hcn, n: 2, h: 9223372036854775807}"},
		{Topology{Kind: KindBCN, Alpha: g9, Beta: g9, H: g9, Gamma: g9}, "{kind: bcn, alpha: 1000000000, beta: 1000000000, h: 1000000000, gamma: 1000000000}"},
		{Topology{Preset: "tree-16ary-3", Kind: ""}, ""}, // a preset is counted too: within the limits
	} {
		cfg := Config{Topology: c.topo}
		var err error
		used := allocated(func() { _, err = cfg.BuildWithin(Budget{}, nil) })
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.topo, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), limits) {
			t.Errorf("%s: %v\nwant %q and %q", cfg.Topology.params(), err, c.want, limits)
		}
		if used > 4<<20 {
			t.Errorf("%s: %d B allocated before the refusal", cfg.Topology.params(), used)
		}
	}
	// A tiny graph of too many levels: refused by the builder, before it
	// sizes them.
	ones := slices.Repeat([]int{1}, 20000)
	cfg := Config{Topology: Topology{Kind: KindXGFT, M: ones, W: ones}}
	if _, err := cfg.Build(); err == nil || !strings.Contains(err.Error(), "topology: xgft m: 20000 levels is not allowed: must be 1 to 64") {
		t.Errorf("20,000 levels: %v", err)
	}
}

// TestCountsSaturate: the helpers saturate at 2^62 instead of
// overflowing, and the graph's bytes with them.
func TestCountsSaturate(t *testing.T) {
	if got := pow(2, 61); got != 1<<61 {
		t.Errorf("pow(2, 61) = %d", got)
	}
	if got := pow(3, math.MaxInt64); got != countCap {
		t.Errorf("pow(3, max) = %d", got)
	}
	if got, want := pow(10, 18), int64(1e18); got != want {
		t.Errorf("pow(10, 18) = %d", got)
	}
	if pow(1, math.MaxInt64) != 1 || pow(0, 5) != 0 || pow(7, 0) != 1 {
		t.Error("pow of 1, 0 or to the 0")
	}
	if got := mul(3, 5, 7); got != 105 {
		t.Errorf("mul(3, 5, 7) = %d", got)
	}
	if got := mul(1<<40, 1<<40, 0); got != 0 {
		t.Errorf("a factor 0: %d", got)
	}
	if got := mul(1<<40, 1<<40); got != countCap {
		t.Errorf("mul saturates: %d", got)
	}
	if got := graph.MemoryBytesOf(countCap, countCap); got != countCap {
		t.Errorf("graph bytes saturate: %d", got)
	}
	if got := count(countCap); got != "more than 4.6e18" {
		t.Errorf("count(2^62) = %q", got)
	}
}

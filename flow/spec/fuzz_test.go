package spec

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/workload"
)

// keys are the config's top-level keys, which every line of a refusal
// names first (the value and what is allowed follow).
var keys = []string{"topology", "routing", "pattern", "seed", "workers", "dynamic", "app", "markov", "storage", "apps", "trace", "memory_budget_mb"}

// FuzzConfig decodes any text as a flow config file (strict YAML, as
// opasim flow reads it) and builds the networks small enough for the
// fuzzer: no panic; a refusal names a key on each of its lines; a
// network built routes flows between servers on paths of its own links
// from the source to the destination, shares summing to 1; the policy,
// the pattern and the memory estimates follow without a panic.
func FuzzConfig(f *testing.F) {
	if study, err := os.ReadFile("../../docs/examples/storage-study.yaml"); err == nil {
		f.Add(string(study))
	}
	for _, s := range []string{
		"topology: {preset: tree-8ary-2}\npattern: {name: uniform, flows_per_server: 2}\n",
		"topology: {kind: torus, dims: [4, 4], servers_per_switch: 2}\nrouting: {name: ecmp, paths: 2}\n",
		"topology: {kind: mesh, dims: [3, 2], servers_per_switch: 1}\nrouting: {name: allpath, d: 1, paths: 4}\n",
		"topology: {kind: dragonfly, a: 4, h: 2, p: 2, arrangement: absolute}\nrouting: {name: valiant, paths: 2}\n",
		"topology: {kind: jellyfish, switches: 8, ports: 6, switch_ports: 4}\nseed: 3\n",
		"topology: {kind: bcube, n: 3, k: 1}\nrouting: {name: ksp, paths: 3, cache_mb: 1}\n",
		"topology: {kind: dcell, n: 3, k: 1}\n",
		"topology: {kind: hcn, n: 4, h: 2}\n",
		"topology: {kind: bcn, alpha: 2, beta: 2, h: 1, gamma: 1}\n",
		"topology: {kind: dpillar, n: 4, k: 2}\n",
		"topology: {kind: thin-tree, k: 4, k_up: 2, n: 2}\n",
		"topology: {kind: xgft, m: [2, 3], w: [1, 2]}\n",
		"topology: {kind: tree, k: 4, n: 2, capacity: 0}\n",
		"topology: {preset: tree-8ary-2, fail_count: 5}\nrouting: {name: bfs}\n",
		"topology: {preset: tree-8ary-2, fail_fraction: 2}\n",
		"dynamic: {policy: ba, shares: [0.5]}\nmarkov: {tasks: 2}\n",
		"workers: -1\ndynamic: {flow_size: -1, rate_cap: .nan}\nmemory_budget_mb: -5\n",
		"app: {kind: nbody, tasks: 8, iterations: 2}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		cfg := Default()
		cfg.Topology = Topology{}
		dec := yaml.NewDecoder(strings.NewReader(text))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil {
			return // YAML's own errors (opasim's checker names their keys first: package sim)
		}
		if cfg.Topology.Preset == "" && cfg.Topology.Kind == "" {
			cfg.Topology.Preset = "tree-8ary-2"
		}
		// Any parameters, however large, are counted without a panic and
		// refused, if they are, naming the topology.
		budget, _ := NewBudget(256)
		if probe := cfg; probe.Resolve() == nil {
			if err := probe.checkCounts(budget); err != nil {
				namesKeys(t, err)
			}
		}
		if !small(cfg.Topology) {
			return
		}
		cfg.Workers = min(cfg.Workers, 4)
		net, err := cfg.BuildWithin(budget, nil)
		if err != nil {
			namesKeys(t, err)
			return
		}
		g := net.Graph
		// The counts from the parameters are the graph's (before failures).
		if n, ok := cfg.Topology.Counts(); ok && net.FailedCables == 0 {
			links := int64(g.NumLinks())
			if int64(g.NumServers()) != n.Servers || int64(g.NumSwitches()) != n.Switches || links > n.Links || !n.LinksAtMost && links != n.Links {
				t.Fatalf("%s: built %d servers, %d switches, %d links; counted %s", cfg.Topology.params(), g.NumServers(), g.NumSwitches(), links, n)
			}
		}
		if net.Router.Graph() != g {
			t.Fatal("the router routes another graph than the network's")
		}
		n := int32(g.NumServers())
		for _, pair := range [][2]int32{{0, 1}, {1, 0}, {n - 1, 0}, {n / 2, n - 1}} {
			src, dst := pair[0], pair[1]
			if src == dst || src < 0 || dst < 0 || src >= n || dst >= n {
				continue
			}
			share := 0.0
			err := net.Router.Route(src, dst, func(links []int32, w float64) {
				share += w
				at := src
				for _, l := range links {
					if l < 0 || int(l) >= g.NumLinks() || g.Tail(l) != at {
						t.Fatalf("%s: path %v from %d to %d leaves the path at link %d", net.Router.Name(), links, src, dst, l)
					}
					at = g.Head(l)
				}
				if at != dst {
					t.Fatalf("%s: path %v from %d ends at %d, not %d", net.Router.Name(), links, src, at, dst)
				}
			})
			switch {
			case errors.Is(err, route.ErrNoPath):
				if net.FailedCables == 0 && cfg.Topology.Kind != KindJellyfish {
					t.Fatalf("%s: no path from %d to %d on a network with no failed cable", net.Router.Name(), src, dst)
				}
			case err != nil:
				t.Fatalf("%s from %d to %d: %v", net.Router.Name(), src, dst, err)
			case math.Abs(share-1) > 1e-9:
				t.Fatalf("%s from %d to %d: shares sum to %v", net.Router.Name(), src, dst, share)
			}
		}
		if _, err := cfg.Dynamic.PolicyOf(cfg.Classes()); err != nil {
			namesKeys(t, err)
		}
		if p, err := workload.Build(cfg.Pattern, int(n), cfg.Seed); err == nil {
			_ = cfg.DynamicBytes(net, 0)
			_ = cfg.StaticBytes(net)
			_ = p.Name()
		} else {
			namesKeys(t, err)
		}
		if a := cfg.App; a.Kind != "" {
			if _, err := a.MaxFlows(1 << 20); err != nil && !strings.HasPrefix(err.Error(), "application") {
				t.Fatalf("application refused naming no field: %v", err)
			}
		}
	})
}

// namesKeys fails unless every line of err starts with a key of the
// config (its first word, up to a '.', '[', ':' or ' ').
func namesKeys(t *testing.T, err error) {
	t.Helper()
	for _, line := range strings.Split(err.Error(), "\n") {
		word := strings.FieldsFunc(line, func(r rune) bool { return r == '.' || r == '[' || r == ':' || r == ' ' })
		if len(word) == 0 || !containsKey(word[0]) {
			t.Fatalf("refusal line %q names no key of the config (one of %s)", line, strings.Join(keys, ", "))
		}
	}
}

func containsKey(w string) bool {
	for _, k := range keys {
		if w == k {
			return true
		}
	}
	return false
}

// small reports whether t is a network the fuzzer builds: a small preset,
// or a kind whose parameters keep it to a few thousand servers (the
// parametric kinds have no memory estimate before they are built).
func small(t Topology) bool {
	if t.Preset != "" {
		return t.Preset == "tree-8ary-2" || t.Preset == "tree-8ary-3" || t.Preset == "torus2d-4x4"
	}
	if t.Kind == KindFile || t.FailCount > 64 || len(t.Dims) > 3 || len(t.M) > 3 || len(t.W) > 3 {
		return false
	}
	for _, x := range [][]int{t.Dims, t.M, t.W} {
		for _, v := range x {
			if v > 8 {
				return false
			}
		}
	}
	limit := 8
	switch t.Kind {
	case KindDCell, KindFiConn, KindHCN, KindBCN:
		if t.K > 2 || t.H > 2 {
			return false
		}
	case KindTree, KindThinTree, KindBCube, KindDPillar:
		if t.N > 4 || t.K > 4 && t.Kind == KindBCube {
			return false
		}
	case KindJellyfish:
		limit = 64
	}
	for _, v := range []int{t.K, t.N, t.KUp, t.ServersPerSwitch, t.A, t.H, t.P, t.Switches, t.Ports, t.SwitchPorts, t.Alpha, t.Beta, t.Gamma} {
		if v > limit {
			return false
		}
	}
	return true
}

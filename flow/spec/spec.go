// Package spec is the flow engine's run configuration: the topology, the
// routing, the traffic and the engine's options, as `opasim flow` reads
// them from YAML and flags, with presets, validation that names the field,
// the value and the allowed range, and the building of the network and its
// router.
package spec

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

// Config is one flow-level run.
type Config struct {
	Topology Topology      `yaml:"topology" json:"topology"`
	Routing  Routing       `yaml:"routing" json:"routing"`
	Pattern  workload.Spec `yaml:"pattern" json:"pattern"`
	Seed     uint64        `yaml:"seed" json:"seed"`
	Workers  int           `yaml:"workers" json:"workers"` // static: goroutines routing flows (0: GOMAXPROCS)
	Dynamic  Dynamic       `yaml:"dynamic" json:"dynamic"`
}

// Topology kinds.
const (
	KindTree      = "tree"      // k-ary n-tree: k, n
	KindTorus     = "torus"     // dims, servers_per_switch
	KindMesh      = "mesh"      // dims, servers_per_switch
	KindXGFT      = "xgft"      // m, w
	KindThinTree  = "thin-tree" // k, k_up, n
	KindDragonfly = "dragonfly" // a, h, p, arrangement
	KindJellyfish = "jellyfish" // switches, ports, switch_ports (and seed)
	KindFile      = "file"      // file
)

// Kinds lists the topology kinds.
func Kinds() []string {
	return []string{KindDragonfly, KindFile, KindJellyfish, KindMesh, KindThinTree, KindTorus, KindTree, KindXGFT}
}

// Topology names the network; each kind reads the fields its constant's
// comment lists.
type Topology struct {
	Preset           string  `yaml:"preset" json:"preset,omitempty"`
	Kind             string  `yaml:"kind" json:"kind"`
	K                int     `yaml:"k" json:"k,omitempty"`
	N                int     `yaml:"n" json:"n,omitempty"`
	KUp              int     `yaml:"k_up" json:"k_up,omitempty"`
	Dims             []int   `yaml:"dims" json:"dims,omitempty"`
	ServersPerSwitch int     `yaml:"servers_per_switch" json:"servers_per_switch,omitempty"`
	M                []int   `yaml:"m" json:"m,omitempty"`
	W                []int   `yaml:"w" json:"w,omitempty"`
	A                int     `yaml:"a" json:"a,omitempty"`
	H                int     `yaml:"h" json:"h,omitempty"`
	P                int     `yaml:"p" json:"p,omitempty"`
	Arrangement      string  `yaml:"arrangement" json:"arrangement,omitempty"`
	Switches         int     `yaml:"switches" json:"switches,omitempty"`
	Ports            int     `yaml:"ports" json:"ports,omitempty"`
	SwitchPorts      int     `yaml:"switch_ports" json:"switch_ports,omitempty"`
	File             string  `yaml:"file" json:"file,omitempty"`
	Capacity         float64 `yaml:"capacity" json:"capacity"` // every link's (0: 1)
}

// Routing names the routing: dmodk (trees, XGFTs and thin trees), dor
// (tori), ecmp (any graph; paths: 0 all shortest paths, 1 single-path
// BFS, P at most P), minimal and valiant (dragonflies; paths: intermediate
// groups), or "" for the topology's default (dmodk, dor, minimal, else
// bfs).
type Routing struct {
	Name  string `yaml:"name" json:"name"`
	Paths int    `yaml:"paths" json:"paths"`
}

// Dynamic holds the dynamic engine's options: every flow's size, and the
// causality phases (seed 001 section 3.3.2: phase_flows flows a phase, 0
// for one phase, each phase starting phase_delay after the previous one
// completed).
type Dynamic struct {
	FlowSize   float64 `yaml:"flow_size" json:"flow_size"`
	PhaseFlows int     `yaml:"phase_flows" json:"phase_flows"`
	PhaseDelay float64 `yaml:"phase_delay" json:"phase_delay"`
}

// preset is a named topology with the routing and pattern it is measured
// with.
type preset struct {
	about string
	topo  Topology
}

var presets = map[string]preset{
	"tree-16ary-3":     {"4,096-server 16-ary 3-tree (the reference fat tree of docs/flow.md)", Topology{Kind: KindTree, K: 16, N: 3}},
	"tree-8ary-2":      {"the cycle-level preset's 64-server 8-ary 2-tree", Topology{Kind: KindTree, K: 8, N: 2}},
	"tree-8ary-3":      {"the cycle-level preset's 512-server 8-ary 3-tree", Topology{Kind: KindTree, K: 8, N: 3}},
	"tree-32ary-4":     {"1,048,576-server 32-ary 4-tree", Topology{Kind: KindTree, K: 32, N: 4}},
	"torus-32x32x16":   {"16,384-switch 3D torus, one server each", Topology{Kind: KindTorus, Dims: []int{32, 32, 16}, ServersPerSwitch: 1}},
	"torus2d-4x4":      {"the cycle-level preset's 4x4 torus with 8 servers a switch (trunks not modelled: one link a direction)", Topology{Kind: KindTorus, Dims: []int{4, 4}, ServersPerSwitch: 8}},
	"thin-tree-16-8-3": {"4,096-server thin tree, 16 links down and 8 up (2:1)", Topology{Kind: KindThinTree, K: 16, KUp: 8, N: 3}},
	"thin-tree-16-4-3": {"4,096-server thin tree, 16 links down and 4 up (4:1)", Topology{Kind: KindThinTree, K: 16, KUp: 4, N: 3}},
	"dragonfly-1m":     {"1,120,422-server dragonfly: 1,059 groups of 46 routers, 23 global links and 23 servers each", Topology{Kind: KindDragonfly, A: 46, H: 23, P: 23, Arrangement: topology.DragonflyAbsolute}},
	"dragonfly-5k":     {"5,256-server balanced dragonfly (a = 2h, p = h): 73 groups of 12 routers, 6 global links and 6 servers each", Topology{Kind: KindDragonfly, A: 12, H: 6, P: 6, Arrangement: topology.DragonflyAbsolute}},
	"jellyfish-4k":     {"4,096-server jellyfish: 512 switches of 24 ports, 16 to switches", Topology{Kind: KindJellyfish, Switches: 512, Ports: 24, SwitchPorts: 16}},
}

// Presets lists the preset names, sorted.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// AboutPreset describes preset name.
func AboutPreset(name string) string { return presets[name].about }

// Default is the built-in run: all-to-all on the 4,096-server fat tree.
func Default() Config {
	return Config{Topology: Topology{Preset: "tree-16ary-3"}, Pattern: workload.Spec{Name: "all-to-all"}, Seed: 1,
		Dynamic: Dynamic{FlowSize: 1}}
}

// Resolve replaces a preset by its topology, keeping a capacity set
// beside it.
func (c *Config) Resolve() error {
	t := &c.Topology
	if t.Preset == "" {
		return nil
	}
	p, ok := presets[t.Preset]
	if !ok {
		return fmt.Errorf("topology.preset: %q is not allowed: must be one of %s", t.Preset, strings.Join(Presets(), ", "))
	}
	if t.Kind != "" {
		return fmt.Errorf("topology.kind: %q is not allowed with topology.preset %q: give one or the other", t.Kind, t.Preset)
	}
	capacity, name := t.Capacity, t.Preset
	*t = p.topo
	t.Preset, t.Capacity = name, capacity
	return nil
}

// Network is a built topology and its router.
type Network struct {
	Graph  *graph.Graph
	Router route.Router
}

// Build resolves the preset, validates c and builds the network and its
// router; every error names the field, its value and what is allowed.
func (c *Config) Build() (*Network, error) {
	if err := c.Resolve(); err != nil {
		return nil, err
	}
	var errs []error
	if c.Workers < 0 || c.Workers > 256 {
		errs = append(errs, fmt.Errorf("workers: %d is not allowed: must be in [0, 256] (0: one per core)", c.Workers))
	}
	if d := c.Dynamic; !(d.FlowSize >= 0) || d.FlowSize > 1e300 {
		errs = append(errs, fmt.Errorf("dynamic.flow_size: %v is not allowed: must be in [0, 1e300]", d.FlowSize))
	}
	if d := c.Dynamic; d.PhaseFlows < 0 {
		errs = append(errs, fmt.Errorf("dynamic.phase_flows: %d is not allowed: must be at least 0 (0: one phase)", d.PhaseFlows))
	}
	if d := c.Dynamic; !(d.PhaseDelay >= 0) || d.PhaseDelay > 1e300 {
		errs = append(errs, fmt.Errorf("dynamic.phase_delay: %v is not allowed: must be in [0, 1e300]", d.PhaseDelay))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	capacity := c.Topology.Capacity
	if capacity == 0 {
		capacity = 1
	}
	n, err := c.build(capacity)
	if err != nil {
		return nil, err
	}
	return n, nil
}

func (c *Config) build(capacity float64) (*Network, error) {
	t := &c.Topology
	r := c.Routing
	want := func(allowed ...string) error {
		if r.Name == "" || slices.Contains(allowed, r.Name) {
			return nil
		}
		return fmt.Errorf("routing.name: %q is not allowed on a %s: must be one of %s", r.Name, t.Kind, strings.Join(allowed, ", "))
	}
	generic := func(g *graph.Graph) (*Network, error) {
		if err := want("ecmp", "bfs"); err != nil {
			return nil, err
		}
		return ecmp(g, r)
	}
	switch t.Kind {
	case KindTree:
		tr, err := graph.NewTree(t.K, t.N, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		if err := want("dmodk", "ecmp", "bfs"); err != nil {
			return nil, err
		}
		if r.Name == "" || r.Name == "dmodk" {
			return &Network{tr.Graph, route.NewDModK(tr)}, nil
		}
		return ecmp(tr.Graph, r)
	case KindTorus:
		to, err := graph.NewTorus(t.Dims, t.ServersPerSwitch, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		if err := want("dor", "ecmp", "bfs"); err != nil {
			return nil, err
		}
		if r.Name == "" || r.Name == "dor" {
			return &Network{to.Graph, route.NewDOR(to)}, nil
		}
		return ecmp(to.Graph, r)
	case KindMesh:
		g, err := topology.Mesh(t.Dims, t.ServersPerSwitch, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		return generic(g)
	case KindXGFT, KindThinTree:
		var x *topology.XGFT
		var err error
		if t.Kind == KindXGFT {
			x, err = topology.NewXGFT(t.M, t.W, capacity)
		} else {
			x, err = topology.ThinTree(t.K, t.KUp, t.N, capacity)
		}
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		if err := want("dmodk", "ecmp", "bfs"); err != nil {
			return nil, err
		}
		if r.Name == "" || r.Name == "dmodk" {
			return &Network{x.Graph, x.DModK()}, nil
		}
		return ecmp(x.Graph, r)
	case KindDragonfly:
		d, err := topology.NewDragonfly(t.A, t.H, t.P, t.Arrangement, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		if err := want("minimal", "valiant", "ecmp", "bfs"); err != nil {
			return nil, err
		}
		switch r.Name {
		case "", "minimal":
			return &Network{d.Graph, d.MinimalRouter()}, nil
		case "valiant":
			paths := r.Paths
			if paths == 0 {
				paths = 1
			}
			v, err := d.ValiantRouter(paths)
			if err != nil {
				return nil, fmt.Errorf("routing.paths: %w", err)
			}
			return &Network{d.Graph, v}, nil
		}
		return ecmp(d.Graph, r)
	case KindJellyfish:
		j, err := topology.NewJellyfish(t.Switches, t.Ports, t.SwitchPorts, c.Seed, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		return generic(j.Graph)
	case KindFile:
		if t.File == "" {
			return nil, errors.New("topology.file: \"\" is not allowed: must name a graph file (docs/flow.md)")
		}
		f, err := os.Open(t.File)
		if err != nil {
			return nil, fmt.Errorf("topology.file: %w", err)
		}
		defer f.Close()
		g, err := topology.ReadGraph(f, t.File)
		if err != nil {
			return nil, fmt.Errorf("topology.file: %w", err)
		}
		return generic(g)
	case "":
		return nil, fmt.Errorf("topology: neither preset nor kind given: kind must be one of %s, or preset one of %s", strings.Join(Kinds(), ", "), strings.Join(Presets(), ", "))
	}
	return nil, fmt.Errorf("topology.kind: %q is not allowed: must be one of %s", t.Kind, strings.Join(Kinds(), ", "))
}

func ecmp(g *graph.Graph, r Routing) (*Network, error) {
	paths := r.Paths
	if r.Name == "" || r.Name == "bfs" {
		if r.Paths > 1 {
			return nil, fmt.Errorf("routing.paths: %d is not allowed with bfs: must be 0 or 1 (use ecmp for more)", r.Paths)
		}
		paths = 1
	}
	e, err := route.NewECMP(g, paths)
	if err != nil {
		return nil, fmt.Errorf("routing.paths: %w", err)
	}
	return &Network{g, e}, nil
}

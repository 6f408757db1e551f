// Package spec is the flow engine's run configuration: the topology, the
// routing, the traffic and the engine's options, as `opasim flow` reads
// them from YAML and flags, with presets, validation that names the field,
// the value and the allowed range, and the building of the network and its
// router.
package spec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/storage"
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
	// App, if its kind is set, is what the dynamic engine runs instead of
	// the pattern: an application's causal flows, task i on server i.
	App workload.App `yaml:"app" json:"app,omitempty"`
	// Markov, if its tasks are set, is what the dynamic engine runs: the
	// Markov-chain application model.
	Markov workload.Markov `yaml:"markov" json:"markov,omitempty"`
	// Storage is the storage hardware (flow/storage: NVM devices behind
	// PCIe, a memory cache, a SAN) and Apps the applications run together
	// on it, each a Markov model on its partition with its data placed by
	// a storage policy. Apps, if given, is what the dynamic engine runs.
	Storage storage.Config `yaml:"storage" json:"storage"`
	Apps    []storage.App  `yaml:"apps" json:"apps,omitempty"`
	// Trace, if its file is set, is what the dynamic engine runs: a VEF
	// trace replayed at flow level (package flow/trace).
	Trace Trace `yaml:"trace" json:"trace,omitempty"`
	// MemoryBudgetMB is the memory a run may take, in MiB (0: this
	// machine's memory): a run estimated to take more is refused before
	// it starts (NewBudget).
	MemoryBudgetMB int64 `yaml:"memory_budget_mb" json:"memory_budget_mb,omitempty"`

	// budget and stop bound BuildWithin's graph file read.
	budget Budget
	stop   func() bool
}

// Trace is a VEF trace to replay at flow level: message sizes are bytes
// and times ns, so link capacities are in bytes per ns (12.5: 100 Gb/s).
type Trace struct {
	File string `yaml:"file" json:"file,omitempty"`
	// CPUFactor multiplies the trace's computation times (nil: 1).
	CPUFactor *float64 `yaml:"cpu_factor" json:"cpu_factor,omitempty"`
	// SerialSends makes every server send its messages one at a time, in
	// the trace's order, as the cycle-level NIC does
	// (trace.Options.SerialSends).
	SerialSends bool `yaml:"serial_sends" json:"serial_sends,omitempty"`
}

// Factor is the CPU factor, 1 when not given.
func (t Trace) Factor() float64 {
	if t.CPUFactor == nil {
		return 1
	}
	return *t.CPUFactor
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
	// Server-centric: servers forward traffic (generic routings only).
	KindBCube   = "bcube"   // n, k
	KindDCell   = "dcell"   // n, k
	KindFiConn  = "ficonn"  // n, k
	KindDPillar = "dpillar" // n, k
	KindHCN     = "hcn"     // n, h
	KindBCN     = "bcn"     // alpha, beta, h, gamma
)

// Kinds lists the topology kinds.
func Kinds() []string {
	return []string{KindBCN, KindBCube, KindDCell, KindDPillar, KindDragonfly, KindFiConn, KindFile, KindHCN, KindJellyfish,
		KindMesh, KindThinTree, KindTorus, KindTree, KindXGFT}
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
	Alpha            int     `yaml:"alpha" json:"alpha,omitempty"`
	Beta             int     `yaml:"beta" json:"beta,omitempty"`
	Gamma            int     `yaml:"gamma" json:"gamma,omitempty"`
	Capacity         float64 `yaml:"capacity" json:"capacity"` // every link's, in (0, 1e300] (not given: 1)
	// Failed cables, drawn from the seed: a count or a fraction of all
	// (not both). Only the generic routings (ecmp, bfs, ksp, allpath)
	// route around them.
	FailCount    int     `yaml:"fail_count" json:"fail_count,omitempty"`
	FailFraction float64 `yaml:"fail_fraction" json:"fail_fraction,omitempty"`

	// capacitySet: a file or a flag gave the capacity (SetCapacity), so
	// 0 is a value to refuse rather than the default.
	capacitySet bool
}

// UnmarshalYAML decodes the topology and notes whether it names its
// capacity: an explicit 0 is refused by Build rather than read as the
// default.
func (t *Topology) UnmarshalYAML(n *yaml.Node) error {
	type plain Topology
	p := plain(*t)
	if err := n.Decode(&p); err != nil {
		return err
	}
	set := t.capacitySet
	*t = Topology(p)
	t.capacitySet = set || hasKey(n, "capacity")
	return nil
}

// hasKey reports whether mapping n (or a mapping merged into it) has key.
func hasKey(n *yaml.Node, key string) bool {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Value == key {
			return true
		}
		if k.ShortTag() == "!!merge" {
			v := n.Content[i+1]
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind == yaml.SequenceNode {
				for _, e := range v.Content {
					if hasKey(e, key) {
						return true
					}
				}
			} else if hasKey(v, key) {
				return true
			}
		}
	}
	return false
}

// SetCapacity sets every link's capacity as a flag gives it: 0 is then
// refused by Build, not read as the default.
func (t *Topology) SetCapacity(c float64) { t.Capacity, t.capacitySet = c, true }

// KeepCapacity gives t the capacity of from, given or not.
func (t *Topology) KeepCapacity(from Topology) {
	t.Capacity, t.capacitySet = from.Capacity, from.capacitySet
}

// checkCapacity refuses a capacity that is not positive and finite (0,
// when not given, is the default 1).
func (t *Topology) checkCapacity() error {
	c := t.Capacity
	if c == 0 && !t.capacitySet {
		return nil
	}
	if !(c > 0) || c > 1e300 {
		return fmt.Errorf("topology.capacity (--capacity): %v is not allowed: must be in (0, 1e300] (omit it for 1)", c)
	}
	return nil
}

// Routing names the routing: dmodk (trees, XGFTs and thin trees), dor
// (tori), ecmp (any graph; paths: 0 all shortest paths, 1 single-path
// BFS, P at most P), ksp (any graph: the paths shortest paths, default
// 4), allpath (any graph: paths up to d links longer than the shortest,
// at most paths of them), minimal and valiant (dragonflies; paths:
// intermediate groups), or "" for the topology's default (dmodk, dor,
// minimal, else bfs).
type Routing struct {
	Name  string `yaml:"name" json:"name"`
	Paths int    `yaml:"paths" json:"paths"`
	// D is allpath's slack: paths at most D links longer than the
	// shortest (paths: the most kept, 0 all).
	D int `yaml:"d" json:"d,omitempty"`
	// CacheMB bounds ksp's and allpath's path cache, in MiB (0: 64);
	// least recently used pairs are dropped past it.
	CacheMB int `yaml:"cache_mb" json:"cache_mb,omitempty"`
}

// Dynamic holds the dynamic engine's options: every flow's size, and the
// causality phases (seed 001 section 3.3.2: phase_flows flows a phase, 0
// for one phase, each phase starting phase_delay after the previous one
// completed).
type Dynamic struct {
	FlowSize   float64 `yaml:"flow_size" json:"flow_size"`
	PhaseFlows int     `yaml:"phase_flows" json:"phase_flows"`
	PhaseDelay float64 `yaml:"phase_delay" json:"phase_delay"`
	// Policy is how links share among traffic classes (seed 001 Fig. 1):
	// np (max-min over all flows, the default), ba (class c guaranteed
	// shares[c] of every link) or fp (class 0 first). The Markov model's
	// storage flows are class 1, everything else class 0.
	Policy string    `yaml:"policy" json:"policy,omitempty"`
	Shares []float64 `yaml:"shares" json:"shares,omitempty"`
	// StartQuantum, if positive, rounds every flow's start time up to a
	// multiple of it (dynamic.Options.StartQuantum): a cheaper model for
	// runs whose cost is one solve per start time, whose error
	// docs/flow.md measures. 0 (the default): exact start times.
	StartQuantum float64 `yaml:"start_quantum" json:"start_quantum,omitempty"`
	// RateCap, if positive, bounds every flow's rate (a flow with a cap
	// of its own keeps the lower): for instance the rate one stream gets
	// at the cycle level, with links at what its VLs carry
	// (docs/validation.md, "Flow level against cycle level"). 0 (the default): no bound.
	RateCap float64 `yaml:"rate_cap" json:"rate_cap,omitempty"`
}

// Classes is the number of traffic classes the configured workload's
// flows use: 2 (0 the applications', 1 storage I/O) for the storage
// study (apps) and for a Markov model that reads or writes, else 1.
func (c *Config) Classes() int {
	if len(c.Apps) > 0 {
		return 2
	}
	if m := c.Markov; m.Tasks != 0 {
		for a := range workload.NumPhases {
			if m.Matrix[a][workload.PhaseRead] > 0 || m.Matrix[a][workload.PhaseWrite] > 0 {
				return 2
			}
		}
	}
	return 1
}

// MaxShares bounds dynamic.shares (the solver's most classes).
const MaxShares = 256

// PolicyOf is the maxmin policy d names for a workload whose flows are of
// classes traffic classes (Config.Classes). Every error names the key
// and its flag.
func (d Dynamic) PolicyOf(classes int) (maxmin.Policy, error) {
	switch d.Policy {
	case "", "np", "fp":
		if len(d.Shares) > 0 {
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed with policy %s: only policy ba takes shares", d.Shares, cmp.Or(d.Policy, "np"))
		}
		if d.Policy == "fp" {
			return maxmin.Policy{Kind: maxmin.FP}, nil
		}
		return maxmin.Policy{Kind: maxmin.NP}, nil
	case "ba":
		if len(d.Shares) == 0 {
			return maxmin.Policy{}, errors.New("dynamic.shares: [] is not allowed with policy ba: give each class's share, e.g. [0.75, 0.25] (--shares 0.75,0.25)")
		}
		sum := 0.0
		for i, x := range d.Shares {
			if !(x >= 0 && x <= 1) {
				return maxmin.Policy{}, fmt.Errorf("dynamic.shares[%d] (--shares): %v is not allowed: must be in [0, 1]", i, x)
			}
			sum += x
		}
		switch {
		case len(d.Shares) > MaxShares:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %d shares is not allowed: must be 1 to %d", len(d.Shares), MaxShares)
		case sum > 1+1e-9:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed: they sum to %v, must sum to at most 1", d.Shares, sum)
		case len(d.Shares) < classes:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed: this workload's flows are of %d classes "+
				"(0: the applications', 1: storage I/O): give %d shares summing to at most 1, e.g. --shares 0.5,0.5", d.Shares, classes, classes)
		}
		return maxmin.Policy{Kind: maxmin.BA, Shares: d.Shares}, nil
	}
	return maxmin.Policy{}, fmt.Errorf("dynamic.policy: %q is not allowed: must be one of np, ba, fp", d.Policy)
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

// Resolve replaces a preset by its topology, keeping the capacity and
// the failures set beside it.
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
	keep := *t
	*t = p.topo
	t.Preset, t.Capacity, t.FailCount, t.FailFraction, t.capacitySet = keep.Preset, keep.Capacity, keep.FailCount, keep.FailFraction, keep.capacitySet
	return nil
}

// Network is a built topology and its router.
type Network struct {
	Graph  *graph.Graph
	Router route.Router
	// FailedCables is the number of cables topology.fail_count or
	// fail_fraction removed (Graph is the network without them).
	FailedCables int
}

// Build resolves the preset, validates c and builds the network and its
// router; every error names the field, its value and what is allowed.
func (c *Config) Build() (*Network, error) { return c.BuildWithin(Budget{}, nil) }

// BuildWithin is Build that refuses a network whose graph and run
// (StaticBytes' per node and link costs, or DynamicBytes' with
// b.Dynamic) would take more than b: a parametric kind before anything
// is built, from the counts its parameters give (Topology.Counts), a
// graph file as soon as the counts read say so. It stops reading a graph
// file, with topology.ErrStopped, once stop (nil: never) says to. A
// parametric kind whose graph would pass graph.MaxNodes or
// graph.MaxLinks is refused up front whatever b.
func (c *Config) BuildWithin(b Budget, stop func() bool) (*Network, error) {
	c.budget, c.stop = b, stop
	defer func() { c.budget, c.stop = Budget{}, nil }()
	if err := c.Resolve(); err != nil {
		return nil, err
	}
	var errs []error
	if err := c.Topology.checkCapacity(); err != nil {
		errs = append(errs, err)
	}
	if c.MemoryBudgetMB < 0 || c.MemoryBudgetMB > MaxBudgetMB {
		errs = append(errs, fmt.Errorf("memory_budget_mb (--memory-budget-mb): %d is not allowed: must be in [0, %d] MiB (0: this machine's memory)", c.MemoryBudgetMB, MaxBudgetMB))
	}
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
	if d := c.Dynamic; !(d.StartQuantum >= 0) || d.StartQuantum > 1e300 {
		errs = append(errs, fmt.Errorf("dynamic.start_quantum: %v is not allowed: must be in [0, 1e300] (0: exact start times)", d.StartQuantum))
	}
	if d := c.Dynamic; !(d.RateCap >= 0) || d.RateCap > 1e300 {
		errs = append(errs, fmt.Errorf("dynamic.rate_cap: %v is not allowed: must be in [0, 1e300] (0: no bound)", d.RateCap))
	}
	if err := c.Storage.Check(); err != nil {
		errs = append(errs, err)
	}
	if len(c.Apps) == 0 && c.Storage != (storage.Config{}) {
		errs = append(errs, errors.New("storage: a storage section is not allowed without apps: only the applications of apps use the storage model"))
	}
	if c.Trace.SerialSends && c.Trace.File == "" {
		errs = append(errs, errors.New("trace.serial_sends: true is not allowed without trace.file: it orders a trace's messages"))
	}
	if len(c.Apps) > 0 && (c.Markov.Tasks != 0 || c.App.Kind != "" || c.Trace.File != "") {
		errs = append(errs, errors.New("apps: not allowed with markov, app or trace: give the applications run together in apps, or one application or trace"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := c.checkCounts(b); err != nil {
		return nil, err
	}
	capacity := c.Topology.Capacity
	if capacity == 0 {
		capacity = 1
	}
	if c.Topology.FailCount != 0 || c.Topology.FailFraction != 0 {
		return c.buildFailed(capacity)
	}
	return c.build(capacity)
}

// buildFailed builds the network, removes the failed cables and routes the
// rest with a generic routing (the topology's own routings assume the
// intact network).
func (c *Config) buildFailed(capacity float64) (*Network, error) {
	t := &c.Topology
	switch {
	case t.FailCount != 0 && t.FailFraction != 0:
		return nil, fmt.Errorf("topology.fail_count: %d is not allowed with topology.fail_fraction %v: give one or the other", t.FailCount, t.FailFraction)
	case t.FailCount < 0:
		return nil, fmt.Errorf("topology.fail_count: %d is not allowed: must be at least 0", t.FailCount)
	case !(t.FailFraction >= 0 && t.FailFraction <= 1):
		return nil, fmt.Errorf("topology.fail_fraction: %v is not allowed: must be in [0, 1]", t.FailFraction)
	case c.Routing.Name != "" && !slices.Contains(genericRoutings, c.Routing.Name):
		return nil, fmt.Errorf("routing.name: %q is not allowed with failed cables: must be one of %s (they route around failures)", c.Routing.Name, strings.Join(genericRoutings, ", "))
	}
	intact, err := c.build(capacity)
	if err != nil {
		return nil, err
	}
	var f *graph.Failed
	if t.FailCount != 0 {
		f, err = graph.FailCables(intact.Graph, t.FailCount, c.Seed)
	} else {
		f, err = graph.FailFraction(intact.Graph, t.FailFraction, c.Seed)
	}
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	n, err := routeGeneric(f.Graph, c.Routing)
	if err != nil {
		return nil, err
	}
	n.FailedCables = f.FailedCables
	return n, nil
}

// genericRoutings route any graph.
var genericRoutings = []string{"allpath", "bfs", "ecmp", "ksp"}

// generic lists genericRoutings and extra.
func generic(extra ...string) []string { return slices.Concat(genericRoutings, extra) }

// newCache returns the path cache r asks for.
func newCache(r Routing) (*route.PathCache, error) {
	if r.CacheMB == 0 {
		return route.NewPathCache(route.DefaultCacheBytes)
	}
	if r.CacheMB < 1 || r.CacheMB > route.MaxCacheBytes>>20 {
		return nil, fmt.Errorf("routing.cache_mb: %d is not allowed: must be in [1, %d] (0: %d)", r.CacheMB, route.MaxCacheBytes>>20, route.DefaultCacheBytes>>20)
	}
	return route.NewPathCache(int64(r.CacheMB) << 20)
}

// routeGeneric builds one of genericRoutings over g.
func routeGeneric(g *graph.Graph, r Routing) (*Network, error) {
	switch r.Name {
	case "ksp":
		k := r.Paths
		if k == 0 {
			k = 4
		}
		cache, err := newCache(r)
		if err != nil {
			return nil, err
		}
		kr, err := route.NewKSP(g, k, cache)
		if err != nil {
			return nil, fmt.Errorf("routing.paths: %w", err)
		}
		return &Network{Graph: g, Router: kr}, nil
	case "allpath":
		cache, err := newCache(r)
		if err != nil {
			return nil, err
		}
		ar, err := route.NewAllPath(g, r.D, r.Paths, cache)
		if err != nil {
			return nil, fmt.Errorf("routing: %w", err)
		}
		return &Network{Graph: g, Router: ar}, nil
	}
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
	return &Network{Graph: g, Router: e}, nil
}

// serverCentric builds a network whose servers forward.
func serverCentric(t *Topology, c float64) (*graph.Graph, error) {
	switch t.Kind {
	case KindBCube:
		b, err := topology.NewBCube(t.N, t.K, c)
		if err != nil {
			return nil, err
		}
		return b.Graph, nil
	case KindDCell, KindFiConn:
		rule := topology.DCellRule
		if t.Kind == KindFiConn {
			rule = topology.FiConnRule
		}
		d, err := topology.NewGDCFiConn(t.N, t.K, rule, c)
		if err != nil {
			return nil, err
		}
		return d.Graph, nil
	case KindDPillar:
		d, err := topology.NewDPillar(t.N, t.K, c)
		if err != nil {
			return nil, err
		}
		return d.Graph, nil
	case KindHCN:
		h, err := topology.NewHCN(t.N, t.H, c)
		if err != nil {
			return nil, err
		}
		return h.Graph, nil
	default:
		b, err := topology.NewBCN(t.Alpha, t.Beta, t.H, t.Gamma, c)
		if err != nil {
			return nil, err
		}
		return b.Graph, nil
	}
}

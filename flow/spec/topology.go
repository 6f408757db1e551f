package spec

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

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

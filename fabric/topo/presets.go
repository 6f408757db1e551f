package topo

import (
	"fmt"
	"math"
	"strings"
)

// Spec describes a topology by its shape, and names the routing that goes
// with it (a Registry name). Kind selects which fields count: KindTorus
// uses Dims, NICsPerSwitch and Trunk; KindTree uses K and N; KindSingle
// uses Ports.
type Spec struct {
	Name          string
	Kind          string
	Routing       string
	Dims          []int
	NICsPerSwitch int
	Trunk         int
	K, N          int
	Ports         int
	Source        string         // where the network comes from
	Options       RoutingOptions // of the routing (dor: ties and trunk members); zero: the defaults
}

// presets are the networks of seed 000 sections 4.1 and 4.3, and the
// single switch of seed 002 section 3.
var presets = []Spec{
	{Name: "torus2d-8x8", Kind: KindTorus, Routing: "dor", Dims: []int{8, 8}, NICsPerSwitch: 8, Trunk: 10, Source: "seed 000 section 4.1"},
	{Name: "torus3d-8x8x4", Kind: KindTorus, Routing: "dor", Dims: []int{8, 8, 4}, NICsPerSwitch: 4, Trunk: 4, Source: "seed 000 section 4.1"},
	{Name: "tree-8ary-3", Kind: KindTree, Routing: "updown", K: 8, N: 3, Source: "seed 000 section 4.1"},
	{Name: "tree-24ary-2", Kind: KindTree, Routing: "updown", K: 24, N: 2, Source: "seed 000 section 4.1"},
	{Name: "torus2d-4x4", Kind: KindTorus, Routing: "dor", Dims: []int{4, 4}, NICsPerSwitch: 8, Trunk: 10, Source: "seed 000 section 4.3"},
	{Name: "tree-8ary-2", Kind: KindTree, Routing: "updown", K: 8, N: 2, Source: "seed 000 section 4.3"},
	{Name: "single-switch", Kind: KindSingle, Routing: "direct", Ports: 48, Source: "seed 002 section 3"},
}

// Presets lists the named networks, in a fixed order. The result is a copy.
func Presets() []Spec {
	out := make([]Spec, len(presets))
	for i, s := range presets {
		out[i] = s.clone()
	}
	return out
}

// PresetNames lists the preset names, in the order of Presets.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, s := range presets {
		names[i] = s.Name
	}
	return names
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Spec, error) {
	for _, s := range presets {
		if s.Name == name {
			return s.clone(), nil
		}
	}
	return Spec{}, fmt.Errorf("unknown topology preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
}

// Preset builds the preset called name; the Spec names its routing.
func Preset(name string) (*Topology, Spec, error) {
	s, err := LookupPreset(name)
	if err != nil {
		return nil, Spec{}, err
	}
	t, err := s.Build()
	return t, s, err
}

// Build builds the topology s describes. A named Spec names the topology.
func (s Spec) Build() (*Topology, error) {
	var t *Topology
	var err error
	switch s.Kind {
	case KindTorus:
		t, err = Torus(s.Dims, s.NICsPerSwitch, s.Trunk)
	case KindTree:
		t, err = Tree(s.K, s.N)
	case KindSingle:
		t, _, err = SingleSwitch(s.Ports)
	default:
		err = fmt.Errorf("topology kind %q is unknown (known: %s, %s, %s)", s.Kind, KindSingle, KindTorus, KindTree)
	}
	if err != nil {
		return nil, err
	}
	if s.Name != "" {
		t.Name = s.Name
	}
	return t, nil
}

func (s Spec) clone() Spec {
	s.Dims = append([]int(nil), s.Dims...)
	return s
}

// Describe names the network in a few words: its preset name if it has
// one, its kind and shape, and its routing, e.g. "torus2d-4x4 (torus 4x4,
// 8 NICs per switch, trunks of 10, routing dor)".
func (s Spec) Describe() string {
	var shape string
	switch s.Kind {
	case KindTorus:
		dims := make([]string, len(s.Dims))
		for i, d := range s.Dims {
			dims[i] = fmt.Sprint(d)
		}
		shape = fmt.Sprintf("torus %s, %d NICs per switch, trunks of %d", strings.Join(dims, "x"), s.NICsPerSwitch, s.Trunk)
	case KindTree:
		shape = fmt.Sprintf("%d-ary %d-tree", s.K, s.N)
	default:
		shape = fmt.Sprintf("single switch of %d ports", s.Ports)
	}
	shape += ", routing " + s.Routing
	if s.Name == "" {
		return shape
	}
	return s.Name + " (" + shape + ")"
}

// Check reports what is wrong with the shape of s, without building it.
func (s Spec) Check() error {
	switch s.Kind {
	case KindTorus:
		return checkTorus(s.Dims, s.NICsPerSwitch, s.Trunk)
	case KindTree:
		if s.K < 2 {
			return fmt.Errorf("tree k: %d is not allowed: must be at least 2", s.K)
		}
		if s.N < 1 || s.N > maxTreeLevels {
			return fmt.Errorf("tree n: %d is not allowed: must be in [1, %d]", s.N, maxTreeLevels)
		}
		if treePowers(s.K, s.N) == nil {
			return fmt.Errorf("tree %d-ary %d-tree: more than %d NICs", s.K, s.N, maxSwitches)
		}
		return nil
	case KindSingle:
		if s.Ports < 8 || s.Ports%4 != 0 {
			return fmt.Errorf("ports: %d is not allowed: must be a multiple of 4 and at least 8", s.Ports)
		}
		return nil
	}
	return fmt.Errorf("topology kind %q is unknown (known: %s, %s, %s)", s.Kind, KindSingle, KindTorus, KindTree)
}

// Size is the arithmetic of the network s describes, without building it:
// its switches, the ports of each and its NICs, each saturated at
// math.MaxInt32 (a size past that is refused anyway). It lets a caller
// estimate what a network costs before allocating it.
func (s Spec) Size() (switches, radix, nics int64) {
	const most = math.MaxInt32
	mul := func(a, b int64) int64 {
		if a <= 0 || b <= 0 {
			return 0
		}
		if a > most/b {
			return most
		}
		return a * b
	}
	switch s.Kind {
	case KindTorus:
		switches, next := int64(1), int64(s.NICsPerSwitch)
		for _, size := range s.Dims {
			switches = mul(switches, int64(size))
			if size > 1 {
				next = min(next+2*int64(s.Trunk), most)
			}
		}
		return switches, max((next+3)/4*4, 8), mul(switches, int64(s.NICsPerSwitch))
	case KindTree:
		per := int64(1)
		for i := 1; i < s.N; i++ {
			per = mul(per, int64(s.K))
		}
		return mul(int64(s.N), per), max((2*int64(s.K)+3)/4*4, 8), mul(per, int64(s.K))
	}
	return 1, int64(s.Ports), int64(s.Ports)
}

// LinkClasses is how many classes of links (Topology.PortClass, and the
// NICs' "injection") the network s describes has, without building it.
func (s Spec) LinkClasses() int64 {
	nicClasses := int64(2) // injection and ejection
	switch s.Kind {
	case KindTorus:
		if s.NICsPerSwitch <= 0 {
			nicClasses = 0
		}
		for _, size := range s.Dims {
			if size > 1 {
				nicClasses += 2
			}
		}
		return nicClasses
	case KindTree:
		return nicClasses + 2*int64(max(s.N-1, 0))
	}
	return nicClasses
}

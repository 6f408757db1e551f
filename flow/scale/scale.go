// Package scale is the flow engine's scalability study (seed 001 section
// 4.1, Fig. 7): families of topologies at growing numbers of endpoints,
// each run through the static engine under one pattern (seed 001: random
// uniform), reporting aggregate non-restricted and restricted throughput
// and throughput per port against the number of endpoints.
package scale

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

// Family is a topology family and its instances, smallest first.
type Family struct {
	Name  string
	Sizes []spec.Topology
}

// Families returns the built-in families of seed 001's Fig. 7 with at most
// maxServers endpoints each (names in the order given; all when names is
// empty).
func Families(names []string, maxServers int) ([]Family, error) {
	var out []Family
	for _, f := range builtin() {
		if len(names) > 0 && !slices.Contains(names, f.Name) {
			continue
		}
		var sizes []spec.Topology
		for _, t := range f.Sizes {
			if servers(t) <= maxServers {
				sizes = append(sizes, t)
			}
		}
		f.Sizes = sizes
		out = append(out, f)
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(f Family) bool { return f.Name == n }) {
			return nil, fmt.Errorf("scale family: %q is not allowed: must be one of %s", n, strings.Join(FamilyNames(), ", "))
		}
	}
	return out, nil
}

// FamilyNames lists the built-in families.
func FamilyNames() []string {
	var names []string
	for _, f := range builtin() {
		names = append(names, f.Name)
	}
	return names
}

func builtin() []Family {
	torus := func(d int, ks ...int) []spec.Topology {
		var ts []spec.Topology
		for _, k := range ks {
			dims := make([]int, d)
			for i := range dims {
				dims[i] = k
			}
			ts = append(ts, spec.Topology{Kind: spec.KindTorus, Dims: dims, ServersPerSwitch: 1})
		}
		return ts
	}
	trees := func(ratio int, ks ...int) []spec.Topology {
		var ts []spec.Topology
		for _, k := range ks {
			if ratio == 1 {
				ts = append(ts, spec.Topology{Kind: spec.KindTree, K: k, N: 3})
			} else {
				ts = append(ts, spec.Topology{Kind: spec.KindThinTree, K: k, KUp: k / ratio, N: 3})
			}
		}
		return ts
	}
	var dragonflies []spec.Topology
	for _, h := range []int{2, 4, 6, 8, 12, 16, 23} { // balanced: a = 2h, p = h
		dragonflies = append(dragonflies, spec.Topology{Kind: spec.KindDragonfly, A: 2 * h, H: h, P: h, Arrangement: topology.DragonflyAbsolute})
	}
	var jelly []spec.Topology
	for _, k := range []int{8, 16} { // k² switches of 2k ports, k to servers: k³ servers, like a k-ary 3-tree
		jelly = append(jelly, spec.Topology{Kind: spec.KindJellyfish, Switches: k * k, Ports: 2 * k, SwitchPorts: k})
	}
	fat := trees(1, 8, 16, 32, 64)
	fat = append(fat, spec.Topology{Kind: spec.KindTree, K: 32, N: 4})
	return []Family{
		{"torus-3d", torus(3, 8, 16, 32, 64, 100)},
		{"torus-6d", torus(6, 3, 4, 6, 8, 10)},
		{"fat-tree", fat},
		{"thin-tree-2:1", trees(2, 8, 16, 32, 64)},
		{"thin-tree-4:1", trees(4, 8, 16, 32, 64)},
		{"dragonfly", dragonflies},
		{"jellyfish", jelly},
	}
}

// servers is the number of endpoints of t, from its parameters.
func servers(t spec.Topology) int {
	pow := func(b, e int) int {
		r := 1
		for range e {
			r *= b
		}
		return r
	}
	switch t.Kind {
	case spec.KindTorus:
		n := t.ServersPerSwitch
		for _, d := range t.Dims {
			n *= d
		}
		return n
	case spec.KindTree, spec.KindThinTree:
		return pow(t.K, t.N)
	case spec.KindDragonfly:
		return (t.A*t.H + 1) * t.A * t.P
	case spec.KindJellyfish:
		return t.Switches * (t.Ports - t.SwitchPorts)
	}
	return 0
}

// Point is one topology instance's result.
type Point struct {
	Family               string  `json:"family"`
	Topology             string  `json:"topology"`
	Servers              int     `json:"servers"`
	Switches             int     `json:"switches"`
	Links                int     `json:"links"`
	Routing              string  `json:"routing"`
	Flows                int64   `json:"flows"`
	MaxLoad              float64 `json:"max_load"`
	MeanHops             float64 `json:"mean_hops"`
	NonRestricted        float64 `json:"non_restricted"`
	Restricted           float64 `json:"restricted"`
	NonRestrictedPerPort float64 `json:"non_restricted_per_port"`
	RestrictedPerPort    float64 `json:"restricted_per_port"`
	Seconds              float64 `json:"seconds"`
}

// Describe names a topology instance briefly.
func Describe(t spec.Topology) string {
	switch t.Kind {
	case spec.KindTorus:
		return fmt.Sprintf("torus %s", strings.Trim(strings.ReplaceAll(fmt.Sprint(t.Dims), " ", "x"), "[]"))
	case spec.KindTree:
		return fmt.Sprintf("%d-ary %d-tree", t.K, t.N)
	case spec.KindThinTree:
		return fmt.Sprintf("thin tree %d:%d, %d levels", t.K, t.KUp, t.N)
	case spec.KindDragonfly:
		return fmt.Sprintf("dragonfly a=%d h=%d p=%d", t.A, t.H, t.P)
	case spec.KindJellyfish:
		return fmt.Sprintf("jellyfish %d switches, %d ports, %d to switches", t.Switches, t.Ports, t.SwitchPorts)
	}
	return t.Kind
}

// Run measures every instance of families under pattern p (seed, workers
// as in spec.Config), in order; done is called after each. A cancelled ctx
// stops the instance under way (left out: not measured) and the rest,
// returning what was measured.
func Run(ctx context.Context, families []Family, p workload.Spec, seed uint64, workers int, done func(Point)) ([]Point, error) {
	var out []Point
	for _, f := range families {
		for _, t := range f.Sizes {
			if ctx.Err() != nil {
				return out, nil
			}
			began := time.Now()
			cfg := spec.Config{Topology: t, Pattern: p, Seed: seed, Workers: workers}
			net, err := cfg.Build()
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", f.Name, Describe(t), err)
			}
			pat, err := workload.Build(p, net.Graph.NumServers(), seed)
			if err != nil {
				return out, err
			}
			r, err := static.Run(net.Router, pat, static.Options{Workers: workers, Stop: func() bool { return ctx.Err() != nil }})
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", f.Name, Describe(t), err)
			}
			if r.Interrupted {
				return out, nil
			}
			pt := Point{Family: f.Name, Topology: Describe(t), Servers: net.Graph.NumServers(), Switches: net.Graph.NumSwitches(),
				Links: net.Graph.NumLinks(), Routing: r.Routing, Flows: r.Flows, MaxLoad: r.MaxLoad, MeanHops: r.MeanHops,
				NonRestricted: r.NonRestricted, Restricted: r.Restricted, NonRestrictedPerPort: r.NonRestrictedPerPort,
				RestrictedPerPort: r.RestrictedPerPort, Seconds: time.Since(began).Seconds()}
			out = append(out, pt)
			if done != nil {
				done(pt)
			}
		}
	}
	return out, nil
}

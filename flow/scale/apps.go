package scale

import (
	"context"
	"fmt"
	"time"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

// The application study (seed 001 section 4.2, Figs. 8 and 9): the
// execution time of application models on topologies of about the same
// size, each normalized to the fat tree's, and the effect of multipath
// routing (the time with single-path routing over the time with ECMP).

// Topo is a named topology of the study with its routings: the
// topology's own and, for the multipath comparison, another.
type Topo struct {
	Name      string
	Topology  spec.Topology
	Multipath *spec.Routing // nil: not in the multipath comparison
}

// StudyTopologies are seed 001's kinds at about 4,096 servers.
func StudyTopologies() []Topo {
	ecmp := &spec.Routing{Name: "ecmp", Paths: 4}
	return []Topo{
		{"torus-3d", spec.Topology{Kind: spec.KindTorus, Dims: []int{16, 16, 16}, ServersPerSwitch: 1}, nil},
		{"torus-6d", spec.Topology{Kind: spec.KindTorus, Dims: []int{4, 4, 4, 4, 4, 4}, ServersPerSwitch: 1}, nil},
		{"fat-tree", spec.Topology{Kind: spec.KindTree, K: 16, N: 3}, ecmp},
		{"thin-tree-2:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 8, N: 3}, ecmp},
		{"thin-tree-4:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 4, N: 3}, ecmp},
		{"dragonfly", spec.Topology{Kind: spec.KindDragonfly, A: 12, H: 6, P: 6, Arrangement: topology.DragonflyAbsolute}, nil},
		{"jellyfish", spec.Topology{Kind: spec.KindJellyfish, Switches: 256, Ports: 32, SwitchPorts: 16}, ecmp},
	}
}

// StudyApps are the applications (4,096 tasks where the flows stay few
// enough; 256 for the quadratic ones), flows of 1,000 capacity-time units
// and computations of 10.
func StudyApps() []workload.App {
	return []workload.App{
		{Kind: workload.Stencil3D, Tasks: 4096, Iterations: 5, Size: 1000, Compute: 10},
		{Kind: workload.Sweep2D, Tasks: 4096, Iterations: 2, Size: 1000, Compute: 10},
		{Kind: workload.NBody, Tasks: 256, Iterations: 1, Size: 1000, Compute: 10},
		{Kind: workload.MapReduce, Tasks: 256, Size: 1000, Compute: 10},
		{Kind: workload.Unstructured, Tasks: 4096, Iterations: 5, Size: 1000, Compute: 10, Seed: 1},
		{Kind: workload.DCNTraffic, Tasks: 4096, Iterations: 4, Size: 1000, Seed: 1},
	}
}

// AppPoint is one application on one topology and routing.
type AppPoint struct {
	Topology  string  `json:"topology"`
	App       string  `json:"app"`
	Routing   string  `json:"routing"`
	Multipath bool    `json:"multipath"`
	Servers   int     `json:"servers"`
	Flows     int     `json:"flows"`
	Makespan  float64 `json:"makespan"`
	Seconds   float64 `json:"seconds"`
}

// RunApps runs every application on every topology with its own routing,
// and on the multipath topologies with their multipath routing too; done
// is called after each run. A cancelled ctx stops before the next run.
func RunApps(ctx context.Context, topos []Topo, apps []workload.App, seed uint64, done func(AppPoint)) ([]AppPoint, error) {
	var out []AppPoint
	for _, t := range topos {
		routings := []*spec.Routing{{}}
		if t.Multipath != nil {
			routings = append(routings, t.Multipath)
		}
		for ri, r := range routings {
			cfg := spec.Config{Topology: t.Topology, Routing: *r, Seed: seed}
			net, err := cfg.Build()
			if err != nil {
				return out, fmt.Errorf("%s: %w", t.Name, err)
			}
			for _, a := range apps {
				if ctx.Err() != nil {
					return out, nil
				}
				if a.Tasks > net.Graph.NumServers() {
					return out, fmt.Errorf("%s: %s needs %d servers, the network has %d", t.Name, a.Kind, a.Tasks, net.Graph.NumServers())
				}
				began := time.Now()
				flows, err := a.Flows()
				if err != nil {
					return out, err
				}
				res, err := dynamic.Run(net.Router, flows)
				if err != nil {
					return out, fmt.Errorf("%s %s: %w", t.Name, a.Kind, err)
				}
				if res.Unfinished > 0 {
					return out, fmt.Errorf("%s %s: %d flows never completed", t.Name, a.Kind, res.Unfinished)
				}
				pt := AppPoint{Topology: t.Name, App: a.Kind, Routing: net.Router.Name(), Multipath: ri > 0, Servers: net.Graph.NumServers(),
					Flows: len(flows), Makespan: res.Makespan, Seconds: time.Since(began).Seconds()}
				out = append(out, pt)
				if done != nil {
					done(pt)
				}
			}
		}
	}
	return out, nil
}

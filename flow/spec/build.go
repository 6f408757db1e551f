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
)

// build makes the configured topology, its links of capacity capacity,
// and its routing.
func (c *Config) build(capacity float64) (*Network, error) {
	t := &c.Topology
	r := c.Routing
	switch t.Kind {
	case KindTree:
		return buildTree(t, r, capacity)
	case KindTorus:
		return buildTorus(t, r, capacity)
	case KindMesh:
		g, err := topology.Mesh(t.Dims, t.ServersPerSwitch, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		return anyGraph(t, r, g)
	case KindXGFT, KindThinTree:
		return buildXGFT(t, r, capacity)
	case KindDragonfly:
		return buildDragonfly(t, r, capacity)
	case KindJellyfish:
		j, err := topology.NewJellyfish(t.Switches, t.Ports, t.SwitchPorts, c.Seed, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		return anyGraph(t, r, j.Graph)
	case KindFile:
		return c.buildFile(r)
	case KindBCube, KindDCell, KindFiConn, KindDPillar, KindHCN, KindBCN:
		g, err := serverCentric(t, capacity)
		if err != nil {
			return nil, fmt.Errorf("topology: %w", err)
		}
		return anyGraph(t, r, g)
	case "":
		return nil, fmt.Errorf("topology: neither preset nor kind given: kind must be one of %s, or preset one of %s", strings.Join(Kinds(), ", "), strings.Join(Presets(), ", "))
	}
	return nil, fmt.Errorf("topology.kind: %q is not allowed: must be one of %s", t.Kind, strings.Join(Kinds(), ", "))
}

// wantRouting refuses routing r on topology t unless it is unnamed (the
// topology's default) or one of allowed.
func wantRouting(t *Topology, r Routing, allowed ...string) error {
	if r.Name == "" || slices.Contains(allowed, r.Name) {
		return nil
	}
	return fmt.Errorf("routing.name: %q is not allowed on a %s: must be one of %s", r.Name, t.Kind, strings.Join(allowed, ", "))
}

// anyGraph routes graph g, of topology t, with the generic routing r.
func anyGraph(t *Topology, r Routing, g *graph.Graph) (*Network, error) {
	if err := wantRouting(t, r, genericRoutings...); err != nil {
		return nil, err
	}
	return routeGeneric(g, r)
}

// buildTree makes a k-ary n-tree, routed by d-mod-k unless r names a
// generic routing.
func buildTree(t *Topology, r Routing, capacity float64) (*Network, error) {
	tr, err := graph.NewTree(t.K, t.N, capacity)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if err := wantRouting(t, r, generic("dmodk")...); err != nil {
		return nil, err
	}
	if r.Name == "" || r.Name == "dmodk" {
		return &Network{Graph: tr.Graph, Router: route.NewDModK(tr)}, nil
	}
	return routeGeneric(tr.Graph, r)
}

// buildTorus makes a torus, routed by DOR unless r names a generic
// routing.
func buildTorus(t *Topology, r Routing, capacity float64) (*Network, error) {
	to, err := graph.NewTorus(t.Dims, t.ServersPerSwitch, capacity)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if err := wantRouting(t, r, generic("dor")...); err != nil {
		return nil, err
	}
	if r.Name == "" || r.Name == "dor" {
		return &Network{Graph: to.Graph, Router: route.NewDOR(to)}, nil
	}
	return routeGeneric(to.Graph, r)
}

// buildXGFT makes an XGFT or a thin tree, routed by d-mod-k unless r
// names a generic routing.
func buildXGFT(t *Topology, r Routing, capacity float64) (*Network, error) {
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
	if err := wantRouting(t, r, generic("dmodk")...); err != nil {
		return nil, err
	}
	if r.Name == "" || r.Name == "dmodk" {
		return &Network{Graph: x.Graph, Router: x.DModK()}, nil
	}
	return routeGeneric(x.Graph, r)
}

// buildDragonfly makes a dragonfly, routed minimally unless r names
// Valiant's routing or a generic one.
func buildDragonfly(t *Topology, r Routing, capacity float64) (*Network, error) {
	d, err := topology.NewDragonfly(t.A, t.H, t.P, t.Arrangement, capacity)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if err := wantRouting(t, r, generic("minimal", "valiant")...); err != nil {
		return nil, err
	}
	switch r.Name {
	case "", "minimal":
		return &Network{Graph: d.Graph, Router: d.MinimalRouter()}, nil
	case "valiant":
		paths := r.Paths
		if paths == 0 {
			paths = 1
		}
		v, err := d.ValiantRouter(paths)
		if err != nil {
			return nil, fmt.Errorf("routing.paths: %w", err)
		}
		return &Network{Graph: d.Graph, Router: v}, nil
	}
	return routeGeneric(d.Graph, r)
}

// buildFile reads the graph of topology.file, within the memory budget,
// and routes it with the generic routing r.
func (c *Config) buildFile(r Routing) (*Network, error) {
	t := &c.Topology
	if t.File == "" {
		return nil, errors.New("topology.file: \"\" is not allowed: must name a graph file (docs/flow.md)")
	}
	f, err := os.Open(t.File)
	if err != nil {
		return nil, fmt.Errorf("topology.file: %w", err)
	}
	defer f.Close()
	opt := topology.ReadOptions{Stop: c.stop}
	if b := c.budget; b.Bytes > 0 {
		opt.Limit = func(nodes, links int64) error {
			w := c.runWorkers(b)
			return b.Check(fileBytes(nodes, links, w), fmt.Sprintf("a graph of %d nodes and at least %d links (%d B a node, %d B a link, with %d workers)",
				nodes, links, readNodeBytes+runNodeBytes*w, readLinkBytes+runLinkBytes*w, w))
		}
	}
	g, err := topology.ReadGraphWith(f, t.File, opt)
	if errors.Is(err, topology.ErrStopped) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("topology.file: %w", err)
	}
	return anyGraph(t, r, g)
}

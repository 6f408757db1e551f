package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/storage"
	"github.com/opasim/opasim/flow/topology"
)

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

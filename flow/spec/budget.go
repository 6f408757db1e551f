package spec

import (
	"fmt"

	"github.com/pbnjay/memory"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// MaxBudgetMB bounds memory_budget_mb (a pebibyte).
const MaxBudgetMB = 1 << 30

// Budget is the memory a flow-level run may take, as the cycle-level run
// has it (memory_budget_mb): a command estimates what its input will
// allocate — the graph, the flows, applications or jobs — and refuses it
// before the work starts if the estimate is above the budget.
type Budget struct {
	Bytes int64  // 0: unknown (the machine's memory could not be read): nothing is refused
	From  string // where the budget comes from, for the message
	// Dynamic says the run is the dynamic engine's, whose scratch is one
	// worker's (DynamicBytes) whatever Config.Workers says; else it is
	// the static engine's, Workers' (StaticBytes). BuildWithin's
	// estimates before and while building go by it.
	Dynamic bool
}

// NewBudget is the budget of mb MiB (the memory_budget_mb key, the
// --memory-budget-mb flag), or this machine's memory when mb is 0.
func NewBudget(mb int64) (Budget, error) {
	if mb < 0 || mb > MaxBudgetMB {
		return Budget{}, fmt.Errorf("memory_budget_mb (--memory-budget-mb): %d is not allowed: must be in [0, %d] MiB (0: this machine's memory)", mb, MaxBudgetMB)
	}
	if mb == 0 {
		return Budget{Bytes: int64(min(memory.TotalMemory(), 1<<62)), From: "this machine's memory; --memory-budget-mb or memory_budget_mb sets another"}, nil
	}
	return Budget{Bytes: mb << 20, From: fmt.Sprintf("--memory-budget-mb or memory_budget_mb: %d", mb)}, nil
}

// Check refuses an estimate above the budget. what names the input the
// estimate grows with: its flag or key and value, and how the estimate
// is made (e.g. "--apps 1000000000: 64 B an application").
func (b Budget) Check(estimate int64, what string) error { return b.check(estimate, what, "about") }

// CheckAtLeast is Check for an estimate that is a lower bound (a count
// that stopped once past the budget).
func (b Budget) CheckAtLeast(estimate int64, what string) error {
	return b.check(estimate, what, "more than")
}

func (b Budget) check(estimate int64, what, how string) error {
	if b.Bytes <= 0 || estimate <= b.Bytes {
		return nil
	}
	return fmt.Errorf("%s: this run would take %s %s of memory, more than the budget of %s (%s)", what, how, Size(estimate), Size(b.Bytes), b.From)
}

// Size is a number of bytes for a message, in MiB, GiB or TiB.
func Size(b int64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.1f TiB", float64(b)/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// AddBytes adds byte counts, saturating at the largest int64 instead of
// overflowing (estimates multiply inputs that may be huge).
func AddBytes(xs ...int64) int64 {
	s := int64(0)
	for _, x := range xs {
		if x > 1<<62-s {
			return 1 << 62
		}
		s += max(x, 0)
	}
	return s
}

// MulBytes is n items of each bytes, saturating as AddBytes.
func MulBytes(n, each int64) int64 {
	if n <= 0 || each <= 0 {
		return 0
	}
	if n > (1<<62)/each {
		return 1 << 62
	}
	return n * each
}

// What a flow-level run takes beside its inputs, per item, as the
// process' peak resident memory grows (so with the garbage collector's
// headroom), for the estimates below.
const (
	// DynamicFlowBytes is the dynamic engine's memory per flow of a flow
	// list (dynamic.RunWith: the list and its dependencies, the engine's
	// records of every flow, all active at once at worst, the results).
	// Measured as the slope of the peak RSS (/usr/bin/time -f %M)
	// between runs of opasim flow dynamic --preset tree-16ary-3 --pattern
	// uniform --flows-per-server 16, 64 and 128 (65,536 to 524,288
	// flows, all active at once): 558 and 618 B a flow; rounded up.
	DynamicFlowBytes = 640
	// A graph file read: per link the list read (16 B, as much again
	// while it grows) and the graph's 20 B; per node the graph's 8 B.
	readLinkBytes = 52
	readNodeBytes = 8
	// The routers' and engines' scratch beside the graph, per node (the
	// generic routings' search, 32 B, and the static engine's per
	// server limits) and per link (the static engine's loads, 16 B a
	// worker, the rates, 8 B); the static engine has them per worker.
	runNodeBytes = 40
	runLinkBytes = 24
)

// routingBytes is what the routing keeps whatever the flows: the generic
// routings' distance rows (ecmp, bfs) or path cache (ksp, allpath).
func (c *Config) routingBytes(n *Network) int64 { return c.routingBytesOf(n.Router.Name()) }

// routingBytesOf is routingBytes of the router named name.
func (c *Config) routingBytesOf(name string) int64 {
	switch name {
	case "dmodk", "dor", "minimal":
		return 0
	}
	if c.Routing.Name == "ksp" || c.Routing.Name == "allpath" {
		if c.Routing.CacheMB > 0 {
			return int64(c.Routing.CacheMB) << 20
		}
		return route.DefaultCacheBytes
	}
	return route.ECMPRowBytes
}

// graphRunBytes is the graph and the scratch of workers workers.
func graphRunBytes(g *graph.Graph, workers int) int64 {
	return countsRunBytes(int64(g.NumNodes()), int64(g.NumLinks()), workers)
}

// countsRunBytes is graphRunBytes of a graph of nodes nodes and links
// links, before it is built.
func countsRunBytes(nodes, links int64, workers int) int64 {
	per := AddBytes(MulBytes(nodes, runNodeBytes), MulBytes(links, runLinkBytes))
	return AddBytes(graph.MemoryBytesOf(nodes, links), MulBytes(int64(max(workers, 1)), per))
}

// runWorkers is the workers whose scratch a run under b takes: one for
// the dynamic engine, Workers (at least one) for the static engine.
func (c *Config) runWorkers(b Budget) int {
	if b.Dynamic {
		return 1
	}
	return max(c.Workers, 1)
}

// StaticBytes estimates a static run's memory on n: the graph, every
// worker's loads and search, the routing's tables.
func (c *Config) StaticBytes(n *Network) int64 {
	return AddBytes(graphRunBytes(n.Graph, c.Workers), c.routingBytes(n))
}

// DynamicBytes estimates a dynamic run of flows flows on n.
func (c *Config) DynamicBytes(n *Network, flows int64) int64 {
	return AddBytes(graphRunBytes(n.Graph, 1), c.routingBytes(n), MulBytes(flows, DynamicFlowBytes))
}

// fileBytes estimates a graph file's graph of nodes nodes and links links
// and its run by workers workers.
func fileBytes(nodes, links int64, workers int) int64 {
	read := AddBytes(MulBytes(nodes, readNodeBytes), MulBytes(links, readLinkBytes))
	run := AddBytes(MulBytes(nodes, runNodeBytes), MulBytes(links, runLinkBytes))
	return AddBytes(read, MulBytes(int64(max(workers, 1)), run))
}

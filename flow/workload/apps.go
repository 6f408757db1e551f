package workload

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// Application models (seed 001 section 3.3.3): causal flows between the
// tasks of one application, task i on server i (a job placement maps them
// elsewhere). A flow that depends on others starts when they have all
// completed plus the compute time. Sizes and times are in the dynamic
// engine's units (capacity × time, time).

// App describes one application.
type App struct {
	Kind       string  `yaml:"kind" json:"kind"`             // one of AppKinds
	Tasks      int     `yaml:"tasks" json:"tasks"`           // tasks (servers used: 0..tasks-1)
	Iterations int     `yaml:"iterations" json:"iterations"` // time steps, sweeps, rounds (default 1)
	Size       float64 `yaml:"size" json:"size"`             // bytes of each flow (dcntraffic: the short flows'; allreduce, broadcast, alltoall: the collective's, see collective)
	Compute    float64 `yaml:"compute" json:"compute"`       // compute time before each causal flow
	Seed       uint64  `yaml:"seed" json:"seed"`             // unstructured, dcntraffic, bench
	// Pattern is a bench's traffic pattern (Patterns: its defaults, one
	// flow a server for uniform); only bench takes one.
	Pattern string `yaml:"pattern" json:"pattern,omitempty"`
}

// Application kinds.
const (
	Stencil2D    = "stencil2d"    // 2D halo exchange on a √P×√P periodic grid: 4 neighbours a step
	Stencil3D    = "stencil3d"    // 3D halo exchange on a ∛P³ periodic grid: 6 neighbours a step
	Sweep2D      = "sweep2d"      // wavefront: from (0,0) each task waits for its west and south neighbours, then sends east and north
	Sweep3D      = "sweep3d"      // wavefront on a ∛P³ grid: from (0,0,0) each task waits for its west, south and lower neighbours, then sends east, north and up
	Allreduce    = "allreduce"    // an allreduce of size bytes an iteration (workloads/collective's default, recursive doubling)
	Broadcast    = "broadcast"    // a broadcast of size bytes from task 0 an iteration (binomial tree)
	Alltoall     = "alltoall"     // an all-to-all of size bytes to every task an iteration (pairwise exchange)
	NBody        = "nbody"        // ring all-pairs: P−1 shifts of each task's block to its successor per iteration
	MapReduce    = "mapreduce"    // task 0 scatters to all, all-to-all shuffle, all gather to task 0
	Unstructured = "unstructured" // graph analytics: each round every task sends to a random task, after its previous round's receipt
	DCNTraffic   = "dcntraffic"   // every task sends to random tasks: 80% short (size), 20% long (100 × size) flows, Poisson arrivals
	Bench        = "bench"        // a benchmarking pattern, causality-enhanced: iterations rounds of the pattern, each round a phase that waits for the previous one (plus compute)
)

// AppKinds lists the application kinds.
func AppKinds() []string {
	return []string{Allreduce, Alltoall, Bench, Broadcast, DCNTraffic, MapReduce, NBody, Stencil2D, Stencil3D, Sweep2D, Sweep3D, Unstructured}
}

// Name names the application in tables: its kind, and a bench's pattern
// ("bench-shift").
func (a App) Name() string {
	if a.Kind == Bench {
		return Bench + "-" + a.Pattern
	}
	return a.Kind
}

// side is the edge of a d-dimensional cube of n tasks, or an error.
func side(kind string, n, d int) (int, error) {
	s := int(math.Round(math.Pow(float64(n), 1/float64(d))))
	p := 1
	for range d {
		p *= s
	}
	if p != n || s < 2 {
		return 0, fmt.Errorf("%s tasks: %d is not allowed: must be a %d-th power of an integer at least 2", kind, n, d)
	}
	return s, nil
}

// Check reports what makes the application impossible to build (its
// kind, its tasks, including the shape a stencil or sweep needs, its
// iterations, sizes and compute time), without building its flows.
func (a App) Check() error {
	_, _, err := a.check()
	return err
}

// check validates the application and returns its iterations (1 when
// not given) and, for the stencils and the sweep, the edge of its grid.
func (a App) check() (it, edge int, err error) {
	if !slices.Contains(AppKinds(), a.Kind) {
		return 0, 0, fmt.Errorf("application kind: %q is not allowed: must be one of %s", a.Kind, strings.Join(AppKinds(), ", "))
	}
	if a.Tasks < 2 || a.Tasks > 1<<24 {
		return 0, 0, fmt.Errorf("application tasks: %d is not allowed: must be in [2, %d]", a.Tasks, 1<<24)
	}
	it = a.Iterations
	if it == 0 {
		it = 1
	}
	if it < 1 || it > 1<<20 {
		return 0, 0, fmt.Errorf("application iterations: %d is not allowed: must be in [1, %d]", a.Iterations, 1<<20)
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"size", a.Size}, {"compute", a.Compute}} {
		if !(x.v >= 0) || x.v > MaxMarkovValue {
			return 0, 0, fmt.Errorf("application %s: %v is not allowed: must be in [0, %g]", x.name, x.v, MaxMarkovValue)
		}
	}
	switch a.Kind {
	case Stencil2D, Sweep2D:
		edge, err = side(a.Kind, a.Tasks, 2)
	case Stencil3D, Sweep3D:
		edge, err = side(a.Kind, a.Tasks, 3)
	case Allreduce, Broadcast, Alltoall:
		if a.Size != math.Trunc(a.Size) || a.Size > 1<<53 {
			return 0, 0, fmt.Errorf("application size: %v is not allowed for %s: must be a whole number of bytes in [0, 2^53]", a.Size, a.Kind)
		}
	case Bench:
		if a.Pattern == "" {
			return 0, 0, fmt.Errorf("application pattern: a bench needs one: must be one of %s", strings.Join(Patterns(), ", "))
		}
		if _, err := Build(Spec{Name: a.Pattern}, a.Tasks, a.Seed); err != nil {
			return 0, 0, fmt.Errorf("application %w (a bench takes the pattern with its default parameters)", err)
		}
	}
	if a.Kind != Bench && a.Pattern != "" {
		return 0, 0, fmt.Errorf("application pattern: %q is not allowed for %s: only a bench takes a pattern", a.Pattern, a.Kind)
	}
	return it, edge, err
}

// MaxFlows bounds the number of flows FlowsAndBarriers would build,
// without building them (a bench's pattern's flows are counted, up to
// just past limit): exact for every kind but the collectives, bounded
// there by every rank taking part in every round. It saturates at 2^62,
// and returns an error if the application is not valid.
func (a App) MaxFlows(limit int64) (int64, error) {
	it, edge, err := a.check()
	if err != nil {
		return 0, err
	}
	n, i := int64(a.Tasks), int64(it)
	mul := func(xs ...int64) int64 { // saturating at 2^62
		p := int64(1)
		for _, x := range xs {
			if x > 0 && p > (1<<62)/x {
				return 1 << 62
			}
			p *= x
		}
		return p
	}
	switch a.Kind {
	case Stencil2D:
		return mul(i, n, 4), nil
	case Stencil3D:
		return mul(i, n, 6), nil
	case Sweep2D: // per sweep, d·(tasks − tasks/edge) sends, then one end marker
		return mul(i, n-n/int64(edge), 2) + 1, nil
	case Sweep3D:
		return mul(i, n-n/int64(edge), 3) + 1, nil
	case Allreduce, Broadcast, Alltoall:
		op := map[string]vef.Op{Allreduce: vef.Allreduce, Broadcast: vef.Broadcast, Alltoall: vef.Alltoall}[a.Kind]
		spec := collective.Spec{Op: op, Size: a.Tasks}
		return mul(i, n, 1+2*int64(spec.Rounds())), nil
	case NBody:
		return mul(i, n-1, n), nil
	case MapReduce: // scatter, shuffle, gather
		return mul(n, n) + n - 2, nil
	case Unstructured, DCNTraffic:
		return mul(i, n), nil
	case Bench:
		p, err := Build(Spec{Name: a.Pattern}, a.Tasks, a.Seed)
		if err != nil {
			return 0, fmt.Errorf("application %w", err)
		}
		return mul(i, static.CountFlows(p, limit)) + i - 1, nil // and the barriers between rounds
	}
	return 0, fmt.Errorf("application kind: %q is not allowed", a.Kind)
}

// Flows builds the application's flows.
func (a App) Flows() ([]dynamic.Flow, error) {
	flows, _, err := a.FlowsAndBarriers()
	return flows, err
}

// FlowsAndBarriers builds the application's flows and says which are
// barriers between phases (a bench's: flows of size 0 that stand for
// no transfer, as Phased's; none for the other kinds).
func (a App) FlowsAndBarriers() ([]dynamic.Flow, []int, error) {
	it, edge, err := a.check()
	if err != nil {
		return nil, nil, err
	}
	b := &appBuilder{app: a}
	switch a.Kind {
	case Stencil2D:
		b.stencil(edge, 2, it)
	case Stencil3D:
		b.stencil(edge, 3, it)
	case Sweep2D:
		b.sweep(edge, 2, it)
	case Sweep3D:
		b.sweep(edge, 3, it)
	case Allreduce:
		b.collective(vef.Allreduce, it)
	case Broadcast:
		b.collective(vef.Broadcast, it)
	case Alltoall:
		b.collective(vef.Alltoall, it)
	case NBody:
		b.nbody(it)
	case MapReduce:
		b.mapreduce()
	case Unstructured:
		b.unstructured(it)
	case DCNTraffic:
		b.dcn(it)
	case Bench:
		if err := b.bench(it); err != nil {
			return nil, nil, err
		}
	}
	return b.flows, b.barriers, nil
}

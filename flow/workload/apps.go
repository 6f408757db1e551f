package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/dynamic"
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
	Size       float64 `yaml:"size" json:"size"`             // bytes of each flow (dcntraffic: the short flows')
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
	NBody        = "nbody"        // ring all-pairs: P−1 shifts of each task's block to its successor per iteration
	MapReduce    = "mapreduce"    // task 0 scatters to all, all-to-all shuffle, all gather to task 0
	Unstructured = "unstructured" // graph analytics: each round every task sends to a random task, after its previous round's receipt
	DCNTraffic   = "dcntraffic"   // every task sends to random tasks: 80% short (size), 20% long (100 × size) flows, Poisson arrivals
	Bench        = "bench"        // a benchmarking pattern, causality-enhanced: iterations rounds of the pattern, each round a phase that waits for the previous one (plus compute)
)

// AppKinds lists the application kinds.
func AppKinds() []string {
	return []string{Bench, DCNTraffic, MapReduce, NBody, Stencil2D, Stencil3D, Sweep2D, Unstructured}
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
		if !(x.v >= 0) || math.IsInf(x.v, 0) {
			return 0, 0, fmt.Errorf("application %s: %v is not allowed: must be at least 0 and finite", x.name, x.v)
		}
	}
	switch a.Kind {
	case Stencil2D, Sweep2D:
		edge, err = side(a.Kind, a.Tasks, 2)
	case Stencil3D:
		edge, err = side(a.Kind, a.Tasks, 3)
	case Bench:
		if a.Pattern == "" {
			return 0, 0, fmt.Errorf("application pattern: a bench needs one: must be one of %s", strings.Join(Patterns(), ", "))
		}
		if _, err := Build(Spec{Name: a.Pattern}, a.Tasks, a.Seed); err != nil {
			return 0, 0, fmt.Errorf("application pattern: %w (a bench takes the pattern with its default parameters)", err)
		}
	}
	if a.Kind != Bench && a.Pattern != "" {
		return 0, 0, fmt.Errorf("application pattern: %q is not allowed for %s: only a bench takes a pattern", a.Pattern, a.Kind)
	}
	return it, edge, err
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
		b.sweep(edge, it)
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

type appBuilder struct {
	app      App
	flows    []dynamic.Flow
	barriers []int // a bench's barriers between rounds
}

// add appends a flow src→dst depending on deps (with the compute delay
// when it has any) and returns its index.
func (b *appBuilder) add(src, dst int, deps []int) int {
	f := dynamic.Flow{Src: int32(src), Dst: int32(dst), Size: b.app.Size}
	if len(deps) > 0 {
		f.Deps, f.Delay = deps, b.app.Compute
	}
	b.flows = append(b.flows, f)
	return len(b.flows) - 1
}

// stencil: at each step every task sends to its 2d neighbours (periodic);
// its sends of step k+1 wait for what it received at step k.
func (b *appBuilder) stencil(s, d, steps int) {
	n := b.app.Tasks
	in := make([][]int, n) // flows received at the last step, per task
	for step := 0; step < steps; step++ {
		next := make([][]int, n)
		for t := 0; t < n; t++ {
			for dim, stride := 0, 1; dim < d; dim, stride = dim+1, stride*s {
				c := t / stride % s
				for _, dc := range []int{1, s - 1} {
					nb := t + ((c+dc)%s-c)*stride
					f := b.add(t, nb, in[t])
					next[nb] = append(next[nb], f)
				}
			}
		}
		in = next
	}
}

// sweep: a wavefront from task (0,0) of an s×s grid: (x,y) sends east and
// north once it has received from west and south (those it has); each
// iteration is one sweep, and task (0,0) starts the next once the far
// corner (s−1, s−1) has received the last; a flow of size 0 from the far
// corner to itself marks the end of the last sweep.
func (b *appBuilder) sweep(s, sweeps int) {
	at := func(x, y int) int { return y*s + x }
	var last []int // the flows into the far corner of the previous sweep
	for k := 0; k < sweeps; k++ {
		in := make([][]int, s*s)
		in[0] = last
		for diag := 0; diag <= 2*(s-1); diag++ {
			for x := 0; x < s; x++ {
				y := diag - x
				if y < 0 || y >= s {
					continue
				}
				t := at(x, y)
				if x+1 < s {
					in[at(x+1, y)] = append(in[at(x+1, y)], b.add(t, at(x+1, y), in[t]))
				}
				if y+1 < s {
					in[at(x, y+1)] = append(in[at(x, y+1)], b.add(t, at(x, y+1), in[t]))
				}
			}
		}
		last = in[at(s-1, s-1)]
	}
	if len(last) > 0 { // the last sweep's far corner: a flow of size 0 to itself marks its end
		b.flows = append(b.flows, dynamic.Flow{Src: int32(at(s-1, s-1)), Dst: int32(at(s-1, s-1)), Deps: last})
	}
}

// nbody: P−1 shifts an iteration; at each, task t sends its current block
// to t+1 after receiving the previous shift's block from t−1.
func (b *appBuilder) nbody(iterations int) {
	n := b.app.Tasks
	prev := make([]int, n) // the flow task t received at the last shift, -1 none
	for i := range prev {
		prev[i] = -1
	}
	for k := 0; k < iterations*(n-1); k++ {
		next := make([]int, n)
		for t := 0; t < n; t++ {
			var deps []int
			if prev[t] >= 0 {
				deps = []int{prev[t]}
			}
			next[(t+1)%n] = b.add(t, (t+1)%n, deps)
		}
		prev = next
	}
}

// mapreduce: task 0 scatters a block to every other task; each task sends
// a block to every other once it has its own; each sends its result to
// task 0 once it has received every shuffled block.
func (b *appBuilder) mapreduce() {
	n := b.app.Tasks
	scatter := make([]int, n)
	for t := 1; t < n; t++ {
		scatter[t] = b.add(0, t, nil)
	}
	shuffled := make([][]int, n)
	for t := 0; t < n; t++ {
		var deps []int
		if t > 0 {
			deps = []int{scatter[t]}
		}
		for d := 0; d < n; d++ {
			if d != t {
				shuffled[d] = append(shuffled[d], b.add(t, d, deps))
			}
		}
	}
	for t := 1; t < n; t++ {
		b.add(t, 0, shuffled[t])
	}
}

// unstructured: each round every task sends to a task drawn at random (not
// itself), after it received its previous round's flow (if it got one) and
// after its own previous send completed.
func (b *appBuilder) unstructured(rounds int) {
	n := b.app.Tasks
	rng := rand.New(rand.NewPCG(b.app.Seed, 0x756e73))
	lastSent := make([]int, n)
	lastRecv := make([][]int, n)
	for i := range lastSent {
		lastSent[i] = -1
	}
	for r := 0; r < rounds; r++ {
		recv := make([][]int, n)
		for t := 0; t < n; t++ {
			d := rng.IntN(n - 1)
			if d >= t {
				d++
			}
			deps := slices.Clone(lastRecv[t])
			if lastSent[t] >= 0 {
				deps = append(deps, lastSent[t])
			}
			f := b.add(t, d, deps)
			lastSent[t] = f
			recv[d] = append(recv[d], f)
		}
		lastRecv = recv
	}
}

// dcn: every task sends iterations flows to random tasks, Poisson
// arrivals of mean gap 1 per task, 20% of them long (100 × size);
// independent (no causality).
func (b *appBuilder) dcn(perTask int) {
	n := b.app.Tasks
	rng := rand.New(rand.NewPCG(b.app.Seed, 0x64636e))
	for t := 0; t < n; t++ {
		at := 0.0
		for k := 0; k < perTask; k++ {
			at += rng.ExpFloat64()
			d := rng.IntN(n - 1)
			if d >= t {
				d++
			}
			size := b.app.Size
			if rng.Float64() < 0.2 {
				size *= 100
			}
			b.flows = append(b.flows, dynamic.Flow{Src: int32(t), Dst: int32(d), Size: size, Start: at})
		}
	}
}

// bench: rounds rounds of the pattern (round r drawn from seed + r, so a
// random pattern differs from round to round), each a phase: the flows of
// round r > 0 depend on a barrier (a flow of size 0 from task 0 to
// itself, as in Phased) that depends on every flow of round r − 1, and
// start compute after it.
func (b *appBuilder) bench(rounds int) error {
	barrier := -1
	var phase []int
	for r := range rounds {
		if r > 0 {
			b.flows = append(b.flows, dynamic.Flow{Deps: phase})
			barrier, phase = len(b.flows)-1, nil
			b.barriers = append(b.barriers, barrier)
		}
		p, err := Build(Spec{Name: b.app.Pattern}, b.app.Tasks, b.app.Seed+uint64(r))
		if err != nil {
			return fmt.Errorf("application pattern: %w", err)
		}
		p.Flows(0, int32(p.Servers()), func(src, dst int32) {
			var deps []int
			if barrier >= 0 {
				deps = []int{barrier}
			}
			phase = append(phase, b.add(int(src), int(dst), deps))
		})
	}
	return nil
}

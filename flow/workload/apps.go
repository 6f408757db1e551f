package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/flow/trace"
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

// sweep: a wavefront from task (0, …, 0) of a d-dimensional grid of
// edge s (task index x + s·y + s²·z): a task sends to its successor in
// each dimension (east, north, up; those it has) once it has received
// from its predecessors (west, south, down; those it has); each iteration
// is one sweep, and task 0 starts the next once the far corner
// (s−1, …, s−1) has received the last; a flow of size 0 from the far
// corner to itself marks the end of the last sweep. Flows are made
// diagonal by diagonal (the sum of the coordinates), within one in
// lexicographic order of the coordinates but the last (x outermost), a
// task's in dimension order.
func (b *appBuilder) sweep(s, d, sweeps int) {
	n := b.app.Tasks
	stride := make([]int, d)
	for i, st := 0, 1; i < d; i, st = i+1, st*s {
		stride[i] = st
	}
	c := make([]int, d)
	var last []int // the flows into the far corner of the previous sweep
	for k := 0; k < sweeps; k++ {
		in := make([][]int, n)
		in[0] = last
		for diag := 0; diag <= d*(s-1); diag++ {
			clear(c)
			for { // every c[0..d-2] in lexicographic order; c[d-1] the rest of diag
				rest := diag
				for _, v := range c[:d-1] {
					rest -= v
				}
				if rest >= 0 && rest < s {
					c[d-1] = rest
					t := 0
					for i, v := range c {
						t += v * stride[i]
					}
					deps := in[t]
					for i, v := range c {
						if v+1 < s {
							nb := t + stride[i]
							in[nb] = append(in[nb], b.add(t, nb, deps))
						}
					}
				}
				i := d - 2
				for ; i >= 0; i-- {
					if c[i]++; c[i] < s {
						break
					}
					c[i] = 0
				}
				if i < 0 {
					break
				}
			}
		}
		last = in[n-1]
	}
	if len(last) > 0 { // the last sweep's far corner: a flow of size 0 to itself marks its end
		b.flows = append(b.flows, dynamic.Flow{Src: int32(n - 1), Dst: int32(n - 1), Deps: last})
	}
}

// collective: iterations collectives of one op over all tasks, lowered
// into rounds of transfers by workloads/collective with the op's default
// algorithm, and into causal flows by the rules of the flow-level trace
// replay (trace.LowerCollective: a task's round sends after its previous
// round ended, a round ends when its send is done and its receipt has
// arrived). Size is the op's bytes as a VEF trace gives them
// (docs VEF.md): allreduce, the vector every task holds; broadcast, the
// message task 0 sends; alltoall, the bytes each task sends to every
// other. Each task's part of an iteration begins with a flow of size 0 on
// its server, after its part of the previous iteration ended plus the
// compute time.
func (b *appBuilder) collective(op vef.Op, iterations int) {
	n := b.app.Tasks
	x := int64(b.app.Size)
	spec := collective.Spec{Op: op, Size: n, SendBytes: make([]int64, n), RecvBytes: make([]int64, n)}
	for r := range n {
		switch op {
		case vef.Allreduce:
			spec.SendBytes[r], spec.RecvBytes[r] = x, x
		case vef.Broadcast: // root 0: X / 0; the others 0 / X
			if r == 0 {
				spec.SendBytes[r] = x
			} else {
				spec.RecvBytes[r] = x
			}
		case vef.Alltoall: // recv 0: send_bytes to every task
			spec.SendBytes[r] = x
		}
	}
	servers := make([]int32, n)
	for r := range servers {
		servers[r] = int32(r)
	}
	start := make([]int32, n)
	var end []int32
	for range iterations {
		for r := range n {
			f := dynamic.Flow{Src: int32(r), Dst: int32(r)}
			if end != nil {
				f.Deps, f.Delay = []int{int(end[r])}, b.app.Compute
			}
			b.flows = append(b.flows, f)
			start[r] = int32(len(b.flows) - 1)
		}
		b.flows, end = trace.LowerCollective(b.flows, &spec, start, servers, false, nil)
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
			return fmt.Errorf("application %w", err)
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

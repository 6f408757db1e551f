package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/trace"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

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

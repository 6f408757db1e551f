package tracegen

import "github.com/opasim/opasim/workloads/vef"

// stencil3d: in iteration i, the halo from task s to its j-th neighbour
// is message i·N·D + s·D + j; allreduce g follows iteration (g+1)·K - 1.

// grid3 is a periodic Px×Py×Pz grid of tasks, x varying fastest.
type grid3 struct{ dims [3]int }

// cubicGrid is the most cubic grid of n tasks: the largest dimension as
// small as it can be, then the middle one, largest first.
func cubicGrid(n int) grid3 {
	best := [3]int{n, 1, 1}
	for z := 1; z*z*z <= n; z++ {
		if n%z != 0 {
			continue
		}
		m := n / z
		for y := z; y*y <= m; y++ {
			if m%y != 0 {
				continue
			}
			x := m / y
			if x < best[0] || x == best[0] && y < best[1] {
				best = [3]int{x, y, z}
			}
		}
	}
	return grid3{best}
}

// degree is D, the distinct neighbours of every task.
func (g grid3) degree() int {
	d := 0
	for _, p := range g.dims {
		d += min(p-1, 2)
	}
	return d
}

// neighbours appends task t's distinct neighbours to buf[:0] in the order
// x−, x+, y−, y+, z−, z+: none in a dimension of 1, only the + one in a
// dimension of 2 (where − and + are the same task).
func (g grid3) neighbours(t int, buf []int) []int {
	buf = buf[:0]
	stride := 1
	for _, p := range g.dims {
		c := t / stride % p
		at := func(c2 int) int { return t + (c2-c)*stride }
		if p >= 3 {
			buf = append(buf, at((c+p-1)%p))
		}
		if p >= 2 {
			buf = append(buf, at((c+1)%p))
		}
		stride *= p
	}
	return buf
}

// lastHalo is the id of the halo task t waits for in the iteration whose
// first message is base: the one from its last neighbour u, which is
// u's j-th message, t being u's j-th neighbour. buf is scratch.
func (g grid3) lastHalo(t int, base int64, buf []int) int64 {
	nb := g.neighbours(t, buf)
	u, d := nb[len(nb)-1], len(nb)
	j := 0
	for i, v := range g.neighbours(u, buf) {
		if v == t {
			j = i
		}
	}
	return base + int64(u)*int64(d) + int64(j)
}

func stencilCounts(p Params) vef.Header {
	n, it := int64(p.Tasks), int64(p.Iterations)
	d := int64(cubicGrid(p.Tasks).degree())
	reductions := it / int64(p.allreduceEvery())
	return counts(p.Tasks, mul(n, d, it), reductions, mul(n, reductions), it == 1 && reductions == 0)
}

func writeStencil(e emitter, p Params) error {
	g := cubicGrid(p.Tasks)
	n, d := int64(p.Tasks), int64(g.degree())
	k := int64(p.allreduceEvery())
	buf, scratch := make([]int, 0, 6), make([]int, 0, 6)
	reduced := int64(-1) // the allreduce that ended the previous iteration
	for i := int64(0); i < int64(p.Iterations); i++ {
		base := i * n * d
		for s := 0; s < p.Tasks; s++ {
			dep := at(0)
			switch {
			case reduced >= 0:
				dep = afterCollective(reduced, 0)
			case i > 0:
				dep = afterReceive(g.lastHalo(s, base-n*d, scratch), p.ComputeNS)
			}
			for j, dst := range g.neighbours(s, buf) {
				if err := e.send(base+int64(s)*d+int64(j), s, dst, p.Bytes, dep); err != nil {
					return err
				}
			}
		}
		reduced = -1
		if (i+1)%k != 0 {
			continue
		}
		reduced = (i+1)/k - 1
		for t := 0; t < p.Tasks; t++ {
			if err := e.part(reduced, 0, vef.Allreduce, t, 8, 8, afterReceive(g.lastHalo(t, base, scratch), p.ComputeNS)); err != nil {
				return err
			}
		}
	}
	return nil
}

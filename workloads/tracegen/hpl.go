package tracegen

import "github.com/opasim/opasim/workloads/vef"

// hpl: in step k, row r's broadcast is G(k·P + r); then, column by
// column, the diagonal row k mod P exchanges a message each way with
// every other row r in increasing order: in column c, for the m-th other
// row, message S·k + c·2(P-1) + 2m goes from the diagonal row to row r
// and the next one back, S = 2·Q·(P-1) being the swaps of a step.

// grid2 is a P×Q process grid, row-major: task t in row t / Q, column
// t mod Q.
type grid2 struct{ p, q int }

// squareGrid is the most square grid of n tasks with P ≤ Q.
func squareGrid(n int) grid2 {
	p := 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			p = d
		}
	}
	return grid2{p, n / p}
}

func (g grid2) task(row, col int) int { return row*g.q + col }

// swaps is the number of swap messages of a step, S.
func (g grid2) swaps() int64 { return 2 * int64(g.q) * int64(g.p-1) }

// swap is the id of the swap message of step k in column col between the
// diagonal row diag and row r ≠ diag: to r, or from r when back.
func (g grid2) swap(k int64, diag, col, r int, back bool) int64 {
	m := r
	if r > diag {
		m--
	}
	id := k*g.swaps() + int64(col)*2*int64(g.p-1) + 2*int64(m)
	if back {
		id++
	}
	return id
}

// lastSwap is the id of the last swap message task (row, col) receives
// in step k: from the diagonal row, or, on the diagonal row, from the last
// other row.
func (g grid2) lastSwap(k int64, row, col int) int64 {
	diag := int(k % int64(g.p))
	if row != diag {
		return g.swap(k, diag, col, row, false)
	}
	last := g.p - 1
	if last == diag {
		last--
	}
	return g.swap(k, diag, col, last, true)
}

func hplCounts(p Params) vef.Header {
	g := squareGrid(p.Tasks)
	n, it := int64(p.Tasks), int64(p.Iterations)
	return counts(p.Tasks, mul(g.swaps(), it), mul(int64(g.p), it), mul(n, it), g.p == 1 || it == 1)
}

// hplCommunicators are the rows, C1 … CP, then the columns, C(P+1) …
// C(P+Q).
func hplCommunicators(p Params) []vef.Communicator {
	g := squareGrid(p.Tasks)
	cs := make([]vef.Communicator, 0, g.p+g.q)
	for r := range g.p {
		c := vef.Communicator{ID: 1 + r, Tasks: make([]int, g.q)}
		for col := range c.Tasks {
			c.Tasks[col] = g.task(r, col)
		}
		cs = append(cs, c)
	}
	for col := range g.q {
		c := vef.Communicator{ID: 1 + g.p + col, Tasks: make([]int, g.p)}
		for r := range c.Tasks {
			c.Tasks[r] = g.task(r, col)
		}
		cs = append(cs, c)
	}
	return cs
}

func writeHPL(e emitter, p Params) error {
	g := squareGrid(p.Tasks)
	for k := int64(0); k < int64(p.Iterations); k++ {
		if err := g.broadcasts(e, p, k); err != nil {
			return err
		}
		if err := g.rowSwaps(e, p, k); err != nil {
			return err
		}
	}
	return nil
}

// broadcasts writes step k's panel broadcasts, a row at a time. A task
// joins C after its last swap receipt of step k-1 (after its broadcast
// part, when P = 1 leaves no swaps).
func (g grid2) broadcasts(e emitter, p Params, k int64) error {
	root := int(k % int64(g.q))
	for r := range g.p {
		gid := k*int64(g.p) + int64(r)
		for col := range g.q {
			dep := at(0)
			switch {
			case k > 0 && g.p == 1:
				dep = afterCollective(gid-1, p.ComputeNS)
			case k > 0:
				dep = afterReceive(g.lastSwap(k-1, r, col), p.ComputeNS)
			}
			send, recv := int64(0), p.Bytes
			if col == root {
				send, recv = p.Bytes, 0
			}
			if err := e.part(gid, 1+r, vef.Broadcast, g.task(r, col), send, recv, dep); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowSwaps writes step k's row swaps: each task sends right after its
// part of the step's broadcast.
func (g grid2) rowSwaps(e emitter, p Params, k int64) error {
	diag := int(k % int64(g.p))
	after := func(row int) vef.Dep { return afterCollective(k*int64(g.p)+int64(row), 0) }
	for col := range g.q {
		for r := range g.p {
			if r == diag {
				continue
			}
			d, o := g.task(diag, col), g.task(r, col)
			if err := e.send(g.swap(k, diag, col, r, false), d, o, p.Bytes, after(diag)); err != nil {
				return err
			}
			if err := e.send(g.swap(k, diag, col, r, true), o, d, p.Bytes, after(r)); err != nil {
				return err
			}
		}
	}
	return nil
}

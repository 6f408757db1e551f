package static

import (
	"math/bits"

	"github.com/opasim/opasim/flow/route"
)

// lineLoads accumulates the load of runs (route.Run) in a difference array
// over the positions of the lines: a run adds 1 at its first position and
// -1 after its last, so adding a run costs O(1) whatever its length, and
// flush turns the differences into loads with one prefix sum per line.
// 8 bytes per link.
type lineLoads struct {
	ls   *route.Lines
	diff []float64
}

func newLineLoads(ls *route.Lines) *lineLoads {
	return &lineLoads{ls: ls, diff: make([]float64, len(ls.Links))}
}

func (d *lineLoads) add(r route.Run) {
	base := d.ls.Start[r.Line]
	n := d.ls.Start[r.Line+1] - base
	end := r.Start + r.Count
	d.diff[base+r.Start]++
	switch {
	case end < n:
		d.diff[base+end]--
	case end > n: // wraps: positions Start..n-1, then 0..end-n-1
		d.diff[base]++
		d.diff[base+end-n]--
	}
}

// flush adds the accumulated loads to load (indexed by link) and clears
// the differences.
func (d *lineLoads) flush(load []float64) {
	for i := 0; i+1 < len(d.ls.Start); i++ {
		acc := 0.0
		for p := d.ls.Start[i]; p < d.ls.Start[i+1]; p++ {
			acc += d.diff[p]
			d.diff[p] = 0
			load[d.ls.Links[p]] += acc
		}
	}
}

// rangeMax answers "the largest value over a run" in O(1) with a sparse
// table per line: level j holds, for every position p, the maximum over
// positions p..p+2^j-1 (those that fit in the line). Memory: 8 bytes per
// link per level, ceil(log2(line length))+1 levels, plus 8 bytes per line.
type rangeMax struct {
	ls    *route.Lines
	off   []int64 // off[i]: line i's level 0 in table; level j starts at off[i] + j·n
	table []float64
}

func newRangeMax(ls *route.Lines, value []float64) *rangeMax {
	m := &rangeMax{ls: ls, off: make([]int64, ls.NumLines())}
	total := int64(0)
	for i := range m.off {
		n := ls.Start[i+1] - ls.Start[i]
		m.off[i] = total
		total += int64(n) * int64(bits.Len32(uint32(n)))
	}
	m.table = make([]float64, total)
	for i, off := range m.off {
		lo, hi := ls.Start[i], ls.Start[i+1]
		n := int64(hi - lo)
		for p := int64(0); p < n; p++ {
			m.table[off+p] = value[ls.Links[int64(lo)+p]]
		}
		for j, w := int64(1), int64(1); 2*w <= n; j, w = j+1, 2*w {
			prev, cur := off+(j-1)*n, off+j*n
			for p := int64(0); p+2*w <= n; p++ {
				m.table[cur+p] = max(m.table[prev+p], m.table[prev+p+w])
			}
		}
	}
	return m
}

// span returns the maximum over positions [a, b] of line i (a <= b).
func (m *rangeMax) span(i int32, a, b int32) float64 {
	n := int64(m.ls.Start[i+1] - m.ls.Start[i])
	j := int64(bits.Len32(uint32(b-a+1)) - 1)
	level := m.off[i] + j*n
	return max(m.table[level+int64(a)], m.table[level+int64(b)+1-int64(1)<<j])
}

func (m *rangeMax) max(r route.Run) float64 {
	n := m.ls.Start[r.Line+1] - m.ls.Start[r.Line]
	end := r.Start + r.Count
	if end <= n {
		return m.span(r.Line, r.Start, end-1)
	}
	return max(m.span(r.Line, r.Start, n-1), m.span(r.Line, 0, end-n-1))
}

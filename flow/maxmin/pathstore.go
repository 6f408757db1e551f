package maxmin

import (
	"iter"

	"github.com/opasim/opasim/flow/internal/grow"
)

// unitsOf returns m's path as the path store keeps it; decode gives its
// links.
func (s *Solver) unitsOf(m *meta) []uint16 { return s.paths.units(m.n, m.slot) }

// decode returns the links of path units u, in order, decoded as the
// loop over them goes (it inlines into the loop).
func decode(u []uint16) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for k := 0; k < len(u); k++ {
			l := int32(u[k])
			if l >= wideLink {
				k++
				l = (l-wideLink)<<16 | int32(u[k])
			}
			if !yield(l) {
				return
			}
		}
	}
}

// pathStore keeps paths in pools by length: pool n holds slots of n
// units end to end and reuses freed slots last in first out, so a path
// costs no allocation of its own. A link below wideLink takes one 16-bit
// unit, another two (wideLink | its upper bits, then its lower 16 bits):
// 2 bytes a link on networks of up to 32,768 links.
type pathStore struct {
	short [maxShort + 1]pool
	long  map[int32]*pool // lengths above maxShort (iterated only by fit, where order does not matter)
	enc   []uint16        // scratch for put
}

const (
	maxShort = 64
	wideLink = 1 << 15
)

type pool struct {
	units []uint16
	free  []int32
	held  int // len(units) at the last fit
}

// fit gives back the slack of the pools' unit arrays that have not grown
// since the last call (grow.Fit).
func (p *pathStore) fit() {
	for n := range p.short {
		q := &p.short[n]
		q.units = grow.Fit(q.units, q.held)
		q.held = len(q.units)
	}
	for _, q := range p.long {
		q.units = grow.Fit(q.units, q.held)
		q.held = len(q.units)
	}
}

func (p *pathStore) pool(n int32) *pool {
	if n <= maxShort {
		return &p.short[n]
	}
	if p.long == nil {
		p.long = make(map[int32]*pool)
	}
	q := p.long[n]
	if q == nil {
		q = &pool{}
		p.long[n] = q
	}
	return q
}

// put stores path (of non-negative links, at most MaxPathLinks) and
// returns its slot and length in units.
func (p *pathStore) put(path []int32) (int32, uint16) {
	e := p.enc[:0]
	for _, l := range path {
		if l < wideLink {
			e = append(e, uint16(l))
		} else {
			e = append(e, uint16(wideLink|l>>16), uint16(l))
		}
	}
	p.enc = e
	n := int32(len(e))
	if n == 0 {
		return 0, 0
	}
	q := p.pool(n)
	if k := len(q.free); k > 0 {
		slot := q.free[k-1]
		q.free = q.free[:k-1]
		copy(q.units[int(slot)*int(n):], e)
		return slot, uint16(n)
	}
	q.units = grow.Append(q.units, e...)
	return int32(len(q.units)/int(n) - 1), uint16(n)
}

// units returns the n units of the path at slot.
func (p *pathStore) units(n uint16, slot int32) []uint16 {
	if n == 0 {
		return nil
	}
	q := p.pool(int32(n))
	i := int(slot) * int(n)
	return q.units[i : i+int(n) : i+int(n)]
}

// get decodes the path of n units at slot into buf (reused) and returns
// it.
func (p *pathStore) get(n uint16, slot int32, buf []int32) []int32 {
	buf = buf[:0]
	for l := range decode(p.units(n, slot)) {
		buf = append(buf, l)
	}
	return buf
}

func (p *pathStore) release(n uint16, slot int32) {
	if n > 0 {
		q := p.pool(int32(n))
		q.free = append(q.free, slot)
	}
}

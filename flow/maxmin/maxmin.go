// Package maxmin computes max-min fair rates: flows cross links of given
// capacities, and each flow gets the largest rate it can without taking
// bandwidth from a flow whose rate is no larger (seed 001 section 3.1,
// the dynamic engine's link sharing).
//
// Algorithm: exact progressive filling (water-filling). All unfixed flows
// rise together from level 0; the link whose remaining capacity divided
// by its number of unfixed flows (its fair share) is lowest saturates
// first, and its unfixed flows are fixed at that share; a flow with a
// rate cap is fixed at its cap when the level reaches it. Links' shares
// and flows' caps sit in an indexed binary heap (flow/internal/iheap):
// fixing a flow only raises the shares of the other links it crosses
// (their remaining capacity loses the fixed rate, their count loses one,
// and the fixed rate was at most their share), and after each step every
// link whose share changed is moved in place. A share is never set below
// the current level (rounding could otherwise put it an ulp under), so
// the levels at which flows are fixed never decrease. A solve of flows
// whose paths hold E links in all, over L links, costs
// O(E + (L + U) log L), U <= E being the share updates.
//
// Incremental use (SimGrid's "selective update", sharpened): AddFlow,
// RemoveFlow and SetCapacity only mark links. Solve re-solves what they
// can have changed and leaves every other flow's rate as it was:
//
//   - only the connected components of the flow–link graph that contain a
//     marked link, since max-min rates of separate components do not
//     depend on each other;
//   - within them, only flows at or above a level θ: progressive filling
//     of the new system fixes exactly the same flows at exactly the same
//     levels as the old one below θ. θ is the lowest rate a removed flow
//     had (below its rate, the old filling never reached its links' shares,
//     and without it those shares are only higher); for an added flow, a
//     lower bound on its new rate — its cap, and for every link of its
//     path the capacity over the number of flows crossing it (no link can
//     saturate below that level) — less a relative 10^-6 for rounding; 0
//     after a capacity change;
//   - and of those, only the ones connected to a marked link through
//     links and flows at or above θ: flows below θ keep their rates, so
//     the rest of the filling splits into separate systems.
//
// The re-solve resumes progressive filling at level θ, each link starting
// from its capacity less the rates of its flows below θ, subtracted in
// increasing order — the order in which a solve from scratch, its levels
// never decreasing, subtracts them. So re-solving gives, bit for bit, the
// rates a solve from scratch gives (flows fixed at one step all get the
// same value, so the order in which they leave their links does not
// change any sum, and the heap breaks ties by (share, id)). Solve reports
// only the flows whose rate changed.
//
// Deterministic: no map iteration, no randomness; the same sequence of
// calls gives the same ids and rates. Not safe for concurrent use.
package maxmin

import (
	"fmt"
	"math"
	"slices"

	"github.com/opasim/opasim/flow/internal/iheap"
)

// FlowID identifies a flow of a Solver. Ids of removed flows are reused,
// last in first out, from the Solve after their removal on.
type FlowID int32

// NoCap is the rate cap of a flow without one.
var NoCap = math.Inf(1)

// boundMargin is the relative margin taken off an added flow's lower
// bound on its rate, for rounding: the computed rate of a flow can fall
// below its exact value by about n²·2^-53 relatively, n being the flows on
// a link, so the margin covers links of up to ~90,000 flows. Past that a
// re-solve may differ from a solve from scratch in the last bits.
const boundMargin = 1e-6

// Flow flags.
const (
	fAlive uint8 = 1 << iota
	fFixed       // its rate is final (always, outside a solve)
	fMark        // being re-solved
	fNew         // added since the last Solve
)

// meta is a flow's path reference and flags.
type meta struct {
	slot  int32 // its path's slot in the path store
	n     int32 // its path's length
	flags uint8
}

// Solver holds links, flows and their max-min fair rates.
//
// Memory: per flow, 20 bytes (rate, path slot and length, flags), 8 more
// for every flow once one has a rate cap, and 8 bytes per link of its
// path (the path, and its entry in the link's user list); per link, 79
// bytes (capacity, user list header and count, scratch).
type Solver struct {
	capacity []float64
	users    [][]FlowID // per link, one entry per use; removed flows stay until the next Solve
	nlive    []int32    // per link, uses by live flows
	rem      []float64  // remaining capacity during a solve
	cnt      []int32    // unfixed uses during a solve
	touched  []bool
	lmark    []bool

	rate  []float64
	meta  []meta
	caps  []float64 // per flow; nil until a flow has a cap
	paths pathStore
	free  []FlowID // reusable ids, last in first out
	dead  []FlowID // removed since the last Solve
	added []FlowID // added since the last Solve
	live  int
	theta float64 // the lowest rate of a flow removed since the last Solve (0 after a capacity change)

	dirty      []int32 // touched links
	changed    []FlowID
	prev       []float64
	comp       []FlowID // the flows being re-solved
	compPrev   []float64
	compL      []int32 // the links they cross, and the touched links
	stack      []int32
	vals       []float64
	h          iheap.Heap
	level      float64
	recomputed int
	// for tests: solves that started above level 0, and links that
	// started with flows fixed below it
	partial, below int
}

// New returns a solver over links with the given capacities (each
// finite and >= 0; a flow crossing a link of capacity 0 gets rate 0).
func New(capacities []float64) (*Solver, error) {
	n := len(capacities)
	if n > math.MaxInt32/2 {
		return nil, fmt.Errorf("maxmin links: %d is not allowed: must be at most %d", n, math.MaxInt32/2)
	}
	for l, c := range capacities {
		if err := checkCapacity(l, c); err != nil {
			return nil, err
		}
	}
	s := &Solver{
		capacity: append([]float64(nil), capacities...),
		users:    make([][]FlowID, n),
		nlive:    make([]int32, n),
		rem:      make([]float64, n),
		cnt:      make([]int32, n),
		touched:  make([]bool, n),
		lmark:    make([]bool, n),
		theta:    math.Inf(1),
	}
	return s, nil
}

func checkCapacity(l int, c float64) error {
	if !(c >= 0) || math.IsInf(c, 0) {
		return fmt.Errorf("maxmin link %d capacity: %v is not allowed: must be finite and at least 0", l, c)
	}
	return nil
}

// NumLinks returns the number of links.
func (s *Solver) NumLinks() int { return len(s.capacity) }

// NumFlows returns the number of flows.
func (s *Solver) NumFlows() int { return s.live }

// Capacity returns link l's capacity.
func (s *Solver) Capacity(l int32) float64 { return s.capacity[l] }

// AddFlow adds a flow over path (link ids; a link listed twice carries
// the flow twice) with rate cap rateCap (> 0, or NoCap), and returns its
// id. Its rate, and the rates of the flows sharing links with it, are
// computed by the next Solve. A flow with an empty path must have a cap,
// which is its rate.
func (s *Solver) AddFlow(path []int32, rateCap float64) (FlowID, error) {
	if !(rateCap > 0) {
		return -1, fmt.Errorf("maxmin flow rate cap: %v is not allowed: must be positive (NoCap: none)", rateCap)
	}
	if len(path) == 0 && math.IsInf(rateCap, 1) {
		return -1, fmt.Errorf("maxmin flow path: [] is not allowed without a rate cap: the rate would be infinite")
	}
	if len(path) > math.MaxInt32 {
		return -1, fmt.Errorf("maxmin flow path: %d links is not allowed: must be at most %d", len(path), math.MaxInt32)
	}
	for k, l := range path {
		if l < 0 || int(l) >= len(s.capacity) {
			return -1, fmt.Errorf("maxmin flow path[%d]: link %d is not allowed: must be in [0, %d)", k, l, len(s.capacity))
		}
	}
	var id FlowID
	if n := len(s.free); n > 0 {
		id = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		if len(s.meta) >= math.MaxInt32/2 {
			return -1, fmt.Errorf("maxmin flows: %d is not allowed: must be at most %d", len(s.meta)+1, math.MaxInt32/2)
		}
		id = FlowID(len(s.meta))
		s.meta = append(s.meta, meta{})
		s.rate = append(s.rate, 0)
		if s.caps != nil {
			s.caps = append(s.caps, NoCap)
		}
	}
	s.meta[id] = meta{slot: s.paths.put(path), n: int32(len(path)), flags: fAlive | fFixed | fNew}
	s.rate[id] = 0
	if !math.IsInf(rateCap, 1) && s.caps == nil {
		s.caps = make([]float64, len(s.meta))
		for i := range s.caps {
			s.caps[i] = NoCap
		}
	}
	if s.caps != nil {
		s.caps[id] = rateCap
	}
	for _, l := range path {
		s.users[l] = append(s.users[l], id)
		s.nlive[l]++
		s.touch(l)
	}
	if len(path) == 0 {
		s.rate[id] = rateCap
	}
	s.added = append(s.added, id)
	s.live++
	return id, nil
}

// RemoveFlow removes flow id; the flows that shared links with it get
// their new rates at the next Solve.
func (s *Solver) RemoveFlow(id FlowID) error {
	if err := s.checkFlow(id); err != nil {
		return err
	}
	m := &s.meta[id]
	if m.flags&fNew == 0 {
		s.theta = min(s.theta, s.rate[id])
	}
	for _, l := range s.paths.get(m.n, m.slot) {
		s.nlive[l]--
		s.touch(l)
	}
	s.paths.release(m.n, m.slot)
	m.flags = 0
	s.rate[id] = 0
	s.dead = append(s.dead, id)
	s.live--
	return nil
}

// SetCapacity changes link l's capacity; the flows crossing it get their
// new rates at the next Solve.
func (s *Solver) SetCapacity(l int32, c float64) error {
	if l < 0 || int(l) >= len(s.capacity) {
		return fmt.Errorf("maxmin link: %d is not allowed: must be in [0, %d)", l, len(s.capacity))
	}
	if err := checkCapacity(int(l), c); err != nil {
		return err
	}
	s.capacity[l] = c
	s.theta = 0
	s.touch(l)
	return nil
}

func (s *Solver) checkFlow(id FlowID) error {
	if id < 0 || int(id) >= len(s.meta) || s.meta[id].flags&fAlive == 0 {
		return fmt.Errorf("maxmin flow: %d is not allowed: no such flow", id)
	}
	return nil
}

func (s *Solver) touch(l int32) {
	if !s.touched[l] {
		s.touched[l] = true
		s.dirty = append(s.dirty, l)
	}
}

// Rate returns flow id's rate as of the last Solve (0 for a flow added
// since, or an unknown id).
func (s *Solver) Rate(id FlowID) float64 {
	if id < 0 || int(id) >= len(s.rate) {
		return 0
	}
	return s.rate[id]
}

// Cap returns flow id's rate cap (NoCap if none or an unknown id).
func (s *Solver) Cap(id FlowID) float64 {
	if s.caps == nil || id < 0 || int(id) >= len(s.caps) {
		return NoCap
	}
	return s.caps[id]
}

// Path returns flow id's path (shared: do not modify; valid until the
// flow is removed), nil for an unknown id.
func (s *Solver) Path(id FlowID) []int32 {
	if s.checkFlow(id) != nil {
		return nil
	}
	return s.paths.get(s.meta[id].n, s.meta[id].slot)
}

// Solve brings every rate up to date with the changes since the last
// Solve (see the package comment for what it re-solves) and returns the
// ids of the flows whose rate changed, new flows included (the slice is
// reused by the next call). Previous gives their rates before.
func (s *Solver) Solve() []FlowID {
	s.changed, s.prev = s.changed[:0], s.prev[:0]
	theta := s.theta
	for _, id := range s.added {
		m := &s.meta[id]
		switch {
		case m.flags&fAlive == 0:
		case m.n == 0:
			m.flags &^= fNew
			s.changed = append(s.changed, id)
			s.prev = append(s.prev, 0)
		default:
			theta = min(theta, s.bound(id))
		}
	}
	s.added = s.added[:0]
	s.collect(theta)
	s.free = append(s.free, s.dead...)
	s.dead = s.dead[:0]
	s.recomputed = len(s.comp)
	if len(s.comp) > 0 {
		s.fill(theta)
	}
	for i, id := range s.comp {
		m := &s.meta[id]
		if m.flags&fNew != 0 || s.rate[id] != s.compPrev[i] {
			s.changed = append(s.changed, id)
			s.prev = append(s.prev, s.compPrev[i])
		}
		m.flags &^= fMark | fNew
	}
	for _, l := range s.compL {
		s.lmark[l] = false
	}
	s.theta = math.Inf(1)
	return s.changed
}

// Previous returns the rates, before the last Solve, of the flows it
// returned, in the same order (0 for new flows).
func (s *Solver) Previous() []float64 { return s.prev }

// Recomputed returns the number of flows whose rates the last Solve
// recomputed (changed or not).
func (s *Solver) Recomputed() int { return s.recomputed }

// SolveAll recomputes every flow's rate from scratch and returns the ids
// of the flows whose rate changed.
func (s *Solver) SolveAll() []FlowID {
	for l := range s.users {
		if len(s.users[l]) > 0 {
			s.touch(int32(l))
		}
	}
	s.theta = 0
	return s.Solve()
}

// bound returns a lower bound on added flow id's rate, less the margin.
func (s *Solver) bound(id FlowID) float64 {
	b := s.Cap(id)
	m := s.meta[id]
	for _, l := range s.paths.get(m.n, m.slot) {
		b = min(b, s.capacity[l]/float64(s.nlive[l]))
	}
	return b * (1 - boundMargin)
}

// collect gathers, from the touched links, the links and flows to
// re-solve: flows that are new or at or above theta, and the links they
// cross. It drops removed flows from the user lists it walks (every link
// of a removed flow was touched).
func (s *Solver) collect(theta float64) {
	s.comp, s.compL = s.comp[:0], s.compL[:0]
	for _, l := range s.dirty {
		s.touched[l] = false
		if s.lmark[l] {
			continue
		}
		s.lmark[l] = true
		s.stack = append(s.stack[:0], l)
		for len(s.stack) > 0 {
			m := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			s.compL = append(s.compL, m)
			u := s.users[m]
			w := 0
			for _, id := range u {
				md := &s.meta[id]
				if md.flags&fAlive == 0 {
					continue
				}
				u[w] = id
				w++
				if md.flags&fMark != 0 || md.flags&fNew == 0 && s.rate[id] < theta {
					continue
				}
				md.flags |= fMark
				s.comp = append(s.comp, id)
				for _, n := range s.paths.get(md.n, md.slot) {
					if !s.lmark[n] {
						s.lmark[n] = true
						s.stack = append(s.stack, n)
					}
				}
			}
			s.users[m] = u[:w]
		}
	}
	s.dirty = s.dirty[:0]
	s.stack = s.stack[:0]
}

// fill runs progressive filling from level theta over the flows in
// s.comp and the links in s.compL. Heap ids: 2·link+1 for a link's
// share, 2·flow for a flow's rate cap.
func (s *Solver) fill(theta float64) {
	h := &s.h
	h.Clear()
	if theta > 0 {
		s.partial++
	}
	for _, l := range s.compL {
		c, n := s.capacity[l], int32(len(s.users[l]))
		if theta > 0 {
			n = 0
			s.vals = s.vals[:0]
			for _, id := range s.users[l] {
				if s.meta[id].flags&fMark != 0 {
					n++
				} else {
					s.vals = append(s.vals, s.rate[id])
				}
			}
			if len(s.vals) > 0 {
				s.below++
			}
			slices.Sort(s.vals)
			for _, v := range s.vals {
				c -= v
			}
		}
		s.rem[l], s.cnt[l] = c, n
		if n > 0 {
			h.Set(2*l+1, max(c/float64(n), theta))
		}
	}
	s.compPrev = s.compPrev[:0]
	for _, id := range s.comp {
		s.compPrev = append(s.compPrev, s.rate[id])
		s.meta[id].flags &^= fFixed
		if c := s.Cap(id); !math.IsInf(c, 1) {
			h.Set(2*int32(id), c)
		}
	}
	s.level = theta
	for h.Len() > 0 {
		hid, key := h.Pop()
		s.level = key
		if hid&1 == 0 {
			s.fix(FlowID(hid>>1), key)
		} else {
			l := hid >> 1
			for _, id := range s.users[l] {
				if s.meta[id].flags&fFixed == 0 {
					s.fix(id, key)
				}
			}
		}
		s.requeue()
	}
}

// fix sets flow id's rate to x and takes it off its links, noting them
// for requeue.
func (s *Solver) fix(id FlowID, x float64) {
	m := &s.meta[id]
	m.flags |= fFixed
	s.rate[id] = x
	s.h.Remove(2 * int32(id))
	for _, l := range s.paths.get(m.n, m.slot) {
		s.rem[l] -= x
		s.cnt[l]--
		if !s.touched[l] {
			s.touched[l] = true
			s.stack = append(s.stack, l)
		}
	}
}

// requeue updates the share of every link fix noted — never below the
// current level — and drops the links left without unfixed flows.
func (s *Solver) requeue() {
	for _, l := range s.stack {
		s.touched[l] = false
		if s.cnt[l] > 0 {
			s.h.Set(2*l+1, max(s.rem[l]/float64(s.cnt[l]), s.level))
		} else {
			s.h.Remove(2*l + 1)
		}
	}
	s.stack = s.stack[:0]
}

// pathStore keeps paths in pools by length: pool n holds slots of n
// links end to end and reuses freed slots last in first out, so a path
// costs 4 bytes a link and no allocation of its own.
type pathStore struct {
	short [maxShort + 1]pool
	long  map[int32]*pool // lengths above maxShort (looked up, never iterated)
}

const maxShort = 64

type pool struct {
	links []int32
	free  []int32
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

func (p *pathStore) put(path []int32) int32 {
	n := int32(len(path))
	if n == 0 {
		return 0
	}
	q := p.pool(n)
	if k := len(q.free); k > 0 {
		slot := q.free[k-1]
		q.free = q.free[:k-1]
		copy(q.links[int(slot)*int(n):], path)
		return slot
	}
	q.links = append(q.links, path...)
	return int32(len(q.links)/int(n) - 1)
}

func (p *pathStore) get(n, slot int32) []int32 {
	if n == 0 {
		return nil
	}
	q := p.pool(n)
	i := int(slot) * int(n)
	return q.links[i : i+int(n) : i+int(n)]
}

func (p *pathStore) release(n, slot int32) {
	if n > 0 {
		q := p.pool(n)
		q.free = append(q.free, slot)
	}
}

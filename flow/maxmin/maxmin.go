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
// fixing a flow only raises the shares of the other links it crosses, and
// after each step every link whose share changed is moved in place. A
// share is never set below the current level (rounding could put it an
// ulp under), so levels never decrease. A solve of flows whose paths hold
// E links in all, over L links, costs O(E + (L + U) log L), U <= E being
// the share updates.
//
// Incremental use. AddFlow, RemoveFlow and SetCapacity only mark links;
// Solve replays progressive filling over the links whose history changed
// and leaves every other rate as it was. It keeps, per link, the level at
// which the link saturated when last solved (sat), and relies on one fact:
// a link all of whose flows are fixed at the same levels as before up to
// some level (an inactive link) evolves as before up to that level, and
// saturates at its old level.
//
//   - The marked links are active from the start. A link becomes active
//     when one of its flows is fixed at a level other than its old rate,
//     or is still unfixed once the filling passes its old rate (a
//     deadline event at that rate, after the level's other events).
//   - An active link's state is computed when it is activated, as a solve
//     from scratch has it at that level: capacity less the rates of the
//     flows fixed so far, subtracted in increasing order; its other flows
//     are marked (their rates may change) and it joins the heap.
//   - A marked flow is fixed by its active links' saturation, or by its
//     ghost: the lowest of its cap and the old saturation levels of its
//     inactive links, where one of them saturates again (recomputed when
//     one of them is activated, if that one's level can be the lowest).
//
// Flows never marked keep their rates, and only marked flows whose rate
// differs are reported. The filling starts at a level θ below which
// nothing can change: the lowest rate a removed flow had (below it the
// old filling never reached its links' shares), and for an added flow a
// lower bound on its new rate — its cap, and for each link of its path
// the capacity less the rates below θ over the flows at or above it (no
// link can saturate below that) — less 10^-6 relative for rounding; 0
// after a capacity change. A solve touching one flow of a large connected
// system costs in proportion to the part whose history changes, not to
// the system (docs/flow.md gives the figures).
//
// Exactness: the rates are max-min fair up to rounding. An incremental
// solve agrees with a solve from scratch (SolveAll) to rounding — the
// property tests check 10^-12 relative — but not always bit for bit: a
// tie between two links, equal in exact arithmetic, can come out an ulp
// apart in one computation and not in the other.
//
// Deterministic: no map iteration, no randomness; the same sequence of
// calls gives the same ids and rates, bit for bit. Not safe for
// concurrent use.
package maxmin

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/opasim/opasim/flow/internal/grow"
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
// flow whose rate should lie an ulp below θ is fixed at θ.
const boundMargin = 1e-6

// Raising an added flow's bound: at most refineRounds rounds, and only
// when at most refineMax flows were added.
const (
	refineRounds = 4
	refineMax    = 64
)

// Flow flags.
const (
	fAlive uint8 = 1 << iota
	fFixed       // its rate is final (always, outside a solve)
	fMark        // being re-solved
	fNew         // added since the last Solve
	// in the deadline heap: its rate holds its position there, and the
	// heap's key its old rate, until it is fixed or its deadline passes
	fDeadline
)

// meta is a flow's path reference and flags. 8 bytes.
type meta struct {
	slot  int32  // its path's slot in the path store
	n     uint16 // its path's length in the store's 16-bit units
	flags uint8
	class uint8
}

// MaxPathLinks is the longest path a flow may have, in links: its
// encoding in the path store, at most 2 units a link, must fit 16 bits.
const MaxPathLinks = math.MaxUint16 / 2

// Solver holds links, flows and their max-min fair rates.
//
// Memory: per flow, 16 bytes (rate 8, path slot, length, flags and
// class 8); for a flow re-solved with a link left inactive, its
// position in the share heap (its ghost), reserved with the links,
// below, for the first as many flows as links, 8 bytes more each beyond
// (its position in the deadline heap is kept in its rate, which the
// heap's key holds meanwhile); 8 more for every flow once one has a
// rate cap; and per link of its path 6 bytes — the link in the
// path store (2 bytes, 4 for links from 2^15 on) and the flow's entry
// in the link's user list (4); per link, about 80 bytes (capacity,
// saturation level, user list header and count, scratch, heap entry,
// and 8 bytes of share heap positions).
type Solver struct {
	capacity []float64
	users    [][]FlowID // per link, one entry per use; removed flows stay until the next Solve
	nlive    []int32    // per link, uses by live flows
	rem      []float64  // remaining capacity during a solve
	cnt      []int32    // unfixed uses during a solve
	touched  []bool
	lmark    []bool    // active in the solve under way
	sat      []float64 // the level at which the link saturated when last active (+Inf: it did not)

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
	comp       []FlowID // the flows marked in the solve under way
	compPrev   []float64
	compL      []int32 // the links active in the solve under way
	stack      []int32
	vals       []float64
	h          iheap.Heap     // link shares, flow ghosts
	dl         iheap.Borrowed // flow deadlines (fDeadline), their positions in s.rate
	level      float64
	recomputed int
	// trimming: solves since the last trim, the most flows and links
	// the scratch arrays held since, and the number of flow ids then
	trims, peakF, peakL int
	heldF               int
	cursor              int // the next link sweep checks

	policy     Policy
	components bool      // NP: re-solve whole touched components instead of replaying
	incr       bool      // fix adds to the rate (the second phase of BA)
	spare      []float64 // BA: per link, capacity the class phases left
	// BA: the share of a link no class has (1 - the sum of the shares;
	// 0 below 10^-9)
	unshared float64
}

// New returns a solver over links with the given capacities (each
// finite and >= 0; a flow crossing a link of capacity 0 gets rate 0),
// sharing them max-min fairly among all flows (policy NP).
func New(capacities []float64) (*Solver, error) {
	return NewPolicy(capacities, Policy{})
}

// NewPolicy returns a solver whose links share their capacity among
// traffic classes as p says.
func NewPolicy(capacities []float64, p Policy) (*Solver, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
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
		sat:      make([]float64, n),
		theta:    math.Inf(1),
		policy:   Policy{Kind: p.Kind, Shares: append([]float64(nil), p.Shares...), Apportioned: p.Apportioned},
	}
	if p.Kind == BA {
		s.unshared = 1
		for _, x := range p.Shares {
			s.unshared -= x
		}
		if s.unshared < 1e-9 {
			s.unshared = 0
		}
	}
	for l := range s.sat {
		s.sat[l] = math.Inf(1)
	}
	// The share heap's ids are 2·link+1 and 2·flow: its positions are
	// per link (8 bytes, with those of the first n flows' ghosts).
	s.h.Reserve(2 * n)
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
	return s.AddClassFlow(path, rateCap, 0)
}

// AddClassFlow adds a flow of traffic class class (see Policy), as
// AddFlow does.
func (s *Solver) AddClassFlow(path []int32, rateCap float64, class uint8) (FlowID, error) {
	if err := s.CheckClass(class); err != nil {
		return -1, err
	}
	if !(rateCap > 0) {
		return -1, fmt.Errorf("maxmin flow rate cap: %v is not allowed: must be positive (NoCap: none)", rateCap)
	}
	if len(path) == 0 && math.IsInf(rateCap, 1) {
		return -1, fmt.Errorf("maxmin flow path: [] is not allowed without a rate cap: the rate would be infinite")
	}
	if len(path) > MaxPathLinks {
		return -1, fmt.Errorf("maxmin flow path: %d links is not allowed: must be at most %d", len(path), MaxPathLinks)
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
		var err error
		if id, err = s.newFlowID(); err != nil {
			return -1, err
		}
	}
	slot, units := s.paths.put(path)
	s.meta[id] = meta{slot: slot, n: units, flags: fAlive | fFixed | fNew, class: class}
	s.rate[id] = 0
	if !math.IsInf(rateCap, 1) && s.caps == nil {
		s.startCaps()
	}
	if s.caps != nil {
		s.caps[id] = rateCap
	}
	for _, l := range path {
		u := s.users[l]
		if len(u) == cap(u) && s.touched[l] {
			// It may hold removed flows: drop them first, as the next
			// Solve would.
			u = s.compact(l)
		}
		if len(u) == cap(u) {
			u = growUsers(u)
		}
		s.users[l] = append(u, id)
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

// newFlowID makes room for one more flow, when no id is free to reuse,
// and returns its id.
func (s *Solver) newFlowID() (FlowID, error) {
	if len(s.meta) >= math.MaxInt32/2 {
		return -1, fmt.Errorf("maxmin flows: %d is not allowed: must be at most %d", len(s.meta)+1, math.MaxInt32/2)
	}
	id := FlowID(len(s.meta))
	s.meta = grow.Append(s.meta, meta{})
	s.rate = grow.Append(s.rate, 0)
	if s.caps != nil {
		s.caps = append(s.caps, NoCap)
	}
	return id, nil
}

// startCaps keeps the flows' rate caps from the first flow with one on:
// NoCap for every flow so far.
func (s *Solver) startCaps() {
	s.caps = make([]float64, len(s.meta))
	for i := range s.caps {
		s.caps[i] = NoCap
	}
}

// growUsers returns a copy of full user list u with room for an eighth
// more, rounded up to the allocator's size (append would double it).
func growUsers(u []FlowID) []FlowID {
	return append(slices.Grow([]FlowID(nil), len(u)+len(u)/8+1), u...)
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
	for l := range decode(s.unitsOf(m)) {
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

// Path returns a copy of flow id's path, nil for an unknown id.
func (s *Solver) Path(id FlowID) []int32 {
	if s.checkFlow(id) != nil {
		return nil
	}
	return s.paths.get(s.meta[id].n, s.meta[id].slot, nil)
}

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

// Solve brings every rate up to date with the changes since the last
// Solve (see the package comment for what it re-solves) and returns the
// ids of the flows whose rate changed, new flows included (the slice is
// reused by the next call). Previous gives their rates before.
func (s *Solver) Solve() []FlowID {
	s.changed, s.prev = s.changed[:0], s.prev[:0]
	s.peakF = max(s.peakF, len(s.added), len(s.dead))
	s.peakL = max(s.peakL, len(s.dirty))
	theta := s.addedBound()
	s.added = s.added[:0]
	s.comp, s.compPrev, s.compL = s.comp[:0], s.compPrev[:0], s.compL[:0]
	s.h.Clear()
	s.dl.Clear()
	s.dl.Bind(s.rate) // no flow is added or dropped until the next Solve
	if s.policy.Kind == NP && !s.components {
		s.level = theta
		s.activateDirty()
		s.free = append(s.free, s.dead...)
		s.dead = s.dead[:0]
		s.replay()
	} else {
		s.collectAll()
		s.free = append(s.free, s.dead...)
		s.dead = s.dead[:0]
		s.solveClasses()
	}
	s.recomputed = len(s.comp)
	s.listChanged()
	s.theta = math.Inf(1)
	s.trim()
	return s.changed
}

// addedBound returns a lower bound on the rates the flows added since the
// last Solve can get (s.theta, what removals allow, at most), raised while
// it stays one when they are few. A flow added without links is listed as
// changed at once; the others are kept first in s.added.
func (s *Solver) addedBound() float64 {
	theta := s.theta
	w := 0
	for _, id := range s.added {
		m := &s.meta[id]
		switch {
		case m.flags&fAlive == 0:
		case m.n == 0:
			m.flags &^= fNew
			s.changed = append(s.changed, id)
			s.prev = append(s.prev, 0)
		default:
			theta = min(theta, s.bound(id, 0))
			s.added[w] = id
			w++
		}
	}
	// Raise theta while it stays a lower bound (few additions only: each
	// round scans the users of their links).
	for range refineRounds {
		if w > refineMax || theta == 0 || theta >= s.theta {
			break
		}
		t := s.theta
		for _, id := range s.added[:w] {
			t = min(t, s.bound(id, theta))
		}
		if t <= theta {
			break
		}
		theta = t
	}
	return theta
}

// listChanged lists, once the components are re-solved, the flows whose
// rate changed (new flows included) with their rates before, and clears
// the marks of the components' flows and links.
func (s *Solver) listChanged() {
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
}

// trim sweeps a few user lists (sweep) and releases the scratch space a
// large solve left once solves have been small for a while: every
// grow.Window solves, each scratch array whose capacity is over the most
// it held in those solves by a quarter, plus slack, is cut to an eighth
// over that (grow.Tight); the heaps' entries as grow.Shrink has them. A
// burst does not keep its arrays, and alternating large and small solves
// reallocate them at most once a window.
func (s *Solver) trim() {
	s.sweep()
	s.peakF = max(s.peakF, len(s.comp))
	s.peakL = max(s.peakL, len(s.compL))
	if s.trims++; s.trims < grow.Window {
		return
	}
	f, l := s.peakF, s.peakL
	s.changed = grow.Tight(s.changed, f)
	s.prev = grow.Tight(s.prev, f)
	s.comp = grow.Tight(s.comp, f)
	s.compPrev = grow.Tight(s.compPrev, f)
	s.added = grow.Tight(s.added, f)
	s.dead = grow.Tight(s.dead, f)
	s.compL = grow.Tight(s.compL, l)
	s.dirty = grow.Tight(s.dirty, l)
	s.stack = grow.Tight(s.stack, max(f, l))
	s.vals = grow.Tight(s.vals, max(f, l))
	s.h.Trim()
	s.dl.Trim()
	s.meta = grow.Fit(s.meta, s.heldF)
	s.rate = grow.Fit(s.rate, s.heldF)
	s.heldF = len(s.meta)
	s.paths.fit()
	s.trims, s.peakF, s.peakL = 0, len(s.comp), len(s.compL)
}

// sweepLinks is how many links' user lists each Solve checks for slack.
const sweepLinks = 8

// sweep checks the user lists of the next sweepLinks links, in turn: a
// list that holds no removed flow and has room for more than an eighth
// and one entry beyond its flows gives back that room, down to its
// length rounded up to the allocator's size (an empty list, all of it).
// Lists grow by an eighth and keep their capacity as flows leave, so
// without it a list stays at the most flows its link ever had; checked
// once every len(links)/sweepLinks solves, a list is reallocated at most
// that often by it, however its flows come and go.
func (s *Solver) sweep() {
	n := len(s.users)
	for range min(sweepLinks, n) {
		l := s.cursor
		if s.cursor++; s.cursor == n {
			s.cursor = 0
		}
		u := s.users[l]
		switch w := len(u); {
		case w != int(s.nlive[l]):
		case w == 0:
			s.users[l] = nil
		case cap(u)-w > w/8+1:
			s.users[l] = append(slices.Grow([]FlowID(nil), w), u...)
		}
	}
}

// SetComponentSolve makes Solve re-solve, under NP, the whole connected
// components of the flow–link graph that the changes touched (SimGrid's
// selective update), instead of replaying the filling where it changed —
// for comparison: the rates agree to rounding, the cost is that of the
// components. FP and BA always solve whole components.
func (s *Solver) SetComponentSolve(on bool) { s.components = on }

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

// bound returns a lower bound on added flow id's rate in the new system,
// less the margin, given that flows whose rate is below theta (a valid
// level bound) keep it: the flow's cap, and for each link of its path,
// the level at which the link would saturate if its other flows all rose
// with the level, (capacity − rates below theta) / (uses at or above).
// With theta = 0 that is capacity / uses.
func (s *Solver) bound(id FlowID, theta float64) float64 {
	b := s.Cap(id)
	for l := range decode(s.unitsOf(&s.meta[id])) {
		c, n := s.capacity[l], s.nlive[l]
		if theta > 0 {
			for _, u := range s.users[l] {
				if f := s.meta[u].flags; f&fAlive != 0 && f&fNew == 0 && s.rate[u] < theta {
					c -= s.rate[u]
					n--
				}
			}
		}
		b = min(b, c/float64(n))
	}
	return b * (1 - boundMargin)
}

// activateDirty activates every touched link at the start level (after
// dropping removed flows from its user list): all are marked active
// first, so that the flows they mark take their ghost levels from the
// links left inactive once.
func (s *Solver) activateDirty() {
	k := len(s.compL)
	for _, l := range s.dirty {
		s.touched[l] = false
		if s.lmark[l] {
			continue
		}
		s.compact(l)
		s.lmark[l] = true
		s.compL = append(s.compL, l)
	}
	s.dirty = s.dirty[:0]
	for _, l := range s.compL[k:] {
		s.state(l, false)
	}
}

// compact drops the removed flows from link l's user list, keeping the
// order of the others, and returns the list.
func (s *Solver) compact(l int32) []FlowID {
	u := s.users[l]
	w := 0
	for _, id := range u {
		if s.meta[id].flags&fAlive != 0 {
			u[w] = id
			w++
		}
	}
	s.users[l] = u[:w]
	return u[:w]
}

// activate makes link l active at the current level: from now on its
// share is computed, not assumed from the last solve.
func (s *Solver) activate(l int32) {
	s.lmark[l] = true
	s.compL = append(s.compL, l)
	s.state(l, true)
}

// state computes active link l's state at the current level, as a solve
// from scratch has it at that point: capacity less the rates of the flows
// fixed so far, in increasing order (marked flows fixed in this solve;
// unmarked ones whose rate is below the level, unchanged), and the
// number of the others, which it marks (their rates may change) or, if
// marked already and reghost is set, whose ghost level it updates (l was
// inactive when it was computed). It queues l's share.
func (s *Solver) state(l int32, reghost bool) {
	c, n := s.capacity[l], int32(0)
	s.vals = s.vals[:0]
	for _, id := range s.users[l] {
		f := s.meta[id].flags
		switch {
		case f&fMark != 0 && f&fFixed != 0:
			s.vals = append(s.vals, s.rate[id])
		case f&fMark != 0:
			n++
			if reghost && s.ghostOn(id, l) {
				s.ghost(id)
			}
		case f&fNew == 0 && s.rate[id] < s.level:
			s.vals = append(s.vals, s.rate[id])
		default:
			n++
			s.mark(id)
		}
	}
	if len(s.vals) > 1 {
		slices.Sort(s.vals)
	}
	for _, v := range s.vals {
		c -= v
	}
	s.rem[l], s.cnt[l], s.sat[l] = c, n, math.Inf(1)
	if n > 0 {
		s.h.Set(2*l+1, s.share(l))
	} else {
		s.h.Remove(2*l + 1)
	}
}

// mark makes flow id's rate open to change in this solve: it saves its
// rate, schedules its ghost, and (if it had a rate) its deadline.
func (s *Solver) mark(id FlowID) {
	m := &s.meta[id]
	m.flags = m.flags&^fFixed | fMark
	s.comp = append(s.comp, id)
	s.compPrev = append(s.compPrev, s.rate[id])
	if s.ghost(id) && m.flags&fNew == 0 {
		s.dl.Push(int32(id), s.rate[id])
		m.flags |= fDeadline
	}
}

// ghost (re)schedules unfixed flow id's fixing by what is not active:
// the lowest of its cap and the saturation levels, in the last solve, of
// its inactive links (an inactive link saturates at the same level
// again). It reports whether the flow has an inactive link (if not, its
// deadline could activate nothing).
func (s *Solver) ghost(id FlowID) bool {
	g := s.Cap(id)
	inactive := false
	for l := range decode(s.unitsOf(&s.meta[id])) {
		if !s.lmark[l] {
			g = min(g, s.sat[l])
			inactive = true
		}
	}
	if math.IsInf(g, 1) {
		s.h.Remove(2 * int32(id))
	} else {
		s.h.Set(2*int32(id), max(g, s.level))
	}
	return inactive
}

// ghostOn reports whether marked, unfixed flow id's ghost can depend on
// link l, which is being activated: its heap key is max(g, the level
// when it was computed), g the lowest of its cap and its inactive links'
// old saturation levels, l among them; only if l's is not above the key
// can g be l's, and only then can g rise now that l is active. Otherwise
// the ghost would come out the same (if g is below the current level,
// the key is that level, every key in the heap being at least it), so
// recomputing it, a scan of its path, is skipped. A flow without a ghost
// in the heap has g = +Inf, which l's activation cannot change.
func (s *Solver) ghostOn(id FlowID, l int32) bool {
	k, ok := s.h.Key(2 * int32(id))
	return ok && s.sat[l] <= k
}

// share returns active link l's fair share as a heap key: never below
// the level (rounding could put it an ulp under).
func (s *Solver) share(l int32) float64 {
	return max(s.rem[l]/float64(s.cnt[l]), s.level)
}

// replay runs progressive filling over the active links: shares of
// active links, ghosts and caps of marked flows in the heap by level;
// deadlines at each marked flow's old rate, taken after the heap's events
// at that level. A flow still unfixed at its deadline has left its old
// level: its links are activated. Heap ids: 2·link+1 for a link's share,
// 2·flow for a flow's ghost.
func (s *Solver) replay() {
	h := &s.h
	for h.Len() > 0 || s.dl.Len() > 0 {
		if s.dl.Len() > 0 {
			id, t := s.dl.Min()
			if h.Len() == 0 || t < minKey(h) {
				s.dl.Pop()
				s.rate[id] = t
				s.meta[id].flags &^= fDeadline
				s.level = t
				s.deviate(FlowID(id))
				continue
			}
		}
		hid, key := h.Pop()
		s.level = key
		if hid&1 == 0 {
			s.fix(FlowID(hid>>1), key)
		} else {
			l := hid >> 1
			s.sat[l] = key
			for _, id := range s.users[l] {
				if s.meta[id].flags&fFixed == 0 {
					s.fix(id, key)
				}
			}
		}
		s.requeue()
	}
}

// deviate activates the inactive links of flow id, which has passed its
// old rate unfixed.
func (s *Solver) deviate(id FlowID) {
	for l := range decode(s.unitsOf(&s.meta[id])) {
		if !s.lmark[l] {
			s.activate(l)
		}
	}
}

// fix sets flow id's rate to x and takes it off its active links, noting
// them for requeue. If x is not its old rate, its inactive links become
// active.
func (s *Solver) fix(id FlowID, x float64) {
	m := &s.meta[id]
	if m.flags&fDeadline != 0 {
		s.rate[id] = s.dl.Remove(int32(id))
		m.flags &^= fDeadline
	}
	changed := m.flags&fNew != 0 || s.rate[id] != x
	m.flags |= fFixed
	if s.incr {
		s.rate[id] += x
	} else {
		s.rate[id] = x
	}
	s.h.Remove(2 * int32(id))
	for l := range decode(s.unitsOf(m)) {
		if s.lmark[l] {
			s.rem[l] -= x
			s.cnt[l]--
			if !s.touched[l] {
				s.touched[l] = true
				s.stack = append(s.stack, l)
			}
		}
	}
	if changed {
		// After the loop above: activation counts every use of the
		// link by this flow, a link listed twice included.
		for l := range decode(s.unitsOf(m)) {
			if !s.lmark[l] {
				s.activate(l)
			}
		}
	}
}

// requeue updates the share of every link fix noted, and drops the links
// left without unfixed flows.
func (s *Solver) requeue() {
	for _, l := range s.stack {
		s.touched[l] = false
		if s.cnt[l] > 0 {
			s.h.Set(2*l+1, s.share(l))
		} else {
			s.h.Remove(2*l + 1)
		}
	}
	s.stack = s.stack[:0]
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

func minKey(h *iheap.Heap) float64 {
	_, k := h.Min()
	return k
}

package maxmin

import (
	"math"
	"slices"

	"github.com/opasim/opasim/flow/internal/grow"
)

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

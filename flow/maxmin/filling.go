package maxmin

import (
	"math"
	"slices"

	"github.com/opasim/opasim/flow/internal/iheap"
)

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

func minKey(h *iheap.Heap) float64 {
	_, k := h.Min()
	return k
}

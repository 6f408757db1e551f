package maxmin

import (
	"fmt"
	"math"
	"slices"

	"github.com/opasim/opasim/flow/internal/grow"
)

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

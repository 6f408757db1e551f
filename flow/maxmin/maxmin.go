// Package maxmin computes max-min fair rates: flows cross links of given
// capacities, and each flow gets the largest rate it can without taking
// bandwidth from a flow whose rate is no larger (seed 001 section 3.1,
// the dynamic engine's link sharing).
//
// Algorithm: exact progressive filling (water-filling). All unfixed flows
// rise together; the link whose remaining capacity divided by its number
// of unfixed flows (its fair share) is lowest saturates first, and its
// unfixed flows are fixed at that share; a flow with a rate cap is fixed
// at its cap when the level reaches it. Links' shares and flows' caps sit
// in an indexed binary heap (flow/internal/iheap): fixing a flow only
// raises the shares of the other links it crosses (their remaining
// capacity loses the fixed rate, their count loses one, and the fixed rate
// was at most their share), and after each step every link whose share
// changed is moved in place. A solve of flows whose paths hold E links in
// all, over L links, costs O(E + (L + U) log L), U <= E being the share
// updates.
//
// Incremental use (SimGrid's "selective update"): AddFlow, RemoveFlow and
// SetCapacity only mark links; Solve re-solves the connected components
// of the flow–link graph that contain a marked link and leaves every
// other flow's rate as it was, which is exact because max-min fair rates
// of separate components do not depend on each other. Re-solving a
// component gives, bit for bit, the rates a solve from scratch gives:
// flows fixed at one step all get the same value, so the order in which
// they are subtracted from their links does not change the result, and
// the heap breaks ties by (share, id), caps before links of the same
// number.
//
// Deterministic: no map iteration, no randomness; the same sequence of
// calls gives the same ids and rates. Not safe for concurrent use.
package maxmin

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/internal/iheap"
)

// FlowID identifies a flow of a Solver. Ids of removed flows are reused.
type FlowID int32

// NoCap is the rate cap of a flow without one.
var NoCap = math.Inf(1)

// elem is one occurrence of a flow on a link's user list.
type elem struct {
	flow FlowID
	k    int32 // index of the link in the flow's path
}

type flow struct {
	path  []int32 // links; a link listed twice is used twice
	pos   []int32 // pos[k]: the index of this occurrence in users[path[k]]
	cap   float64
	rate  float64
	alive bool
	fixed bool // during a solve
	mark  bool // in the component being collected
}

// Solver holds links, flows and their max-min fair rates.
//
// Memory: 50 bytes per link plus 8 per flow crossing it; per flow 72
// bytes plus 8 per link of its path; the heap 20 bytes per link and per
// flow.
type Solver struct {
	capacity []float64
	users    [][]elem
	rem      []float64 // remaining capacity during a solve
	cnt      []int32   // unfixed occurrences during a solve
	touched  []bool
	lmark    []bool

	flows []flow
	free  []FlowID // removed ids, reused last in first out
	live  int

	dirty    []int32  // touched links
	newFlows []FlowID // flows with an empty path added since the last Solve
	changed  []FlowID // returned by Solve
	compL    []int32  // scratch: the component's links
	stack    []int32
	h        iheap.Heap
}

// New returns a solver over links with the given capacities (each
// finite and >= 0; a flow crossing a link of capacity 0 gets rate 0).
func New(capacities []float64) (*Solver, error) {
	n := len(capacities)
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("maxmin links: %d is not allowed: must be at most %d", n, math.MaxInt32)
	}
	for l, c := range capacities {
		if err := checkCapacity(l, c); err != nil {
			return nil, err
		}
	}
	s := &Solver{
		capacity: append([]float64(nil), capacities...),
		users:    make([][]elem, n),
		rem:      make([]float64, n),
		cnt:      make([]int32, n),
		touched:  make([]bool, n),
		lmark:    make([]bool, n),
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
		if len(s.flows) == math.MaxInt32 {
			return -1, fmt.Errorf("maxmin flows: %d is not allowed: must be at most %d", len(s.flows)+1, math.MaxInt32)
		}
		id = FlowID(len(s.flows))
		s.flows = append(s.flows, flow{})
	}
	f := &s.flows[id]
	f.path = append(f.path[:0], path...)
	f.pos = f.pos[:0]
	f.cap, f.rate, f.alive = rateCap, 0, true
	for k, l := range path {
		f.pos = append(f.pos, int32(len(s.users[l])))
		s.users[l] = append(s.users[l], elem{id, int32(k)})
		s.touch(l)
	}
	if len(path) == 0 {
		f.rate = rateCap
		s.newFlows = append(s.newFlows, id)
	}
	s.live++
	return id, nil
}

// RemoveFlow removes flow id; the flows that shared links with it get
// their new rates at the next Solve.
func (s *Solver) RemoveFlow(id FlowID) error {
	if err := s.checkFlow(id); err != nil {
		return err
	}
	f := &s.flows[id]
	for k, l := range f.path {
		u := s.users[l]
		i := f.pos[k]
		last := u[len(u)-1]
		u[i] = last
		s.flows[last.flow].pos[last.k] = i
		s.users[l] = u[:len(u)-1]
		s.touch(l)
	}
	f.alive = false
	f.rate = 0
	s.free = append(s.free, id)
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
	s.touch(l)
	return nil
}

func (s *Solver) checkFlow(id FlowID) error {
	if id < 0 || int(id) >= len(s.flows) || !s.flows[id].alive {
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
	if id < 0 || int(id) >= len(s.flows) {
		return 0
	}
	return s.flows[id].rate
}

// Path returns flow id's path (shared: do not modify), nil for an unknown
// id.
func (s *Solver) Path(id FlowID) []int32 {
	if s.checkFlow(id) != nil {
		return nil
	}
	return s.flows[id].path
}

// Solve recomputes the rates of the flows in every connected component
// that holds a link touched since the last Solve (by AddFlow, RemoveFlow
// or SetCapacity) and returns their ids, with those of new flows with an
// empty path (the slice is reused by the next call). The other flows keep
// their rates.
func (s *Solver) Solve() []FlowID {
	s.changed = append(s.changed[:0], s.newFlows...)
	s.newFlows = s.newFlows[:0]
	start := len(s.changed)
	s.compL = s.compL[:0]
	// Collect the components: links reached from the touched ones, and
	// every flow on them.
	for _, l := range s.dirty {
		s.touched[l] = false
		if !s.lmark[l] {
			s.lmark[l] = true
			s.stack = append(s.stack[:0], l)
			for len(s.stack) > 0 {
				m := s.stack[len(s.stack)-1]
				s.stack = s.stack[:len(s.stack)-1]
				s.compL = append(s.compL, m)
				for _, e := range s.users[m] {
					f := &s.flows[e.flow]
					if f.mark {
						continue
					}
					f.mark = true
					s.changed = append(s.changed, e.flow)
					for _, n := range f.path {
						if !s.lmark[n] {
							s.lmark[n] = true
							s.stack = append(s.stack, n)
						}
					}
				}
			}
		}
	}
	s.dirty = s.dirty[:0]
	s.stack = s.stack[:0]
	s.fill(s.changed[start:])
	for _, l := range s.compL {
		s.lmark[l] = false
	}
	for _, id := range s.changed[start:] {
		s.flows[id].mark = false
	}
	return s.changed
}

// SolveAll recomputes every flow's rate from scratch and returns the ids
// of all flows.
func (s *Solver) SolveAll() []FlowID {
	for l := range s.users {
		if len(s.users[l]) > 0 {
			s.touch(int32(l))
		}
	}
	return s.Solve()
}

// fill runs progressive filling over the flows ids and the links in
// s.compL (every link any of them crosses). Heap ids: 2·link+1 for a
// link's share, 2·flow for a flow's rate cap.
func (s *Solver) fill(ids []FlowID) {
	h := &s.h
	h.Clear()
	for _, l := range s.compL {
		s.rem[l] = s.capacity[l]
		s.cnt[l] = int32(len(s.users[l]))
		if s.cnt[l] > 0 {
			h.Set(2*l+1, s.rem[l]/float64(s.cnt[l]))
		}
	}
	for _, id := range ids {
		f := &s.flows[id]
		f.fixed = false
		if !math.IsInf(f.cap, 1) {
			h.Set(2*int32(id), f.cap)
		}
	}
	for h.Len() > 0 {
		hid, share := h.Pop()
		if hid&1 == 0 {
			s.fix(FlowID(hid>>1), share)
		} else {
			l := hid >> 1
			x := max(s.rem[l]/float64(s.cnt[l]), 0)
			for _, e := range s.users[l] {
				if !s.flows[e.flow].fixed {
					s.fix(e.flow, x)
				}
			}
		}
		s.requeue()
	}
}

// fix sets flow id's rate to x and takes it off its links, noting them
// for requeue.
func (s *Solver) fix(id FlowID, x float64) {
	f := &s.flows[id]
	f.fixed, f.rate = true, x
	s.h.Remove(2 * int32(id))
	for _, l := range f.path {
		s.rem[l] -= x
		s.cnt[l]--
		if !s.touched[l] {
			s.touched[l] = true
			s.stack = append(s.stack, l)
		}
	}
}

// requeue updates the share of every link fix noted, and drops the links
// left without unfixed flows.
func (s *Solver) requeue() {
	for _, l := range s.stack {
		s.touched[l] = false
		if s.cnt[l] > 0 {
			s.h.Set(2*l+1, s.rem[l]/float64(s.cnt[l]))
		} else {
			s.h.Remove(2*l + 1)
		}
	}
	s.stack = s.stack[:0]
}

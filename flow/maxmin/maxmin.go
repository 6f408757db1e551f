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
	"math"

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

package maxmin

import (
	"fmt"
	"math"
)

// PolicyKind says how links share their capacity among traffic classes
// (seed 001 section 3.1, Fig. 1).
type PolicyKind uint8

const (
	// NP, no priorities: one max-min allocation over all flows; classes
	// are ignored.
	NP PolicyKind = iota
	// BA, bandwidth apportionment: class c is guaranteed Shares[c] of
	// every link, and what a class leaves unused goes to the others.
	BA
	// FP, full priority: class 0 is served first, then class 1 with what
	// is left, and so on.
	FP
)

// String returns "NP", "BA" or "FP".
func (k PolicyKind) String() string {
	switch k {
	case NP:
		return "NP"
	case BA:
		return "BA"
	case FP:
		return "FP"
	}
	return fmt.Sprintf("PolicyKind(%d)", uint8(k))
}

// Policy says how links share their capacity among traffic classes. A
// flow's class is a number from 0 (AddClassFlow; AddFlow gives class 0).
//
//   - NP: max-min over all flows, whatever their class.
//   - FP: the classes are solved in increasing class number: class c's
//     flows share max-min the capacity that classes 0..c-1 left on every
//     link. A class gets nothing on a link a lower-numbered class
//     saturates.
//   - BA: two phases. In the first, each class c is solved on its own,
//     its flows sharing max-min Shares[c] × the capacity of every link
//     (the classes do not see one another). In the second, the capacity
//     left on each link — what a class could not use of its share, the
//     shares of classes with no flow in the re-solved system, and the
//     capacity no share covers — is shared max-min among all flows of
//     every class as increments on their first-phase rates (a capped
//     flow rises up to its cap). A class alone thus gets a link's whole
//     capacity, and classes that all use their shares get exactly them.
//
// Rounding: between the phases of FP and BA, a link's leftover below
// 10^-12 of its capacity counts as 0 (so that a class is not given a
// rate of 10^-17 on a link the classes before it saturated).
//
// Incremental solves under FP and BA re-solve the whole connected
// components of the flow–link graph that the changes touched.
type Policy struct {
	Kind PolicyKind
	// Shares (BA only): class c's share of every link, >= 0, summing to
	// at most 1; a flow's class must be below len(Shares).
	Shares []float64
	// Apportioned (BA only), if above 0, limits the apportionment to
	// links 0..Apportioned-1 (a network's links, when the links after
	// them are storage devices that only one class uses). On the other
	// links the first phase serves the classes in class order, each
	// sharing what the ones before it left (so a class alone there has
	// the whole capacity), and the leftover joins the second phase.
	Apportioned int32
}

// snapTol is the fraction of a link's capacity below which a leftover
// between class phases counts as 0.
const snapTol = 1e-12

func (p Policy) check() error {
	switch p.Kind {
	case NP, FP:
		if len(p.Shares) > 0 {
			return fmt.Errorf("maxmin policy shares: %v is not allowed: only BA takes shares", p.Shares)
		}
		if p.Apportioned != 0 {
			return fmt.Errorf("maxmin policy apportioned: %d is not allowed: only BA apportions links", p.Apportioned)
		}
	case BA:
		if len(p.Shares) == 0 || len(p.Shares) > 256 {
			return fmt.Errorf("maxmin policy shares: %d classes is not allowed: BA needs 1 to 256", len(p.Shares))
		}
		sum := 0.0
		for c, x := range p.Shares {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("maxmin policy shares[%d]: %v is not allowed: must be finite and at least 0", c, x)
			}
			sum += x
		}
		if sum > 1+1e-9 {
			return fmt.Errorf("maxmin policy shares: %v is not allowed: they sum to %v, more than 1", p.Shares, sum)
		}
		if p.Apportioned < 0 {
			return fmt.Errorf("maxmin policy apportioned: %d is not allowed: must be at least 0 (0: every link)", p.Apportioned)
		}
	default:
		return fmt.Errorf("maxmin policy kind: %d is not allowed: must be NP, BA or FP", p.Kind)
	}
	return nil
}

// Policy returns the solver's policy.
func (s *Solver) Policy() Policy {
	return Policy{Kind: s.policy.Kind, Shares: append([]float64(nil), s.policy.Shares...), Apportioned: s.policy.Apportioned}
}

// CheckClass returns an error if the policy has no class c.
func (s *Solver) CheckClass(c uint8) error {
	if s.policy.Kind == BA && int(c) >= len(s.policy.Shares) {
		return fmt.Errorf("maxmin flow class: %d is not allowed: BA has classes 0 to %d", c, len(s.policy.Shares)-1)
	}
	return nil
}

// Class returns flow id's class (0 for an unknown id).
func (s *Solver) Class(id FlowID) uint8 {
	if id < 0 || int(id) >= len(s.meta) {
		return 0
	}
	return s.meta[id].class
}

// collectAll gathers the whole connected components of the touched links
// (dropping removed flows from their user lists): every flow is marked
// and every link active.
func (s *Solver) collectAll() {
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
				if md.flags&fMark != 0 {
					continue
				}
				md.flags |= fMark
				s.comp = append(s.comp, id)
				s.compPrev = append(s.compPrev, s.rate[id])
				for n := range decode(s.unitsOf(md)) {
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

// solveClasses solves the collected components under the policy (under
// NP, all flows as one class).
func (s *Solver) solveClasses() {
	if s.policy.Kind == NP {
		s.solveOneClass()
		return
	}
	present := s.startClasses()
	classes := 256
	if s.policy.Kind == BA {
		classes = len(s.policy.Shares)
	}
	for c := range classes {
		has := present[c/64]&(1<<(c%64)) != 0
		if s.policy.Kind == FP {
			if has {
				s.classPass(uint8(c))
				s.snapRem()
			}
			continue
		}
		// BA: every class in order, so that a link's spare capacity is
		// summed the same way whatever classes the re-solved part holds.
		for _, l := range s.compL {
			if s.apportioned(l) {
				s.rem[l] = s.policy.Shares[c] * s.capacity[l]
			} else {
				s.rem[l] = s.spare[l]
			}
		}
		if has {
			s.classPass(uint8(c))
			s.snapRem()
		}
		for _, l := range s.compL {
			if s.apportioned(l) {
				s.spare[l] += s.rem[l]
			} else {
				s.spare[l] = s.rem[l]
			}
		}
	}
	if s.policy.Kind != BA {
		return
	}
	s.shareSpare()
}

// solveOneClass solves the collected components with all flows as one
// class (NP).
func (s *Solver) solveOneClass() {
	for _, l := range s.compL {
		s.rem[l], s.cnt[l] = s.capacity[l], int32(len(s.users[l]))
	}
	for _, id := range s.comp {
		s.meta[id].flags &^= fFixed
	}
	s.pass(false)
}

// startClasses readies the collected components for the classes' passes
// (FP or BA): every flow fixed until its class's pass, every link's
// capacity left whole (under BA, the spare capacity of a link BA does
// not apportion is all of it). It returns the set of classes present, a
// bit per class.
func (s *Solver) startClasses() (present [4]uint64) {
	for _, id := range s.comp {
		c := s.meta[id].class
		present[c/64] |= 1 << (c % 64)
		s.meta[id].flags |= fFixed
	}
	if s.policy.Kind == BA && s.spare == nil {
		s.spare = make([]float64, len(s.capacity))
	}
	for _, l := range s.compL {
		s.rem[l] = s.capacity[l]
		if s.policy.Kind == BA {
			s.spare[l] = 0
			if !s.apportioned(l) {
				s.spare[l] = s.capacity[l] // what the classes so far left
			}
		}
	}
	return present
}

// shareSpare is BA's phase 2: the spare capacity, max-min over every
// flow as increments.
func (s *Solver) shareSpare() {
	for _, l := range s.compL {
		s.rem[l] = s.spare[l]
		if s.apportioned(l) {
			s.rem[l] += s.unshared * s.capacity[l]
		}
		s.cnt[l] = int32(len(s.users[l]))
	}
	s.snapRem()
	for _, id := range s.comp {
		s.meta[id].flags &^= fFixed
	}
	s.incr = true
	s.pass(true)
	s.incr = false
}

// apportioned reports whether BA apportions link l.
func (s *Solver) apportioned(l int32) bool {
	return s.policy.Apportioned == 0 || l < s.policy.Apportioned
}

// snapRem sets the leftovers below snapTol of their link's capacity to 0.
func (s *Solver) snapRem() {
	for _, l := range s.compL {
		if s.rem[l] < snapTol*s.capacity[l] {
			s.rem[l] = 0
		}
	}
}

// classPass solves class c's flows over the capacities in s.rem.
func (s *Solver) classPass(c uint8) {
	for _, l := range s.compL {
		s.cnt[l] = 0
	}
	for _, id := range s.comp {
		m := &s.meta[id]
		if m.class != c {
			continue
		}
		m.flags &^= fFixed
		s.rate[id] = 0
		for l := range decode(s.unitsOf(m)) {
			s.cnt[l]++
		}
	}
	s.pass(false)
}

// pass runs progressive filling from level 0 over the unfixed marked
// flows and the active links, from the capacities in s.rem and counts in
// s.cnt. With incr, caps bound the increment: cap less the rate.
func (s *Solver) pass(incr bool) {
	h := &s.h
	h.Clear()
	s.level = 0
	for _, l := range s.compL {
		if s.cnt[l] > 0 {
			h.Set(2*l+1, s.share(l))
		}
	}
	for _, id := range s.comp {
		if s.meta[id].flags&fFixed != 0 {
			continue
		}
		if c := s.Cap(id); !math.IsInf(c, 1) {
			if incr {
				c = max(c-s.rate[id], 0)
			}
			h.Set(2*int32(id), c)
		}
	}
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
			s.rem[l] = 0 // saturated
		}
		s.requeue()
	}
}

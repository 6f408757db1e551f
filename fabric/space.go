package fabric

// Space is a buffer whose room, counted in credits, is shared dynamically by
// the VLs (MODEL.md section 2): each VL is guaranteed excl credits and may
// hold at most max, out of capacity. The same type mirrors a downstream
// buffer at the sender of a link (credit flow control).
type Space struct {
	capacity, excl, max int32
	used                []int32
	total               int32
	unusedExcl          int32 // sum over VLs of max(0, excl - used)
}

func newSpace(vls int, capacity, excl, maxVL int32) Space {
	return Space{capacity: capacity, excl: excl, max: maxVL, used: make([]int32, vls), unusedExcl: excl * int32(vls)}
}

func (s *Space) unused(vl int) int32 { return max(0, s.excl-s.used[vl]) }

// Fits reports whether n credits of VL vl can be taken now without eating
// into the space the other VLs are guaranteed.
func (s *Space) Fits(vl int, n int32) bool {
	if s.used[vl]+n > s.max {
		return false
	}
	othersReserved := s.unusedExcl - s.unused(vl)
	return s.capacity-s.total-n >= othersReserved
}

// Take uses n credits of VL vl (the caller checked Fits).
func (s *Space) Take(vl int, n int32) {
	s.unusedExcl -= s.unused(vl)
	s.used[vl] += n
	s.total += n
	s.unusedExcl += s.unused(vl)
}

// Free returns n credits of VL vl.
func (s *Space) Free(vl int, n int32) {
	s.unusedExcl -= s.unused(vl)
	s.used[vl] -= n
	s.total -= n
	s.unusedExcl += s.unused(vl)
}

// Used returns the credits VL vl holds.
func (s *Space) Used(vl int) int32 { return s.used[vl] }

// Total returns the credits held by all VLs.
func (s *Space) Total() int32 { return s.total }

// FreeCredits is the unused capacity.
func (s *Space) FreeCredits() int32 { return s.capacity - s.total }

package sched

import (
	"fmt"
	"math/bits"
)

// maxSLs bounds the number of SLs so that a set of SLs fits in one uint64
// (OPA defines 32 SLs, seed 000 section 3.2.1). The table schedulers keep
// is_active() as such a bit set so that Pick needs no scratch memory.
const maxSLs = 64

// slSet is a set of SL indices, bit s standing for SL s.
type slSet uint64

func (m slSet) has(sl int) bool { return m&(1<<uint(sl)) != 0 }
func (m slSet) count() int      { return bits.OnesCount64(uint64(m)) }

// activeSLs is is_active() of seed 000 Algorithms 1 and 2 as far as a
// scheduler can see it: an SL is active when some eligible head carries it.
func activeSLs(heads []Head) slSet {
	var m slSet
	for _, h := range heads {
		m |= 1 << uint(h.SL)
	}
	return m
}

// positive is the set of SLs whose weight in w is above zero.
func positive(w []int) slSet {
	var m slSet
	for sl, x := range w {
		if x > 0 {
			m |= 1 << uint(sl)
		}
	}
	return m
}

// firstAtOrAfter is the index of the first head whose VL is vl or later,
// wrapping to 0. Walking heads circularly from there visits the VLs in the
// order (vl + i) % NumVLs, skipping the VLs that have no eligible head.
func firstAtOrAfter(heads []Head, vl int) int {
	for i, h := range heads {
		if h.VL >= vl {
			return i
		}
	}
	return 0
}

// checkSLCount reports a Config whose SLs do not fit an slSet, or whose
// SC2SL names an SL that does not exist (a head of it would index nothing).
// noneSent is a per-SL "VL sent from last" pointer before any packet: -1
// for each of n SLs.
func noneSent(n int) []int {
	last := make([]int, n)
	for i := range last {
		last[i] = -1
	}
	return last
}

func checkSLCount(name string, cfg Config) error {
	n := len(cfg.SLs)
	if n == 0 || n > maxSLs {
		return fmt.Errorf("%s: len(SLs) = %d, want 1..%d", name, n, maxSLs)
	}
	for sc, sl := range cfg.SC2SL {
		if sl < 0 || sl >= n {
			return fmt.Errorf("%s: SC2SL[%d] = %d, want 0..%d", name, sc, sl, n-1)
		}
	}
	return nil
}

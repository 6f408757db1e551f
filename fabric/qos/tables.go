package qos

// Tables are the SL/SC/VL tables. Indices are SLs, SCs and VLs; SC2VL and
// SC2SL have one entry per SC, SL2SC one per SL.
type Tables struct {
	SC2VL []int   // VL of each SC
	SC2SL []int   // SL of each SC (0 for an SC no SL lists)
	SL2SC [][]int // SCs of each SL, in the order the SL lists them
}

// NewTables derives the tables from the SCs of each SL (sl2sc) and the VL
// of each SC (sc2vl); an SC outside sc2vl gets no SL. The slices are
// shared, not copied: callers must not change them.
func NewTables(sl2sc [][]int, sc2vl []int) Tables {
	t := Tables{SC2VL: sc2vl, SC2SL: make([]int, len(sc2vl)), SL2SC: sl2sc}
	for sl, scs := range sl2sc {
		for _, sc := range scs {
			if sc >= 0 && sc < len(sc2vl) {
				t.SC2SL[sc] = sl
			}
		}
	}
	return t
}

// NumSLs is the number of SLs.
func (t Tables) NumSLs() int { return len(t.SL2SC) }

// SCsOf lists the SCs of SL sl (none for an SL the tables do not have).
func (t Tables) SCsOf(sl int) []int {
	if sl < 0 || sl >= len(t.SL2SC) {
		return nil
	}
	return t.SL2SC[sl]
}

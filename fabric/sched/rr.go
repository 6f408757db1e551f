package sched

// rrSL is the round-robin output scheduler of seed 000 section 3.1 and
// MODEL.md section 4.2: every active SL in turn, so each SL gets an equal
// share of the link whatever the number of VLs it uses; within an SL, its
// VLs in turn.
type rrSL struct {
	numVLs, numSLs int
	lastSL         int   // SL sent last; -1 before the first packet
	nextVL         []int // per SL: the VL its turn starts from
}

// NewRR builds the per-SL round-robin scheduler ("rr").
func NewRR(cfg Config) (Scheduler, error) {
	return &rrSL{numVLs: cfg.NumVLs, numSLs: max(len(cfg.SLs), 1), lastSL: -1, nextVL: make([]int, max(len(cfg.SLs), 1))}, nil
}

func (s *rrSL) Pick(heads []Head) int {
	sl := s.nextSL(heads)
	best, bestDist := -1, s.numVLs+1
	for i, h := range heads {
		if h.SL != sl {
			continue
		}
		if d := circular(h.VL-s.nextVL[sl], s.numVLs); d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

// nextSL is the first SL after the last one sent that has a head.
func (s *rrSL) nextSL(heads []Head) int {
	best, bestDist := 0, s.numSLs+1
	for _, h := range heads {
		if d := circular(h.SL-s.lastSL-1, s.numSLs); d < bestDist {
			best, bestDist = h.SL, d
		}
	}
	return best
}

func (s *rrSL) Commit(heads []Head, i int) {
	h := heads[i]
	s.lastSL = h.SL
	s.nextVL[h.SL] = (h.VL + 1) % s.numVLs
}

// Miss (table_feedback view) moves the pointers on exactly as Commit does:
// the SL picked has had its turn and its VL pointer passes the VL that
// could not send. A round robin has no budget to spare a failed pick and
// keeps no record of which SLs are active, so learning of the failure
// changes nothing (seed 000 section 3.1): table_feedback equals table.
func (s *rrSL) Miss(heads []Head, i int) { s.Commit(heads, i) }

// rrVL is the round-robin output scheduler of seed 002 section 2.1 (OB):
// the eligible VL that follows the last VL sent, circularly. SLs that use
// more VLs get more of the link.
type rrVL struct {
	numVLs int
	last   int // VL sent last; -1 before the first packet
}

// NewRRVL builds the per-VL round-robin scheduler ("rr_vl").
func NewRRVL(cfg Config) (Scheduler, error) {
	return &rrVL{numVLs: cfg.NumVLs, last: -1}, nil
}

func (s *rrVL) Pick(heads []Head) int {
	best, bestDist := 0, s.numVLs+1
	for i, h := range heads {
		if d := circular(h.VL-s.last-1, s.numVLs); d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

func (s *rrVL) Commit(heads []Head, i int) { s.last = heads[i].VL }

// Miss (table_feedback view) passes the turn to the next VL, as Commit
// does: table_feedback equals table for rr_vl.
func (s *rrVL) Miss(heads []Head, i int) { s.Commit(heads, i) }

// circular maps x into [0, n).
func circular(x, n int) int { return ((x % n) + n) % n }

package sched

// rr is the round-robin output scheduler of seed 002 section 2.1 (OB): the
// eligible VL that follows the last VL sent, circularly.
type rr struct {
	numVLs int
	last   int // VL sent last; -1 before the first packet
}

// NewRR builds a round-robin scheduler.
func NewRR(cfg Config) (Scheduler, error) {
	return &rr{numVLs: cfg.NumVLs, last: -1}, nil
}

func (s *rr) Pick(heads []Head) int {
	best, bestDist := 0, s.numVLs+1
	for i, h := range heads {
		d := (h.VL - s.last - 1 + 2*s.numVLs) % s.numVLs
		if d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

func (s *rr) Commit(heads []Head, i int) { s.last = heads[i].VL }

package sched

import "fmt"

// strict is strict priority by SL order: the lowest-numbered SL among the
// heads offered always sends (SL 0 is the highest priority), whatever the
// others have waited. It guarantees nothing to a lower SL: while a higher
// SL keeps a head offered, every lower SL starves (TestStrictStarves).
// Seed 000 section 3 lists no such scheduler; it is the baseline that
// shows what the table schedulers' shares protect against.
//
// Within the SL, its VLs take turns: the VL that comes first after the one
// it sent from last, circularly (as rr does within an SL).
type strict struct {
	numVLs int
	lastVL []int // per SL, the VL it sent from last (-1 before)
}

// NewStrict builds the strict-priority scheduler ("strict").
func NewStrict(cfg Config) (Scheduler, error) {
	if err := checkSLCount("strict", cfg); err != nil {
		return nil, err
	}
	if cfg.NumVLs <= 0 {
		return nil, fmt.Errorf("strict: NumVLs = %d, want > 0", cfg.NumVLs)
	}
	return &strict{numVLs: cfg.NumVLs, lastVL: noneSent(len(cfg.SLs))}, nil
}

func (s *strict) Pick(heads []Head) int {
	top := heads[0].SL
	for _, h := range heads[1:] {
		top = min(top, h.SL)
	}
	return slHeadAfter(heads, top, s.lastVL[top], s.numVLs)
}

// Commit moves the SL's VL pointer past the VL sent. Priority keeps no
// other state.
func (s *strict) Commit(heads []Head, i int) { s.lastVL[heads[i].SL] = heads[i].VL }

// Miss (table_feedback view) is Commit: the VL pointer passes the VL that
// could not send, and nothing else changes, since strict priority keeps no
// budget to spare and no record of which SLs are active. The SL keeps its
// priority, so the next decision picks it again (another of its VLs if it
// has one offered, else the same head): a blocked head of the highest SL
// offered idles the link until it can send, in the table view as in
// table_feedback, and the lower SLs wait behind it.
func (s *strict) Miss(heads []Head, i int) { s.Commit(heads, i) }

// slHeadAfter is the head of SL sl whose VL comes first after last,
// circularly over numVLs VLs (-1 if sl has no head).
func slHeadAfter(heads []Head, sl, last, numVLs int) int {
	best, bestDist := -1, numVLs+1
	for i, h := range heads {
		if h.SL != sl {
			continue
		}
		if d := circular(h.VL-last-1, numVLs); d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

package sched

import (
	"fmt"

	"github.com/opasim/opasim/problem"
)

// drr is deficit round robin (Shreedhar and Varghese, "Efficient fair
// queuing using deficit round robin", SIGCOMM 1995) over the SLs, counted
// in credits (Head.Credits, the packet's real size, where dtable charges
// SL_MTU). Each SL has a quantum and a deficit counter (starts 0):
//   - The SLs are visited in SL order, circularly. A visit adds the SL's
//     quantum to its deficit; the SL then sends while its deficit covers
//     its head packet's credits, each packet taking its credits off the
//     deficit. When the head is larger than the deficit the visit ends and
//     the deficit is kept for the next visit.
//   - "Its queue has nothing" is, for a scheduler, "it has no head
//     offered": at every decision the deficit of every SL without a head
//     in heads is set to 0 (in the eligible view that includes an SL whose
//     heads are only waiting for credits; in the table views, an SL whose
//     VLs are all empty), and a visit in progress ends when its SL has no
//     head offered.
//   - A visit whose deficit does not cover the head after the quantum is
//     added ends at once (the head is larger than the quantum); the walk
//     goes on, round after round, until some SL is covered. decide counts
//     the rounds instead of walking them, so a decision costs one pass over
//     the SLs: every SL passed is credited its quantum once per visit.
//
// Quantum (a choice from the config): SL.SBTWeight × the largest
// SL.MTUCredits, so each backlogged SL gets SBTWeight/sum of the credits
// (the shares sbt gives in packets, here in credits, from the same column)
// and a quantum of weight 1 or more covers any packet of any SL in one
// visit. An SL of weight 0 has quantum 0 and is never covered: it sends
// only when no SL of positive weight has a head offered, then one packet
// per visit, uncharged, so the link is never left idle.
//
// Within an SL its VLs take turns, from the VL after the one it sent from
// last; the deficit test uses the head of that VL.
type drr struct {
	numVLs  int
	quantum []int // credits added per visit, per SL
	deficit []int // per SL, credits
	cur     int   // SL visited last; -1 before the first packet
	open    bool  // cur's visit goes on while its deficit covers its head
	lastVL  []int // per SL, the VL it sent from last (-1 before)
	cnt     Counters
}

// drrDecision is one decision. For a new visit, the winner is the SL
// reached first whose deficit covers its head, rounds is the number of
// full rounds walked before the winner's round, and pos the winner's place
// in the visiting order (0 = the SL after cur).
type drrDecision struct {
	sl, idx     int
	newVisit    bool
	rounds, pos int
	free        bool // only quantum-0 SLs offered: sent uncharged
}

// NewDRR builds the deficit round robin ("drr").
func NewDRR(cfg Config) (Scheduler, error) {
	w, err := sbtWeights("drr", cfg)
	if err != nil {
		return nil, err
	}
	mtu := 0
	for _, sl := range cfg.SLs {
		mtu = max(mtu, sl.MTUCredits)
	}
	var errs []error
	if mtu <= 0 {
		errs = append(errs, fmt.Errorf("drr: the largest SLs[].MTUCredits is %d, want > 0 (the quantum is SBTWeight × it)", mtu))
	}
	if cfg.NumVLs <= 0 {
		errs = append(errs, fmt.Errorf("drr: NumVLs = %d, want > 0", cfg.NumVLs))
	}
	if len(errs) > 0 {
		return nil, problem.List(errs).Err()
	}
	s := &drr{numVLs: cfg.NumVLs, quantum: w, deficit: make([]int, len(w)), cur: -1, lastVL: noneSent(len(w)), cnt: cfg.Counters}
	for i := range w {
		s.quantum[i] *= mtu
		if err := cfg.Counters.fitsUnsigned("drr", fmt.Sprintf("the quantum of SL %d (SLs[%d].SBTWeight × the largest MTUCredits)", i, i), s.quantum[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, problem.List(errs).Err()
	}
	return s, nil
}

func (s *drr) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit applies the decision (the deficits of the SLs without a head
// dropped, the quanta of a new visit credited) and charges heads[i]'s
// credits to its SL, whose visit goes on.
func (s *drr) Commit(heads []Head, i int) {
	d := s.apply(heads)
	h := heads[i]
	if !d.free {
		s.deficit[h.SL] = s.cnt.Add(s.deficit[h.SL], -h.Credits)
	}
	s.cur, s.open, s.lastVL[h.SL] = h.SL, !d.free, h.VL
}

// Miss (table_feedback view) applies the decision as Commit does, then
// treats the SL picked as one whose queue has nothing: no charge, its
// deficit set to 0 (the quantum just credited included) and its visit
// ended, so the next decision visits the SL after it. Its VL pointer
// moves past the VL picked.
func (s *drr) Miss(heads []Head, i int) {
	s.apply(heads)
	h := heads[i]
	s.deficit[h.SL] = 0
	s.cur, s.open, s.lastVL[h.SL] = h.SL, false, h.VL
}

// apply is the part of a decision that Commit and Miss share.
func (s *drr) apply(heads []Head) drrDecision {
	d := s.decide(heads)
	active := activeSLs(heads)
	n := len(s.quantum)
	for sl := range s.deficit {
		switch {
		case !active.has(sl):
			s.deficit[sl] = 0
		case d.newVisit && !d.free:
			visits := d.rounds
			if circular(sl-s.cur-1, n) <= d.pos {
				visits++
			}
			s.deficit[sl] = s.credit(s.deficit[sl], s.quantum[sl], visits)
		}
	}
	return d
}

// decide applies the rule without changing anything.
func (s *drr) decide(heads []Head) drrDecision {
	active := activeSLs(heads)
	if s.open && active.has(s.cur) {
		i := slHeadAfter(heads, s.cur, s.lastVL[s.cur], s.numVLs)
		if s.deficit[s.cur] >= heads[i].Credits {
			return drrDecision{sl: s.cur, idx: i}
		}
	}
	n := len(s.quantum)
	d := drrDecision{sl: -1, newVisit: true}
	bestKey := 0
	for pos := 0; pos < n; pos++ {
		sl := (s.cur + 1 + pos) % n
		if !active.has(sl) || s.quantum[sl] == 0 {
			continue
		}
		i := slHeadAfter(heads, sl, s.lastVL[sl], s.numVLs)
		visits := s.visits(s.deficit[sl], s.quantum[sl], heads[i].Credits)
		if visits == 0 { // limited counters: the deficit never covers the head
			continue
		}
		if key := (visits-1)*n + pos; d.sl < 0 || key < bestKey {
			d, bestKey = drrDecision{sl: sl, idx: i, newVisit: true, rounds: visits - 1, pos: pos}, key
		}
	}
	if d.sl < 0 { // only quantum-0 SLs offered
		d.sl, d.free = s.nextActive(active), true
		d.idx = slHeadAfter(heads, d.sl, s.lastVL[d.sl], s.numVLs)
	}
	return d
}

// nextActive is the first SL of active after cur, circularly (cur last).
func (s *drr) nextActive(active slSet) int {
	n := len(s.quantum)
	for k := 1; k <= n; k++ {
		if sl := (s.cur + k) % n; active.has(sl) {
			return sl
		}
	}
	return -1
}

// maxDRRVisits bounds the visits decide looks ahead for one SL when the
// counters are limited; an SL not covered by then is passed over.
const maxDRRVisits = 1 << 16

// visits is the number of visits after which an SL with deficit d and
// quantum q covers a head of credits (at least 1), each visit adding q in
// the deficit counter; 0 if it never does (limited counters: a saturated
// deficit below the head, or a wrapping one that keeps missing it).
func (s *drr) visits(d, q, credits int) int {
	if !s.cnt.Limited() {
		need := credits - d
		return max(1, (need+q-1)/q)
	}
	for k := 1; k <= maxDRRVisits; k++ {
		if d = s.cnt.Add(d, q); d >= credits {
			return k
		}
	}
	return 0
}

// credit is deficit d after visits visits, each adding q in the counter.
func (s *drr) credit(d, q, visits int) int {
	if !s.cnt.Limited() {
		return d + visits*q
	}
	for range visits {
		d = s.cnt.Add(d, q)
	}
	return d
}

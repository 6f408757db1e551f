package sched

import "fmt"

// sbtStrict is the SBT rule of the prose of seed 000 section 3.2 (MODEL.md
// section 8 offers it beside the literal Algorithm 1, which is sbt):
//   - the table (one entry per SL, SL.SBTWeight packets) is walked round-
//     robin: the current entry keeps sending while its SL is active and has
//     weight; when its weight reaches 0 the table moves to the next entry,
//     and when its SL goes inactive the next active entry with weight is used;
//   - "When the sum of all entry weights is zero, the initial entry weights
//     are restored" (also section 3.2.1): done in Commit, right after the
//     charge that empties the table;
//   - "an SL can only transmit when its weight is greater than zero", except
//     "when an active SL does not have enough weight left but it is the only
//     active SL": that SL sends, uncharged.
//
// One departure, because Pick must always choose (the interface has no
// idle answer, and the conformance test asks for work conservation): when
// two or more SLs are active, none has weight left, and an inactive SL still
// holds weight, the prose would idle the link, forever if that SL has no
// traffic. We restore the initial weights then (the idle SL forfeits what it
// did not use, as an inactive DTable SL loses its deficit) and send charged.
// If even the restored weights give no active SL any weight (all active SLs
// configured with weight 0), the next active SL sends uncharged.
//
// The prose does not say which VL of an SL sends: each SL takes its VLs
// round-robin, starting after the VL it sent from last.
type sbtStrict struct {
	numVLs  int
	initial []int // configured weights
	weights []int // weight left per SL
	cur     int   // current table entry (= SL)
	lastVL  []int // per SL, the VL it sent from last (-1 before)
}

// strictDecision is one decision of the prose rule.
type strictDecision struct {
	idx     int  // head sent
	restore bool // the departure above: restore before sending
}

// NewSBTStrict builds the prose-rule SBT scheduler of seed 000 section 3.2.
func NewSBTStrict(cfg Config) (Scheduler, error) {
	w, err := sbtWeights("sbt_strict", cfg)
	if err != nil {
		return nil, err
	}
	if err := checkTable("sbt_strict", "the SBT table (one row per SL)", len(w), cfg); err != nil {
		return nil, err
	}
	if cfg.NumVLs <= 0 {
		return nil, fmt.Errorf("sbt_strict: NumVLs = %d, want > 0", cfg.NumVLs)
	}
	return &sbtStrict{numVLs: cfg.NumVLs, initial: w,
		weights: append([]int(nil), w...), lastVL: noneSent(len(w))}, nil
}

func (s *sbtStrict) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit charges the SL of heads[i] if it has weight, moves the table to the
// next entry when that weight reaches 0, and restores the weights when they
// all are 0.
func (s *sbtStrict) Commit(heads []Head, i int) {
	if s.decide(heads).restore {
		copy(s.weights, s.initial)
	}
	sl := heads[i].SL
	s.cur, s.lastVL[sl] = sl, heads[i].VL
	if s.weights[sl] == 0 {
		return // uncharged
	}
	s.weights[sl]--
	if s.weights[sl] == 0 {
		s.cur = (sl + 1) % len(s.weights)
	}
	if positive(s.weights) == 0 {
		copy(s.weights, s.initial)
	}
}

// Miss (table_feedback view) passes the turn without charging the weight:
// the table moves to the entry after the SL picked ("the table is also
// cycled when the SL in transmission becomes inactive", seed 000 section
// 3.2) and the SL's VL pointer passes the VL that could not send; no charge
// and no restore. The SL keeps its weight, so when it is the only active SL
// with weight the next decision picks it again.
func (s *sbtStrict) Miss(heads []Head, i int) {
	sl := heads[i].SL
	s.cur, s.lastVL[sl] = (sl+1)%len(s.weights), heads[i].VL
}

// decide applies the prose rule without changing anything.
func (s *sbtStrict) decide(heads []Head) strictDecision {
	active := activeSLs(heads)
	if m := active & positive(s.weights); m != 0 {
		return strictDecision{idx: s.headOf(heads, s.next(m))}
	}
	if active.count() == 1 {
		return strictDecision{idx: s.headOf(heads, s.next(active))}
	}
	if m := active & positive(s.initial); m != 0 {
		return strictDecision{idx: s.headOf(heads, s.next(m)), restore: true}
	}
	return strictDecision{idx: s.headOf(heads, s.next(active))}
}

// next is the first SL of m in table order from the current entry on.
func (s *sbtStrict) next(m slSet) int {
	n := len(s.weights)
	for k := 0; k < n; k++ {
		if sl := (s.cur + k) % n; m.has(sl) {
			return sl
		}
	}
	return -1
}

// headOf is the head of SL sl whose VL comes first after the VL that SL
// sent from last, circularly.
func (s *sbtStrict) headOf(heads []Head, sl int) int {
	best, bestDist := -1, s.numVLs+1
	for i, h := range heads {
		if h.SL != sl {
			continue
		}
		if d := (h.VL - s.lastVL[sl] - 1 + 2*s.numVLs) % s.numVLs; d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

package sched

import (
	"fmt"

	"github.com/opasim/opasim/problem"
)

// sbt is the Simple Bandwidth Table of seed 000 section 3.2, Algorithm 1,
// taken literally as MODEL.md section 8 asks (the prose rule of the same
// section is sbt_strict). The table has one entry per SL (SL.SBTWeight, in
// packets); the scheduler walks the VLs, not the table.
//
// Mapping of Algorithm 1 onto the Scheduler interface:
//   - line 7-8: the loop starts AT last_vl_selec, so a VL keeps sending while
//     its SL has weight. heads is sorted by VL, so walking it circularly from
//     the first head at or after last_vl_selec is that loop.
//   - line 9: a VL without an eligible head has "no flit" and is skipped.
//   - line 11: is_active(SL) holds for the SL of every head (it is at a head).
//   - line 12-15: the first head whose SL has weight is sent and charged 1.
//   - line 17-18: otherwise the head is remembered (the last one seen wins)
//     and its SL is counted in empty_entries.
//   - line 22-23: the weights are restored only when every table entry is
//     active and exhausted (MODEL.md section 8). empty_entries counts each
//     entry once: line 18 runs once per VL, which is once per entry when
//     every SL has one VL; with several VLs per SL (seed 000 Table 7) a
//     per-VL count could exceed total_entries and the reset would never fire.
//   - line 25-27: the remembered head is sent uncharged, even when several
//     SLs are active, and even right after the reset.
//   - line 29: never reached; heads is never empty.
type sbt struct {
	initial []int // configured weights, copied back by resetQoSTable; only read (sbt_switch's ports share one)
	weights []int // arbiter_table[pOut][SL]
	lastVL  int   // last_vl_selec; 0 before the first packet
}

// sbtDecision is what one run of Algorithm 1 decides.
type sbtDecision struct {
	idx   int  // head sent (index into heads)
	reset bool // line 23 runs before the (uncharged) send
}

// NewSBT builds the literal Algorithm 1 scheduler of seed 000 section 3.2.
func NewSBT(cfg Config) (Scheduler, error) {
	w, err := sbtWeights("sbt", cfg)
	if err != nil {
		return nil, err
	}
	if err := checkTable("sbt", "the SBT table (one row per SL)", len(w), cfg); err != nil {
		return nil, err
	}
	return &sbt{initial: w, weights: append([]int(nil), w...)}, nil
}

func (s *sbt) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit applies the decision's side effects: reset (line 23), charge
// (line 14) and last_vl_selec (lines 13 and 26). A head other than Pick's
// is charged if its SL has weight left, as line 12 would.
func (s *sbt) Commit(heads []Head, i int) {
	d := s.decide(heads)
	sl := heads[i].SL
	if d.reset {
		copy(s.weights, s.initial)
	} else if s.weights[sl] > 0 {
		s.weights[sl]--
	}
	s.lastVL = heads[i].VL
}

// Miss (table_feedback view) passes the turn without charging the weight:
// none of lines 12-27 runs (no charge, no reset, no uncharged send) except
// that last_vl_selec moves to the VL after the one picked, so the next walk
// (line 8) starts past it, as if that VL had had no flit (line 9). Its SL
// keeps its weight; if no other visible head's SL has weight, the walk comes
// back to the same VL and the next decision picks it again. rr_burst is this
// scheduler, so it misses the same way.
func (s *sbt) Miss(heads []Head, i int) {
	// (VL + 1) mod NumVLs: past the last VL, firstAtOrAfter wraps to the
	// first head, so the value needs no reduction.
	s.lastVL = heads[i].VL + 1
}

// decide runs lines 5-28 of Algorithm 1 without changing anything.
func (s *sbt) decide(heads []Head) sbtDecision {
	noWeight := -1 // vl_w_flits_no_weight, as an index into heads
	var empty slSet
	start := firstAtOrAfter(heads, s.lastVL)
	for k := range heads {
		j := (start + k) % len(heads)
		sl := heads[j].SL
		if s.weights[sl] > 0 {
			return sbtDecision{idx: j}
		}
		noWeight = j
		empty |= 1 << uint(sl)
	}
	return sbtDecision{idx: noWeight, reset: empty.count() == len(s.weights)}
}

// sbtWeights checks and copies the SBT column (seed 000 Table 10): one
// weight per SL, none negative, not all zero. The paper wants them to sum
// to 100; any positive sum works, shares are weight over sum.
func sbtWeights(name string, cfg Config) ([]int, error) {
	if err := checkSLCount(name, cfg); err != nil {
		return nil, err
	}
	var errs []error
	if err := cfg.Counters.validate(name); err != nil {
		errs = append(errs, err)
	}
	w := make([]int, len(cfg.SLs))
	sum := 0
	for i, sl := range cfg.SLs {
		if sl.SBTWeight < 0 {
			errs = append(errs, fmt.Errorf("%s: SLs[%d].SBTWeight = %d, want >= 0", name, i, sl.SBTWeight))
		}
		if err := cfg.Counters.fitsUnsigned(name, fmt.Sprintf("SLs[%d].SBTWeight", i), sl.SBTWeight); err != nil {
			errs = append(errs, err)
		}
		w[i] = sl.SBTWeight
		sum += sl.SBTWeight
	}
	if len(errs) == 0 && sum == 0 {
		errs = append(errs, fmt.Errorf("%s: every SLs[].SBTWeight is 0, want a positive sum (seed 000 uses 100)", name))
	}
	if len(errs) > 0 {
		return nil, problem.List(errs).Err()
	}
	return w, nil
}

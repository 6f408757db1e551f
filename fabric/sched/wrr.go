package sched

import "fmt"

// wrr is weighted round robin by packets: the SLs take turns in SL order,
// and in its turn an SL sends one packet per decision until it has sent its
// weight in packets or has no head offered; then the turn passes to the
// next SL after it (circularly) that has a head offered and a weight above
// 0. What an SL leaves of its weight when its turn ends early is lost: no
// SL carries weight from one turn to the next, and nothing is ever reset.
//
// The weights are the SLs' SBTWeight, the config field sbt reads (seed 000
// section 3.2, Table 10's SBT column): both are one packet count per SL,
// so one column configures both and their shares can be compared on the
// same config. With every SL backlogged each gets weight/sum of the
// packets, exactly per round, as sbt_strict does; the difference is the
// bookkeeping: sbt_strict keeps an idle SL's unused weight until the whole
// table is spent and restored, wrr forgets it at the end of the turn.
//
// An SL of weight 0 has no turn while an SL of positive weight has a head
// offered; when only weight-0 SLs are offered they take turns of one
// packet, so the link is never left idle. Within an SL its VLs take turns,
// from the VL after the one it sent from last.
type wrr struct {
	numVLs  int
	weights []int // packets per turn, per SL
	cur     int   // SL holding the turn; -1 before the first packet
	sent    int   // packets cur has sent in its turn
	lastVL  []int // per SL, the VL it sent from last (-1 before)
}

// wrrDecision is one decision: the SL served, whether its turn starts
// with this packet, and the head sent.
type wrrDecision struct {
	sl, idx int
	newTurn bool
}

// NewWRR builds the weighted round robin ("wrr") with SL.SBTWeight as the
// packets per turn.
func NewWRR(cfg Config) (Scheduler, error) {
	w, err := sbtWeights("wrr", cfg)
	if err != nil {
		return nil, err
	}
	if cfg.NumVLs <= 0 {
		return nil, fmt.Errorf("wrr: NumVLs = %d, want > 0", cfg.NumVLs)
	}
	return &wrr{numVLs: cfg.NumVLs, weights: w, cur: -1, lastVL: noneSent(len(w))}, nil
}

func (s *wrr) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit counts the packet against the turn of its SL, starting a new turn
// when the decision says so (or when heads[i] is not of the SL holding the
// turn), and moves the SL's VL pointer past the VL.
func (s *wrr) Commit(heads []Head, i int) {
	h := heads[i]
	if s.decide(heads).newTurn || h.SL != s.cur {
		s.cur, s.sent = h.SL, 0
	}
	s.sent++
	s.lastVL[h.SL] = h.VL
}

// Miss (table_feedback view) ends the turn of the SL picked as if it had
// no head offered, WRR's path for an SL with nothing to send: the packet
// is not counted, the rest of the SL's weight for this turn is lost, and
// the next decision starts the turn of the next SL after it. Its VL
// pointer moves past the VL picked, so its next turn starts at its next VL.
func (s *wrr) Miss(heads []Head, i int) {
	h := heads[i]
	s.cur, s.sent = h.SL, s.weights[h.SL]
	s.lastVL[h.SL] = h.VL
}

// decide applies the rule without changing anything.
func (s *wrr) decide(heads []Head) wrrDecision {
	active := activeSLs(heads)
	sl := s.cur
	newTurn := sl < 0 || !active.has(sl) || s.sent >= s.weights[sl]
	if newTurn {
		if sl = s.nextSL(active & positive(s.weights)); sl < 0 {
			sl = s.nextSL(active) // only weight-0 SLs offered
		}
	}
	return wrrDecision{sl: sl, newTurn: newTurn, idx: slHeadAfter(heads, sl, s.lastVL[sl], s.numVLs)}
}

// nextSL is the first SL of m after the SL holding the turn, circularly
// (that SL itself last); -1 if m is empty.
func (s *wrr) nextSL(m slSet) int {
	n := len(s.weights)
	for k := 1; k <= n; k++ {
		if sl := (s.cur + k) % n; m.has(sl) {
			return sl
		}
	}
	return -1
}

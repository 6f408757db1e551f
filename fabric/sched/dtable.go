package sched

// dtable is the Deficit Table scheduler of seed 000 section 3.3, Algorithm 2,
// read as MODEL.md section 8 says: line 10 is "if NOT is_active(SL)", and the
// entry in service is remembered so that line 28 ("return entry.VL") is
// defined when the same SL goes on.
//
// Mapping of Algorithm 2 onto the Scheduler interface:
//   - lines 6-8 (pending_pkts): the port calls the scheduler once per
//     transmission of a whole SL_MTU message (MODEL.md section 4.3), so there
//     is never a pending transmission at a decision.
//   - line 9: "Last SL selected by this output port" is lastSL.
//   - lines 10-13: if that SL has no eligible head, the accumulated weight
//     and its deficit counter are dropped.
//   - lines 14-16: if SL_MTU[SL] exceeds the accumulated weight, it is saved
//     as the SL's deficit counter.
//   - line 19: "Next table entry assigned to an active SL" cycles the table
//     round-robin from the entry after the current one (text below
//     Algorithm 2); the current entry itself is tried last.
//   - lines 20-21: cannot happen: NewDTable checks that every SL that can
//     reach a head has an entry, and heads is never empty.
//   - line 24: accumulated weight = deficit counter (the value lines 12/15
//     may just have written) + entry weight. The deficit is not cleared here;
//     lines 12 and 15 overwrite it whenever its SL leaves.
//   - line 26: the charge is SL_MTU[SL] (SL.MTUCredits), not Head.Credits.
//     It is taken even when the accumulated weight is below SL_MTU, so an
//     entry lighter than its SL's MTU still sends one message and the
//     negative remainder is kept as a debt by line 15: small weights are legal.
//   - line 28: the VL comes from the SL's SCs, taken round-robin (headOf).
type dtable struct {
	dtWalk
	mtu     []int   // SL_MTU[SL] in credits
	scs     [][]int // SCs of each SL, in SL2SC order
	sc2vl   []int   // SC2VL
	deficit []int   // deficit_counter[SL]; below zero it is a debt
	acc     int     // accumulated_weight
	lastSL  int     // last SL selected; -1 before the first packet
	scNext  []int   // per SL, the index into scs[SL] of the SC to try first
	cnt     Counters
}

// dtWalk is the arbitration table and its walk (Algorithm 2 line 19), the
// part of Algorithm 2 that dtable and dtable_sc share.
type dtWalk struct {
	table []Entry // arbitration table (SL, weight in credits)
	cur   int     // table entry in service; -1 before the first packet
}

// dtDecision is one run of Algorithm 2: the state after line 26, the one
// deficit write of lines 12/15, and the head sent.
type dtDecision struct {
	entry, sl, acc int
	left           int // SL whose deficit counter lines 12/15 set; -1 if none
	leftDeficit    int
	idx            int
}

func (s *dtable) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit applies the decision. A head of another SL than Pick's choice is
// still booked to Pick's SL; only the SC pointer follows heads[i].
func (s *dtable) Commit(heads []Head, i int) {
	d := s.decide(heads)
	if d.left >= 0 {
		s.deficit[d.left] = d.leftDeficit
	}
	s.cur, s.lastSL, s.acc = d.entry, d.sl, d.acc
	s.advanceSC(heads[i])
}

// Miss (table_feedback view) runs the decision's lines 9-25 as Commit does
// (the deficit the previous SL leaves with is saved, the entry is taken),
// then treats the SL picked as inactive instead of charging it (line 26):
// lines 10-13 apply at once, so its accumulated weight and its deficit
// counter are dropped (a debt too), and no SL stays selected, so the next
// decision goes to line 19 and serves the next entry of an active SL after
// this one. The SL's SC pointer moves past the SC picked, as after a send,
// so its next entry tries its other SCs first.
func (s *dtable) Miss(heads []Head, i int) {
	d := s.decide(heads)
	if d.left >= 0 {
		s.deficit[d.left] = d.leftDeficit
	}
	s.deficit[d.sl] = 0
	s.cur, s.lastSL, s.acc = d.entry, -1, 0
	s.advanceSC(heads[i])
}

// decide runs lines 9-28 of Algorithm 2 without changing anything.
func (s *dtable) decide(heads []Head) dtDecision {
	active := activeSLs(heads)
	d := s.leave(dtDecision{entry: s.cur, sl: s.lastSL, acc: s.acc, left: -1}, active)
	if d.sl < 0 { // lines 18-25
		d.entry = s.nextEntry(active)
		d.sl = s.table[d.entry].SL
		d.acc = s.cnt.AddSigned(d.deficitOf(s, d.sl), s.table[d.entry].Weight)
	}
	d.acc = s.cnt.AddSigned(d.acc, -s.mtu[d.sl]) // line 26
	d.idx = s.headOf(heads, d.sl)
	return d
}

// leave is lines 9-17: the last SL stops being served when it went inactive
// (its deficit and the accumulated weight are lost) or when the accumulated
// weight no longer covers its MTU (the weight is saved as its deficit).
func (s *dtable) leave(d dtDecision, active slSet) dtDecision {
	switch {
	case d.sl < 0: // no SL selected yet
	case !active.has(d.sl): // lines 10-13
		d.left, d.leftDeficit, d.acc, d.sl = d.sl, 0, 0, -1
	case s.mtu[d.sl] > d.acc: // lines 14-16
		d.left, d.leftDeficit, d.sl = d.sl, d.acc, -1
	}
	return d
}

// deficitOf is deficit_counter[sl] as line 24 reads it, after lines 12/15.
func (d dtDecision) deficitOf(s *dtable, sl int) int {
	if sl == d.left {
		return d.leftDeficit
	}
	return s.deficit[sl]
}

// nextEntry is line 19: the first entry of an active SL after the current
// entry, circularly (the current entry comes last).
func (s *dtWalk) nextEntry(active slSet) int {
	n := len(s.table)
	for k := 1; k <= n; k++ {
		if e := (s.cur + k) % n; active.has(s.table[e].SL) {
			return e
		}
	}
	return -1
}

// headOf picks the VL of line 28. Section 3.3 takes the SCs of an SL
// round-robin ("the first time SL0 is allowed ... SC0 and VL0, the second
// time ... SC1 and VL1"); we advance per transmission. An SC whose VL has no
// eligible head of this SL is passed over. The last loop only matters if a
// port puts a packet in another VL than SC2VL says.
func (s *dtable) headOf(heads []Head, sl int) int {
	scs := s.scs[sl]
	for k := range scs {
		vl := s.sc2vl[scs[(s.scNext[sl]+k)%len(scs)]]
		for i, h := range heads {
			if h.VL == vl && h.SL == sl {
				return i
			}
		}
	}
	for i, h := range heads {
		if h.SL == sl {
			return i
		}
	}
	return -1
}

// advanceSC points the SL's SC pointer past the SC just sent.
func (s *dtable) advanceSC(h Head) {
	scs := s.scs[h.SL]
	for j, sc := range scs {
		if sc == h.SC {
			s.scNext[h.SL] = (j + 1) % len(scs)
			return
		}
	}
}

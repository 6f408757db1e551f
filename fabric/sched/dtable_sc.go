package sched

import (
	"fmt"
	"math/bits"
)

// dtableSC is DTable (seed 000 section 3.3, Algorithm 2) with the other SC
// selection strategy the section names: "dividing the accumulated weight
// among SCs of the same SL". dtable takes the SCs of the SL in service
// round-robin, one message each, against one accumulated weight per SL;
// here every SC has its own accumulated weight.
//
//   - Table walk: as dtable (line 19, dtWalk): when no SL is in service,
//     the next entry of an active SL after the current one.
//   - Division (line 24): the entry's weight w goes to the active SCs of
//     its SL s, the SCs of s that have a head; k of them get ⌊w/k⌋ credits
//     each, and the remainder w mod k goes one credit each to the first
//     w mod k active SCs in s's SC order, counted circularly from a per-SL
//     remainder pointer, which then moves past the last SC served. The k
//     shares add up to w exactly, and over successive entries the
//     remainder rotates among the SCs. An SC of s without a head loses its
//     accumulated weight (a debt too), as an inactive SL does at lines
//     10-13.
//   - Send: the SC that sends is the first active SC of s, round-robin from
//     the SC after the one that sent last (as dtable's headOf), whose
//     accumulated weight covers its head packet; it is charged the packet's
//     credits (Head.Credits), not SL_MTU, so that SCs of one SL sending
//     packets of different sizes get the same credits. First message
//     (line 26 charges unconditionally): right after an entry, if no active
//     SC covers its head, the first active SC in that order sends anyway
//     and keeps the negative remainder as a debt.
//   - Leaving (lines 9-17): the SL in service goes on while some active SC
//     of it covers its head. When none does, the SL leaves and each SC
//     keeps its weight (its deficit); when the SL has no head at all, the
//     weights of all its SCs are dropped.
//
// With one SC per SL and packets of SL_MTU credits (MODEL.md section 4.3)
// this is dtable decision for decision (TestDTableSCIsDTableWithOneSC).
// Config and validation are dtable's; SL_MTU is checked but not read.
// Heads are found by their SC; SC2SL decides which SL an SC belongs to.
type dtableSC struct {
	dtWalk
	scs     [][]int // SCs of each SL: SL2SC's order, then the others SC2SL gives it
	sc2sl   []int   // SC2SL
	pos     []int   // per SC, its index in scs[SC2SL[SC]]
	acc     [][]int // per SL, per SC (index into scs[SL]): accumulated weight; below zero a debt
	lastSL  int     // SL in service; -1 when none
	scNext  []int   // per SL, the index into scs[SL] of the SC to try first for a send
	remNext []int   // per SL, the index into scs[SL] of the SC first in line for a remainder credit
	cnt     Counters
}

// dscDecision is one decision of dtable_sc, the state changes it implies
// and the head sent.
type dscDecision struct {
	entry, sl int
	drop      int    // SL whose SCs' weights are dropped (it left with no head); -1 if none
	grant     bool   // a new entry was taken: its weight is divided among sl's active SCs
	active    uint64 // bit j: scs[sl][j] has a head
	j, idx    int    // the SC that sends (index into scs[sl]) and its head
}

// maxSCsPerSL bounds an SL's SCs so that its active SCs fit in a uint64.
const maxSCsPerSL = 64

// NewDTableSC builds dtable_sc from the Config dtable reads (cfg.Table,
// the SLs, SL2SC, SC2SL and SC2VL), checked as dtable checks it.
func NewDTableSC(cfg Config) (Scheduler, error) {
	if err := validateDTable("dtable_sc", cfg); err != nil {
		return nil, err
	}
	n := len(cfg.SLs)
	s := &dtableSC{
		dtWalk:  newDTWalk(cfg),
		scs:     scsBySL(cfg),
		sc2sl:   append([]int(nil), cfg.SC2SL...),
		pos:     make([]int, len(cfg.SC2SL)),
		acc:     make([][]int, n),
		lastSL:  -1,
		scNext:  make([]int, n),
		remNext: make([]int, n),
		cnt:     cfg.Counters,
	}
	for sl, scs := range s.scs {
		if len(scs) > maxSCsPerSL {
			return nil, fmt.Errorf("dtable_sc: SL %d has %d SCs, want at most %d", sl, len(scs), maxSCsPerSL)
		}
		for j, sc := range scs {
			s.pos[sc] = j
		}
		s.acc[sl] = make([]int, len(scs))
	}
	return s, nil
}

// scsBySL lists each SL's SCs, every SC under the SL SC2SL gives it: first
// those SL2SC lists for that SL, in its order, then the others by number.
func scsBySL(cfg Config) [][]int {
	scs := make([][]int, len(cfg.SLs))
	listed := make([]bool, len(cfg.SC2SL))
	for sl := range scs {
		for _, sc := range cfg.SCsOf(sl) {
			if sc >= 0 && sc < len(cfg.SC2SL) && cfg.SC2SL[sc] == sl && !listed[sc] {
				scs[sl], listed[sc] = append(scs[sl], sc), true
			}
		}
	}
	for sc, sl := range cfg.SC2SL {
		if !listed[sc] {
			scs[sl] = append(scs[sl], sc)
		}
	}
	return scs
}

func (s *dtableSC) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit applies Pick's decision for heads (i is Pick's answer): the SC
// picked is charged its head's credits and its SL stays in service.
func (s *dtableSC) Commit(heads []Head, i int) {
	d := s.decide(heads)
	s.apply(d)
	s.acc[d.sl][d.j] = s.cnt.AddSigned(s.acc[d.sl][d.j], -heads[d.idx].Credits)
	s.lastSL = d.sl
}

// Miss (table_feedback view) applies the decision as Commit does (an entry
// taken is divided among the SCs), then treats the SL picked as inactive,
// as dtable does: the weights of all its SCs are dropped (debts too), no
// charge, and no SL stays in service, so the next decision takes the next
// entry of an active SL. The SC pointer moves past the SC picked.
func (s *dtableSC) Miss(heads []Head, i int) {
	d := s.decide(heads)
	s.apply(d)
	clear(s.acc[d.sl])
	s.lastSL = -1
}

// decide computes the decision without changing anything.
func (s *dtableSC) decide(heads []Head) dscDecision {
	d := dscDecision{entry: s.cur, sl: s.lastSL, drop: -1}
	if d.sl >= 0 {
		d.active = s.activeSCs(heads, d.sl)
		if d.active == 0 { // lines 10-13: the SL left with no head
			d.drop = d.sl
		} else if d.j, d.idx = s.covered(heads, d); d.j >= 0 {
			return d // the SL goes on
		} // else lines 14-16: the SCs keep their weights
	}
	d.entry = s.nextEntry(activeSLs(heads)) // lines 18-25
	d.sl, d.grant = s.table[d.entry].SL, true
	d.active = s.activeSCs(heads, d.sl)
	if d.j, d.idx = s.covered(heads, d); d.j < 0 { // the first message goes
		d.j = s.firstActive(d)
		d.idx = s.headOf(heads, d.sl, d.j)
	}
	return d
}

// apply makes the state changes of d but the charge: the dropped SL's
// weights, the division of a new entry's weight, the entry in service and
// the SC pointer.
func (s *dtableSC) apply(d dscDecision) {
	if d.drop >= 0 {
		clear(s.acc[d.drop])
	}
	if d.grant {
		next := s.afterRemainder(d)
		acc := s.acc[d.sl]
		for j := range acc {
			acc[j] = s.weight(d, j)
		}
		s.remNext[d.sl] = next
	}
	s.cur = d.entry
	s.scNext[d.sl] = (d.j + 1) % len(s.scs[d.sl])
}

// activeSCs is the set of SL sl's SCs (indices into scs[sl]) with a head.
func (s *dtableSC) activeSCs(heads []Head, sl int) uint64 {
	var m uint64
	for _, h := range heads {
		if h.SL == sl && h.SC >= 0 && h.SC < len(s.sc2sl) && s.sc2sl[h.SC] == sl {
			m |= 1 << uint(s.pos[h.SC])
		}
	}
	return m
}

// covered is the first active SC of d.sl, round-robin from its SC pointer,
// whose weight after d covers its head, and that head; -1, -1 if none.
func (s *dtableSC) covered(heads []Head, d dscDecision) (j, idx int) {
	n := len(s.scs[d.sl])
	for k := range n {
		j := (s.scNext[d.sl] + k) % n
		if d.active&(1<<uint(j)) == 0 {
			continue
		}
		if idx := s.headOf(heads, d.sl, j); s.weight(d, j) >= heads[idx].Credits {
			return j, idx
		}
	}
	return -1, -1
}

// firstActive is the first active SC of d.sl round-robin from its SC pointer.
func (s *dtableSC) firstActive(d dscDecision) int {
	n := len(s.scs[d.sl])
	for k := range n {
		if j := (s.scNext[d.sl] + k) % n; d.active&(1<<uint(j)) != 0 {
			return j
		}
	}
	return -1
}

// headOf is the index of the head of SC scs[sl][j].
func (s *dtableSC) headOf(heads []Head, sl, j int) int {
	sc := s.scs[sl][j]
	for i, h := range heads {
		if h.SC == sc {
			return i
		}
	}
	return -1
}

// weight is the accumulated weight of SC j of d.sl once d's entry, if it
// took one, is divided: an active SC gets its share, an inactive one
// loses what it had.
func (s *dtableSC) weight(d dscDecision, j int) int {
	w := s.acc[d.sl][j]
	switch {
	case !d.grant:
		return w
	case d.active&(1<<uint(j)) == 0:
		return 0
	}
	return s.cnt.AddSigned(w, s.share(d, j))
}

// share is active SC j's part of the entry's weight: ⌊w/k⌋, plus one if it
// is among the first w mod k active SCs from the remainder pointer.
func (s *dtableSC) share(d dscDecision, j int) int {
	w, k := s.table[d.entry].Weight, bits.OnesCount64(d.active)
	if s.rank(d, j) < w%k {
		return w/k + 1
	}
	return w / k
}

// rank is the number of active SCs of d.sl that come before SC j in the
// remainder order (scs[sl] circularly from the remainder pointer).
func (s *dtableSC) rank(d dscDecision, j int) int {
	start := uint(s.remNext[d.sl])
	below := func(x uint) uint64 { return 1<<x - 1 } // bits 0..x-1
	if uint(j) >= start {
		return bits.OnesCount64(d.active & below(uint(j)) &^ below(start))
	}
	return bits.OnesCount64(d.active&^below(start)) + bits.OnesCount64(d.active&below(uint(j)))
}

// afterRemainder is the remainder pointer after d's division: past the
// last SC that got a remainder credit, unchanged if there was none.
func (s *dtableSC) afterRemainder(d dscDecision) int {
	w, k := s.table[d.entry].Weight, bits.OnesCount64(d.active)
	n := len(s.scs[d.sl])
	for j := range n {
		if d.active&(1<<uint(j)) != 0 && w%k > 0 && s.rank(d, j) == w%k-1 {
			return (j + 1) % n
		}
	}
	return s.remNext[d.sl]
}

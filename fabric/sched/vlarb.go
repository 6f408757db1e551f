package sched

import (
	"fmt"

	"github.com/opasim/opasim/problem"
)

// vlarb is InfiniBand's VL arbitration (IBA section 7.6.9: a high-priority
// and a low-priority VLArbitration table and the Limit of High-Priority),
// adapted to opasim's heads: the table entries name SLs, not VLs, and the
// weights count credits (Head.Credits, the packet's real size; InfiniBand
// counts 64-byte units).
//
//   - Each table is a list of (SL, weight) entries (Config.VLArb). An SL
//     may have several entries, in either table or both. Entries of weight
//     0 are skipped.
//   - A table is walked round robin. The entry in turn sends packets of its
//     SL while its remaining weight is above 0, one packet per decision,
//     each taking its credits off the remaining weight; a packet is sent
//     whole even when it is larger than what remains (the remaining weight
//     goes to 0 or below and the turn ends after that packet). When the
//     entry's SL has no head offered, or its weight is used up, the turn
//     passes to the next entry after it (circularly, itself last) whose
//     weight is above 0 and whose SL has a head offered, with that entry's
//     weight reloaded. What an entry leaves of its weight when its SL has no
//     head offered is lost, as in InfiniBand. Whether the SL in turn has a
//     head offered is looked at when its table is served: a table keeps its
//     entry in turn and the weight left while the other table sends.
//   - The high-priority table is served while some entry of it has a head
//     offered, except that once the high table has sent HighLimit credits
//     in a row (a packet is sent whole, so the last one may pass the limit)
//     and the low table has a head offered, one low-priority packet is sent;
//     then the count restarts. HighLimit 0 lets one high-priority packet
//     through at a time (InfiniBand's 0: a single packet); VLArbUnlimited
//     (-1) never interrupts the high table (InfiniBand's 255): the low
//     table then sends only when no high entry has a head offered. Any
//     packet that does not come from the high table restarts the count.
//   - An SL that has no entry of weight above 0 in either table is not
//     covered: its heads are never picked while a covered head is offered;
//     when only uncovered heads are offered they take turns by SL, one
//     packet each, in SL order after the last uncovered SL sent, uncharged,
//     so the link is never left idle (as wrr's weight-0 SLs).
//
// With both tables empty, the tables are VLArbDefaultTables: SL 0 high,
// every other SL low, each entry one MTU of its SL. A packet counts at
// least one credit (a head of 0 credits would otherwise send for ever).
//
// Within an SL its VLs take turns, from the VL after the one it sent from
// last (as strict and wrr).
type vlarb struct {
	numVLs   int
	tables   [2]vlTable // vlHigh, vlLow
	limit    int        // credits; VLArbUnlimited: no limit
	highRun  int        // credits the high table has sent in a row
	lastFree int        // uncovered SL sent last; -1 before
	lastVL   []int      // per SL, the VL it sent from last (-1 before)
	cnt      Counters   // rem is a signed counter, highRun an unsigned one
}

// vlTable is one arbitration table and its walk.
type vlTable struct {
	entries []Entry
	covers  slSet // SLs with an entry of weight above 0
	cur     int   // entry in turn; -1 before the first packet
	rem     int   // weight cur has left; its turn is over at 0 or below
}

// The sources of a vlarb decision.
const (
	vlHigh = 0 // the high-priority table
	vlLow  = 1 // the low-priority table
	vlFree = 2 // no table: only uncovered SLs offered
)

// vlarbDecision is one decision: where it comes from, the table entry
// (for vlHigh and vlLow), whether that entry's turn starts with it, and
// the SL and head sent.
type vlarbDecision struct {
	src, entry int
	newTurn    bool
	sl, idx    int
}

// VLArbDefaultTables are vlarb's tables when Config.VLArb gives none: SL 0
// in the high-priority table, every other SL in the low-priority one, in SL
// order, each entry weighing its SL's MTU in credits (at least 1), so every
// turn sends one packet of the SL's MTU. With HighLimit 0 (the default of
// qos.vlarb_high_limit) that is OpenSM's default arbitration (VL0 high,
// the others low, equal weights, high limit 0) with SLs for VLs: SL 0
// alternates with the low SLs, which take turns.
func VLArbDefaultTables(sls []SL) (high, low []Entry) {
	for i, sl := range sls {
		e := Entry{SL: i, Weight: max(sl.MTUCredits, 1)}
		if i == 0 {
			high = append(high, e)
		} else {
			low = append(low, e)
		}
	}
	return high, low
}

// NewVLArb builds the InfiniBand-style VL arbitration ("vlarb") from
// cfg.VLArb, listing every problem at once.
func NewVLArb(cfg Config) (Scheduler, error) {
	if err := checkSLCount("vlarb", cfg); err != nil {
		return nil, err
	}
	v := cfg.VLArb
	if len(v.High) == 0 && len(v.Low) == 0 {
		v.High, v.Low = VLArbDefaultTables(cfg.SLs)
	}
	var errs []error
	if cfg.NumVLs <= 0 {
		errs = append(errs, fmt.Errorf("vlarb: NumVLs = %d, want > 0", cfg.NumVLs))
	}
	if v.HighLimit < VLArbUnlimited {
		errs = append(errs, fmt.Errorf("vlarb: VLArb.HighLimit = %d, want %d (no limit) or >= 0 credits", v.HighLimit, VLArbUnlimited))
	}
	if err := cfg.Counters.validate("vlarb"); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.Counters.fitsUnsigned("vlarb", "VLArb.HighLimit", v.HighLimit); err != nil {
		errs = append(errs, err)
	}
	s := &vlarb{numVLs: cfg.NumVLs, limit: v.HighLimit, lastFree: -1, lastVL: noneSent(len(cfg.SLs)), cnt: cfg.Counters}
	for k, tab := range [2][]Entry{v.High, v.Low} {
		name := [2]string{"High", "Low"}[k]
		t := vlTable{entries: append([]Entry(nil), tab...), cur: -1}
		if err := checkTable("vlarb", "VLArb."+name, len(tab), cfg); err != nil {
			errs = append(errs, err)
		}
		if err := cfg.Counters.fitTable("vlarb", "VLArb."+name, tab); err != nil {
			errs = append(errs, err)
		}
		for e, en := range tab {
			if en.SL < 0 || en.SL >= len(cfg.SLs) {
				errs = append(errs, fmt.Errorf("vlarb: VLArb.%s[%d].SL = %d, want 0..%d", name, e, en.SL, len(cfg.SLs)-1))
				continue
			}
			if en.Weight < 0 {
				errs = append(errs, fmt.Errorf("vlarb: VLArb.%s[%d].Weight = %d, want >= 0 (credits)", name, e, en.Weight))
			}
			if en.Weight > 0 {
				t.covers |= 1 << uint(en.SL)
			}
		}
		s.tables[k] = t
	}
	if len(errs) == 0 && s.tables[vlHigh].covers|s.tables[vlLow].covers == 0 {
		errs = append(errs, fmt.Errorf("vlarb: every VLArb.High[] and VLArb.Low[] entry has weight 0, want at least one above 0"))
	}
	if len(errs) > 0 {
		return nil, problem.List(errs).Err()
	}
	return s, nil
}

func (s *vlarb) Pick(heads []Head) int { return s.decide(heads).idx }

// Commit applies the decision: a new turn reloads its entry's weight, the
// packet's credits come off the entry's remaining weight and count towards
// the high table's run (a packet from the low table or from no table
// restarts the run), and the SL's VL pointer moves past the VL. A head
// other than Pick's is charged to the decision's entry.
func (s *vlarb) Commit(heads []Head, i int) {
	d := s.decide(heads)
	h := heads[i]
	c := max(h.Credits, 1)
	switch d.src {
	case vlFree:
		s.lastFree, s.highRun = d.sl, 0
	default:
		t := &s.tables[d.src]
		if d.newTurn {
			t.cur, t.rem = d.entry, t.entries[d.entry].Weight
		}
		t.rem = s.cnt.AddSigned(t.rem, -c)
		if d.src == vlLow {
			s.highRun = 0
		} else if s.limit >= 0 {
			s.highRun = s.cnt.Add(s.highRun, c)
		}
	}
	s.lastVL[h.SL] = h.VL
}

// Miss (table_feedback view) takes the path of an entry whose SL has
// nothing to send: the decision's entry becomes the entry in turn of its
// table with no weight left, so the next decision that serves that table
// moves on to its next entry with a head offered (the same entry again,
// reloaded, if it is the only one). Nothing is charged and the high
// table's run does not move (nothing was sent), so a low-priority packet
// that missed is followed by another low-priority decision. A miss of an
// uncovered SL passes the turn to the next uncovered SL. The SL's VL
// pointer moves past the VL picked.
func (s *vlarb) Miss(heads []Head, i int) {
	d := s.decide(heads)
	if d.src == vlFree {
		s.lastFree = d.sl
	} else {
		t := &s.tables[d.src]
		t.cur, t.rem = d.entry, 0
	}
	s.lastVL[heads[i].SL] = heads[i].VL
}

// decide applies the rule without changing anything.
func (s *vlarb) decide(heads []Head) vlarbDecision {
	active := activeSLs(heads)
	high := active&s.tables[vlHigh].covers != 0
	low := active&s.tables[vlLow].covers != 0
	d := vlarbDecision{src: vlFree, entry: -1}
	switch {
	case high && !(low && s.limitReached()):
		d.src = vlHigh
	case low:
		d.src = vlLow
	}
	if d.src == vlFree {
		d.sl = s.nextFree(active)
	} else {
		t := &s.tables[d.src]
		if t.cur >= 0 && t.rem > 0 && active.has(t.entries[t.cur].SL) {
			d.entry = t.cur
		} else {
			d.entry, d.newTurn = t.next(active), true
		}
		d.sl = t.entries[d.entry].SL
	}
	d.idx = slHeadAfter(heads, d.sl, s.lastVL[d.sl], s.numVLs)
	return d
}

// limitReached: the high table has sent its limit in a row (at least one
// packet), so the low table has the next packet if it has a head offered.
func (s *vlarb) limitReached() bool {
	return s.limit != VLArbUnlimited && s.highRun > 0 && s.highRun >= s.limit
}

// next is the first entry after cur, circularly (cur itself last), of
// weight above 0 whose SL is in active; -1 if there is none.
func (t *vlTable) next(active slSet) int {
	n := len(t.entries)
	for k := 1; k <= n; k++ {
		e := (t.cur + k) % n
		if en := t.entries[e]; en.Weight > 0 && active.has(en.SL) {
			return e
		}
	}
	return -1
}

// nextFree is the first SL of active after lastFree, circularly (lastFree
// itself last).
func (s *vlarb) nextFree(active slSet) int {
	n := len(s.lastVL)
	for k := 1; k <= n; k++ {
		if sl := (s.lastFree + k) % n; active.has(sl) {
			return sl
		}
	}
	return -1
}

package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
)

// TestDecisionCyclesNIC: a 40-flit message queued at 10 on NIC 0 is three
// packets of 16, 16 and 8 flits on VL 0 (TestNICSegmentation). With a
// decision of D cycles (decision.go):
//
//   - D = 1: sent at 10, 26, 42 as before; no idle cycle.
//   - D = 10 (shorter than a 16-flit packet): the first decision starts at
//     10 and completes at 19, the link idle meanwhile (9 cycles); the next
//     starts at max(35 − 9, 20) = 26 and completes at 35, when the link
//     frees; the third at max(51 − 9, 36) = 42, complete at 51. Sent at
//     19, 35, 51; 9 idle cycles.
//   - D = 24 (longer than a packet): 10 → 33; the next starts the cycle
//     after, 34 (max(49 − 23, 34)), and completes at 57 while the link is
//     free from 49 (8 idle cycles); the third starts at 58, completes at
//     81, the link free from 73 (8 more). Sent at 33, 57, 81; 23 + 8 + 8 =
//     39 idle cycles.
func TestDecisionCyclesNIC(t *testing.T) {
	for _, tc := range []struct {
		d    int
		at   [3]clock.Cycle
		idle int64
	}{
		{1, [3]clock.Cycle{10, 26, 42}, 0},
		{10, [3]clock.Cycle{19, 35, 51}, 9},
		{24, [3]clock.Cycle{33, 57, 81}, 39},
	} {
		n := benchNIC(t, func(c *Config) { c.QoS.DecisionCycles = tc.d })
		n.enqueue(message(1, 0, 5, 40), 10)
		n.at(10, nicSend)
		got := drive(n, 1000)
		expectSent(t, got, []sent{toSwitch(tc.at[0], 2, 0, 16), toSwitch(tc.at[1], 3, 0, 16), toSwitch(tc.at[2], 4, 0, 8)})
		if n.dec.IdleCycles != tc.idle || n.Decisions != 3 || n.WastedDecisions != 0 {
			t.Errorf("D = %d: %d idle cycles, %d decisions (%d wasted); want %d, 3 (0)", tc.d, n.dec.IdleCycles, n.Decisions, n.WastedDecisions, tc.idle)
		}
	}
}

// TestDecisionCyclesStaleHead: a decision completes on the heads of its
// start; a head that is no longer eligible when it completes (here its VL
// is gone from the heads: something else than the port took it) makes it
// a wasted decision, counted with its idle cycles: the link is free from
// 0, the decision runs 5..8 and is wasted at 8, so 8 − 5 + 1 = 4 idle
// cycles. The next one may start at 9.
func TestDecisionCyclesStaleHead(t *testing.T) {
	p := benchParams(t, func(c *Config) { c.QoS.DecisionCycles = 4 })
	u := newDecisionUnit(p.decisionCycles, p.vls)
	s := p.newScheduler()
	heads := []sched.Head{{VL: 0, SC: 0, SL: 0, Credits: 4, Eligible: true}}
	if due := u.due(0); due != 0 {
		t.Fatalf("a new unit with the link free from 0: next decision due at %d; want 0", due)
	}
	if _, _, ok := u.step(p, s, heads, 5, 0); ok || u.due(0) != 8 {
		t.Fatalf("a decision of 4 cycles started at 5 completed at once, or is due at %d; want 8", u.due(0))
	}
	h, hit, ok := u.step(p, s, []sched.Head{{VL: 1, SC: 1, SL: 0, Credits: 4, Eligible: true}}, 8, 0)
	if !ok || hit || h.VL != 0 {
		t.Errorf("completion at 8: head VL %d, hit %t, complete %t; want VL 0, wasted, complete", h.VL, hit, ok)
	}
	if u.IdleCycles != 4 || u.due(0) != 9 {
		t.Errorf("%d idle cycles, next decision due at %d; want 4, 9", u.IdleCycles, u.due(0))
	}
}

package sched

import (
	"slices"
	"testing"
)

// TestWRRTrace: wrr on traceConfig (weights A 2, B 1, C 1 packets; A on
// VL0/VL1, B on VL2, C on VL3). State is written as turn SL/packets sent.
func TestWRRTrace(t *testing.T) {
	runTrace(t, "wrr", []traceStep{
		{all4, 0},           // first turn: A, its first VL -> A/1
		{all4, 1},           // A has 1 of 2 left, its next VL -> A/2
		{all4, 2},           // A's turn is spent: B -> B/1
		{all4, 3},           // B's spent: C -> C/1
		{all4, 0},           // A, its VL after VL1 -> A/1
		{[]int{1, 2, 3}, 1}, // A goes on -> A/2
		{[]int{0, 1, 3}, 3}, // A spent; B not offered: C -> C/1
		{[]int{0, 2}, 0},    // C spent (and not offered): A -> A/1
		{[]int{2, 3}, 2},    // A not offered: its turn ends, its second packet lost; B -> B/1
		{[]int{0, 1, 2}, 1}, // B spent; C not offered: A, its VL after VL0 -> A/1
		{[]int{0}, 0},       // A goes on -> A/2
		{[]int{0}, 0},       // A spent but alone: a new turn of A -> A/1
		{all4, 1},           // A goes on -> A/2
		{all4, 2},           // B -> B/1
	})
}

// TestWRRShares: with every SL backlogged on one VL per SC, a round is
// 10+30+50+5+5 = 100 packets, so 100,000 decisions are exactly 1,000 rounds
// and each SL gets weight × 1,000 packets, exactly.
//
// With VO sending one packet every 101 decisions, VO is served within the
// round it arrives in (a round without VO is 90 packets), so it sends all
// of its ceil(100,000/101) = 991 packets, and the other four share the rest
// in proportion 30:50:5:5: each within its weight (one partial round) of
// weight/90 of what they sent together.
func TestWRRShares(t *testing.T) {
	cfg := dedicatedConfig()
	l := newLink(t, "wrr", cfg)
	l.run(backlogged(cfg), shareDecisions)
	if want := []int{10000, 30000, 50000, 5000, 5000}; !slices.Equal(l.sent, want) {
		t.Errorf("all backlogged: sent %v, want %v", l.sent, want)
	}
	l = newLink(t, "wrr", cfg)
	l.run([]source{{0, 101, 0}, {sl: 1}, {sl: 2}, {sl: 3}, {sl: 4}}, shareDecisions)
	if want := (shareDecisions + 100) / 101; l.sent[0] != want {
		t.Errorf("VO sent %d, want %d (every packet it offered)", l.sent[0], want)
	}
	rest := shareDecisions - l.sent[0]
	for sl := 1; sl < len(cfg.SLs); sl++ {
		w := cfg.SLs[sl].SBTWeight
		want := float64(rest*w) / 90
		if got := float64(l.sent[sl]); got < want-float64(w) || got > want+float64(w) {
			t.Errorf("%s sent %.0f, want %.1f ± %d", cfg.SLs[sl].Name, got, want, w)
		}
	}
}

// TestWRRMiss: traceConfig, every SC backlogged, VL0 blocked at cycle 0.
// In table_feedback the miss ends A's turn uncounted and B's turn starts;
// in the table view the miss counts as A's first packet and A goes on.
func TestWRRMiss(t *testing.T) {
	for _, tc := range []struct {
		feedback bool
		want     []string
	}{
		{true, []string{"xVL0", "VL2", "VL3", "VL1", "VL0", "VL2"}},
		{false, []string{"xVL0", "VL1", "VL2", "VL3", "VL0", "VL1"}},
	} {
		cfg := traceConfig()
		l := newLink(t, "wrr", cfg)
		l.table, l.feedback, l.record = true, tc.feedback, true
		l.blocked = func(vl, c int) bool { return vl == 0 && c == 0 }
		l.run(backlogged(cfg), len(tc.want))
		if !slices.Equal(l.log, tc.want) {
			t.Errorf("feedback %v:\n got %v\nwant %v", tc.feedback, l.log, tc.want)
		}
	}
}

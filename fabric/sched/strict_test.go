package sched

import (
	"slices"
	"testing"
)

// TestStrictTrace: strict priority on traceConfig (A on VL0/VL1, B on VL2,
// C on VL3): the lowest SL offered sends; A alternates its two VLs.
func TestStrictTrace(t *testing.T) {
	runTrace(t, "strict", []traceStep{
		{all4, 0},           // A is the highest SL offered; its first VL
		{all4, 1},           // A again, its VL after VL0
		{all4, 0},           // A again: B and C wait
		{[]int{1, 2, 3}, 1}, // A's only head
		{[]int{2, 3}, 2},    // A not offered: B before C
		{[]int{3}, 3},       // only C
		{[]int{0, 3}, 0},    // A (its VL1 is not offered) before C
		{[]int{2, 3}, 2},    // B before C
		{[]int{1, 3}, 1},    // A's VL1
		{all4, 0},           // A, its VL after VL1
	})
}

// TestStrictStarves: the starvation strict priority allows is visible.
// With every SL backlogged, VO (SL 0) takes every one of 100,000
// decisions. With VO sending one packet every 4 decisions and VI
// backlogged, VO gets exactly its 25,000 packets, VI the other 75,000, and
// CL, BE and BK, backlogged all along, nothing.
func TestStrictStarves(t *testing.T) {
	cfg := dedicatedConfig()
	l := newLink(t, "strict", cfg)
	l.run(backlogged(cfg), shareDecisions)
	if want := []int{shareDecisions, 0, 0, 0, 0}; !slices.Equal(l.sent, want) {
		t.Errorf("all backlogged: sent %v, want %v", l.sent, want)
	}
	l = newLink(t, "strict", cfg)
	const vo, vi, cl, be, bk = 0, 1, 2, 3, 4
	l.run([]source{{vo, 4, 0}, {sl: vi}, {sl: cl}, {sl: be}, {sl: bk}}, shareDecisions)
	if want := []int{shareDecisions / 4, 3 * shareDecisions / 4, 0, 0, 0}; !slices.Equal(l.sent, want) {
		t.Errorf("VO every 4th decision, the rest backlogged: sent %v, want %v", l.sent, want)
	}
}

// TestStrictMiss: traceConfig, every SC backlogged, VL0 blocked for cycles
// 0-2. Strict priority's Miss is its Commit: A keeps the link, alternating
// its VLs, so the table views waste every other cycle while VL0 is blocked
// and B and C starve; the eligible view sends VL1 until VL0 comes back.
func TestStrictMiss(t *testing.T) {
	for _, tc := range []struct {
		table, feedback bool
		want            []string
	}{
		{true, true, []string{"xVL0", "VL1", "xVL0", "VL1", "VL0", "VL1", "VL0"}},
		{true, false, []string{"xVL0", "VL1", "xVL0", "VL1", "VL0", "VL1", "VL0"}},
		{false, false, []string{"VL1", "VL1", "VL1", "VL0", "VL1", "VL0", "VL1"}},
	} {
		cfg := traceConfig()
		l := newLink(t, "strict", cfg)
		l.table, l.feedback, l.record = tc.table, tc.feedback, true
		l.blocked = func(vl, c int) bool { return vl == 0 && c < 3 }
		l.run(backlogged(cfg), len(tc.want))
		if !slices.Equal(l.log, tc.want) {
			t.Errorf("table %v feedback %v:\n got %v\nwant %v", tc.table, tc.feedback, l.log, tc.want)
		}
	}
}

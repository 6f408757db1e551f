package main

import (
	"strings"
	"testing"
	"time"
)

// TestProjection: hand-computed projections from made-up window costs.
func TestProjection(t *testing.T) {
	ms := time.Millisecond
	// Two windows: 8 ms of groups with a largest of 1 ms, and 2 ms with a
	// largest of 1.5 ms.
	m := &projector{windows: []windowCost{{8 * ms, 1 * ms}, {2 * ms, 1500 * time.Microsecond}}}
	for _, c := range []struct {
		workers int
		want    time.Duration
	}{
		{1, 10 * ms},                       // 8 + 2
		{2, 4*ms + 1500*time.Microsecond},  // max(4, 1) + max(1, 1.5)
		{4, 2*ms + 1500*time.Microsecond},  // max(2, 1) + max(0.5, 1.5)
		{16, 1*ms + 1500*time.Microsecond}, // the largest groups bound it
	} {
		if got := m.ideal(c.workers); got != c.want {
			t.Errorf("ideal(%d) = %v, want %v", c.workers, got, c.want)
		}
	}
	// Measured: 10.2 ms on one worker (0.1 ms per window over the ideal),
	// 5.9 ms on two (0.2 ms per window over 5.5).
	one := &projector{windows: m.windows}
	pr := newProjection(one, 10200*time.Microsecond, m, 5900*time.Microsecond, 2, 3*ms, 20*ms)
	if pr.over1 != 100*time.Microsecond || pr.overm != 200*time.Microsecond {
		t.Fatalf("overheads %v, %v; want 100µs, 200µs", pr.over1, pr.overm)
	}
	// 4 workers: setup 3 + ideal 3.5 + 2 windows x (0.1 + 3 x 0.1) = 7.3 ms.
	if got := pr.total(4); got != 7300*time.Microsecond {
		t.Errorf("total(4) = %v, want 7.3ms", got)
	}
	var b strings.Builder
	pr.print(&b)
	if !strings.Contains(b.String(), "4 workers 0.01 s (2.74x sequential at 1)") {
		t.Errorf("printed %q", b.String())
	}
}

package sched

import (
	"math"
	"testing"
)

const shareDecisions = 100000

// TestRRShares: per-VL round-robin (rr_vl, seed 002) gives each backlogged
// VL the same packet share, 10% of 10 VLs, and so 20% to each SL owning two
// VLs. Tolerance: ±0.1 points (the exact answer is 10000 packets per VL).
func TestRRShares(t *testing.T) {
	cfg := dedicatedConfig()
	l := newLink(t, "rr_vl", cfg)
	perVL := make([]int, cfg.NumVLs)
	countVL := &countingScheduler{Scheduler: l.s, perVL: perVL}
	l.s = countVL
	l.run(backlogged(cfg), shareDecisions)
	for vl := range perVL {
		if got := percent(perVL, vl); math.Abs(got-10) > 0.1 {
			t.Errorf("VL%d: %.3f%% of packets, want 10 ± 0.1", vl, got)
		}
	}
	for sl := range cfg.SLs {
		if got := percent(l.sent, sl); math.Abs(got-20) > 0.1 {
			t.Errorf("%s: %.3f%% of packets, want 20 ± 0.1", cfg.SLs[sl].Name, got)
		}
	}
}

// TestRRSLShares: rr (seed 000 section 3.1) gives every backlogged SL the
// same packet share even when SLs share VLs (Table 7: BE and BK on VL6 and
// VL7): 20% each, ±0.1 points.
func TestRRSLShares(t *testing.T) {
	cfg := paperConfig()
	l := newLink(t, "rr", cfg)
	l.run(backlogged(cfg), shareDecisions)
	for sl := range cfg.SLs {
		if got := percent(l.sent, sl); math.Abs(got-20) > 0.1 {
			t.Errorf("%s: %.3f%% of packets, want 20 ± 0.1", cfg.SLs[sl].Name, got)
		}
	}
}

// countingScheduler counts the packets committed per VL.
type countingScheduler struct {
	Scheduler
	perVL []int
}

func (c *countingScheduler) Commit(heads []Head, i int) {
	c.perVL[heads[i].VL]++
	c.Scheduler.Commit(heads, i)
}

// TestSBTShares: with every SL backlogged, both SBT rules give packet
// shares in proportion to the SBT weights 10/30/50/5/5 (seed 000 section
// 3.2). sbt_strict is exact (1000 full rounds of 100 packets): ±0.05 points.
// sbt (Algorithm 1) also sends one uncharged packet at each reset (lines
// 22-27), one packet in 101, which the VL walk hands to the SLs in turn:
// tolerance ±0.5 points (measured: CL 49.70%, VO 10.11%, BE and BK 5.15%).
func TestSBTShares(t *testing.T) {
	for _, tc := range []struct {
		name string
		tol  float64
	}{{"sbt", 0.5}, {"sbt_strict", 0.05}} {
		name, tol := tc.name, tc.tol
		t.Run(name, func(t *testing.T) {
			cfg := dedicatedConfig()
			l := newLink(t, name, cfg)
			l.run(backlogged(cfg), shareDecisions)
			total := 0
			for _, sl := range cfg.SLs {
				total += sl.SBTWeight
			}
			for i, sl := range cfg.SLs {
				want := 100 * float64(sl.SBTWeight) / float64(total)
				if got := percent(l.sent, i); math.Abs(got-want) > tol {
					t.Errorf("%s: %.3f%% of packets, want %.1f ± %.2f", sl.Name, got, want, tol)
				}
			}
		})
	}
}

// TestDTableShares: with every SL backlogged, DTable (seed 000 section 3.3)
// gives credit shares equal to the SL's part of the table weight, computed
// here from cfg.Table: 52/156/260/26/26 of 520, i.e. 10/30/50/5/5%.
// Tolerance ±1 point; in a long run the deficit counters make the shares
// exact up to one entry's weight.
func TestDTableShares(t *testing.T) {
	cfg := dedicatedConfig()
	l := newLink(t, "dtable", cfg)
	l.run(backlogged(cfg), shareDecisions)
	weight := make([]int, len(cfg.SLs))
	for _, e := range cfg.Table {
		weight[e.SL] += e.Weight
	}
	for i, sl := range cfg.SLs {
		want, got := percent(weight, i), percent(l.credits, i)
		if math.Abs(got-want) > 1 {
			t.Errorf("%s: %.3f%% of credits, want %.2f ± 1", sl.Name, got, want)
		}
	}
}

// TestDTableLatencyFollowsDistance: DTable's latency follows the distance
// between an SL's entries (seed 000 sections 3.3 and 4.2.2). VI and BK are
// backlogged; VO (entries 2 apart), CL (8 apart) and BE (16 apart) send one
// packet every 101, 103 and 107 decisions, so each packet finds its SL idle
// and waits for the table to reach one of its entries. The mean wait, in
// decisions from arrival to sending, must rank VO < CL < BE, each at least
// one decision apart.
func TestDTableLatencyFollowsDistance(t *testing.T) {
	cfg := dedicatedConfig()
	const vo, vi, cl, be, bk = 0, 1, 2, 3, 4
	l := newLink(t, "dtable", cfg)
	l.run([]source{{sl: vi}, {sl: bk}, {vo, 101, 0}, {cl, 103, 17}, {be, 107, 41}}, 200000)
	mean := func(sl int) float64 { return float64(l.waits[sl]) / float64(l.sent[sl]) }
	t.Logf("mean wait (decisions): VO %.2f, CL %.2f, BE %.2f", mean(vo), mean(cl), mean(be))
	if !(mean(vo)+1 <= mean(cl) && mean(cl)+1 <= mean(be)) {
		t.Errorf("mean waits VO %.2f, CL %.2f, BE %.2f: want VO < CL < BE by at least 1 decision each",
			mean(vo), mean(cl), mean(be))
	}
}

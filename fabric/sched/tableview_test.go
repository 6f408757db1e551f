package sched

import (
	"math"
	"slices"
	"testing"
)

// TestTableViewTraces: traceConfig with every SC backlogged (each of VL0-3
// always has a head) and VL0's head without credits for the first k cycles.
// In the table view the scheduler still walks VL0 (its SL A is active), so
// when it points at VL0 the cycle is wasted and its state moves as the
// algorithm says; in the eligible view VL0 is invisible and nothing is
// wasted. "VLn": sent; "xVLn": picked VLn, which could not send (wasted).
// State is written as weights [A B C] for SBT, acc/deficit/entry for DTable.
func TestTableViewTraces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k      int
		table  []string // one per cycle
		wasted []int    // cycles wasted in the table view
		elig   []string // the same cycles in the eligible view
	}{
		{"sbt", 3, []string{
			"xVL0", // walk from VL0: A has 2, VL0 picked, cannot send: A charged -> [1 1 1], last_vl_selec 0
			"xVL0", // walk starts AT VL0 again: A has 1 -> [0 1 1], wasted again
			"VL2",  // VL0, VL1 (A) exhausted; VL2 B -> [0 0 1]
			"VL3",  // from VL2: B exhausted; C -> [0 0 0]
			"VL2",  // from VL3: 3,0,1,2 all exhausted, every entry active: reset [2 1 1], VL2 uncharged
			"VL2",  // from VL2: B -> [2 0 1]
			"VL3",  // B empty; C -> [2 0 0]
			"VL0",  // from VL3: C empty; VL0 A (credits back since cycle 3) -> [1 0 0]
			"VL0",  // A -> [0 0 0]
			"VL3",  // from VL0: 0,1,2,3 all exhausted: reset, the last one met (VL3) uncharged
		}, []int{0, 1}, []string{
			"VL1", // VL0 invisible: first head at or after VL0 is VL1, A -> [1 1 1]
			"VL1", // A -> [0 1 1]
			"VL2", // B -> [0 0 1]
			"VL3", // C -> [0 0 0]
			"VL2", // reset, VL2 uncharged
			"VL2", "VL3", "VL0", "VL0", "VL3",
		}},
		{"rr", 7, []string{
			"xVL0", // lastSL -1: A, from VL0: VL0 cannot send; lastSL A, A's next VL is VL1
			"VL2",  // after A: B
			"VL3",  // after B: C
			"VL1",  // A from VL1
			"VL2",  // B
			"VL3",  // C
			"xVL0", // A: from VL2 on VL0 comes first; still blocked (cycle 6 < 7)
			"VL2", "VL3",
			"VL1", // A from VL1
			"VL2", "VL3",
			"VL0", // A from VL2 on: VL0, sendable again
		}, []int{0, 6}, []string{
			"VL1", // VL0 invisible: A's only head
			"VL2", "VL3", "VL1", "VL2", "VL3", "VL1", "VL2", "VL3",
			"VL0", // A from VL2 on: VL0, visible again since cycle 7
			"VL2", "VL3", "VL1",
		}},
		{"dtable", 4, []string{
			"xVL0", // e0 (A,2): acc 0+2-1 = 1; A's SC0 is on VL0, which cannot send; A's SC pointer moves to SC1
			"VL1",  // A goes on (acc 1 >= MTU 1): acc 0, SC1/VL1
			"VL2",  // 0 < 1: def[A]=0; e1 (B,3): acc 0+3-2 = 1
			"xVL0", // 1 < 2: def[B]=1; e2 (A,1): acc 0+1-1 = 0; SC0/VL0, still blocked: wasted
			"VL3",  // def[A]=0; e3 (C,2): acc 0+2-3 = -1
			"VL1",  // def[C]=-1; e0 (A,2): acc 1, SC1/VL1
			"VL0",  // A goes on: acc 0, SC0/VL0, sendable since cycle 4
			"VL2",  // def[A]=0; e1 (B,3): acc def[B] 1+3-2 = 2
			"VL2",  // B goes on (2 >= 2): acc 0
			"VL1",  // def[B]=0; e2 (A,1): acc 0, SC1/VL1
		}, []int{0, 3}, []string{
			"VL1", // e0: A's SC0/VL0 has no visible head, SC1/VL1
			"VL1", // A goes on; SC0/VL0 invisible again, SC1/VL1
			"VL2", // e1 (B,3): acc 1
			"VL1", // e2 (A,1): VL0 still invisible at cycle 3
			"VL3", // e3 (C,2)
			"VL0", // e0 (A,2): A's pointer is at SC0, VL0 visible again
			"VL1", // A goes on: SC1/VL1
			"VL2", "VL2",
			"VL0", // e2 (A,1): SC0/VL0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, table := range []bool{true, false} {
				cfg := traceConfig()
				l := newLink(t, tc.name, cfg)
				l.table, l.record = table, true
				l.blocked = func(vl, cycle int) bool { return vl == 0 && cycle < tc.k }
				want, wantWasted := tc.table, tc.wasted
				if !table {
					want, wantWasted = tc.elig, nil
				}
				l.run(backlogged(cfg), len(want))
				if !slices.Equal(l.log, want) {
					t.Errorf("table view %v:\n got %v\nwant %v", table, l.log, want)
				}
				var wasted []int
				for c, s := range l.log {
					if s[0] == 'x' {
						wasted = append(wasted, c)
					}
				}
				if !slices.Equal(wasted, wantWasted) || l.wasted != len(wantWasted) {
					t.Errorf("table view %v: wasted cycles %v (%d), want %v", table, wasted, l.wasted, wantWasted)
				}
			}
		})
	}
}

// TestRRBurstShares: rr_burst (SBT with equal weights, 20 each for 5 SLs)
// gives every backlogged SL 20% of the packets, like rr, but in bursts: the
// first 100 decisions are 20 packets from VL0 (VO), then 20 from VL2 (VI),
// VL4 (CL), VL6 (BE) and VL8 (BK), where rr sends VL0, VL2, VL4, VL6, VL8
// one packet each. Tolerance ±0.1 point: one packet in 101 goes uncharged
// at each reset, handed out by the VL walk (measured: VO 20.01%, the
// others 20.00%).
func TestRRBurstShares(t *testing.T) {
	cfg := dedicatedConfig()
	for _, name := range []string{"rr_burst", "rr"} {
		l := newLink(t, name, cfg)
		l.record = true
		l.run(backlogged(cfg), shareDecisions)
		for sl := range cfg.SLs {
			if got := percent(l.sent, sl); math.Abs(got-20) > 0.1 {
				t.Errorf("%s: %s: %.3f%% of packets, want 20 ± 0.1", name, cfg.SLs[sl].Name, got)
			}
		}
		burst := 1
		if name == "rr_burst" {
			burst = 20
		}
		for d := 0; d < 5*burst; d++ {
			if want := "VL" + string(rune('0'+2*(d/burst))); l.log[d] != want {
				t.Fatalf("%s: decision %d sent %s, want %s (bursts of %d)", name, d, l.log[d], want, burst)
			}
		}
	}
	if w := RRBurstWeight(5); w != 20 {
		t.Errorf("RRBurstWeight(5) = %d, want 20", w)
	}
	if w := RRBurstWeight(3); w != 33 {
		t.Errorf("RRBurstWeight(3) = %d, want 33 (rounded down; 99 in all)", w)
	}
}

// TestRRBurstIgnoresConfiguredWeights: rr_burst uses equal weights whatever
// SBTWeight says (paperConfig's are 10/30/50/5/5).
func TestRRBurstIgnoresConfiguredWeights(t *testing.T) {
	cfg := dedicatedConfig()
	a := newLink(t, "rr_burst", cfg)
	a.run(backlogged(cfg), 5000)
	for i := range cfg.SLs {
		cfg.SLs[i].SBTWeight = 20
	}
	b := newLink(t, "sbt", cfg)
	b.run(backlogged(cfg), 5000)
	if !slices.Equal(a.sent, b.sent) {
		t.Errorf("rr_burst sent %v, sbt with weights 20 sent %v", a.sent, b.sent)
	}
}

// TestTableFeedbackTraces: the table_feedback view on traceConfig with every
// SC backlogged. As in TestTableViewTraces the scheduler walks blocked heads
// too, but a pick that cannot send calls Miss, not Commit: the scheduler
// learns that the pick failed. "VLn": sent; "xVLn": picked VLn, which could
// not send (wasted). State: weights [A B C] and last_vl_selec (lv) for SBT;
// acc, deficit[A B C] and entry for DTable.
func TestTableFeedbackTraces(t *testing.T) {
	for _, tc := range []struct {
		name    string
		blocked func(vl, cycle int) bool
		want    []string // one per cycle
		wasted  []int
	}{
		// SBT: a miss neither charges nor resets; last_vl_selec moves past
		// the VL. When the blocked VL's SL is the only one with weight left,
		// the walk comes back to it every cycle while it is blocked (cycles
		// 4-6; under the same blocking the table view wastes cycles 0, 1
		// and 6, its one miss of VL3 charging C's only packet of weight).
		{"sbt", func(vl, c int) bool { return vl == 0 && c < 3 || vl == 3 && c >= 4 && c <= 6 }, []string{
			"xVL0", // walk from VL0: A has 2, VL0 blocked: Miss, no charge, lv 1 -> [2 1 1]
			"VL1",  // walk from VL1: A -> [1 1 1], lv 1
			"VL1",  // A -> [0 1 1]
			"VL2",  // VL1 (A) exhausted; VL2 B -> [0 0 1], lv 2
			"xVL3", // B exhausted; VL3 C has 1, blocked: Miss, lv 4 (wraps to VL0)
			"xVL3", // from VL0: A, A, B exhausted; VL3 C has weight: picked again, blocked
			"xVL3", // the same
			"VL3",  // VL3 free again: C -> [0 0 0], lv 3
			"VL2",  // from VL3: every entry active and exhausted: reset [2 1 1], the last met (VL2) uncharged
			"VL2",  // from VL2: B -> [2 0 1]
			"VL3",  // B empty; C -> [2 0 0]
			"VL0",  // from VL3: C empty; VL0 A -> [1 0 0]
		}, []int{0, 4, 5, 6}},
		// DTable: a miss takes the entry (lines 9-25, the previous SL's
		// deficit is saved), then drops it as if its SL were inactive (lines
		// 10-13): acc 0, the SL's deficit 0, no SL selected, so the next
		// decision serves the next entry; the SC pointer moves on.
		{"dtable", func(vl, c int) bool { return vl == 0 && c < 4 || vl == 2 && c == 6 }, []string{
			"xVL0", // e0 (A,2): acc 0+2-1; A's SC0/VL0 blocked: Miss: acc 0, def[A] 0, no SL; A's SC pointer -> SC1
			"VL2",  // line 19 from e0: e1 (B,3): acc 0+3-2 = 1
			"VL1",  // 1 < 2: def[B] 1; e2 (A,1): acc 0+1-1 = 0, SC1/VL1
			"VL3",  // def[A] 0; e3 (C,2): acc 0+2-3 = -1
			"VL0",  // def[C] -1; e0 (A,2): acc 1, SC0/VL0 (free since cycle 4)
			"VL1",  // A goes on: acc 0, SC1/VL1
			"xVL2", // def[A] 0; e1 (B,3): acc def[B] 1+3-2 = 2; VL2 blocked: Miss: B's deficit 1 is lost, acc 0
			"VL0",  // line 19 from e1: e2 (A,1): acc 0, SC0/VL0 (the table view would send B again here)
			"VL3",  // def[A] 0; e3 (C,2): acc -1+2-3 = -2
			"VL1",  // def[C] -2; e0 (A,2): acc 1, SC1/VL1
			"VL0",  // A goes on: acc 0, SC0/VL0
			"VL2",  // def[A] 0; e1 (B,3): acc 0+3-2 = 1: one message, where the kept deficit would have given two
			"VL1",  // def[B] 1; e2 (A,1): acc 0, SC1/VL1
			"VL3",  // def[A] 0; e3 (C,2): acc -2+2-3 = -3
			"VL0",  // def[C] -3; e0 (A,2): acc 1, SC0/VL0
		}, []int{0, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := traceConfig()
			l := newLink(t, tc.name, cfg)
			l.table, l.feedback, l.record, l.blocked = true, true, true, tc.blocked
			l.run(backlogged(cfg), len(tc.want))
			if !slices.Equal(l.log, tc.want) {
				t.Errorf("table_feedback view:\n got %v\nwant %v", l.log, tc.want)
			}
			var wasted []int
			for c, s := range l.log {
				if s[0] == 'x' {
					wasted = append(wasted, c)
				}
			}
			if !slices.Equal(wasted, tc.wasted) || l.wasted != len(tc.wasted) {
				t.Errorf("wasted cycles %v (%d), want %v", wasted, l.wasted, tc.wasted)
			}
		})
	}
}

// TestTableFeedbackRoundRobin: rr and rr_vl have nothing to spare a failed
// pick (their Miss is their Commit), so table_feedback makes exactly the
// decisions of the table view, wasted ones included.
func TestTableFeedbackRoundRobin(t *testing.T) {
	blocked := func(vl, c int) bool { return vl == 0 && c < 7 || vl == 2 && c%5 == 1 }
	for _, name := range []string{"rr", "rr_vl"} {
		var logs [2][]string
		for k, feedback := range []bool{false, true} {
			cfg := traceConfig()
			l := newLink(t, name, cfg)
			l.table, l.feedback, l.record, l.blocked = true, feedback, true, blocked
			l.run(backlogged(cfg), 40)
			if l.wasted == 0 {
				t.Fatalf("%s: no wasted decision: the case tests nothing", name)
			}
			logs[k] = l.log
		}
		if !slices.Equal(logs[0], logs[1]) {
			t.Errorf("%s: table view %v\ntable_feedback %v", name, logs[0], logs[1])
		}
	}
}

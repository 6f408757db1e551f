package sched

import (
	"math"
	"testing"

	"github.com/opasim/opasim/fabric/qos"
)

// dscTraceConfig: SL A owns SC0 (VL0) and SC1 (VL1), SL B owns SC2 (VL2);
// table (A,5) (B,3) (A,1). Heads of SC0 are 1 credit, SC1 3, SC2 2
// (dscCredits), so A's SCs send packets of different sizes.
func dscTraceConfig() Config {
	return Config{
		NumVLs: 3,
		SLs:    []SL{{Name: "A", MTUCredits: 3}, {Name: "B", MTUCredits: 2}},
		Tables: qos.NewTables([][]int{{0, 1}, {2}}, []int{0, 1, 2}),
		Table:  []Entry{{0, 5}, {1, 3}, {0, 1}},
	}
}

var dscCredits = []int{1, 3, 2}

// TestDTableSCTrace replays a sequence worked out by hand. State: weights
// [SC0 SC1 | SC2], SC pointer sn and remainder pointer rn of A (indices
// into A's SCs), both starting at 0.
func TestDTableSCTrace(t *testing.T) {
	cfg := dscTraceConfig()
	all := []int{0, 1, 2}
	steps := []traceStep{
		{all, 0},            // 1: e0 (A,5): k=2, 2 each + 1 to SC0 (rn 0->1): [3 2]; sn 0: SC0 3>=1 -> [2 2], sn 1
		{all, 0},            // 2: A goes on: SC1 2<3, SC0 2>=1 -> [1 2]
		{all, 0},            // 3: SC1 2<3, SC0 -> [0 2]
		{all, 2},            // 4: no SC covers: A leaves, weights kept; e1 (B,3): SC2 3>=2 -> 1
		{all, 1},            // 5: 1<2, B leaves; e2 (A,1): 0 each + 1 to SC1 (rn 1->0): [0 3]; sn 1: SC1 -> [0 0], sn 0
		{all, 0},            // 6: A leaves; e0 (A,5): +1 to SC0 (rn 0->1): [3 2]; SC0 -> [2 2], sn 1
		{all, 0},            // 7: [1 2]
		{all, 0},            // 8: [0 2]
		{all, 2},            // 9: A leaves; e1 (B,3): SC2 1+3=4 -> 2
		{all, 2},            // 10: B goes on (2>=2) -> 0
		{all, 1},            // 11: B leaves; e2 (A,1): +1 to SC1 (rn 1->0): [0 3]; SC1 -> [0 0], sn 0
		{[]int{1, 2}, 1},    // 12: A active (SC1) but 0<3: leaves; e0 (A,5): k=1, SC0 has no head: [0 5]; SC1 -> [0 2], sn 0
		{[]int{2}, 2},       // 13: A has no head: [0 0] dropped; e1 (B,3): SC2 0+3 -> 1
		{[]int{0, 2}, 0},    // 14: 1<2, B leaves (keeps 1); e2 (A,1): k=1, SC1 reset: [1 0]; SC0 -> [0 0], sn 1
		{[]int{0, 2}, 0},    // 15: A leaves; next active entry e0 (A,5): [5 0]; SC0 -> [4 0], sn 1
		{[]int{1, 2}, 2},    // 16: SC1 0<3: A leaves (keeps [4 0]); e1 (B,3): SC2 1+3=4 -> 2
		{[]int{1, 2}, 2},    // 17: B goes on -> 0
		{[]int{1, 2}, 1},    // 18: B leaves; e2 (A,1): k=1, SC0 reset: [0 1]; 1<3, first message anyway: [0 -2], sn 0
		{[]int{1, 2}, 1},    // 19: -2<3, A leaves; e0 (A,5): [0 3]; SC1 -> [0 0], sn 0
		{all, 2},            // 20: A leaves; e1 (B,3): SC2 0+3 -> 1
		{all, 0},            // 21: B leaves; e2 (A,1): 0 each + 1 to SC0 (rn 0->1): [1 0]; SC0 -> [0 0], sn 1
		{all, 1},            // 22: A leaves; e0 (A,5): +1 to SC1 (rn 1->0): [2 3]; sn 1: SC1 -> [2 0], sn 0
		{all, 0},            // 23: SC0 -> [1 0], sn 1
		{all, 0},            // 24: SC1 0<3, SC0 -> [0 0]
		{[]int{0, 1, 2}, 2}, // 25: A leaves; e1 (B,3): SC2 1+3=4 -> 2
	}
	s, err := Default().New("dtable_sc", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for n, st := range steps {
		heads := make([]Head, len(st.vls))
		for i, vl := range st.vls {
			heads[i] = Head{VL: vl, SC: vl, SL: cfg.SC2SL[vl], Credits: dscCredits[vl]}
		}
		i := s.Pick(heads)
		if got := heads[i].VL; got != st.want {
			t.Fatalf("step %d, heads %v: sent VL%d, want VL%d", n+1, st.vls, got, st.want)
		}
		s.Commit(heads, i)
	}
}

// TestDTableSCIsDTableWithOneSC: with one SC per SL and heads of SL_MTU
// credits there is nothing to divide, and dtable_sc makes dtable's
// decisions, with Commit only and with a third of the decisions missed.
func TestDTableSCIsDTableWithOneSC(t *testing.T) {
	cfg := paperConfig()
	cfg.NumVLs = 5
	cfg.Tables = qos.NewTables([][]int{{0}, {1}, {2}, {3}, {4}}, []int{0, 1, 2, 3, 4})
	for _, seed := range []uint64{1, 2} {
		seq := randomHeads(cfg, 20000, seed)
		for _, missed := range [][]bool{nil, randomMisses(len(seq), seed)} {
			var picks [2][]int
			for k, name := range []string{"dtable", "dtable_sc"} {
				p, err := driveMiss(func() (Scheduler, error) { return Default().New(name, cfg) }, seq, false, missed)
				if err != nil {
					t.Fatal(err)
				}
				picks[k] = p
			}
			if d := firstDiff(picks[0], picks[1]); d >= 0 {
				t.Fatalf("seed %d, misses %v: decision %d: dtable VL%d, dtable_sc VL%d", seed, missed != nil, d, picks[0][d], picks[1][d])
			}
		}
	}
}

// TestDTableSCShares: SL A owns SC0 (1-credit packets) and SC1 (8-credit
// packets), SL B owns SC2 (8-credit packets), MTU 8; table (A,13) (B,8);
// every SC backlogged.
//
// dtable charges SL_MTU = 8 per message and alternates A's SCs message by
// message, so SC0 and SC1 send the same number of packets: credits 1:8,
// SC0 1/9 = 11.1% of A's credits.
//
// dtable_sc gives each of A's SCs 13/2 credits per entry of A (6 and 7 in
// turn) and charges the packet's credits: 13 credits each per two entries,
// credits 1:1 (each SC 50% of A's), and B 8 of every 21 credits (38.1%).
// Tolerance: 2% of each expected ratio, and 0.5 points for B's share.
func TestDTableSCShares(t *testing.T) {
	cfg := Config{
		NumVLs: 3,
		SLs:    []SL{{Name: "A", MTUCredits: 8}, {Name: "B", MTUCredits: 8}},
		Tables: qos.NewTables([][]int{{0, 1}, {2}}, []int{0, 1, 2}),
		Table:  []Entry{{0, 13}, {1, 8}},
	}
	heads := []Head{{VL: 0, SC: 0, SL: 0, Credits: 1}, {VL: 1, SC: 1, SL: 0, Credits: 8}, {VL: 2, SC: 2, SL: 1, Credits: 8}}
	for _, tc := range []struct {
		name      string
		sc1PerSC0 float64 // credits of SC1 per credit of SC0
	}{{"dtable", 8}, {"dtable_sc", 1}} {
		s, err := Default().New(tc.name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		credits := make([]int, 3)
		for range shareDecisions {
			i, _ := Decide(s, heads)
			credits[heads[i].SC] += heads[i].Credits
		}
		ratio := float64(credits[1]) / float64(credits[0])
		t.Logf("%s: credits SC0 %d, SC1 %d, SC2 %d: SC1/SC0 %.4f", tc.name, credits[0], credits[1], credits[2], ratio)
		if math.Abs(ratio/tc.sc1PerSC0-1) > 0.02 {
			t.Errorf("%s: SC1/SC0 credits %.4f, want %.0f ± 2%%", tc.name, ratio, tc.sc1PerSC0)
		}
		if b := percent(credits, 2); tc.name == "dtable_sc" && math.Abs(b-100*8.0/21) > 0.5 {
			t.Errorf("%s: B %.3f%% of credits, want %.2f ± 0.5", tc.name, b, 100*8.0/21)
		}
	}
}

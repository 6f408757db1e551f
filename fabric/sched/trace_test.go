package sched

import (
	"testing"

	"github.com/opasim/opasim/fabric/qos"
)

// traceConfig is small enough to follow by hand: SL A owns SC0/SC1 on
// VL0/VL1, SL B owns SC2 on VL2, SL C owns SC3 on VL3. SBT weights 2/1/1
// packets; MTUs 1/2/3 credits; DTable entries (A,2) (B,3) (A,1) (C,2), so B
// keeps a deficit and C, whose entry is lighter than its MTU, runs into debt.
func traceConfig() Config {
	return Config{
		NumVLs: 4,
		SLs: []SL{
			{Name: "A", MTUCredits: 1, SBTWeight: 2},
			{Name: "B", MTUCredits: 2, SBTWeight: 1},
			{Name: "C", MTUCredits: 3, SBTWeight: 1},
		},
		Tables: qos.NewTables([][]int{{0, 1}, {2}, {3}}, []int{0, 1, 2, 3}),
		Table:  []Entry{{0, 2}, {1, 3}, {0, 1}, {2, 2}},
	}
}

// traceHeads builds the heads of the listed VLs (SC = VL in traceConfig).
// Credits is 1 on purpose: DTable must charge SL_MTU (Algorithm 2 line 26),
// not the size of the head packet.
func traceHeads(cfg Config, vls ...int) []Head {
	heads := make([]Head, len(vls))
	for i, vl := range vls {
		heads[i] = Head{VL: vl, SC: vl, SL: cfg.SC2SL[vl], Credits: 1}
	}
	return heads
}

type traceStep struct {
	vls  []int // eligible VLs
	want int   // VL sent
}

var all4 = []int{0, 1, 2, 3}

// TestTraces replays short decision sequences worked out by hand; the
// comment of each step is the reasoning. State is written as weights [A B C]
// for SBT and acc/deficit[A B C]/entry for DTable.
func TestTraces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []traceStep
	}{
		{"rr", []traceStep{
			{all4, 0},           // lastSL -1: A first, from VL0
			{all4, 2},           // after A: B (VL2)
			{all4, 3},           // after B: C (VL3)
			{all4, 1},           // after C: A again, its turn now starts at VL1
			{[]int{0, 1}, 0},    // only A: from VL2 on, VL0 comes before VL1
			{[]int{1, 2}, 2},    // after A: B
			{[]int{0, 3}, 3},    // after B: C before A
			{[]int{0, 1, 2}, 1}, // after C: A, from VL1
			{[]int{2, 3}, 2},    // after A: B before C
			{all4, 3},           // after B: C
		}},
		{"rr_vl", []traceStep{
			{all4, 0},           // last = -1: VL0 comes first
			{all4, 1},           // after 0
			{[]int{0, 2}, 2},    // after 1: 2 before 0
			{[]int{0, 1}, 0},    // after 2: 0 before 1
			{[]int{3}, 3},       // only VL3
			{[]int{1, 2, 3}, 1}, // after 3: 1
			{[]int{0, 3}, 3},    // after 1: 3 before 0
			{all4, 0},           // after 3: 0
			{[]int{2}, 2},       // only VL2
			{[]int{1, 3}, 3},    // after 2: 3 before 1
		}},
		{"sbt", []traceStep{
			{all4, 0},           // loop from VL0: A has 2 -> [1 1 1]
			{all4, 0},           // loop starts AT VL0 again -> [0 1 1]
			{all4, 2},           // VL0, VL1 exhausted; VL2 B -> [0 0 1]
			{all4, 3},           // from VL2: B exhausted; VL3 C -> [0 0 0]
			{all4, 2},           // from VL3: 3,0,1,2 all exhausted, last seen VL2; A,B,C all empty -> reset [2 1 1], VL2 uncharged
			{all4, 2},           // from VL2: B has 1 -> [2 0 1]
			{[]int{0, 1}, 0},    // no VL >= 2, wrap to VL0: A -> [1 0 1]
			{[]int{1, 2}, 1},    // from VL1: A -> [0 0 1]
			{[]int{0, 2}, 0},    // walk from VL1 (no head): VL2 B empty, VL0 A empty; C inactive, no reset: VL0 uncharged (two SLs active)
			{[]int{0, 2, 3}, 3}, // from VL0: A, B empty; VL3 C -> [0 0 0]
			{[]int{0, 2}, 2},    // wrap to VL0: A, B empty, C inactive: no reset, VL2 uncharged
			{all4, 1},           // from VL2: 2,3,0,1 all empty, every entry active -> reset [2 1 1], VL1 uncharged
			{all4, 1},           // from VL1: A has 2 -> [1 1 1]
		}},
		{"sbt_strict", []traceStep{
			{all4, 0},           // entry A, A's VLs from VL0 -> [1 1 1]
			{all4, 1},           // A again, its next VL -> [0 1 1], table moves to B
			{all4, 2},           // B -> [0 0 1], moves to C
			{all4, 3},           // C -> [0 0 0]: sum 0, restore [2 1 1], table at A
			{[]int{2, 3}, 2},    // A inactive: next active with weight is B -> [2 0 1]
			{[]int{2}, 2},       // B has 0 but is the only active SL: uncharged
			{[]int{0, 2}, 0},    // B has 0 and is not alone: A (VL0 after A's VL1) -> [1 0 1]
			{[]int{2, 3}, 3},    // A inactive; B has 0; C -> [1 0 0], table moves to A
			{[]int{2, 3}, 2},    // B, C active, both 0, A inactive holds 1: restore (departure), B -> [2 0 1]
			{[]int{0, 1, 3}, 3}, // table at C after B emptied: C -> [2 0 0]
			{[]int{0, 1, 3}, 1}, // C empty: A, its VL after VL0 -> [1 0 0]
			{[]int{0, 1}, 0},    // A, its VL after VL1 -> [0 0 0]: restore
		}},
		{"dtable", []traceStep{
			{all4, 0},           // e0 (A,2): acc 0+2-1 = 1, SC0/VL0
			{all4, 1},           // A goes on (1 >= MTU 1): acc 0, SC1/VL1
			{all4, 2},           // acc 0 < 1: def[A]=0; e1 (B,3): acc 0+3-2 = 1
			{all4, 0},           // 1 < MTU 2: def[B]=1; e2 (A,1): acc 0+1-1 = 0, SC0/VL0
			{all4, 3},           // def[A]=0; e3 (C,2): acc 0+2-3 = -1 (debt)
			{all4, 1},           // -1 < 3: def[C]=-1; e0 (A,2): acc 1, SC1/VL1
			{[]int{0, 2, 3}, 0}, // A goes on: acc 0, SC0/VL0
			{[]int{2, 3}, 2},    // A inactive: acc and def[A] dropped; e1 (B,3): acc def[B] 1+3-2 = 2
			{[]int{0, 2, 3}, 2}, // B goes on (2 >= 2): acc 0
			{[]int{0, 2, 3}, 0}, // def[B]=0; e2 (A,1): acc 0; A's SC1/VL1 has no head, SC0/VL0
			{[]int{1, 3}, 3},    // def[A]=0; e3 (C,2): acc -1+2-3 = -2
			{[]int{3}, 3},       // def[C]=-2; no other active entry, e3 again: acc -2+2-3 = -3
			{[]int{1, 3}, 1},    // def[C]=-3; e0 (A,2): acc 1, SC1/VL1 (pointer moved past SC0)
			{[]int{2, 3}, 2},    // A inactive: dropped; e1 (B,3): acc 0+3-2 = 1
			{[]int{2}, 2},       // 1 < 2: def[B]=1; only B active, e1 again: acc 1+3-2 = 2 (reads the deficit just saved)
			{[]int{0, 2}, 2},    // B goes on (2 >= 2): acc 0
			{[]int{0, 2}, 0},    // def[B]=0; e2 (A,1): acc 0, SC0/VL0
			{[]int{0, 1}, 1},    // def[A]=0; e3 C inactive; e0 (A,2): acc 1; pointer past SC0: SC1/VL1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runTrace(t, tc.name, tc.steps) })
		if tc.name == "sbt" { // Algorithm 1 on one column of a switch's table: the same trace
			t.Run("sbt_switch", func(t *testing.T) { runTrace(t, "sbt_switch", tc.steps) })
		}
	}
}

func runTrace(t *testing.T, name string, steps []traceStep) {
	cfg := traceConfig()
	s, err := Default().New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for n, st := range steps {
		heads := traceHeads(cfg, st.vls...)
		i := s.Pick(heads)
		if got := heads[i].VL; got != st.want {
			t.Fatalf("step %d, heads %v: sent VL%d, want VL%d", n+1, st.vls, got, st.want)
		}
		s.Commit(heads, i)
	}
}

package sched

import (
	"math"
	"strings"
	"testing"
)

// drrStep is one decision of a DRR trace: the heads offered, as VL and
// credits (SC = VL in traceConfig), and the VL expected to send.
type drrStep struct {
	heads [][2]int
	want  int
}

// TestDRRTrace: drr on traceConfig: MTUs 1/2/3, so the quantum is
// SBTWeight × 3: A 6, B 3, C 3 credits. The heads carry their own sizes
// (DRR charges Head.Credits). State: deficits [A B C], the SL visited.
func TestDRRTrace(t *testing.T) {
	steps := []drrStep{
		{[][2]int{{0, 4}, {2, 2}, {3, 3}}, 0},         // visit A: 0+6 >= 4 -> [2 0 0]
		{[][2]int{{0, 4}, {2, 2}, {3, 3}}, 2},         // A: 2 < 4, visit ends, kept; visit B: 0+3 >= 2 -> [2 1 0]
		{[][2]int{{1, 1}, {2, 3}, {3, 3}}, 3},         // B: 1 < 3, ends; visit C: 0+3 >= 3 -> [2 1 0]
		{[][2]int{{0, 4}, {1, 1}, {2, 3}, {3, 3}}, 1}, // C: 0 < 3, ends; visit A: 2+6 = 8, its VL after VL0 (1 credit) -> [7 1 0]
		{[][2]int{{0, 4}, {1, 1}, {2, 3}, {3, 3}}, 0}, // A goes on: 7 >= 4 -> [3 1 0]
		{[][2]int{{1, 1}, {2, 3}}, 1},                 // A goes on: 3 >= 1; C has no head: its deficit 0 -> [2 1 0]
		{[][2]int{{0, 4}, {2, 3}, {3, 2}}, 2},         // A: 2 < 4, ends; visit B: 1+3 >= 3 -> [2 1 0]
		{[][2]int{{0, 4}, {3, 2}}, 3},                 // B has no head: deficit 0, visit over; visit C: 0+3 >= 2 -> [2 0 1]
		{[][2]int{{0, 4}, {2, 2}, {3, 2}}, 0},         // C: 1 < 2, ends; visit A: 2+6 >= 4 -> [4 0 1]
		{[][2]int{{0, 4}, {2, 2}}, 0},                 // A goes on: 4 >= 4; C has no head -> [0 0 0]
		{[][2]int{{1, 1}, {2, 2}}, 2},                 // A: 0 < 1, ends; visit B: 0+3 >= 2 -> [0 1 0]
		{[][2]int{{3, 7}}, 3},                         // A and B have no head -> 0; visit C: 3 < 7, 6 < 7, 9 >= 7 (third round) -> [0 0 2]
		{[][2]int{{1, 1}, {2, 2}, {3, 7}}, 1},         // C: 2 < 7, ends; visit A: 0+6 >= 1 -> [5 0 2]
		{[][2]int{{2, 8}, {3, 7}}, 3},                 // A has no head -> 0; B: 3 < 8, C: 5 < 7; B: 6 < 8, C: 8 >= 7 -> [0 6 1]
		{[][2]int{{2, 8}, {3, 7}}, 2},                 // C: 1 < 7, ends; visit B: 6+3 >= 8 (B was credited twice above) -> [0 1 1]
		{[][2]int{{2, 8}, {3, 7}}, 3},                 // B: 1 < 8, ends; C: 1+3 < 7; B: 4 < 8; C: 7 >= 7 -> [0 4 0]
	}
	cfg := traceConfig()
	s, err := Default().New("drr", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for n, st := range steps {
		heads := make([]Head, len(st.heads))
		for k, vc := range st.heads {
			heads[k] = Head{VL: vc[0], SC: vc[0], SL: cfg.SC2SL[vc[0]], Credits: vc[1]}
		}
		i := s.Pick(heads)
		if got := heads[i].VL; got != st.want {
			t.Fatalf("step %d, heads %v: sent VL%d, want VL%d", n+1, st.heads, got, st.want)
		}
		s.Commit(heads, i)
	}
}

// TestDRRShares: with every SL backlogged on one VL per SC, each SL gets
// quantum/sum of the credits: SBTWeight × 16 credits a visit, 10/30/50/5/5%
// of 1,600 credits a round. A round ends with no deficit left over (every
// quantum is a whole number of its SL's packets), so after any number of
// decisions each SL's credits are within one quantum of its share of the
// credits sent: tolerance quantum / credits sent, per SL.
func TestDRRShares(t *testing.T) {
	cfg := dedicatedConfig()
	l := newLink(t, "drr", cfg)
	l.run(backlogged(cfg), shareDecisions)
	total, sumW := 0, 0
	for i, sl := range cfg.SLs {
		total += l.credits[i]
		sumW += sl.SBTWeight
	}
	for i, sl := range cfg.SLs {
		want := 100 * float64(sl.SBTWeight) / float64(sumW)
		tol := 100 * float64(16*sl.SBTWeight) / float64(total)
		if got := percent(l.credits, i); math.Abs(got-want) > tol {
			t.Errorf("%s: %.3f%% of credits, want %.1f ± %.3f", sl.Name, got, want, tol)
		}
	}
}

// TestDRRMiss: traceConfig, every SC backlogged (packets of their SL's
// MTU: A 1, B 2, C 3 credits, so a visit sends 6 packets of A, 1 of B,
// keeping 1 credit, and 1 of C), VL0 blocked at cycle 0. In table_feedback
// the miss ends A's visit with deficit 0 and B's starts (A's next visit,
// at cycle 3, has its full 6); in the table view the miss is charged 1
// credit and A's visit goes on for 5 more packets.
func TestDRRMiss(t *testing.T) {
	for _, tc := range []struct {
		feedback bool
		want     string
	}{
		{true, "xVL0 VL2 VL3 VL1 VL0 VL1 VL0 VL1 VL0 VL2"},
		{false, "xVL0 VL1 VL0 VL1 VL0 VL1 VL2 VL3 VL0 VL1"},
	} {
		cfg := traceConfig()
		l := newLink(t, "drr", cfg)
		l.table, l.feedback, l.record = true, tc.feedback, true
		l.blocked = func(vl, c int) bool { return vl == 0 && c == 0 }
		l.run(backlogged(cfg), 10)
		if got := strings.Join(l.log, " "); got != tc.want {
			t.Errorf("feedback %v:\n got %s\nwant %s", tc.feedback, got, tc.want)
		}
	}
}

// TestZeroWeightSL: in wrr and drr an SL of weight 0 (C here) sends only
// when no SL of positive weight has a head offered, and then it does send:
// the link is never left idle.
func TestZeroWeightSL(t *testing.T) {
	for _, name := range []string{"wrr", "drr"} {
		cfg := traceConfig()
		cfg.SLs[2].SBTWeight = 0
		s, err := Default().New(name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for n, st := range []traceStep{
			{[]int{2, 3}, 2}, {[]int{2, 3}, 2}, {[]int{3}, 3}, {[]int{3}, 3},
			{[]int{2, 3}, 2}, {[]int{0, 3}, 0}, {[]int{3}, 3}, {all4, 1}, // A: its VL after VL0
		} {
			heads := traceHeads(cfg, st.vls...)
			i := s.Pick(heads)
			if got := heads[i].VL; got != st.want {
				t.Fatalf("%s: step %d, heads %v: sent VL%d, want VL%d", name, n+1, st.vls, got, st.want)
			}
			s.Commit(heads, i)
		}
	}
}

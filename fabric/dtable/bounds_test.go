package dtable

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// Every expected bound in this file is worked out by hand from the
// formulas of Bounds; the port harness (port_test.go) then measures the
// real scheduler against them.

// boundCase is a table with its hand-computed bounds: shares as E_i/ΣE,
// waits in credits, the worst gaps, and what a run with every SL
// backlogged from cycle 0 measures (reached: the wait equals the bound).
type boundCase struct {
	name     string
	table    []sched.Entry
	mtu      []int
	shares   []float64
	waits    []int // credits
	gaps     [][2]int
	measured []int // credits, every SL backlogged from cycle 0
}

var boundCases = []boundCase{{
	// A (MTU 1): entries 0 and 2; B (MTU 2): entries 1 and 3, weight 3.
	// R_A = {0}; R_B: g = gcd(2, 3) = 1, {0, 1}.
	// A waits for one B entry: k(0, 3) = 1, k(1, 3) = ⌊4/2⌋ = 2 messages,
	// 4 credits; a bound on weights alone (3) misses the carried deficit.
	// B waits for one A entry: k(0, 2) = 2 messages of 1 credit (gap 1→3).
	// Shares: E_A = max(3, 2·1) = 3, E_B = max(6, 2·2) = 6: 1/3, 2/3.
	// Backlogged: B's deficit is 0 at entry 1 (1 message, leaves 1) and 1
	// at entry 3 (2 messages), so A's gap 2→0 is the full 4.
	name:  "2 SLs, 4 entries",
	table: tab(0, 1, 1, 3, 0, 2, 1, 3), mtu: []int{1, 2},
	shares: []float64{1. / 3, 2. / 3}, waits: []int{4, 2}, gaps: [][2]int{{0, 2}, {1, 3}},
	measured: []int{4, 2},
}, {
	// A (MTU 1) on the even entries, weight 2; B (MTU 2) at 1 and 5, weight
	// 5; C (MTU 4) at 3 (weight 6) and 7 (weight 10).
	// R_A = {0}; R_B: gcd(2, 5) = 1, {0, 1}; R_C: gcd(4, 6, 10) = 2, {0, 2}.
	// One visit, in credits: A2 2; B5 4 (r=0: 2 messages) or 6 (r=1: 3);
	// C6 4 (r=0: 1 message) or 8 (r=2: 2); C10 8 (r=0) or 12 (r=2: 3).
	// A: gaps of one entry, the worst C10 = 12 (gap 6→0).
	// B: gap 1→5 is A2 C6 A2 = 2+8+2 = 12; gap 5→1 is A2 C10 A2 = 16.
	// C: gaps 3→7 and 7→3 are A2 B5 A2 = 2+6+2 = 10.
	// Shares: W = 8, 10, 16, each ≥ n·MTU (4, 4, 8): 8/34, 10/34, 16/34.
	// Backlogged: C's deficit is 0 at entry 3 and 2 at entry 7, B's 0 at
	// entry 1 and 1 at entry 5, every pass: every bound is reached.
	name:  "3 SLs, 8 entries",
	table: tab(0, 2, 1, 5, 0, 2, 2, 6, 0, 2, 1, 5, 0, 2, 2, 10), mtu: []int{1, 2, 4},
	shares: []float64{8. / 34, 10. / 34, 16. / 34}, waits: []int{12, 16, 10},
	gaps: [][2]int{{6, 0}, {5, 1}, {3, 7}}, measured: []int{12, 16, 10},
}, {
	// Entries lighter than the MTU. A (MTU 4): weights 1 and 9; B (MTU 4):
	// weights 4 and 4; C (MTU 2): one entry of weight 0.
	// Shares: E_A = max(10, 2·4) = 10, E_B = max(8, 8) = 8, E_C = max(0,
	// 1·2) = 2 (line 26 sends one message per visit, whatever the weight):
	// 10/20, 8/20, 2/20, not the weights' 10/18, 8/18, 0.
	// R_A: gcd(4, 1, 9) = 1, {0, 1, 2, 3}; R_B: {0}; R_C: gcd(2, 0) = 2, {0}.
	// A: gap 0→2 is B4 (1 message, 4); gap 2→0 is B4 C0 = 4 + 2 = 6.
	// B: gap 1→3 is A9: k(3, 9) = 3 messages, 12; gap 3→1 is C0 A1: 2 + 4
	// (k(r, 1) = 1 for r ≤ 3) = 6. C: gap 4→4 is A1 B4 A9 B4: A's pair
	// from r=3: k(3, 1) = 1 leaves 0, k(0, 9) = 2, 3 messages = 12; B 8: 20.
	// Backlogged from cycle 0, A's deficit runs 0 →(A1) −3 →(A9) 2 →(A1)
	// −1 →(A9) 0, a cycle of two passes. Before A9 it is −3 or −1 (1 or 2
	// messages), so B waits at most 8: the bound's 12 takes −1 as its
	// residue 3, which a history reaches (A idle at A1 and served at A9
	// only: 0 → 1 → 2 → 3), not a run backlogged from cycle 0. A's pair
	// from 2 sends k(2, 1) = 1, leaving −1, then k(−1, 9) = 2: C's 20 is
	// reached; A's 6 too.
	name:  "lighter than the MTU",
	table: tab(0, 1, 1, 4, 0, 9, 1, 4, 2, 0), mtu: []int{4, 4, 2},
	shares: []float64{10. / 20, 8. / 20, 2. / 20}, waits: []int{6, 12, 20},
	gaps: [][2]int{{2, 0}, {1, 3}, {4, 4}}, measured: []int{6, 8, 20},
}}

func TestBoundsSmall(t *testing.T) {
	for _, c := range boundCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Bounds(c.table, c.mtu, Link{FlitsPerCredit: 2, CycleNs: 1.5})
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range got {
				if math.Abs(b.Share-c.shares[i]) > 1e-12 || b.WaitCredits != c.waits[i] ||
					b.WaitCycles != 2*c.waits[i] || b.WaitNs != 3*float64(c.waits[i]) ||
					[2]int{b.GapFrom, b.GapTo} != c.gaps[i] {
					t.Errorf("SL %d: %+v, want share %.5f, wait %d credits (%d cycles, %v ns), gap %v",
						i, b, c.shares[i], c.waits[i], 2*c.waits[i], 3*float64(c.waits[i]), c.gaps[i])
				}
			}
			p := newPort(t, c.table, c.mtu, 2)
			p.backlogAll(-1)
			p.run(100000)
			for i := range c.mtu {
				if want := 2 * c.measured[i]; p.maxWait[i] != want {
					t.Errorf("SL %d backlogged: longest wait %d cycles, want %d", i, p.maxWait[i], want)
				}
				if s := p.share(i); math.Abs(s-c.shares[i]) > 0.01*c.shares[i] {
					t.Errorf("SL %d backlogged: share %.5f, want %.5f within 1%%", i, s, c.shares[i])
				}
			}
		})
	}
}

// TestBoundsNeedHistory: the bound lets each SL's deficit be any value
// its history allows, each on its own; with every SL backlogged from cycle
// 0 two deficits can move in lockstep and miss the worst pair.
//
// A (MTU 1) at 0, 2, 4, 7; C (MTU 2, weight 3) at 1, 6, 8; B (MTU 4) at 3
// (weight 4) and 5 (weight 6). R_B: gcd(4, 4, 6) = 2, {0, 2}; R_C: {0, 1}.
// A's gap 4→7 is B6 C3: B6 sends 2 messages (8 credits) from 2, C3 2
// messages (4 credits) from 1: 12 (its other gaps, one entry each, 4).
// Backlogged from cycle 0, per pass P B gains W_B = 10 ≡ 2 (mod 4) and C
// W_C = 9 ≡ 1 (mod 2): before entry 5 B holds 2P mod 4, before entry 6 C
// holds (P+1) mod 2, so the gap is 4 + 4 (P even) or 8 + 2 (P odd): 10.
// If C starts at cycle 2, after the walk passed entry 1, C's parity flips
// and the gap of pass 1 is 8 + 4 = 12, the bound.
func TestBoundsNeedHistory(t *testing.T) {
	table, mtu := tab(0, 1, 2, 3, 0, 1, 1, 4, 0, 1, 1, 6, 2, 3, 0, 1, 2, 3), []int{1, 4, 2}
	got, err := Bounds(table, mtu, Link{FlitsPerCredit: 1, CycleNs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].WaitCredits != 12 || got[0].GapFrom != 4 || got[0].GapTo != 7 {
		t.Fatalf("A: %+v, want 12 credits, gap 4→7", got[0])
	}
	p := newPort(t, table, mtu, 1)
	p.backlogAll(-1)
	p.run(10000)
	late := newPort(t, table, mtu, 1)
	late.backlogAll(2)
	for now := range 10000 {
		if now == 2 {
			late.startBacklog(2, now)
		}
		late.step(now)
	}
	if p.maxWait[0] != 10 || late.maxWait[0] != 12 {
		t.Errorf("A's longest wait: %d cycles backlogged from cycle 0, %d with C from cycle 2; want 10 and 12",
			p.maxWait[0], late.maxWait[0])
	}
}

func TestBoundsRefused(t *testing.T) {
	_, err := Bounds(tab(0, 2, 3, 1, 1, -1), []int{1, 0, 5}, Link{FlitsPerCredit: 0, CycleNs: -1})
	for _, want := range []string{
		"table[1]: sl 3 is outside [0, 2]",
		"table[2]: weight -1 is below 0 by 1",
		"sls[1]: mtu 0 must be positive",
		"link: flits_per_credit 0 must be positive",
		"link: cycle_ns -1 must be positive",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	var p *Problem
	if !errors.As(err, &p) {
		t.Errorf("err %v is not a *Problem", err)
	}
	if _, err := Bounds(nil, []int{1}, DefaultLink); err == nil || !strings.Contains(err.Error(), "table is empty") {
		t.Errorf("empty table: err = %v", err)
	}
	// An SL without an entry (and then any MTU) is never sent.
	got, err := Bounds(tab(0, 2), []int{1, 0}, DefaultLink)
	if err != nil || got[1].WaitCredits != -1 || got[1].WaitCycles != -1 || got[1].Share != 0 || got[0].WaitCredits != 0 {
		t.Errorf("SL without an entry: %+v, %v", got, err)
	}
}

// table10Bounds are the bounds of seed 000 Table 10's table (Configure of
// table9) at DefaultLink, worked out from the table (VO on the even
// entries, weight 7 in entries 0-62 and 6 in 64-126, MTU 2; VI at 1 mod 4,
// 39, MTU 4; CL at 3 mod 8, 130, MTU 8; BE at 7 mod 16 and BK at 15 mod 16,
// 26, MTU 16), in credits:
//
//	R: VO gcd(2, 7, 6) = 1 {0, 1}; VI gcd(4, 39) = 1 {0..3};
//	   CL gcd(8, 130) = 2 {0, 2, 4, 6}; BE, BK gcd(16, 26) = 2 {0, 2, .., 14}
//	one CL visit: ⌊(6+130)/8⌋ = 17 messages, 136; two: from 4 or 6, 33, 264
//	two VI visits: from 2 or 3, 20 messages, 80; four: always 39, 156
//	one BE/BK visit: ⌊(6+26)/16⌋ = 2 messages from 6 up, 32
//	VO 7, 7: 7 messages, 14; eight 7s: 28 messages, 56
//	VO (distance 2): gap of one entry, the worst CL: 136
//	VI (distance 4): VO7 CL VO7: 14 + 136 = 150
//	CL (distance 8): 4 VO7, 2 VI, 1 BE or BK: 28 + 80 + 32 = 140
//	BE, BK (distance 16): 8 VO7, 4 VI, 2 CL, 1 BK or BE: 56 + 156 + 264 + 32 = 508
//
// Cycles: × 8; ns: × 0.64. Shares: Fweight/4160 = 0.1, 0.3, 0.5, 0.05, 0.05.
var table10Bounds = []struct {
	credits int
	share   float64
}{{136, 0.1}, {150, 0.3}, {140, 0.5}, {508, 0.05}, {508, 0.05}}

// TestBoundsTable10 measures the real scheduler with Table 10's table at
// one output port, cycle by cycle, against the bounds: with every SL
// backlogged, with the SL under test idle and one head arriving at every
// phase of the walk, and with its heads coming and going. Every measured
// wait is at most the bound and the longest one equals it (F = 1);
// shares are within 1% of the guaranteed share.
//
// Why these runs cover every state. Every SL's pass weight is a multiple
// of its MTU (416/2, 1248/4, 2080/8, 208/16), so with the other SLs
// backlogged from cycle 0 their deficits are back to 0 at the end of each
// pass and the walk repeats every pass: one pass of arrivals tries every
// position and every deficit of the others that occurs. Within a pass,
// each SL starts its visits with every value of R (VO 0, 1; VI 0, 3, 2,
// 1; CL 0, 2, 4, 6; BE, BK 0, 10, 4, 14, 8, 2, 12, 6), so the others'
// worst visits occur; the test SL's own deficit cannot delay its head
// (line 26 charges it unconditionally), and the backlogged run also
// visits it with each of those values. An arrival between two decisions
// waits longest one cycle after the first, so arrivals at the cycle of
// each decision and the next are every phase that matters.
func TestBoundsTable10(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	link := DefaultLink
	bounds, err := r.Bounds(link)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", BoundsText(bounds, link))
	mtu := r.mtus()
	for i, b := range bounds {
		want := table10Bounds[i]
		if b.WaitCredits != want.credits || b.WaitCycles != 8*want.credits || math.Abs(b.Share-want.share) > 1e-12 ||
			math.Abs(b.WaitNs-5.12*float64(want.credits)) > 1e-9 {
			t.Errorf("%s: %+v, want %d credits, share %v", b.Name, b, want.credits, want.share)
		}
		if sum := r.SLs[i].FWeight; sum%mtu[i] != 0 {
			t.Fatalf("%s: pass weight %d is not a multiple of MTU %d; one pass no longer covers the walk", b.Name, sum, mtu[i])
		}
	}
	passCycles := r.FWeight * link.FlitsPerCredit
	all := newPort(t, r.Table, mtu, link.FlitsPerCredit)
	all.backlogAll(-1)
	all.run(50 * passCycles)
	t.Logf("SL  share bound  measured  wait bound  backlogged  arrival  on/off (cycles)")
	for i, b := range bounds {
		arrival := worstArrival(t, r, i, link.FlitsPerCredit)
		onOff := onOffWait(t, r.Table, mtu, link.FlitsPerCredit, i, onOffGaps, 2000)
		share := all.share(i)
		t.Logf("%-2s  %11.5f  %8.5f  %10d  %10d  %7d  %6d", b.Name, b.Share, share, b.WaitCycles, all.maxWait[i], arrival, onOff)
		if all.maxWait[i] != b.WaitCycles {
			t.Errorf("%s backlogged: longest wait %d cycles, want the bound %d", b.Name, all.maxWait[i], b.WaitCycles)
		}
		if arrival != b.WaitCycles-1 {
			t.Errorf("%s arriving: longest wait %d cycles, want the bound %d less one cycle", b.Name, arrival, b.WaitCycles)
		}
		if onOff > b.WaitCycles {
			t.Errorf("%s on/off: longest wait %d cycles, above the bound %d", b.Name, onOff, b.WaitCycles)
		}
		if math.Abs(share-b.Share) > 0.01*b.Share {
			t.Errorf("%s: share %.5f, want %.5f within 1%%", b.Name, share, b.Share)
		}
	}
}

// onOffGaps are the idle cycles between one head of the test SL leaving
// the link and the next arriving: 0 keeps the SL active at the next
// decision (it goes on with its accumulated weight), 1 and more let it go
// idle at various phases.
var onOffGaps = []int{0, 1, 0, 0, 7, 2, 0, 300, 1, 0, 5000, 3, 0, 0, 0, 64, 1, 999, 13, 0, 4097}

// worstArrival is the longest wait of a head of SL sl arriving at an idle
// sl, the other SLs backlogged from cycle 0, over arrivals at the cycle of
// every decision of one pass of the walk and the cycle after.
func worstArrival(t *testing.T, r *Result, sl, fpc int) int {
	idle := newPort(t, r.Table, r.mtus(), fpc)
	idle.backlogAll(sl)
	pass := (r.FWeight - r.SLs[sl].FWeight) * fpc
	idle.run(pass)
	worst := 0
	for _, at := range idle.decisions {
		for _, a := range []int{at, at + 1} {
			worst = max(worst, arrivalWait(t, r.Table, r.mtus(), fpc, sl, a))
		}
	}
	return worst
}

// TestTable10Deficits checks the claim of TestBoundsTable10 that within a
// pass each SL starts its visits with every value of its R: a backlogged
// SL's deficit before each of its entries, from 0, over one pass.
func TestTable10Deficits(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	res := residueSets(r.Table, r.mtus())
	for i, s := range r.SLs {
		var seen []int
		d := 0
		for _, slot := range s.Slots {
			seen = append(seen, d)
			d = (d + r.Table[slot].Weight) % s.MTU
		}
		slices.Sort(seen)
		if seen = slices.Compact(seen); !slices.Equal(seen, res[i]) || d != 0 {
			t.Errorf("%s: deficits %v (end %d), want R = %v and back to 0", s.Name, seen, d, res[i])
		}
	}
}

func TestBoundsText(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Bounds(DefaultLink)
	if err != nil {
		t.Fatal(err)
	}
	text := BoundsText(b, DefaultLink)
	for _, want := range []string{
		"1 credit = 8 flits = 8 cycles, 1 cycle = 0.64 ns",
		"VO    0.1                  136    1088   696.32        2→4",
		"BE   0.05                  508    4064  2600.96       7→23",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if got := BoundsText([]SLBound{{SL: 3, WaitCredits: -1}}, DefaultLink); !strings.Contains(got, "never sent") {
		t.Errorf("an SL without an entry:\n%s", got)
	}
}

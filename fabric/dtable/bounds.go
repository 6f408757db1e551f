package dtable

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/problem"
)

// Link is how credits turn into time on a link: a message of m credits
// takes m·FlitsPerCredit cycles at one flit per cycle, each CycleNs long.
type Link struct {
	FlitsPerCredit int     `json:"flits_per_credit"`
	CycleNs        float64 `json:"cycle_ns"`
}

// DefaultLink is the link of this package's 64-byte credits at the default
// 8-byte flit (MODEL.md "Units"; fabric's seed 000 preset sets
// flits_per_credit to 64 bytes the same way): 8 flits per credit, a cycle
// of 8 B / 12.5 GB/s = 0.64 ns, so a credit takes 5.12 ns.
var DefaultLink = Link{FlitsPerCredit: 8, CycleNs: 0.64}

// SLBound is what an arbitration table guarantees one SL at one output
// port (see Bounds).
type SLBound struct {
	SL    int     `json:"sl"` // index into the MTUs
	Name  string  `json:"name,omitempty"`
	Share float64 `json:"share"` // of the link's time, every SL backlogged
	// WaitCredits is the worst-case wait of the SL's head, in credits of
	// link time; WaitCycles = WaitCredits·FlitsPerCredit; WaitNs is
	// WaitCycles·CycleNs rounded to 1e-6 ns. All three are -1 for an SL
	// without an entry (it is never sent).
	WaitCredits int     `json:"wait_credits"`
	WaitCycles  int     `json:"wait_cycles"`
	WaitNs      float64 `json:"wait_ns"`
	// GapFrom and GapTo are the worst gap, the first in table order: the
	// walk leaves the SL's entry GapFrom and reaches its next entry GapTo
	// (-1 without an entry).
	GapFrom int `json:"gap_from"`
	GapTo   int `json:"gap_to"`
}

// Bounds computes, for every SL of a DTable arbitration table (SL indices
// into mtu, the SLs' MTUs in credits), the guaranteed share of the link and
// the worst-case wait of its head, as the dtable scheduler (fabric/sched,
// seed 000 Algorithm 2) runs them.
//
// Assumptions. One output port in the eligible view; one message of SL j
// is MTU_j credits and takes MTU_j·FlitsPerCredit cycles; the scheduler
// decides when the link is free (lines 6-8). While the head waits,
// downstream credits are always available and the adversary keeps every
// other SL backlogged; before that it may have given each SL any history
// (idle, or its head blocked by credits, at entries of its choice).
//
// One visit. While SL j is backlogged the walk serves every entry of j it
// reaches. With deficit d before an entry of weight w, lines 24 and 26 send
// one message unconditionally and then more while the accumulated weight
// covers MTU_j (lines 14-16), so the visit sends
//
//	k(d, w) = max(1, ⌊(d+w)/MTU_j⌋) messages and leaves d' = d + w − k·MTU_j.
//
// Wait. SL i's head, once present, is sent at the first entry of i the
// walk reaches: line 19 passes no entry of an active SL, and line 26
// charges whatever i's deficit (even a debt), so i's own state never delays
// it. Between two consecutive entries p and q of i (circularly; p = q when
// i has one entry) the link is busy only with the other SLs' visits to the
// entries strictly between them. Deficit j changes only at j's own entries
// (d → d') and when j goes idle as the last SL selected (→ 0, lines
// 10-13), so it is independent of the other SLs, and d ≤ MTU_j − 1 always. Every d'
// is congruent mod MTU_j to a sum of j's weights, so d ∈ g_j·ℤ with
// g_j = gcd(MTU_j, j's weights). Raising d by MTU_j never lowers the
// messages of a run of visits (either k rises by one and the two runs
// merge, or k is equal and d' stays MTU_j higher), so the most a run can
// send is reached with d in R_j = {0, g_j, …, MTU_j − g_j}. Hence
//
//	WaitCredits_i = max over consecutive entries p, q of i of
//	                Σ_{j≠i} MTU_j · max_{r∈R_j} Σ k over j's entries in (p, q), d starting at r
//
// counted from the end of i's previous message (a backlogged head) or from
// the head's arrival at an idle SL; the latter is at most one cycle less,
// since an arrival in the cycle of the decision that passes entry p is
// served at p. The bound is reached when every entry weighs at least its
// SL's MTU (the methodology's tables; ReadTable requires it): d then stays
// in [0, MTU_j−1], every r ∈ R_j is reached by j's history (adding its
// weights mod MTU_j generates g_j·ℤ_MTU_j), the adversary sets each SL's r
// on its own, and a backlogged i waits the whole gap. With lighter entries
// the debts are replaced by their residues in R_j and the bound may not be
// reached.
//
// Share. With every SL backlogged each entry is visited once per pass. An
// SL j with W_j = Σ of its weights ≥ n_j·MTU_j (n_j entries) keeps its
// deficit bounded (never MTU_j or more; from a debt of W_j or more every
// visit of a pass sends one message, so the pass does not deepen it), so
// it sends W_j credits per pass in the long run: nothing is lost, since
// lines 14-16 carry what a visit leaves and an SL that never goes idle
// never reaches lines 10-13. With W_j < n_j·MTU_j its debt grows until
// every visit sends exactly one message: n_j·MTU_j credits. So
//
//	Share_i = E_i / Σ_j E_j,  E_j = max(W_j, n_j·MTU_j),
//
// which is Σ own weights / Σ all for the methodology's tables (Fφ).
//
// Bounds refuses, listing every problem, an empty table, an entry of an SL
// outside mtu or with a negative weight, an SL with entries and an MTU
// below 1, and a link with FlitsPerCredit below 1 or CycleNs not positive.
func Bounds(table []sched.Entry, mtu []int, link Link) ([]SLBound, error) {
	if err := checkBoundsArgs(table, mtu, link); err != nil {
		return nil, err
	}
	pass := passCredits(table, mtu)
	total := 0
	for _, c := range pass {
		total += c
	}
	res := residueSets(table, mtu)
	out := make([]SLBound, len(mtu))
	for sl := range mtu {
		b := SLBound{SL: sl, Share: float64(pass[sl]) / float64(total)}
		b.WaitCredits, b.GapFrom, b.GapTo = worstGap(table, mtu, res, sl)
		b.WaitCycles, b.WaitNs = b.WaitCredits, float64(b.WaitCredits)
		if b.WaitCredits >= 0 {
			b.WaitCycles = b.WaitCredits * link.FlitsPerCredit
			b.WaitNs = math.Round(float64(b.WaitCycles)*link.CycleNs*1e6) / 1e6 // no float noise in JSON
		}
		out[sl] = b
	}
	return out, nil
}

// Bounds is Bounds of the configured table, with the SLs' names.
func (r *Result) Bounds(link Link) ([]SLBound, error) {
	out, err := Bounds(r.Table, r.mtus(), link)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Name = r.SLs[i].Name
	}
	return out, nil
}

func checkBoundsArgs(table []sched.Entry, mtu []int, link Link) error {
	var ps problems
	if len(table) == 0 {
		ps.add("", "table", "is empty; a DTable needs at least one entry")
	}
	owns := make([]bool, len(mtu))
	for s, e := range table {
		if e.SL < 0 || e.SL >= len(mtu) {
			ps.add(fmt.Sprintf("table[%d]", s), "sl", "%d is outside [0, %d]", e.SL, len(mtu)-1)
			continue
		}
		owns[e.SL] = true
		ps.intIn(fmt.Sprintf("table[%d]", s), "weight", e.Weight, 0, MaxWeight)
	}
	for i, m := range mtu {
		if owns[i] {
			ps.intIn(fmt.Sprintf("sls[%d]", i), "mtu", m, 1, MaxWeight)
		}
	}
	ps.intIn("link", "flits_per_credit", link.FlitsPerCredit, 1, MaxWeight)
	if !(link.CycleNs > 0) {
		ps.add("link", "cycle_ns", "%v must be positive", link.CycleNs)
	}
	return problem.List(ps).Err()
}

// passCredits is E_j = max(W_j, n_j·MTU_j), what SL j sends per pass of
// the walk in the long run when every SL is backlogged.
func passCredits(table []sched.Entry, mtu []int) []int {
	w, n := make([]int, len(mtu)), make([]int, len(mtu))
	for _, e := range table {
		w[e.SL] += e.Weight
		n[e.SL]++
	}
	for j := range w {
		w[j] = max(w[j], n[j]*mtu[j])
	}
	return w
}

// residueSets is R_j for every SL with an entry: 0, g_j, …, MTU_j − g_j
// with g_j = gcd(MTU_j, j's weights).
func residueSets(table []sched.Entry, mtu []int) [][]int {
	g := make([]int, len(mtu))
	for _, e := range table {
		g[e.SL] = gcd(gcd(g[e.SL], mtu[e.SL]), e.Weight)
	}
	out := make([][]int, len(mtu))
	for j := range mtu {
		for r := 0; g[j] > 0 && r < mtu[j]; r += g[j] {
			out[j] = append(out[j], r)
		}
	}
	return out
}

// worstGap is SL sl's largest gap in credits and its ends, or -1, -1, -1
// when sl has no entry.
func worstGap(table []sched.Entry, mtu []int, res [][]int, sl int) (credits, from, to int) {
	own := slotsOf(table, sl)
	credits, from, to = -1, -1, -1
	runs := make([][]int, len(mtu)) // per SL, its weights in the gap, in walk order
	for a, p := range own {
		q := own[(a+1)%len(own)]
		if c := gapCredits(table, mtu, res, p, q, runs); c > credits {
			credits, from, to = c, p, q
		}
	}
	return credits, from, to
}

// gapCredits is the most the other SLs can send while the walk goes from
// entry p to entry q (the whole table but p when p == q).
func gapCredits(table []sched.Entry, mtu []int, res [][]int, p, q int, runs [][]int) int {
	for j := range runs {
		runs[j] = runs[j][:0]
	}
	for e := (p + 1) % len(table); e != q; e = (e + 1) % len(table) {
		runs[table[e].SL] = append(runs[table[e].SL], table[e].Weight)
	}
	sum := 0
	for j, ws := range runs {
		if len(ws) == 0 {
			continue
		}
		most := 0
		for _, r := range res[j] {
			most = max(most, visits(r, mtu[j], ws))
		}
		sum += most * mtu[j]
	}
	return sum
}

// visits is the messages SL j (MTU m) sends at entries of the weights ws,
// backlogged, starting with deficit d: k(d, w) = max(1, ⌊(d+w)/m⌋) per
// entry, then d' = d + w − k·m. (Go's / truncates, which differs from ⌊·⌋
// only below zero, where max takes 1 anyway.)
func visits(d, m int, ws []int) int {
	sent := 0
	for _, w := range ws {
		k := max(1, (d+w)/m)
		sent += k
		d += w - k*m
	}
	return sent
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

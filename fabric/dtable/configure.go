package dtable

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/fabric/sched"
)

// floatSlack forgives float noise in ⌈·⌉ and in the half of round-half-away:
// shares are decimals, so pool·0.5/16 must give 128, not 129.
const floatSlack = 1e-9

// Result is a configured DTable: the columns of seed 000 Tables 5 and 10
// per SL, the totals, and the arbitration table.
type Result struct {
	Entries     int `json:"entries"`      // N
	UsedEntries int `json:"used_entries"` // Σ n_i = len(Table); unused entries are left out
	GMTU        int `json:"gmtu"`
	W           int `json:"w"`
	K           int `json:"k"`
	M           int `json:"m"`    // GMTU·w, maximum weight per entry before correction
	Pool        int `json:"pool"` // N·GMTU·k

	SLs       []SLResult `json:"sls"`
	WeightSum int        `json:"weight_sum"` // Σ all entry weights before correction
	FWeight   int        `json:"fweight"`    // Σ all entry weights after correction
	Warnings  []string   `json:"warnings"`

	Table []sched.Entry `json:"-"`     // slot order; SL is an index into SLs
	File  Table         `json:"table"` // the same table with SL names, as WriteTable writes it
}

// SLResult is one row of seed 000 Table 5 / Table 10.
type SLResult struct {
	Name         string  `json:"name"`
	Entries      int     `json:"entries"` // n_i = N/distance_i
	Distance     int     `json:"distance"`
	MTU          int     `json:"mtu"`
	MinPhi       float64 `json:"min_phi"`             // n_i·MTU_i/pool
	MaxPhi       float64 `json:"max_phi"`             // n_i·w/(N·k)
	Phi          float64 `json:"phi"`                 // the requested share φ_i
	EntryWeight  int     `json:"entry_weight"`        // E.W. before correction
	EntryWeights []int   `json:"entry_weights"`       // after correction, in table order
	Slots        []int   `json:"slots"`               // the SL's indices into Table
	WeightSum    int     `json:"weight_sum"`          // Σ weight_j before correction
	RPhi         float64 `json:"r_phi"`               // real share before correction
	DWeight      int     `json:"dweight"`             // correction, seed 000 section 3.3.3
	FWeight      int     `json:"fweight"`             // Σ weight_j after correction
	FPhi         float64 `json:"f_phi"`               // final share
	Unapplied    int     `json:"unapplied,omitempty"` // part of DWeight the MTU floor stopped
}

// Configure applies the configuration methodology and the bandwidth
// correction algorithm (seed 000 sections 3.3.2 and 3.3.3) to req. It
// refuses an invalid request with every problem at once (see Validate).
func Configure(req Request) (*Result, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	r := newResult(req)
	layout, err := place(req.Entries, r.distances(), r.labels())
	if err != nil {
		return nil, err
	}
	pre := compact(layout, r.entryWeights())
	r.measure(pre)
	table, left, err := Correct(pre, r.dweights(), r.mtus())
	if err != nil {
		return nil, fmt.Errorf("dtable: internal error in the correction walk: %w", err)
	}
	r.finish(table, left)
	if err := CheckSpacing(table, r.distances()); err != nil {
		return nil, fmt.Errorf("dtable: internal error, placement broke a distance: %w", err)
	}
	return r, nil
}

// newResult fills the per-SL columns up to E.W. (seed 000 section 3.3.2):
// n_i, minφ_i, maxφ_i and E.W. = max(MTU_i, ⌈pool·φ_i/n_i⌉).
func newResult(req Request) *Result {
	r := &Result{Entries: req.Entries, GMTU: req.GMTU, W: req.W, K: req.K, M: req.M(), Pool: req.pool()}
	for _, s := range req.SLs {
		n := req.Entries / s.Distance
		r.UsedEntries += n
		r.SLs = append(r.SLs, SLResult{
			Name: s.Name, Entries: n, Distance: s.Distance, MTU: s.MTU,
			MinPhi: req.minPhi(n, s.MTU), MaxPhi: req.maxPhi(n), Phi: s.Share,
			EntryWeight: max(s.MTU, ceilSlack(float64(r.Pool)*s.Share/float64(n))),
		})
	}
	return r
}

// measure fills Σweight_j, Rφ_i and Dweight_i from the table before
// correction (seed 000 section 3.3.3). Dweight_i = -round((Rφ_i-φ_i)·Σall);
// (Rφ_i-φ_i)·Σall is computed as Σown - φ_i·Σall, the same value with
// less float error.
func (r *Result) measure(pre []sched.Entry) {
	r.WeightSum = sumWeights(pre, -1)
	for i := range r.SLs {
		s := &r.SLs[i]
		s.WeightSum = sumWeights(pre, i)
		s.RPhi = float64(s.WeightSum) / float64(r.WeightSum)
		s.DWeight = -roundHalfAway(float64(s.WeightSum) - s.Phi*float64(r.WeightSum))
	}
}

// finish records the corrected table, Fweight_i, Fφ_i and the warnings.
func (r *Result) finish(table []sched.Entry, left []int) {
	r.Table, r.FWeight = table, sumWeights(table, -1)
	for i := range r.SLs {
		s := &r.SLs[i]
		s.Slots = slotsOf(table, i)
		s.EntryWeights = weightsAt(table, s.Slots)
		s.FWeight = sumWeights(table, i)
		s.FPhi = float64(s.FWeight) / float64(r.FWeight)
		s.Unapplied = left[i]
		r.warn(*s)
	}
	r.File = r.tableFile()
}

// warn notes an entry above M after correction (Table 10: CL's 130 > 128,
// allowed) and a Dweight the MTU floor could not fully apply.
func (r *Result) warn(s SLResult) {
	if top := maxOf(s.EntryWeights); top > r.M {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"SL %s: entry weight %d is above M %d by %d after correction (%d of %d entries); allowed, the scheduler takes any weight",
			s.Name, top, r.M, top-r.M, countAbove(s.EntryWeights, r.M), s.Entries))
	}
	if s.Unapplied != 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"SL %s: Dweight %d applied only %d; %d left because every entry is at MTU %d",
			s.Name, s.DWeight, s.DWeight-s.Unapplied, s.Unapplied, s.MTU))
	}
}

func (r *Result) tableFile() Table {
	var t Table
	for _, s := range r.SLs {
		t.SLs = append(t.SLs, TableSL{Name: s.Name, MTU: s.MTU})
	}
	for _, e := range r.Table {
		t.Entries = append(t.Entries, TableEntry{SL: r.SLs[e.SL].Name, Weight: e.Weight})
	}
	return t
}

func (r *Result) distances() []int { return r.column(func(s SLResult) int { return s.Distance }) }
func (r *Result) mtus() []int      { return r.column(func(s SLResult) int { return s.MTU }) }
func (r *Result) dweights() []int  { return r.column(func(s SLResult) int { return s.DWeight }) }

func (r *Result) entryWeights() []int {
	return r.column(func(s SLResult) int { return s.EntryWeight })
}

func (r *Result) column(f func(SLResult) int) []int {
	out := make([]int, len(r.SLs))
	for i, s := range r.SLs {
		out[i] = f(s)
	}
	return out
}

func (r *Result) labels() []string {
	out := make([]string, len(r.SLs))
	for i, s := range r.SLs {
		out[i] = "SL " + s.Name
	}
	return out
}

// sumWeights sums the weights of SL sl's entries, or of all when sl < 0.
func sumWeights(table []sched.Entry, sl int) int {
	sum := 0
	for _, e := range table {
		if sl < 0 || e.SL == sl {
			sum += e.Weight
		}
	}
	return sum
}

func weightsAt(table []sched.Entry, slots []int) []int {
	out := make([]int, len(slots))
	for j, s := range slots {
		out[j] = table[s].Weight
	}
	return out
}

func maxOf(xs []int) int {
	top := math.MinInt
	for _, x := range xs {
		top = max(top, x)
	}
	return top
}

func countAbove(xs []int, limit int) int {
	n := 0
	for _, x := range xs {
		if x > limit {
			n++
		}
	}
	return n
}

// ceilSlack is ⌈x⌉, treating x within floatSlack above an integer as that integer.
func ceilSlack(x float64) int { return int(math.Ceil(x - floatSlack)) }

// roundHalfAway rounds half away from zero (MODEL.md section 8), treating
// x within floatSlack below a half as the half.
func roundHalfAway(x float64) int {
	return int(math.Copysign(math.Floor(math.Abs(x)+0.5+floatSlack), x))
}

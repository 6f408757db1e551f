package sweep

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kneeRows are the "all" rows of scheduler s: at each load, offered and
// accepted means (a nil accepted: no run yet).
func kneeRows(s string, loads, offered []float64, accepted []*float64) []Row {
	var rows []Row
	for i, l := range loads {
		o := offered[i]
		rows = append(rows, Row{Scheduler: s, Load: l, SL: "all", Metrics: map[string]Estimate{
			"offered_load": {Mean: &o, N: 1}, "accepted_throughput": {Mean: accepted[i], N: 1}}})
	}
	return rows
}

func fp(x float64) *float64 { return &x }

// TestKneeOf: the knee is the last load of the unbroken run of loads,
// from the lowest, whose accepted mean is at least 0.99 of the offered
// mean; a load that keeps up again after a shortfall does not move it;
// loads are taken in ascending order whatever the rows' order; a load
// without a value is passed over.
func TestKneeOf(t *testing.T) {
	loads := []float64{0.2, 0.4, 0.6, 0.8, 1.0}
	for _, tc := range []struct {
		name     string
		loads    []float64
		offered  []float64
		accepted []*float64
		want     Knee
		text     string
	}{
		// 0.99 x 0.6 = 0.594 keeps up exactly; 0.75 < 0.99 x 0.8 = 0.792; 1.0 at 1.0 keeps up again, too late.
		{"knee at 0.6", loads, []float64{0.2, 0.4, 0.6, 0.8, 1.0}, []*float64{fp(0.2), fp(0.398), fp(0.594), fp(0.75), fp(1.0)},
			Knee{Load: 0.6, Kept: true, Saturated: true}, "knee 0.6"},
		// 0.5930 < 0.594: falls short at 0.6, so the knee is 0.4.
		{"just short at 0.6", loads, []float64{0.2, 0.4, 0.6, 0.8, 1.0}, []*float64{fp(0.2), fp(0.4), fp(0.593), fp(0.8), fp(1)},
			Knee{Load: 0.4, Kept: true, Saturated: true}, "knee 0.4"},
		// Measured, not nominal, offered load: 0.9 offered at 1.0 and 0.899 accepted keeps up.
		{"never saturates", loads, []float64{0.2, 0.4, 0.6, 0.8, 0.9}, []*float64{fp(0.2), fp(0.4), fp(0.6), fp(0.8), fp(0.899)},
			Knee{Load: 1.0, Kept: true}, "keeps up to 1"},
		{"saturated from the start", loads, []float64{0.2, 0.4, 0.6, 0.8, 1}, []*float64{fp(0.1), fp(0.4), fp(0.6), fp(0.8), fp(1)},
			Knee{Saturated: true}, "saturated at every load"},
		{"rows out of order", []float64{1.0, 0.4, 0.2, 0.8, 0.6}, []float64{1, 0.4, 0.2, 0.8, 0.6},
			[]*float64{fp(0.9), fp(0.4), fp(0.2), fp(0.7), fp(0.6)}, Knee{Load: 0.6, Kept: true, Saturated: true}, "knee 0.6"},
		{"a load not run yet", loads, []float64{0.2, 0.4, 0.6, 0.8, 1}, []*float64{fp(0.2), nil, fp(0.6), fp(0.7), fp(0.8)},
			Knee{Load: 0.6, Kept: true, Saturated: true}, "knee 0.6"},
	} {
		sum := &Summary{Schedulers: []string{"rr", "dtable"}, SLs: []SL{{Name: "VO", Share: 1}},
			Rows: append(kneeRows("rr", tc.loads, tc.offered, tc.accepted),
				// another scheduler, saturated from the start, must not count
				kneeRows("dtable", tc.loads, tc.offered, []*float64{fp(0), fp(0), fp(0), fp(0), fp(0)})...)}
		got := KneeOf(sum, "rr", "all")
		if got != tc.want || got.String() != tc.text {
			t.Errorf("%s: %+v (%q), want %+v (%q)", tc.name, got, got, tc.want, tc.text)
		}
		if d := KneeOf(sum, "dtable", "all"); d != (Knee{Saturated: true}) {
			t.Errorf("%s: dtable %+v", tc.name, d)
		}
		if v := KneeOf(sum, "rr", "VO"); v != (Knee{}) {
			t.Errorf("%s: knee of an SL without rows: %+v", tc.name, v)
		}
	}
}

// TestKneeWithinInterval: a load falling short of 0.99 x offered by no
// more than its accepted throughput's 95% interval keeps up; by more, it
// does not.
func TestKneeWithinInterval(t *testing.T) {
	loads := []float64{0.3, 0.6, 0.9}
	for _, tc := range []struct {
		ci   []float64
		want Knee
	}{
		// 0.285 + 0.01 = 0.295 < 0.297 (0.99 x 0.3): short at the lowest load.
		{[]float64{0.01, 0.02, 0.02}, Knee{Saturated: true}},
		// 0.285 + 0.013 = 0.298 >= 0.297 keeps up; 0.58 + 0.02 = 0.6 >= 0.594 keeps up; 0.85 + 0.02 = 0.87 < 0.891.
		{[]float64{0.013, 0.02, 0.02}, Knee{Load: 0.6, Kept: true, Saturated: true}},
		// 0.85 + 0.05 = 0.9 >= 0.891: no load is short.
		{[]float64{0.013, 0.02, 0.05}, Knee{Load: 0.9, Kept: true}},
	} {
		rows := kneeRows("rr", loads, loads, []*float64{fp(0.285), fp(0.58), fp(0.85)})
		for i := range rows {
			e := rows[i].Metrics["accepted_throughput"]
			e.CI95 = fp(tc.ci[i])
			rows[i].Metrics["accepted_throughput"] = e
		}
		sum := &Summary{Schedulers: []string{"rr"}, SLs: []SL{{Name: "VO", Share: 1}}, Rows: rows}
		if got := KneeOf(sum, "rr", "all"); got != tc.want {
			t.Errorf("intervals %v: %+v, want %+v", tc.ci, got, tc.want)
		}
	}
}

// TestSeriesOffsets: m series are shifted symmetrically about the load,
// evenly, the group within 70% of the smallest gap between loads and
// neighbours at most maxOffsetStep apart.
func TestSeriesOffsets(t *testing.T) {
	tenths := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	for _, tc := range []struct {
		loads []float64
		m     int
		want  []float64
	}{
		{tenths, 1, []float64{0}},
		// 0.7 x 0.1 / 4 = 0.0175 > 0.012: the step is capped.
		{tenths, 4, []float64{-0.018, -0.006, 0.006, 0.018}},
		// 20 series (4 schedulers x 5 SLs): 0.7 x 0.1 / 20 = 0.0035.
		{tenths, 20, nil},
		// loads 0.75, 0.8 are 0.05 apart: 0.7 x 0.05 / 3 = 0.011667; the order of the loads does not matter.
		{[]float64{1, 0.8, 0.75, 0.5}, 3, []float64{-0.035 / 3, 0, 0.035 / 3}},
		// one load: the gap is taken as 0.1.
		{[]float64{0.5}, 2, []float64{-0.006, 0.006}},
	} {
		got := seriesOffsets(tc.loads, tc.m)
		if len(got) != tc.m {
			t.Fatalf("%d offsets for %d series", len(got), tc.m)
		}
		if tc.want != nil {
			for i := range got {
				if !near(got[i], tc.want[i]) {
					t.Errorf("offsets of %d series at %v: %v, want %v", tc.m, tc.loads, got, tc.want)
					break
				}
			}
		}
		if tc.m == 20 {
			if !near(got[1]-got[0], 0.0035) || !near(got[19], 0.03325) || !near(got[0], -0.03325) {
				t.Errorf("offsets of 20 series: %v", got)
			}
		}
	}
}

// TestTwoSeedBars: with two runs the bar spans them (the mean ± half
// their distance), not the 95% interval 12.71 times as wide; from three
// runs on, the bar is the interval.
func TestTwoSeedBars(t *testing.T) {
	e := EstimateOf([]float64{100, 110})
	pt := seriesPoint{x: 0.5, y: *e.Mean, ci: *e.CI95, n: e.N}
	if !near(pt.bar(), 5) || !near(pt.ci, 5*12.706204736174698) {
		t.Errorf("two runs 100, 110: bar %v (want 5), ci95 %v", pt.bar(), pt.ci)
	}
	e = EstimateOf([]float64{100, 110, 120})
	// s = 10, t(0.975, 2) = 4.302652729749464, ci = 4.3027 x 10 / sqrt 3
	pt = seriesPoint{x: 0.5, y: *e.Mean, ci: *e.CI95, n: e.N}
	if want := 4.302652729749464 * 10 / math.Sqrt(3); !near(pt.bar(), want) {
		t.Errorf("three runs: bar %v, want %v", pt.bar(), want)
	}
	names := barNotes([]series{{pts: []seriesPoint{{ci: 1, n: 2}, {ci: 1, n: 5}, {ci: 2, n: 4}, {ci: 0, n: 9}}}})
	if got := strings.Join(names, "; "); got != "bar: 95% CI, 4-5 seeds; bar: range of 2 seeds" {
		t.Errorf("bar legend: %q", got)
	}
}

// TestLinearTicks: the labelled ticks are the 1-2-5 step giving 5 to 10
// labels, with an unlabelled tick between two labels; niceTop ends an
// axis on a labelled tick above 1.05 times the largest value.
func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 0.6, "0 0.1 0.2 0.3 0.4 0.5 0.6"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"}, // step 0.1 would give 11
		{0, 1.2, "0 0.2 0.4 0.6 0.8 1 1.2"},
		{0, 0.35, "0 0.05 0.1 0.15 0.2 0.25 0.3 0.35"},
		{0, 0.06, "0 0.01 0.02 0.03 0.04 0.05 0.06"},
		{-0.02, 0.5, "0 0.1 0.2 0.3 0.4 0.5"},
	} {
		var labels []string
		ticks := (linearTicks{}).Ticks(tc.lo, tc.hi)
		for _, tk := range ticks {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
		if len(ticks) != 2*len(labels)-1 && len(ticks) != 2*len(labels) {
			t.Errorf("ticks on [%v, %v]: %d ticks for %d labels", tc.lo, tc.hi, len(ticks), len(labels))
		}
	}
	for _, tc := range [][2]float64{{0.5, 0.6}, {0.05, 0.06}, {0.93, 1}, {0.3, 0.35}, {1.9, 2}} {
		if got := niceTop(tc[0]); !near(got, tc[1]) {
			t.Errorf("niceTop(%v) = %v, want %v", tc[0], got, tc[1])
		}
	}
	for _, r := range [][2]float64{{0, 0}, {1, 0}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		if ticks := (linearTicks{}).Ticks(r[0], r[1]); ticks != nil {
			t.Errorf("ticks on [%v, %v]: %v", r[0], r[1], ticks)
		}
	}
}

// coincidingSummary is a sweep whose rr and dtable give the same values
// at every point and whose BE and BK are alike too: the series that lie
// on one another in the old figures. Five seeds, accepted throughput
// (but sbt's) falling short of the offered load from 0.8 on.
func coincidingSummary() *Summary {
	sum := &Summary{Topology: "single-switch", Traffic: "paper-mix", Schedulers: []string{"rr", "sbt", "dtable"},
		Loads: []float64{0.2, 0.4, 0.6, 0.8, 1}, Seeds: []uint64{1, 2, 3, 4, 5},
		SLs: []SL{{Name: "VO", Share: 0.1}, {Name: "VI", Share: 0.3}, {Name: "CL", Share: 0.5}, {Name: "BE", Share: 0.05}, {Name: "BK", Share: 0.05}}}
	for _, s := range sum.Schedulers {
		for _, l := range sum.Loads {
			keep := 1.0
			if l >= 0.8 {
				keep = 0.7 / l // the network carries 0.7 at most: 0.7 of 0.8 and of 1 fall short
				if s == "sbt" {
					keep = 1 // sbt keeps up: a knee at the highest load
				}
			}
			for _, sl := range append(slices.Clone(sum.SLs), SL{Name: "all", Share: 1}) {
				if sl.Name == "BK" {
					sl.Share = 0.05 // as BE
				}
				e := func(v, ci float64) Estimate { return Estimate{Mean: fp(v), CI95: fp(ci), N: 5} }
				sum.Rows = append(sum.Rows, Row{Scheduler: s, Load: l, SL: sl.Name, Seeds: 5, Metrics: map[string]Estimate{
					"offered_load":          e(sl.Share*l, 0.002),
					"accepted_throughput":   e(sl.Share*l*min(keep, 1)*0.999, 0.002),
					"normalized_throughput": e(sl.Share, 0.01),
					"latency_ns":            e(100+1000*l*l+50*sl.Share, 10),
				}})
			}
		}
	}
	return sum
}

// TestCoincidingSeriesRender: a summary whose series coincide draws every
// figure without error; the accepted figure has a panel for all SLs and
// one per SL, each with one series per scheduler, and its legend gives
// each scheduler's knee.
func TestCoincidingSeriesRender(t *testing.T) {
	sum := coincidingSummary()
	dir := t.TempDir()
	if err := WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	var out, warn bytes.Buffer
	if err := WritePlots(&out, &warn, dir, sum); err != nil || warn.Len() > 0 {
		t.Fatalf("WritePlots: %v; %s", err, warn.String())
	}
	checkPlots(t, filepath.Join(dir, "plots"), []string{"latency", "throughput", "accepted", "dtable_latency"})
	if want := "plots: knees (last load with accepted + 95% CI >= 0.99 x offered, all SLs): rr knee 0.6, sbt keeps up to 1, dtable knee 0.6\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("output %q lacks %q", out.String(), want)
	}

	var panels []string
	for _, p := range acceptedPanels(sum) {
		panels = append(panels, p.sl)
	}
	if got := strings.Join(panels, " "); got != "all VO VI CL BE BK" {
		t.Errorf("panels: %s", got)
	}
	if c, r := panelGrid(len(panels)); c != 3 || r != 2 {
		t.Errorf("grid of 6 panels: %dx%d", c, r)
	}
	lines, skipped := collectSeries(sum, io.Discard, "accepted", "accepted_throughput", "", true, false)
	count := map[int][]string{}
	for _, s := range lines {
		count[s.sl] = append(count[s.sl], s.scheduler)
		if len(s.pts) != len(sum.Loads) {
			t.Errorf("%s SL %d: %d points", s.scheduler, s.sl, len(s.pts))
		}
	}
	if skipped != 0 || len(lines) != 18 {
		t.Errorf("%d accepted series (%d skipped), want 3 schedulers x 6 panels", len(lines), skipped)
	}
	for sl := -1; sl < 5; sl++ {
		if got := strings.Join(count[sl], ","); got != "rr,sbt,dtable" {
			t.Errorf("panel %d: series of %s", sl, got)
		}
	}
	// accepted 0.7 x 0.999 at 0.8 and 1.0 falls short; 0.6 x 0.999 at 0.6 keeps up.
	for s, want := range map[string]string{"rr": "knee 0.6", "dtable": "knee 0.6", "sbt": "keeps up to 1"} {
		if got := KneeOf(sum, s, "all").String(); got != want {
			t.Errorf("%s: %s, want %s", s, got, want)
		}
	}
	// rr and dtable coincide, and so do BE and BK: in the latency figure
	// each series has its own offset.
	// each series has its own slot, and so its own offset: a scheduler's
	// five SLs in slots 0, 2, 4, 1, 3 of its group, so BE (3) and BK (4)
	// are two slots apart; the same SL under two schedulers five apart.
	lat, _ := latencyFigure.series(sum, io.Discard)
	slots, n := seriesSlots(lat)
	offs := seriesOffsets(sum.Loads, n)
	seen := map[string]bool{}
	slot := map[string]int{}
	for i, s := range lat {
		k := fmt.Sprint(offs[slots[i]])
		if seen[k] {
			t.Errorf("two latency series at offset %s", k)
		}
		seen[k] = true
		slot[fmt.Sprintf("%s/%d", s.scheduler, s.sl)] = slots[i]
	}
	if n != 15 || slot["rr/0"] != 0 || slot["rr/2"] != 1 || slot["rr/4"] != 2 || slot["rr/1"] != 3 || slot["rr/3"] != 4 ||
		slot["sbt/0"] != 5 || slot["dtable/3"] != 14 {
		t.Errorf("%d slots: %v", n, slot)
	}
}

// TestDigitEnds: log axis ends at one significant digit, 1.5 just above
// a power of ten; both ends are labelled, a digit's tick or not.
func TestDigitEnds(t *testing.T) {
	for _, tc := range [][3]float64{{360, 300, 400}, {1030, 1000, 1500}, {1600, 1000, 2000}, {500, 500, 500}, {0.072, 0.07, 0.08}, {1000, 1000, 1000}} {
		if d, u := digitDown(tc[0]), digitUp(tc[0]); !near(d, tc[1]) || !near(u, tc[2]) {
			t.Errorf("digitDown, digitUp(%v) = %v, %v; want %v, %v", tc[0], d, u, tc[1], tc[2])
		}
	}
	var labels []string
	for _, tk := range (logTicks{}).Ticks(300, 1500) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "300 400 500 600 700 800 900 1000 1500" {
		t.Errorf("labels on [300, 1500]: %s", got)
	}
	labels = labels[:0]
	for _, tk := range (logTicks{}).Ticks(100, 6000) { // 6000 is the tick of a digit, unlabelled but for the end
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "100 200 500 1000 2000 5000 6000" {
		t.Errorf("labels on [100, 6000]: %s", got)
	}
}

package sweep

import (
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// seriesPoint is a mean at a load, the half-width of its 95% CI (0 if
// undefined) and the number of runs it averages.
type seriesPoint struct {
	x, y, ci float64
	n        int
}

// bar is the half-width of the error bar drawn at pt: the 95% confidence
// interval with 3 or more runs; with 2 the interval, t(0.975, 1) = 12.71
// times the half-distance of the two runs, would say little but that two
// runs are few, so the bar spans the two runs instead (ci95 / 12.71).
func (pt seriesPoint) bar() float64 {
	if pt.n == 2 {
		return pt.ci / t975(1)
	}
	return pt.ci
}

// t975 is Student's t quantile t(0.975, dof).
func t975(dof float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dof}.Quantile(0.975)
}

// series is one line: an SL under a scheduler (sl -1: all SLs).
type series struct {
	scheduler string
	sl        int
	pts       []seriesPoint
}

// series collects the figure's lines in summary order, leaving out loads
// without a value (and, on a log axis, values that are not positive).
// Values that cannot be drawn are reported on warn and counted in skipped.
func (f *figure) series(sum *Summary, warn io.Writer) (out []series, skipped int) {
	return collectSeries(sum, warn, f.name, f.metric, f.scheduler, false, f.logY)
}

// collectSeries gathers the lines of metric, one per (scheduler, SL),
// the "all" rows too if withAll (as SL -1), of scheduler only if it is
// not "".
func collectSeries(sum *Summary, warn io.Writer, fig, metric, scheduler string, withAll, logY bool) (out []series, skipped int) {
	slIndex := map[string]int{}
	for i, sl := range sum.SLs {
		slIndex[sl.Name] = i
	}
	if withAll {
		slIndex["all"] = -1
	}
	line := map[[2]string]int{}
	for _, r := range sum.Rows {
		i, isSL := slIndex[r.SL]
		e := r.Metrics[metric]
		if !isSL || (scheduler != "" && r.Scheduler != scheduler) || e.Mean == nil || (logY && *e.Mean <= 0) {
			continue
		}
		pt := seriesPoint{x: r.Load, y: *e.Mean, n: e.N}
		if e.CI95 != nil {
			pt.ci = *e.CI95
		}
		if why := undrawable(pt, logY); why != "" {
			fmt.Fprintf(warn, "plots: %s: left out scheduler %s, load %v, SL %s: %s mean %v, ci95 %v: %s\n",
				fig, r.Scheduler, r.Load, r.SL, metric, pt.y, pt.ci, why)
			skipped++
			continue
		}
		k := [2]string{r.Scheduler, r.SL}
		if _, ok := line[k]; !ok {
			line[k] = len(out)
			out = append(out, series{scheduler: r.Scheduler, sl: i})
		}
		out[line[k]].pts = append(out[line[k]].pts, pt)
	}
	return out, skipped
}

// The figures draw values within ±maxPlotValue, and on a log axis no
// smaller than minLogValue, so that the axis ends and ticks stay finite.
const (
	maxPlotValue = 1e300
	minLogValue  = 1e-300
)

// undrawable says why pt cannot be drawn, or "" if it can.
func undrawable(pt seriesPoint, logY bool) string {
	inRange := func(v float64) bool { return math.Abs(v) <= maxPlotValue }
	switch {
	case math.IsNaN(pt.x) || math.IsInf(pt.x, 0) || math.IsNaN(pt.y) || math.IsInf(pt.y, 0) ||
		math.IsNaN(pt.ci) || math.IsInf(pt.ci, 0):
		return "not a finite number"
	case pt.ci < 0:
		return "a negative confidence interval"
	case !inRange(pt.y) || !inRange(pt.y+pt.ci) || !inRange(pt.y-pt.ci):
		return fmt.Sprintf("beyond ±%g", maxPlotValue)
	case logY && pt.y < minLogValue:
		return fmt.Sprintf("below %g, too small for the log axis", minLogValue)
	}
	return ""
}

// seriesOffsets are the x shifts of m series drawn at the same loads, so
// that their markers and error bars stand side by side instead of on top
// of one another: evenly spaced, centred on the load, the whole group
// within 70% of the smallest gap between two loads and each step at most
// maxOffsetStep.
func seriesOffsets(loads []float64, m int) []float64 {
	gap := 0.1
	sorted := slices.Clone(loads)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if d := sorted[i] - sorted[i-1]; d > 0 && d < gap {
			gap = d
		}
	}
	step := min(0.7*gap/float64(max(m, 1)), maxOffsetStep)
	out := make([]float64, m)
	for i := range out {
		out[i] = (float64(i) - float64(m-1)/2) * step
	}
	return out
}

// seriesSlots places each of lines in one of n slots, by scheduler, then
// by SL: the schedulers of one SL, alike in colour and often in value,
// as many slots apart as there are SLs, told apart by their markers too.
// Within a scheduler the SLs take every other slot (0, 2, 4, 1, 3 for
// five), so that neighbours in config order, the likeliest to be alike
// (BE and BK of the paper's mix), are not side by side.
func seriesSlots(lines []series) (slots []int, n int) {
	var scheds []string
	var sls []int
	for _, s := range lines {
		if !slices.Contains(scheds, s.scheduler) {
			scheds = append(scheds, s.scheduler)
		}
		if !slices.Contains(sls, s.sl) {
			sls = append(sls, s.sl)
		}
	}
	slices.Sort(sls)
	m := len(sls)
	for _, s := range lines {
		i := slices.Index(sls, s.sl)
		pos := i / 2 // the even ones first, then the odd ones
		if i%2 == 1 {
			pos = (m+1)/2 + i/2
		}
		slots = append(slots, slices.Index(scheds, s.scheduler)*m+pos)
	}
	return slots, len(scheds) * m
}

// maxOffsetStep is the largest shift between neighbouring series, in
// injection rate: about 11 pixels of a 150 dpi figure.
const maxOffsetStep = 0.012

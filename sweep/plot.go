package sweep

// The plots of a sweep, after seed 000 Figs. 3 and 4 (section 4.2.3): an
// SL keeps its colour in every figure, a scheduler its marker and dashes
// (DTable a circle, SBT a square, RR a cross, as in the paper).

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrUndrawable is wrapped by the error of a figure whose every value was
// left out because it could not be drawn: a summary not fit to plot.
var ErrUndrawable = errors.New("no value can be drawn")

// WritePlots draws the figures of sum into sweepDir/plots and lists them
// on out, with each scheduler's knee (KneeOf, all SLs). A value that cannot be drawn (not finite, a negative interval,
// or too large or too small for the axis) is reported on warn, naming the
// point and the field, and left out. A figure left with nothing to draw
// because of such values is an error, returned after the other figures
// are written.
func WritePlots(out, warn io.Writer, sweepDir string, sum *Summary) error {
	dir := filepath.Join(sweepDir, "plots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var written []string
	var errs []error
	for _, f := range figures {
		d, why, err := f.draw(sum, warn)
		if err != nil {
			errs = append(errs, fmt.Errorf("plot %s: %w", f.name, err))
			continue
		}
		if d == nil {
			fmt.Fprintf(out, "plots: no %s plot: %s\n", f.name, why)
			continue
		}
		files, err := saveCanvas(d.w, d.h, d.draw, filepath.Join(dir, f.name))
		if err != nil {
			return fmt.Errorf("plot %s: %w", f.name, err)
		}
		written = append(written, files...)
	}
	if len(written) > 0 {
		fmt.Fprintf(out, "plots: %s\n", strings.Join(written, ", "))
	}
	if k := kneeLine(sum); k != "" {
		fmt.Fprintln(out, k)
	}
	return errors.Join(errs...)
}

// drawing is a figure ready to be written: its size and how to draw it.
type drawing struct {
	w, h vg.Length
	draw func(draw.Canvas)
}

// sweepFigure is one figure of a sweep: it draws itself from a summary,
// or says why there is nothing to draw.
type sweepFigure struct {
	name string
	draw func(sum *Summary, warn io.Writer) (*drawing, string, error)
}

// figures are Figs. 3/4 a, b and e of seed 000 and accepted against
// offered load, in the order they are written.
var figures = []sweepFigure{
	{"latency", latencyFigure.drawing},
	{"throughput", throughputFigure.drawing},
	{"accepted", acceptedDrawing},
	{"dtable_latency", dtableLatencyFigure.drawing},
}

// figure is a plot of a sweep: a metric of every SL against the load.
type figure struct {
	name, title, ylabel, metric string
	logY                        bool
	scheduler                   string // only this one; "" for all
	shares                      bool   // dotted lines at the SLs' configured shares
}

var (
	latencyFigure = figure{name: "latency", title: "End-to-end latency", ylabel: "Mean end-to-end latency (ns)",
		metric: "latency_ns", logY: true}
	throughputFigure = figure{name: "throughput", title: "Normalized throughput",
		ylabel: "Normalized throughput (share of delivered flits)", metric: "normalized_throughput", shares: true}
	dtableLatencyFigure = figure{name: "dtable_latency", title: "DTable end-to-end latency",
		ylabel: "Mean end-to-end latency (ns)", metric: "latency_ns", logY: true, scheduler: "dtable"}
)

// The single-panel figures are sweepWidth × sweepHeight, the legend in a
// column of legendWidth at their right, outside the data.
const (
	sweepWidth  = 9 * vg.Inch
	sweepHeight = 5.5 * vg.Inch
	legendWidth = 2.3 * vg.Inch
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

// drawing draws the figure, or says why there is nothing to draw; a
// figure whose every value was left out as undrawable is an error.
func (f figure) drawing(sum *Summary, warn io.Writer) (*drawing, string, error) {
	p, leg, why, err := f.plot(sum, warn)
	if p == nil {
		return nil, why, err
	}
	return withLegend(p, leg, sweepWidth, sweepHeight), "", nil
}

// withLegend draws p with leg in a column at its right.
func withLegend(p *plot.Plot, leg plot.Legend, w, h vg.Length) *drawing {
	return &drawing{w: w, h: h, draw: func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -legendWidth, 0, 0))
		lc := draw.Crop(c, w-legendWidth, 0, 0, -vg.Points(24))
		leg.Draw(lc)
	}}
}

// plot draws the figure and its legend, or says why there is nothing to
// draw.
func (f *figure) plot(sum *Summary, warn io.Writer) (*plot.Plot, plot.Legend, string, error) {
	leg := newLegend()
	if f.scheduler != "" && !slices.Contains(sum.Schedulers, f.scheduler) {
		return nil, leg, "the sweep has no " + f.scheduler + " runs", nil
	}
	lines, skipped := f.series(sum, warn)
	if len(lines) == 0 && skipped > 0 {
		return nil, leg, "", fmt.Errorf("%w: all %d values of %s were left out (see the messages above)", ErrUndrawable, skipped, f.metric)
	}
	if len(lines) == 0 {
		return nil, leg, "nothing to draw yet (no run has a value for " + f.metric + ")", nil
	}
	p := newPlot(fmt.Sprintf("%s: %s, %s", f.title, sum.Topology, sum.Traffic), f.ylabel)
	if f.shares {
		addShares(p, sum)
	}
	slots, n := seriesSlots(lines)
	offsets := seriesOffsets(sum.Loads, n)
	lo, hi, xlo, xhi := math.Inf(1), math.Inf(-1), 1.0, 1.0
	var marks []*plotter.Scatter
	for i, s := range lines {
		marks = append(marks, addSeries(p, s, slColor(s.sl), sum, offsets[slots[i]], f.logY))
		for _, pt := range s.pts {
			lo, hi, xhi = min(lo, pt.y-lowerBar(pt, f.logY)), max(hi, pt.y+pt.bar()), max(xhi, pt.x)
			xlo = min(xlo, pt.x)
		}
	}
	addMarks(p, marks)
	setLoadAxis(p, xhi, offsets, false)
	// From the tenth below the lowest load: no empty band at the left.
	p.X.Min = max(0, math.Floor(xlo*10+1e-9)/10-0.1) - (0.02 + offsets[len(offsets)-1])
	if f.logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = digitDown(lo), digitUp(hi)
	} else {
		top := hi
		if f.shares {
			for _, sl := range sum.SLs {
				top = max(top, sl.Share)
			}
		}
		p.Y.Tick.Marker = linearTicks{}
		p.Y.Min, p.Y.Max = 0, niceTop(top)
	}
	for i, sl := range sum.SLs {
		leg.Add(sl.Name, &plotter.Line{LineStyle: draw.LineStyle{Color: slColor(i), Width: vg.Points(2.5)}})
	}
	f.schedulerLegend(&leg, sum)
	if f.shares {
		leg.Add("configured share", &plotter.Line{LineStyle: shareStyle(color.Gray{Y: 96})})
	}
	barLegend(&leg, lines)
	return p, leg, "", nil
}

func (f *figure) schedulerLegend(leg *plot.Legend, sum *Summary) {
	for _, s := range sum.Schedulers {
		if f.scheduler != "" && s != f.scheduler {
			continue
		}
		leg.Add(schedulerLabel(s), schedulerThumbs(sum, s, color.Black)...)
	}
}

// schedulerThumbs are a scheduler's dashes and marker in colour c.
func schedulerThumbs(sum *Summary, s string, c color.Color) []plot.Thumbnailer {
	glyph, dashes := schedulerStyle(sum, s)
	line := &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: dashes}}
	mark := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: glyph}}
	return []plot.Thumbnailer{line, mark}
}

// newPlot is a plot with the sweep figures' title, labels and grid.
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "Injection rate (flits/cycle/NIC)"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	return p
}

// newLegend is a legend in the sweep figures' style, from the top left of
// its canvas.
func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.XOffs = vg.Points(4)
	leg.ThumbnailWidth = vg.Points(30)
	leg.TextStyle.Font.Size = vg.Points(10)
	return leg
}

// setLoadAxis puts the injection rate from 0 to xhi (at least 1) with
// room for the offsets of the series on both sides.
func setLoadAxis(p *plot.Plot, xhi float64, offsets []float64, panel bool) {
	pad := 0.02
	if len(offsets) > 0 {
		pad += offsets[len(offsets)-1]
	}
	p.X.Min, p.X.Max = -pad, max(1, xhi)+pad
	if panel {
		p.X.Tick.Marker = panelLoadTicks(max(1, xhi))
	} else {
		p.X.Tick.Marker = loadTicks(max(1, xhi))
	}
}

func shareStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2.5)}}
}

// addShares draws a thin dotted line at each SL's configured share: where
// a scheduler that honours the shares should put the normalized throughput.
func addShares(p *plot.Plot, sum *Summary) {
	for i, sl := range sum.SLs {
		l, err := plotter.NewLine(plotter.XYs{{X: -1, Y: sl.Share}, {X: 2, Y: sl.Share}})
		if err != nil {
			continue
		}
		l.LineStyle = shareStyle(slColor(i))
		p.Add(l)
	}
}

// addSeries draws s shifted by dx in colour c with its scheduler's
// dashes, and an error bar at each point with one, and returns its
// markers, for addMarks to draw once every line is drawn.
func addSeries(p *plot.Plot, s series, c color.Color, sum *Summary, dx float64, logY bool) *plotter.Scatter {
	glyph, dashes := schedulerStyle(sum, s.scheduler)
	xys := make(plotter.XYs, len(s.pts))
	var bars errPoints
	for i, pt := range s.pts {
		xys[i] = plotter.XY{X: pt.x + dx, Y: pt.y}
		if pt.bar() > 0 {
			pt.x += dx
			bars = append(bars, errPoint{pt, lowerBar(pt, logY)})
		}
	}
	l, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.2), dashes
	sc.Color, sc.Shape, sc.Radius = c, glyph, vg.Points(3)
	if len(bars) > 0 {
		if eb, err := plotter.NewYErrorBars(bars); err == nil {
			eb.Color, eb.Width, eb.CapWidth = c, vg.Points(0.8), vg.Points(4)
			p.Add(eb)
		}
	}
	p.Add(l)
	return sc
}

// addMarks draws the markers over the lines, the filled ones first, so
// that an outline or a cross next to a filled marker of the same colour
// is drawn over it, not hidden under it.
func addMarks(p *plot.Plot, marks []*plotter.Scatter) {
	for _, filled := range []bool{true, false} {
		for _, m := range marks {
			if m != nil && isFilled(m.Shape) == filled {
				p.Add(m)
			}
		}
	}
}

// isFilled: the marker is a filled shape, or drawn over one.
func isFilled(g draw.GlyphDrawer) bool {
	switch g := g.(type) {
	case mark:
		return g.filled && g.shape != shapeCross && g.shape != shapePlus
	case overlay:
		return isFilled(g.under)
	}
	return false
}

// lowerBar is how far below the mean the error bar reaches. On a log axis
// a bar that would reach zero or below is cut at a tenth of the mean.
func lowerBar(pt seriesPoint, logY bool) float64 {
	if logY {
		return min(pt.bar(), 0.9*pt.y)
	}
	return pt.bar()
}

// errPoint is a mean with the reach of its error bar below and above.
type errPoint struct {
	seriesPoint
	low float64
}

type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].low, e[i].bar() }

// barLegend adds to leg what the error bars of lines are (barNotes).
func barLegend(leg *plot.Legend, lines []series) {
	for _, n := range barNotes(lines) {
		leg.Add(n, barThumb{})
	}
}

// barNotes say what the error bars of lines are: the 95% confidence
// interval over the seeds, the range of two seeds, or both.
func barNotes(lines []series) []string {
	var two, more bool
	lo, hi := math.MaxInt, 0
	for _, s := range lines {
		for _, pt := range s.pts {
			switch {
			case pt.n == 2 && pt.ci > 0:
				two = true
			case pt.n > 2 && pt.ci > 0:
				more = true
				lo, hi = min(lo, pt.n), max(hi, pt.n)
			}
		}
	}
	var notes []string
	if more {
		n := fmt.Sprint(hi)
		if lo != hi {
			n = fmt.Sprintf("%d-%d", lo, hi)
		}
		notes = append(notes, "bar: 95% CI, "+n+" seeds")
	}
	if two {
		notes = append(notes, "bar: range of 2 seeds")
	}
	return notes
}

// barThumb is an error bar in a legend.
type barThumb struct{}

func (barThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	cap := vg.Points(2)
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(sty, x-cap, c.Min.Y, x+cap, c.Min.Y)
	c.StrokeLine2(sty, x-cap, c.Max.Y, x+cap, c.Max.Y)
}

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

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrUndrawable is wrapped by the error of a figure whose every value was
// left out because it could not be drawn: a summary not fit to plot.
var ErrUndrawable = errors.New("no value can be drawn")

// WritePlots draws the figures of sum into sweepDir/plots and lists them
// on out. A value that cannot be drawn (not finite, a negative interval,
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
		p, why, err := f.plot(sum, warn)
		if err != nil {
			errs = append(errs, fmt.Errorf("plot %s: %w", f.name, err))
			continue
		}
		if p == nil {
			fmt.Fprintf(out, "plots: no %s plot: %s\n", f.name, why)
			continue
		}
		files, err := savePlot(p, filepath.Join(dir, f.name))
		if err != nil {
			return fmt.Errorf("plot %s: %w", f.name, err)
		}
		written = append(written, files...)
	}
	if len(written) > 0 {
		fmt.Fprintf(out, "plots: %s\n", strings.Join(written, ", "))
	}
	return errors.Join(errs...)
}

// figure is one plot of a sweep: a metric of every SL against the load.
type figure struct {
	name, title, ylabel, metric string
	logY                        bool
	scheduler                   string // only this one; "" for all
	shares                      bool   // dotted lines at the SLs' configured shares
}

// figures are Figs. 3/4 a, b and e of seed 000.
var figures = []figure{
	{name: "latency", title: "End-to-end latency", ylabel: "Mean end-to-end latency (ns)", metric: "latency_ns", logY: true},
	{name: "throughput", title: "Normalized throughput", ylabel: "Normalized throughput per SL", metric: "normalized_throughput",
		shares: true},
	{name: "dtable_latency", title: "DTable end-to-end latency", ylabel: "Mean end-to-end latency (ns)", metric: "latency_ns",
		logY: true, scheduler: "dtable"},
}

// seriesPoint is a mean at a load and the half-width of its 95% CI (0 if
// undefined).
type seriesPoint struct{ x, y, ci float64 }

// series is one line: an SL under a scheduler.
type series struct {
	scheduler string
	sl        int
	pts       []seriesPoint
}

// series collects the figure's lines in summary order, leaving out loads
// without a value (and, on a log axis, values that are not positive).
// Values that cannot be drawn are reported on warn and counted in skipped.
func (f *figure) series(sum *Summary, warn io.Writer) (out []series, skipped int) {
	slIndex := map[string]int{}
	for i, sl := range sum.SLs {
		slIndex[sl.Name] = i
	}
	line := map[[2]string]int{}
	for _, r := range sum.Rows {
		i, isSL := slIndex[r.SL]
		e := r.Metrics[f.metric]
		if !isSL || (f.scheduler != "" && r.Scheduler != f.scheduler) || e.Mean == nil || (f.logY && *e.Mean <= 0) {
			continue
		}
		pt := seriesPoint{x: r.Load, y: *e.Mean}
		if e.CI95 != nil {
			pt.ci = *e.CI95
		}
		if why := f.undrawable(pt); why != "" {
			fmt.Fprintf(warn, "plots: %s: left out scheduler %s, load %v, SL %s: %s mean %v, ci95 %v: %s\n",
				f.name, r.Scheduler, r.Load, r.SL, f.metric, pt.y, pt.ci, why)
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
func (f *figure) undrawable(pt seriesPoint) string {
	inRange := func(v float64) bool { return math.Abs(v) <= maxPlotValue }
	switch {
	case math.IsNaN(pt.x) || math.IsInf(pt.x, 0) || math.IsNaN(pt.y) || math.IsInf(pt.y, 0) ||
		math.IsNaN(pt.ci) || math.IsInf(pt.ci, 0):
		return "not a finite number"
	case pt.ci < 0:
		return "a negative confidence interval"
	case !inRange(pt.y) || !inRange(pt.y+pt.ci) || !inRange(pt.y-pt.ci):
		return fmt.Sprintf("beyond ±%g", maxPlotValue)
	case f.logY && pt.y < minLogValue:
		return fmt.Sprintf("below %g, too small for the log axis", minLogValue)
	}
	return ""
}

// plot draws the figure, or says why there is nothing to draw; a figure
// whose every value was left out as undrawable is an error.
func (f *figure) plot(sum *Summary, warn io.Writer) (*plot.Plot, string, error) {
	if f.scheduler != "" && !slices.Contains(sum.Schedulers, f.scheduler) {
		return nil, "the sweep has no " + f.scheduler + " runs", nil
	}
	lines, skipped := f.series(sum, warn)
	if len(lines) == 0 && skipped > 0 {
		return nil, "", fmt.Errorf("%w: all %d values of %s were left out (see the messages above)", ErrUndrawable, skipped, f.metric)
	}
	if len(lines) == 0 {
		return nil, "nothing to draw yet (no run has a value for " + f.metric + ")", nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s, %s", f.title, sum.Topology, sum.Traffic)
	p.X.Label.Text = "Injection rate (flits/cycle/NIC)"
	p.Y.Label.Text = f.ylabel
	p.Add(plotter.NewGrid())
	if f.shares {
		addShares(p, sum)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range lines {
		glyph, dashes := schedulerStyle(sum, s.scheduler)
		addSeries(p, s, slColor(s.sl), glyph, dashes, f.logY)
		for _, pt := range s.pts {
			lo, hi = min(lo, pt.y-lowerBar(pt, f.logY)), max(hi, pt.y+pt.ci)
		}
	}
	p.X.Min, p.X.Max, p.X.Tick.Marker = 0, 1, loadTicks()
	if f.logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = niceDown(lo), niceUp(hi)
	} else {
		p.Y.Min, p.Y.Max = 0, max(1, hi)
	}
	f.legend(p, sum)
	return p, "", nil
}

// addShares draws a thin dotted line at each SL's configured share: where
// a scheduler that honours the shares should put the normalized throughput.
func addShares(p *plot.Plot, sum *Summary) {
	for i, sl := range sum.SLs {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: sl.Share}, {X: 1, Y: sl.Share}})
		if err != nil {
			continue
		}
		l.Color, l.Width, l.Dashes = slColor(i), vg.Points(0.5), []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(l)
	}
}

func addSeries(p *plot.Plot, s series, c color.Color, glyph draw.GlyphDrawer, dashes []vg.Length, logY bool) {
	xys := make(plotter.XYs, len(s.pts))
	var bars errPoints
	for i, pt := range s.pts {
		xys[i] = plotter.XY{X: pt.x, Y: pt.y}
		if pt.ci > 0 {
			bars = append(bars, errPoint{pt, lowerBar(pt, logY)})
		}
	}
	l, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.2), dashes
	sc.Color, sc.Shape, sc.Radius = c, glyph, vg.Points(2.5)
	p.Add(l, sc)
	if len(bars) == 0 {
		return
	}
	if eb, err := plotter.NewYErrorBars(bars); err == nil {
		eb.Color = c
		p.Add(eb)
	}
}

// lowerBar is how far below the mean the error bar reaches. On a log axis
// a bar that would reach zero or below is cut at a tenth of the mean.
func lowerBar(pt seriesPoint, logY bool) float64 {
	if logY {
		return min(pt.ci, 0.9*pt.y)
	}
	return pt.ci
}

// errPoint is a mean with the reach of its error bar below and above.
type errPoint struct {
	seriesPoint
	low float64
}

type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].low, e[i].ci }

// legend lists the SL colours, then the scheduler markers and dashes.
func (f *figure) legend(p *plot.Plot, sum *Summary) {
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(4)
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	for i, sl := range sum.SLs {
		p.Legend.Add(sl.Name, &plotter.Line{LineStyle: draw.LineStyle{Color: slColor(i), Width: vg.Points(2)}})
	}
	for _, s := range sum.Schedulers {
		if f.scheduler != "" && s != f.scheduler {
			continue
		}
		glyph, dashes := schedulerStyle(sum, s)
		line := &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: dashes}}
		mark := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: glyph}}
		p.Legend.Add(schedulerLabel(s), line, mark)
	}
	if f.shares {
		p.Legend.Add("configured share", &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{Y: 96},
			Width: vg.Points(0.5), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}})
	}
}

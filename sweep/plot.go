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

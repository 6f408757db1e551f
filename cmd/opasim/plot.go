package main

// The plots of a sweep, after seed 000 Figs. 3 and 4 (section 4.2.3): an
// SL keeps its colour in every figure, a scheduler its marker and dashes
// (DTable a circle, SBT a square, RR a cross, as in the paper).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func newPlotCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plot DIR",
		Short: "Redraw a sweep's plots in DIR/plots from DIR/summary.json, without running anything",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput(fmt.Errorf("plot: want one argument, the directory of a sweep (its --out); got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sum, err := readSummary(args[0])
			if err != nil {
				return badInput(err)
			}
			return reportPlots(cmd.OutOrStdout(), args[0], sum)
		},
	}
}

func readSummary(dir string) (*sweepSummary, error) {
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sum sweepSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sum.Schedulers) == 0 || len(sum.SLs) == 0 {
		return nil, fmt.Errorf("%s: not the summary of a sweep (no schedulers or SLs)", path)
	}
	return &sum, nil
}

// reportPlots draws the figures into sweepDir/plots and lists them on out.
func reportPlots(out io.Writer, sweepDir string, sum *sweepSummary) error {
	dir := filepath.Join(sweepDir, "plots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var written []string
	for _, f := range figures {
		p, why := f.plot(sum)
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
	return nil
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
func (f *figure) series(sum *sweepSummary) []series {
	slIndex := map[string]int{}
	for i, sl := range sum.SLs {
		slIndex[sl.Name] = i
	}
	var out []series
	line := map[[2]string]int{}
	for _, r := range sum.Rows {
		i, isSL := slIndex[r.SL]
		e := r.Metrics[f.metric]
		if !isSL || (f.scheduler != "" && r.Scheduler != f.scheduler) || e.Mean == nil || (f.logY && *e.Mean <= 0) {
			continue
		}
		k := [2]string{r.Scheduler, r.SL}
		if _, ok := line[k]; !ok {
			line[k] = len(out)
			out = append(out, series{scheduler: r.Scheduler, sl: i})
		}
		pt := seriesPoint{x: r.Load, y: *e.Mean}
		if e.CI95 != nil {
			pt.ci = *e.CI95
		}
		out[line[k]].pts = append(out[line[k]].pts, pt)
	}
	return out
}

// plot draws the figure, or says why there is nothing to draw.
func (f *figure) plot(sum *sweepSummary) (*plot.Plot, string) {
	if f.scheduler != "" && !slices.Contains(sum.Schedulers, f.scheduler) {
		return nil, "the sweep has no " + f.scheduler + " runs"
	}
	lines := f.series(sum)
	if len(lines) == 0 {
		return nil, "nothing to draw yet (no run has a value for " + f.metric + ")"
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
	return p, ""
}

// addShares draws a thin dotted line at each SL's configured share: where
// a scheduler that honours the shares should put the normalized throughput.
func addShares(p *plot.Plot, sum *sweepSummary) {
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
func (f *figure) legend(p *plot.Plot, sum *sweepSummary) {
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

// slColors: VO blue as in the paper, then green, red, orange, purple...
var slColors = []color.Color{
	color.RGBA{24, 90, 169, 255}, color.RGBA{0, 140, 72, 255}, color.RGBA{238, 46, 47, 255},
	color.RGBA{244, 125, 35, 255}, color.RGBA{102, 44, 145, 255}, color.RGBA{162, 29, 33, 255},
	color.RGBA{180, 56, 148, 255}, color.RGBA{90, 90, 90, 255},
}

func slColor(i int) color.Color { return slColors[i%len(slColors)] }

// schedulerGlyphs follow the paper: DTable (DT) circles, SBT squares, RR
// crosses; the variants get their own.
var schedulerGlyphs = map[string]draw.GlyphDrawer{
	"dtable": draw.CircleGlyph{}, "sbt": draw.SquareGlyph{}, "rr": draw.CrossGlyph{},
	"sbt_strict": draw.TriangleGlyph{}, "rr_vl": draw.PlusGlyph{}, "rr_burst": draw.PyramidGlyph{},
}

// schedulerStyle is a scheduler's marker and its dashes, which follow its
// place in the sweep so every figure of a sweep agrees.
func schedulerStyle(sum *sweepSummary, name string) (draw.GlyphDrawer, []vg.Length) {
	g, ok := schedulerGlyphs[name]
	if !ok {
		g = draw.RingGlyph{}
	}
	return g, plotutil.Dashes(max(slices.Index(sum.Schedulers, name), 0))
}

var schedulerLabels = map[string]string{
	"dtable": "DTable (DT)", "sbt": "SBT", "sbt_strict": "SBT strict", "rr": "RR", "rr_vl": "RR per VL",
	"rr_burst": "RR as SBT",
}

func schedulerLabel(name string) string {
	if l, ok := schedulerLabels[name]; ok {
		return l
	}
	return name
}

// logTicks labels 1, 2 and 5 of every decade and marks the other digits;
// with niceDown and niceUp as the axis ends both ends carry a label.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
		for m := 1; m <= 9; m++ {
			v := float64(m) * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// tickLabel writes v to three significant digits without an exponent:
// 2000, not 2e+03.
func tickLabel(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// loadTicks mark every tenth of the injection rate and label every fifth.
func loadTicks() plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for i := 0; i <= 10; i++ {
		t := plot.Tick{Value: float64(i) / 10}
		if i%2 == 0 {
			t.Label = tickLabel(t.Value)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceDown and niceUp round a positive number to the 1-2-5 series.
func niceDown(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*d <= v {
			return m * d
		}
	}
	return d
}

func niceUp(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*d >= v {
			return m * d
		}
	}
	return 10 * d
}

const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 5 * vg.Inch
	plotDPI    = 150
)

// savePlot writes base.png and base.svg and returns their paths.
func savePlot(p *plot.Plot, base string) ([]string, error) {
	var png, svg bytes.Buffer
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&png); err != nil {
		return nil, err
	}
	w, err := p.WriterTo(plotWidth, plotHeight, "svg")
	if err != nil {
		return nil, err
	}
	if _, err := w.WriteTo(&svg); err != nil {
		return nil, err
	}
	err = errors.Join(writeFileAtomic(base+".png", png.Bytes()), writeFileAtomic(base+".svg", svg.Bytes()))
	return []string{base + ".png", base + ".svg"}, err
}

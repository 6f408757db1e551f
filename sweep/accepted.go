package sweep

// The accepted figure: accepted throughput against offered load, for all
// SLs together and for each SL, one panel each, with the ideal line
// (everything offered is accepted) and each scheduler's saturation knee.

import (
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// KeepUp is the fraction of the offered load a point must accept to count
// as below saturation.
const KeepUp = 0.99

// Knee is where a scheduler saturates: the highest load of the sweep up to
// which every load keeps up, that is accepts at least KeepUp times its
// offered load, or falls short of it by no more than the 95% confidence
// interval of its accepted throughput (means over seeds). The interval
// keeps the noise of short runs and small SLs, a few percent, from
// passing for saturation.
type Knee struct {
	// Load is the knee: the last load that keeps up before the first that
	// does not (a load that keeps up again after it does not count); with Kept false, no load keeps up and Load is 0.
	Load float64
	// Kept: at least one load keeps up. Saturated: some load does not
	// (false: the sweep never reaches saturation, and Load is its
	// highest load).
	Kept, Saturated bool
}

func (k Knee) String() string {
	switch {
	case !k.Kept:
		return "saturated at every load"
	case !k.Saturated:
		return fmt.Sprintf("keeps up to %s", FormatLoad(k.Load))
	}
	return fmt.Sprintf("knee %s", FormatLoad(k.Load))
}

// KneeOf finds the knee of scheduler for SL sl ("all" for every SL)
// from the summary's accepted_throughput (mean and ci95) and offered_load
// means, loads
// in ascending order; a load without both means (no run stored yet) is
// passed over.
func KneeOf(sum *Summary, scheduler, sl string) Knee {
	type pt struct {
		load  float64
		keeps bool
	}
	var pts []pt
	for _, r := range sum.Rows {
		if r.Scheduler != scheduler || r.SL != sl {
			continue
		}
		ae, o := r.Metrics["accepted_throughput"], r.Metrics["offered_load"].Mean
		if ae.Mean == nil || o == nil || !(*o > 0) || math.IsInf(*o, 0) || math.IsNaN(*ae.Mean) {
			continue
		}
		a := *ae.Mean
		if ci := ae.CI95; ci != nil && *ci > 0 && !math.IsInf(*ci, 0) {
			a += *ci
		}
		pts = append(pts, pt{r.Load, a >= KeepUp*(*o)})
	}
	slices.SortStableFunc(pts, func(a, b pt) int {
		switch {
		case a.load < b.load:
			return -1
		case a.load > b.load:
			return 1
		}
		return 0
	})
	var k Knee
	for _, p := range pts {
		if !p.keeps {
			k.Saturated = true
			break
		}
		k.Load, k.Kept = p.load, true
	}
	return k
}

// Panels of the accepted figure, and the column of its legend.
const (
	panelWidth  = 3.4 * vg.Inch
	panelHeight = 3.0 * vg.Inch
	titleHeight = 0.4 * vg.Inch
)

// acceptedPanel is one panel: the "all" rows or one SL's.
type acceptedPanel struct {
	sl    string  // "all" or an SL's name
	index int     // -1 for all, else the SL's index (its colour)
	share float64 // the SL's part of the offered load; 1 for all
}

// acceptedPanels are all SLs first, then each SL in config order.
func acceptedPanels(sum *Summary) []acceptedPanel {
	out := []acceptedPanel{{"all", -1, 1}}
	for i, sl := range sum.SLs {
		out = append(out, acceptedPanel{sl.Name, i, sl.Share})
	}
	return out
}

// panelGrid is the columns and rows of n panels: 2×2 for four, else up
// to three columns.
func panelGrid(n int) (cols, rows int) {
	cols = min(3, n)
	if n == 4 {
		cols = 2
	}
	return cols, (n + cols - 1) / cols
}

// acceptedDrawing draws the accepted figure, or says why there is nothing
// to draw.
func acceptedDrawing(sum *Summary, warn io.Writer) (*drawing, string, error) {
	accepted, skipped := collectSeries(sum, warn, "accepted", "accepted_throughput", "", true, false)
	if len(accepted) == 0 && skipped > 0 {
		return nil, "", fmt.Errorf("%w: all %d values of accepted_throughput were left out (see the messages above)", ErrUndrawable, skipped)
	}
	if len(accepted) == 0 {
		return nil, "nothing to draw yet (no run has a value for accepted_throughput)", nil
	}
	panels := acceptedPanels(sum)
	offsets := seriesOffsets(sum.Loads, len(sum.Schedulers))
	xhi := 1.0
	for _, s := range accepted {
		for _, pt := range s.pts {
			xhi = max(xhi, pt.x)
		}
	}
	var plots []*plot.Plot
	for _, pn := range panels {
		plots = append(plots, acceptedPlot(sum, pn, accepted, offsets, xhi))
	}
	leg := newLegend()
	for _, s := range sum.Schedulers {
		leg.Add(schedulerLabel(s), schedulerThumbs(sum, s, color.Black)...)
		leg.Add("  " + KneeOf(sum, s, "all").String())
	}
	leg.Add("all SLs", &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}})
	for i, sl := range sum.SLs {
		leg.Add(sl.Name, &plotter.Line{LineStyle: draw.LineStyle{Color: slColor(i), Width: vg.Points(2.5)}})
	}
	leg.Add("offered: the ideal", &plotter.Line{LineStyle: idealStyle()})
	leg.Add("knee: last load with", kneeThumb{})
	leg.Add("  accepted + 95% CI")
	leg.Add(fmt.Sprintf("  >= %g x offered", KeepUp))
	barLegend(&leg, accepted)
	cols, rows := panelGrid(len(panels))
	w := panelWidth*vg.Length(cols) + legendWidth
	h := panelHeight*vg.Length(rows) + titleHeight
	title := fmt.Sprintf("Accepted vs offered load: %s, %s", sum.Topology, sum.Traffic)
	return &drawing{w: w, h: h, draw: func(c draw.Canvas) {
		ts := plot.New().Title.TextStyle
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
		c.FillText(ts, vg.Point{X: (w - legendWidth) / 2, Y: h - titleHeight/2}, title)
		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, cols)
			for k := range cols {
				if i := r*cols + k; i < len(plots) {
					grid[r][k] = plots[i]
				}
			}
		}
		area := draw.Crop(c, 0, -legendWidth, 0, -titleHeight)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
		canvases := plot.Align(grid, tiles, area)
		for r := range grid {
			for k, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][k])
				}
			}
		}
		leg.Draw(draw.Crop(c, w-legendWidth, 0, 0, -titleHeight-vg.Points(8)))
	}}, "", nil
}

func idealStyle() draw.LineStyle {
	return draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(1.5)}
}

// acceptedPlot is one panel: the panel's series of every scheduler, the
// ideal line y = share·x and a ring at each scheduler's knee.
func acceptedPlot(sum *Summary, pn acceptedPanel, accepted []series, offsets []float64, xhi float64) *plot.Plot {
	title := "All SLs"
	if pn.index >= 0 {
		title = fmt.Sprintf("%s (%s of the load)", pn.sl, FormatLoad(pn.share))
	}
	p := newPlot(title, "Accepted (flits/cycle/NIC)")
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(10), vg.Points(10)
	c := color.Color(color.Black)
	if pn.index >= 0 {
		c = slColor(pn.index)
	}
	var marks, rings []*plotter.Scatter
	hi := 0.0
	if off := offeredLine(sum, pn.sl); len(off) > 1 {
		if ideal, err := plotter.NewLine(off); err == nil {
			ideal.LineStyle = idealStyle()
			p.Add(ideal)
		}
		for _, o := range off {
			hi = max(hi, o.Y)
		}
	}
	for _, s := range accepted {
		if s.sl != pn.index {
			continue
		}
		k := max(slices.Index(sum.Schedulers, s.scheduler), 0)
		dx := 0.0
		if k < len(offsets) {
			dx = offsets[k]
		}
		marks = append(marks, addSeries(p, s, c, sum, dx, false))
		for _, pt := range s.pts {
			hi = max(hi, pt.y+pt.bar())
		}
		if kn := KneeOf(sum, s.scheduler, pn.sl); kn.Kept && kn.Saturated {
			for _, pt := range s.pts {
				if pt.x == kn.Load {
					ring := &plotter.Scatter{XYs: plotter.XYs{{X: pt.x + dx, Y: pt.y}}, GlyphStyle: draw.GlyphStyle{
						Color: color.Black, Radius: vg.Points(5.5), Shape: mark{shapeCircle, false}}}
					rings = append(rings, ring)
				}
			}
		}
	}
	addMarks(p, marks)
	for _, r := range rings {
		p.Add(r)
	}
	setLoadAxis(p, xhi, offsets, true)
	p.Y.Tick.Marker = linearTicks{}
	p.Y.Min, p.Y.Max = 0, niceTop(hi)
	return p
}

// kneeThumb is the knee's ring in a legend.
type kneeThumb struct{}

func (kneeThumb) Thumbnail(c *draw.Canvas) {
	mark{shapeCircle, false}.DrawGlyph(c, draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5.5)}, c.Center())
}

// offeredLine is the ideal of a panel, where accepted equals offered:
// from the origin through the mean offered load of SL sl ("all": every
// SL) at each load, averaged over the schedulers (whose runs of a seed
// offer the same traffic).
func offeredLine(sum *Summary, sl string) plotter.XYs {
	total, count := map[float64]float64{}, map[float64]int{}
	for _, r := range sum.Rows {
		o := r.Metrics["offered_load"].Mean
		if r.SL != sl || o == nil || math.IsNaN(*o) || math.IsInf(*o, 0) || math.Abs(*o) > maxPlotValue ||
			math.IsNaN(r.Load) || math.IsInf(r.Load, 0) {
			continue
		}
		total[r.Load] += *o
		count[r.Load]++
	}
	out := plotter.XYs{{X: 0, Y: 0}}
	for _, l := range slices.Sorted(maps.Keys(total)) {
		out = append(out, plotter.XY{X: l, Y: total[l] / float64(count[l])})
	}
	return out
}

// kneeLine gives each scheduler's knee of all SLs, or "" if no scheduler
// has an accepted and an offered load to compare.
func kneeLine(sum *Summary) string {
	var parts []string
	found := false
	for _, s := range sum.Schedulers {
		k := KneeOf(sum, s, "all")
		found = found || k.Kept || k.Saturated
		parts = append(parts, s+" "+k.String())
	}
	if !found {
		return ""
	}
	return fmt.Sprintf("plots: knees (last load with accepted + 95%% CI >= %g x offered, all SLs): %s", KeepUp, strings.Join(parts, ", "))
}

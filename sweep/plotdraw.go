package sweep

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

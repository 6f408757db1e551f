package sweep

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one series of a line figure: points (X[i], Y[i]).
type Line struct {
	Name string
	X, Y []float64
}

// LineFigure describes a figure of lines, such as the flow engine's
// scalability plots (seed 001 Fig. 7): throughput against endpoints,
// log-log.
type LineFigure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Lines                 []Line
}

// ErrNoPoints is returned by WriteLines for a figure with nothing to draw.
var ErrNoPoints = errors.New("no point to draw")

// WriteLines draws f to base.png and base.svg and returns the files
// written. Points a log axis cannot show (x or y not above 0) are left
// out; a figure left without points is ErrNoPoints.
func WriteLines(f LineFigure, base string) ([]string, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = f.Title, f.XLabel, f.YLabel
	p.Add(plotter.NewGrid())
	lo, hi, drawn := math.Inf(1), math.Inf(-1), 0
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for i, l := range f.Lines {
		if len(l.X) != len(l.Y) {
			return nil, fmt.Errorf("line %q: %d x values, %d y values", l.Name, len(l.X), len(l.Y))
		}
		var pts plotter.XYs
		for j := range l.X {
			x, y := l.X[j], l.Y[j]
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || f.LogX && x <= 0 || f.LogY && y <= 0 {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
			lo, hi, xlo, xhi = min(lo, y), max(hi, y), min(xlo, x), max(xhi, x)
		}
		if len(pts) == 0 {
			continue
		}
		drawn += len(pts)
		line, scatter, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, scatter.Color = slColor(i), slColor(i)
		line.Width, scatter.Radius = vg.Points(1.2), vg.Points(2.5)
		scatter.Shape = plotutil.Shape(i)
		p.Add(line, scatter)
		p.Legend.Add(l.Name, line, scatter)
	}
	if drawn == 0 {
		return nil, ErrNoPoints
	}
	if f.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.X.Min, p.X.Max = niceDown(xlo), niceUp(xhi)
	}
	if f.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = niceDown(lo), niceUp(hi)
	}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: the lines of growth plots rise to the top right
	return savePlot(p, base)
}

// BarFigure is a figure of grouped bars: for each group (a category on
// the x axis) one bar per series, such as normalized execution times per
// application and topology (seed 001 Fig. 8).
type BarFigure struct {
	Title, YLabel string
	Groups        []string
	Series        []Line // Series[i].Y[j]: series i's bar in group j (X unused)
}

// WriteBars draws f to base.png and base.svg.
func WriteBars(f BarFigure, base string) ([]string, error) {
	if len(f.Groups) == 0 || len(f.Series) == 0 {
		return nil, ErrNoPoints
	}
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = f.Title, f.YLabel
	w := vg.Points(float64(min(14, 320/(len(f.Series)*len(f.Groups)+1))))
	top := 0.0
	for i, s := range f.Series {
		if len(s.Y) != len(f.Groups) {
			return nil, fmt.Errorf("series %q: %d values for %d groups", s.Name, len(s.Y), len(f.Groups))
		}
		vs := make(plotter.Values, len(s.Y))
		for j, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) || y < 0 {
				y = 0 // not measured: no bar
			}
			vs[j] = y
			top = max(top, y)
		}
		b, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return nil, err
		}
		b.Color = slColor(i)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(i)-float64(len(f.Series)-1)/2)
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(f.Groups...)
	long := 0
	for _, g := range f.Groups {
		long = max(long, len(g))
	}
	if long*len(f.Groups) > 90 { // the names would run into each other: slant them
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	p.X.Min, p.X.Max = -0.6, float64(len(f.Groups))-0.4
	p.Y.Min, p.Y.Max = 0, max(top*1.4, 1e-9) // room for the legend above the bars
	p.Add(plotter.NewGrid())
	return savePlot(p, base)
}

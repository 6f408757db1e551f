package sweep

// Markers, ticks and the canvas of the sweep's figures: markers drawn with
// strokes thick enough to see at 150 dpi, filled ones with a white rim so
// that filled markers drawn over one another stay apart; linear ticks with 5 to
// 10 labels; a figure of any size written as PNG and SVG.

import (
	"bytes"
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// markShape is the outline of a marker.
type markShape int

const (
	shapeCircle markShape = iota
	shapeSquare
	shapeTriangle
	shapeCross
	shapePlus
	shapeDiamond
)

// mark is a scheduler's marker: a shape, filled or drawn as an outline of
// markStroke. It is comparable (TestSchedulerGlyphs).
type mark struct {
	shape  markShape
	filled bool
}

const markStroke = 1.1 // points

func (m mark) path(pt vg.Point, r vg.Length) []vg.Path {
	var p vg.Path
	switch m.shape {
	case shapeCircle:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	case shapeSquare:
		x := r * 0.85
		p.Move(vg.Point{X: pt.X - x, Y: pt.Y - x})
		p.Line(vg.Point{X: pt.X + x, Y: pt.Y - x})
		p.Line(vg.Point{X: pt.X + x, Y: pt.Y + x})
		p.Line(vg.Point{X: pt.X - x, Y: pt.Y + x})
		p.Close()
	case shapeTriangle:
		h := r * 1.15
		p.Move(vg.Point{X: pt.X, Y: pt.Y + h})
		p.Line(vg.Point{X: pt.X - h*0.866, Y: pt.Y - h*0.5})
		p.Line(vg.Point{X: pt.X + h*0.866, Y: pt.Y - h*0.5})
		p.Close()
	case shapeDiamond:
		h := r * 1.15
		p.Move(vg.Point{X: pt.X, Y: pt.Y + h})
		p.Line(vg.Point{X: pt.X + h, Y: pt.Y})
		p.Line(vg.Point{X: pt.X, Y: pt.Y - h})
		p.Line(vg.Point{X: pt.X - h, Y: pt.Y})
		p.Close()
	case shapeCross, shapePlus:
		d := r
		if m.shape == shapeCross {
			d = r * 0.9
			var a, b vg.Path
			a.Move(vg.Point{X: pt.X - d, Y: pt.Y - d})
			a.Line(vg.Point{X: pt.X + d, Y: pt.Y + d})
			b.Move(vg.Point{X: pt.X - d, Y: pt.Y + d})
			b.Line(vg.Point{X: pt.X + d, Y: pt.Y - d})
			return []vg.Path{a, b}
		}
		var a, b vg.Path
		a.Move(vg.Point{X: pt.X, Y: pt.Y - d})
		a.Line(vg.Point{X: pt.X, Y: pt.Y + d})
		b.Move(vg.Point{X: pt.X - d, Y: pt.Y})
		b.Line(vg.Point{X: pt.X + d, Y: pt.Y})
		return []vg.Path{a, b}
	}
	return []vg.Path{p}
}

// DrawGlyph draws a filled mark over a white rim, so that filled marks
// drawn over one another keep their shapes; an outline or a cross is
// drawn as it is, so that one drawn over another mark (addMarks draws
// them last) leaves it visible.
func (m mark) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	white := color.White
	if m.filled && m.shape != shapeCross && m.shape != shapePlus {
		c.SetColor(white)
		for _, p := range m.path(pt, sty.Radius+vg.Points(0.8)) {
			c.Fill(p)
		}
		c.SetColor(sty.Color)
		for _, p := range m.path(pt, sty.Radius) {
			c.Fill(p)
		}
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(markStroke)})
	for _, p := range m.path(pt, sty.Radius) {
		c.Stroke(p)
	}
}

// linearTicks labels a linear axis every step of the 1-2-5 series that
// gives 5 to 10 labels (the fewest above 4 that fit), with an unlabelled
// tick halfway between labels.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	step := linearStep(lo, hi)
	if step == 0 {
		return nil
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step*2-1e-9) / 2
	for k := first; k*step <= hi*(1+1e-12)+1e-12; k += 0.5 {
		v := k * step
		if v == 0 {
			v = 0 // not -0
		}
		t := plot.Tick{Value: v}
		if math.Abs(k-math.Round(k)) < 1e-9 {
			t.Label = tickLabel(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// linearStep is the step of the 1-2-5 series (…, 0.1, 0.2, 0.5, 1, …) for
// which [lo, hi] holds 5 to 10 multiples of the step, or 0 for an axis
// that is not a finite interval of positive length.
func linearStep(lo, hi float64) float64 {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return 0
	}
	span := hi - lo
	d := math.Pow(10, math.Floor(math.Log10(span))-1)
	for i := 0; i < 12; i++ {
		for _, m := range []float64{1, 2, 5} {
			step := m * d
			n := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
			if n <= 10 {
				return step
			}
		}
		d *= 10
	}
	return 0
}

// niceTop is the end of a linear axis from 0 that holds hi with a
// little room: the next multiple of its tick step above hi·1.05.
func niceTop(hi float64) float64 {
	if !(hi > 0) || math.IsInf(hi, 0) {
		return 1
	}
	top := hi * 1.05
	step := linearStep(0, top)
	return math.Ceil(top/step-1e-9) * step
}

// saveCanvas draws a figure of w×h with drawFig on white and writes
// base.png (at plotDPI) and base.svg; it returns their paths.
func saveCanvas(w, h vg.Length, drawFig func(draw.Canvas), base string) ([]string, error) {
	var png, svg bytes.Buffer
	white := func(dc draw.Canvas) draw.Canvas {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		return dc
	}
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))
	drawFig(white(draw.New(c)))
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&png); err != nil {
		return nil, err
	}
	s := vgsvg.New(w, h)
	drawFig(white(draw.New(s)))
	if _, err := s.WriteTo(&svg); err != nil {
		return nil, err
	}
	err := errors.Join(writeFileAtomic(base+".png", png.Bytes()), writeFileAtomic(base+".svg", svg.Bytes()))
	return []string{base + ".png", base + ".svg"}, err
}

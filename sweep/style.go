package sweep

// How the figures look: an SL keeps its colour in every figure, a scheduler
// its marker and dashes; the axes' ticks; writing PNG and SVG.

import (
	"bytes"
	"errors"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/opasim/opasim/fabric/sched"
)

// slColors: VO blue as in the paper, then green, red, orange, purple...
var slColors = []color.Color{
	color.RGBA{24, 90, 169, 255}, color.RGBA{0, 140, 72, 255}, color.RGBA{238, 46, 47, 255},
	color.RGBA{244, 125, 35, 255}, color.RGBA{102, 44, 145, 255}, color.RGBA{162, 29, 33, 255},
	color.RGBA{180, 56, 148, 255}, color.RGBA{90, 90, 90, 255},
}

func slColor(i int) color.Color { return slColors[i%len(slColors)] }

// schedulerGlyph is the marker a scheduler's registration gives it
// (sched.Registration.Mark: DTable filled circles, SBT squares, RR crosses
// as in the paper, the others their own, two drawn over one another once
// the plain ones run out; TestSchedulerGlyphs: no two alike). Outlines and
// crosses drawn over a filled marker of the same colour stay visible: each
// mark is drawn over a white rim. An unregistered name gets otherGlyph.
func schedulerGlyph(name string) draw.GlyphDrawer {
	reg, err := sched.Default().Get(name)
	if err != nil || reg.Mark.Shape == sched.ShapeNone {
		return otherGlyph
	}
	under := mark{shapeOf[reg.Mark.Shape], reg.Mark.Filled}
	if reg.Mark.Over == sched.ShapeNone {
		return under
	}
	return overlay{under, mark{shapeOf[reg.Mark.Over], false}}
}

// shapeOf draws each of the registrations' shapes.
var shapeOf = map[sched.Shape]markShape{
	sched.ShapeCircle: shapeCircle, sched.ShapeSquare: shapeSquare, sched.ShapeTriangle: shapeTriangle,
	sched.ShapeDiamond: shapeDiamond, sched.ShapeCross: shapeCross, sched.ShapePlus: shapePlus,
}

// otherGlyph marks a scheduler with no registered marker.
var otherGlyph draw.GlyphDrawer = mark{shapeDiamond, false}

// overlay draws one glyph over another (a ring with a plus inside, a box
// with a cross); it is comparable, so two overlays of the same glyphs are
// equal.
type overlay struct{ under, over draw.GlyphDrawer }

func (o overlay) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	o.under.DrawGlyph(c, sty, pt)
	o.over.DrawGlyph(c, sty, pt)
}

// schedulerStyle is a scheduler's marker and its dashes, which follow its
// place in the sweep so every figure of a sweep agrees.
func schedulerStyle(sum *Summary, name string) (draw.GlyphDrawer, []vg.Length) {
	return schedulerGlyph(name), plotutil.Dashes(max(slices.Index(sum.Schedulers, name), 0))
}

// schedulerLabel is how the figures name a scheduler (its registration's
// Label).
func schedulerLabel(name string) string { return sched.Default().Label(name) }

// logTicks labels 1, 2 and 5 of every decade, and 3 too when that gives
// fewer than 5 labels, and every digit when that still does; the other
// digits are marked. Over more than four decades only the powers of ten
// are labelled. Both ends of the axis are labelled, ticks or not. An
// axis that does not lie within (0, +Inf) gets no ticks.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || math.IsInf(lo, 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	var ticks []plot.Tick
	for _, labelled := range []string{"125", "1235", "123456789"} {
		if math.Log10(hi/lo) > 4 {
			labelled = "1"
		}
		ticks = ticks[:0]
		n := 0
		for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
			for m := 1; m <= 9; m++ {
				v := float64(m) * d
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if strings.ContainsRune(labelled, rune('0'+m)) {
					t.Label = tickLabel(v)
					n++
				}
				ticks = append(ticks, t)
			}
		}
		if n >= 5 || labelled == "1" {
			break
		}
	}
	// Both ends are labelled: an axis up to 6000 or 1500 says so.
	for _, end := range []float64{lo, hi} {
		i := slices.IndexFunc(ticks, func(t plot.Tick) bool { return math.Abs(t.Value-end) <= 1e-9*end })
		if i < 0 {
			ticks = append(ticks, plot.Tick{Value: end})
			i = len(ticks) - 1
		}
		ticks[i].Label = tickLabel(end)
	}
	return ticks
}

// tickLabel writes v to three significant digits without an exponent:
// 2000, not 2e+03.
func tickLabel(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// loadTicks mark and label every tenth of the injection rate from 0 to
// top (at least 1); the axis shows those within its range.
func loadTicks(top float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for i := 0; float64(i) <= 10*max(1, top)+1e-9; i++ {
		ticks = append(ticks, plot.Tick{Value: float64(i) / 10, Label: tickLabel(float64(i) / 10)})
	}
	return ticks
}

// panelLoadTicks, for a narrow panel, mark every tenth and label every
// fifth.
func panelLoadTicks(top float64) plot.ConstantTicks {
	ticks := loadTicks(top)
	for i := range ticks {
		if i%2 == 1 {
			ticks[i].Label = ""
		}
	}
	return ticks
}

// digitDown and digitUp round a positive number down or up to one
// significant digit (360 to 300 and 400; up from just above a power of
// ten to 1.5 times it): log axis ends closer to the
// data than niceDown and niceUp, still labelled (logTicks labels every
// digit when 1, 2, 3 and 5 are too few).
func digitDown(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	return math.Floor(v/d*(1+1e-12)) * d
}

func digitUp(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	if v <= 1.5*d*(1+1e-12) && v > d*(1+1e-12) {
		return 1.5 * d // 1030 to 1500, not 2000
	}
	return math.Ceil(v/d*(1-1e-12)) * d
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

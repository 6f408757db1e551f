package linkplot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// ErrNoLinks: the results carry no per-link list to draw.
var ErrNoLinks = errors.New("the results have no per-link utilization (a sweep's runs keep only the link classes; draw the results of opasim run --out)")

// Figure sizes and resolution.
const (
	dpi         = 150
	barWidth    = vg.Length(70)
	titleHeight = vg.Length(0)
)

// Options choose how Write draws.
type Options struct {
	// Max draws a group of links (a torus trunk, a switch's links of one
	// class) as its busiest member; otherwise as the group's mean.
	Max bool
}

// Write draws r's per-link utilization into path, a .png or .svg file, and
// says what it drew.
func Write(r *sim.Results, path string, o Options) (string, error) {
	if r.Links == nil || len(r.Links.Links) == 0 {
		return "", ErrNoLinks
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return "", fmt.Errorf("output %q: the file name must end in .png or .svg", path)
	}
	spec := r.Config.TopologySpec()
	t, err := spec.Build()
	if err != nil {
		return "", fmt.Errorf("the results' topology: %w", err)
	}
	if t.NumSwitches() != r.Switches || t.NumNICs() != r.NICs {
		return "", fmt.Errorf("the results' config builds %d switches and %d NICs, the results have %d and %d", t.NumSwitches(), t.NumNICs(), r.Switches, r.NICs)
	}
	cm := heatColors()
	var p *plot.Plot
	var what string
	hi := 0.0
	if a, b, ok := gridDims(t); ok {
		p, hi = torusPlot(r, t, a, b, cm, o.Max)
		what = fmt.Sprintf("torus map of %s: each switch's trunk toward + and − along each dimension coloured by the %s utilization of its links", r.Topology, o.group())
	} else {
		p, hi = matrixPlot(r, t, cm, o.Max)
		what = fmt.Sprintf("matrix of link classes by switch of %s: each cell the %s utilization of that switch's links of that class", r.Topology, o.group())
	}
	p.Title.Text = fmt.Sprintf("Link utilization, %s\nload %.3g, %d measured cycles; colours from 0 to %.3f, the highest drawn", r.Topology, r.OfferedLoad, r.MeasuredCycles, hi)
	w, h := vg.Length(900), vg.Length(620)
	if err := save(path, w, h, func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -barWidth, 0, 0))
		colorBar(cm).Draw(draw.Crop(c, w-barWidth, 0, vg.Points(40), -vg.Points(40)))
	}); err != nil {
		return "", err
	}
	return what, nil
}

// gridDims returns the dimensions of t drawn as the two axes of a grid: a
// torus with at most two dimensions longer than one switch.
func gridDims(t *topo.Topology) (a, b int, ok bool) {
	if t.Kind != topo.KindTorus {
		return 0, 0, false
	}
	var long []int
	for i, size := range t.Dims {
		if size > 1 {
			long = append(long, i)
		}
	}
	switch len(long) {
	case 1:
		return long[0], -1, true
	case 2:
		return long[0], long[1], true
	}
	return 0, 0, false
}

func (o Options) group() string {
	if o.Max {
		return "highest"
	}
	return "mean"
}

// groupBy sums up the utilization of r's links grouped by key (links for
// which key says no are left out): each group's highest with most, else
// its mean.
func groupBy[K comparable](r *sim.Results, most bool, key func(l *sim.LinkUse) (K, bool)) map[K]float64 {
	sum, n := map[K]float64{}, map[K]int{}
	for i := range r.Links.Links {
		k, ok := key(&r.Links.Links[i])
		if !ok {
			continue
		}
		u := r.Links.Links[i].Utilization
		switch {
		case most:
			if n[k] == 0 || u > sum[k] {
				sum[k] = u
			}
		default:
			sum[k] += u
		}
		n[k]++
	}
	if !most {
		for k := range sum {
			sum[k] /= float64(n[k])
		}
	}
	return sum
}

// heatColors runs from light yellow (idle) through orange and red to dark
// red (the busiest link drawn), its luminance linear in the value.
func heatColors() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.RGBA{128, 0, 38, 255}, color.RGBA{227, 26, 28, 255}, color.RGBA{253, 141, 60, 255}, color.RGBA{255, 237, 160, 255}})
	if err != nil {
		panic(err) // the controls' luminance increases
	}
	return palette.Reverse(cm)
}

// setRange scales cm from 0 to hi (a tiny range when nothing moved).
func setRange(cm palette.ColorMap, hi float64) {
	cm.SetMin(0)
	cm.SetMax(math.Max(hi, 1e-9))
}

func colorBar(cm palette.ColorMap) *plot.Plot {
	p := plot.New()
	p.HideX()
	p.Y.Label.Text = "utilization (flits/cycle)"
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	return p
}

// save writes the drawing as PNG or SVG, by path's extension.
func save(path string, w, h vg.Length, drawFig func(draw.Canvas)) error {
	var buf bytes.Buffer
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		c := vgsvg.New(w, h)
		drawFig(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
	} else {
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		drawFig(dc)
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// labels are tick labels at 0, 1, ... n-1 (every step-th).
func labels(names []string, step int) plot.ConstantTicks {
	var ts plot.ConstantTicks
	for i, s := range names {
		if i%step == 0 {
			ts = append(ts, plot.Tick{Value: float64(i), Label: s})
		} else {
			ts = append(ts, plot.Tick{Value: float64(i)})
		}
	}
	return ts
}

func numbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

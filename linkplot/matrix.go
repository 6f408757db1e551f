package linkplot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"

	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// matrixPlot draws one row per link class (bottom to top: injection, the
// switch-to-switch classes, ejection) and one column per switch, each
// cell the mean (with most, the highest) utilization of that switch's
// links of that class (for
// "injection", of the links of the NICs attached to it); blank where a
// switch has no link of the class.
func matrixPlot(r *sim.Results, t *topo.Topology, cm palette.ColorMap, most bool) (*plot.Plot, float64) {
	g, names, hi := matrixCells(r, t, most)
	setRange(cm, hi)
	h := plotter.NewHeatMap(g, cm.Palette(256))
	h.Min, h.Max = cm.Min(), cm.Max()
	h.NaN = nil
	p := plot.New()
	p.Add(h)
	p.X.Label.Text = "switch"
	p.X.Tick.Marker = labels(numbers(t.NumSwitches()), max(1, (t.NumSwitches()+15)/16))
	p.Y.Tick.Marker = labels(names, 1)
	return p, hi
}

// matrixCells is matrixPlot's grid (NaN where a switch has no link of a
// class), its rows' class names and its highest cell.
func matrixCells(r *sim.Results, t *topo.Topology, most bool) (g grid, names []string, hi float64) {
	type key struct{ class, sw int }
	row := map[string]int{}
	for _, c := range r.Links.Classes { // in a packet's order up the rows: injection first, ejection last
		if c.Class != "ejection" {
			row[c.Class] = len(names)
			names = append(names, c.Class)
		}
	}
	for _, c := range r.Links.Classes {
		if c.Class == "ejection" {
			row[c.Class] = len(names)
			names = append(names, c.Class)
		}
	}
	use := groupBy(r, most, func(l *sim.LinkUse) (key, bool) {
		sw := l.Switch
		if l.NIC >= 0 {
			sw = t.NICPort[l.NIC].Switch
		}
		return key{row[l.Class], sw}, true
	})
	for _, v := range use {
		hi = max(hi, v)
	}
	g = grid{cols: t.NumSwitches(), rows: len(names), z: func(c, r int) float64 {
		if v, ok := use[key{r, c}]; ok {
			return v
		}
		return math.NaN()
	}}
	return g, names, hi
}

// grid is a plotter.GridXYZ of cols × rows cells at integer positions.
type grid struct {
	cols, rows int
	z          func(c, r int) float64
}

func (g grid) Dims() (c, r int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z(c, r) }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

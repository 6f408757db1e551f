package linkplot

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// torusPlot draws torus t as its grid of switches, dimension a across and
// b up (b < 0: a ring), each switch's links toward + and − along each
// dimension as a bar coloured by their utilization (the trunk's busiest
// member with most, else the mean over its members). Links toward + run above (a) or left of (b) the line
// between two switches, links toward − below or right; a wrap-around link
// is the stub leaving the grid's edge.
func torusPlot(r *sim.Results, t *topo.Topology, a, b int, cm palette.ColorMap, most bool) (*plot.Plot, float64) {
	p := plot.New()
	g, hi := torusBars(r, t, a, b, most)
	g.cm, g.label = cm, p.X.Tick.Label
	g.label.XAlign, g.label.YAlign = draw.XCenter, draw.YCenter
	setRange(cm, hi)
	p.Add(g)
	p.X.Label.Text = fmt.Sprintf("dimension %d (toward + above each row, toward − below)", a)
	p.X.Tick.Marker = labels(numbers(t.Dims[a]), 1)
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}}
	if b >= 0 {
		p.Y.Label.Text = fmt.Sprintf("dimension %d (toward + left of each column, toward − right)", b)
		p.Y.Tick.Marker = labels(numbers(t.Dims[b]), 1)
	}
	return p, hi
}

// torusBars places torusPlot's switches and bars, and gives the highest
// bar's utilization.
func torusBars(r *sim.Results, t *topo.Topology, a, b int, most bool) (g *torusLinks, hi float64) {
	use := groupBy(r, most, trunkOf)
	stride := make([]int, len(t.Dims))
	for i := range t.Dims {
		stride[i] = 1
		if i > 0 {
			stride[i] = stride[i-1] * t.Dims[i-1]
		}
	}
	coord := func(s, dim int) int {
		if dim < 0 {
			return 0
		}
		return s / stride[dim] % t.Dims[dim]
	}
	g = &torusLinks{nx: t.Dims[a], ny: 1}
	if b >= 0 {
		g.ny = t.Dims[b]
	}
	const near, far, side = 0.22, 0.78, 0.09
	for s := range t.NumSwitches() {
		x, y := float64(coord(s, a)), float64(coord(s, b))
		g.nodes = append(g.nodes, node{x, y, strconv.Itoa(s)})
		for _, d := range []int{a, b} {
			if d < 0 {
				continue
			}
			for _, plus := range []bool{true, false} {
				v, ok := use[trunk{s, d, plus}]
				if !ok {
					continue
				}
				sg, o := seg{v: v}, side
				from, to := near, far
				if !plus {
					from, to, o = -near, -far, -side
				}
				if d == a {
					sg.x0, sg.y0, sg.x1, sg.y1 = x+from, y+o, x+to, y+o
				} else {
					sg.x0, sg.y0, sg.x1, sg.y1 = x-o, y+from, x-o, y+to
				}
				g.segs = append(g.segs, sg)
				hi = max(hi, v)
			}
		}
	}
	return g, hi
}

// trunk is a switch's trunk toward + (plus) or − along a dimension.
type trunk struct {
	sw, dim int
	plus    bool
}

// trunkOf is the trunk a torus link belongs to (false for the other
// links: a NIC's, an ejection link).
func trunkOf(l *sim.LinkUse) (trunk, bool) {
	var dim int
	var dir string
	if l.Switch < 0 || !strings.HasPrefix(l.Class, "dimension ") {
		return trunk{}, false
	}
	if _, err := fmt.Sscanf(l.Class, "dimension %d %s", &dim, &dir); err != nil {
		return trunk{}, false
	}
	return trunk{l.Switch, dim, dir == "+"}, true
}

// seg is one link's bar, in data coordinates, and its utilization.
type seg struct{ x0, y0, x1, y1, v float64 }

// node is a switch at its grid position.
type node struct {
	x, y float64
	name string
}

// torusLinks is the plotter of torusPlot.
type torusLinks struct {
	segs   []seg
	nodes  []node
	cm     palette.ColorMap
	label  text.Style
	nx, ny int
}

// Plot implements plot.Plotter.
func (g *torusLinks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	unit := min(trX(1)-trX(0), trY(1)-trY(0))
	width := max(unit/14, vg.Points(1.5))
	for _, s := range g.segs {
		col, err := g.cm.At(s.v)
		if err != nil {
			col = color.Black
		}
		c.StrokeLine2(draw.LineStyle{Color: col, Width: width}, trX(s.x0), trY(s.y0), trX(s.x1), trY(s.y1))
	}
	half := unit * 0.14
	sty := draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.6)}
	lab := g.label
	lab.Font.Size = min(lab.Font.Size, half*0.9)
	for _, n := range g.nodes {
		x, y := trX(n.x), trY(n.y)
		box := []vg.Point{{X: x - half, Y: y - half}, {X: x + half, Y: y - half}, {X: x + half, Y: y + half}, {X: x - half, Y: y + half}, {X: x - half, Y: y - half}}
		c.StrokeLines(sty, box)
		c.FillText(lab, vg.Point{X: x, Y: y}, n.name)
	}
}

// DataRange implements plot.DataRanger: the grid and a stub's length
// around it.
func (g *torusLinks) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.9, float64(g.nx) - 0.1, -0.9, float64(g.ny) - 0.1
}

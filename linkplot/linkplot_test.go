package linkplot

import (
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// synthetic gives every link of preset's network a utilization of its own,
// f(link), through the same path a run takes (fabric.Network.Links).
func synthetic(t *testing.T, preset string, f func(l fabric.Link) float64) *sim.Results {
	t.Helper()
	cfg := fabric.Default()
	cfg.Topology = fabric.TopologyConfig{Preset: preset}
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	r := &sim.Results{Config: cfg, Topology: preset, Switches: n.NumSwitches(), NICs: n.NumNICs(), MeasuredCycles: 1000, Links: &sim.LinkResults{}}
	for _, l := range n.Links() {
		if l.Wired() {
			u := f(l)
			r.Links.Links = append(r.Links.Links, sim.LinkUse{From: l.From(), To: l.Dest(), Class: l.Class, NIC: l.NIC, Switch: l.Switch, Port: l.Port, Utilization: u, PerVL: []float64{u}})
		}
	}
	r.Links.Classes = []sim.LinkClass{{Class: "injection"}, {Class: "ejection"}}
	return r
}

// TestTorusMapPlacesEachLink: on torus2d-4x4 each bar sits between its
// switch and the neighbour it leads to (+ above a row or left of a
// column, − below or right) and carries the mean of its trunk members.
func TestTorusMapPlacesEachLink(t *testing.T) {
	// A member m of switch s's trunk along dimension d toward + gets
	// s + 100 d + 1000 (+) + m/10: the trunk's mean is s + 100 d + 1000 + 0.45.
	r := synthetic(t, "torus2d-4x4", func(l fabric.Link) float64 {
		if l.NIC >= 0 || l.To.Kind != topo.PeerSwitch {
			return 0
		}
		d, plus := (l.Port-8)/20, (l.Port-8)%20 < 10
		v := float64(l.Switch) + 100*float64(d) + float64((l.Port-8)%10)/10
		if plus {
			v += 1000
		}
		return v
	})
	spec := r.Config.TopologySpec()
	tp, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	a, b, ok := gridDims(tp)
	if !ok || a != 0 || b != 1 {
		t.Fatalf("grid dimensions %d, %d, %v; want 0, 1", a, b, ok)
	}
	g, hi := torusBars(r, tp, a, b, false)
	if len(g.segs) != 16*4 {
		t.Fatalf("%d bars, want 64 (16 switches, 2 dimensions, 2 directions)", len(g.segs))
	}
	if want := 15 + 100 + 1000 + 0.45; math.Abs(hi-want) > 1e-9 {
		t.Errorf("highest bar %.4f, want %.4f", hi, want)
	}
	for _, sg := range g.segs {
		v := sg.v - 0.45
		plus := v >= 1000
		if plus {
			v -= 1000
		}
		d, s := int(math.Round(v))/100, int(math.Round(v))%100
		x, y := float64(s%4), float64(s/4)
		dir := 1.0
		if !plus {
			dir = -1
		}
		mx, my := (sg.x0+sg.x1)/2, (sg.y0+sg.y1)/2
		var wantX, wantY float64 // the bar's middle: half way to the neighbour, offset to its side
		if d == 0 {
			wantX, wantY = x+dir*0.5, y+dir*0.09
		} else {
			wantX, wantY = x-dir*0.09, y+dir*0.5
		}
		if math.Abs(mx-wantX) > 1e-9 || math.Abs(my-wantY) > 1e-9 {
			t.Errorf("switch %d dimension %d plus %v: bar centred at (%.2f, %.2f), want (%.2f, %.2f)", s, d, plus, mx, my, wantX, wantY)
		}
	}
}

// TestMatrixCells: on tree-8ary-2 a cell is the mean of that switch's
// links of that class; injection links count at their NIC's switch.
func TestMatrixCells(t *testing.T) {
	r := synthetic(t, "tree-8ary-2", func(l fabric.Link) float64 {
		if l.NIC >= 0 {
			return float64(l.NIC) // NICs 8s..8s+7 on leaf s: mean 8s + 3.5
		}
		return float64(l.Switch*100 + l.Port)
	})
	r.Links.Classes = []sim.LinkClass{{Class: "injection"}, {Class: "ejection"}, {Class: "level 0 up"}, {Class: "level 1 down"}}
	tp, err := r.Config.TopologySpec().Build()
	if err != nil {
		t.Fatal(err)
	}
	cells, names, _ := matrixCells(r, tp, false)
	if want := "[injection level 0 up level 1 down ejection]"; fmt.Sprint(names) != want {
		t.Errorf("rows %v, want %s", names, want)
	}
	for _, c := range []struct {
		row, col int
		want     float64
	}{
		{0, 3, 8*3 + 3.5},        // injection at leaf 3
		{1, 2, 200 + (8+15)/2.0}, // level 0 up of leaf 2: ports 8..15
		{2, 9, 900 + 3.5},        // level 1 down of top switch 9: ports 0..7
		{3, 5, 500 + 3.5},        // ejection of leaf 5: ports 0..7
		{2, 3, math.NaN()},       // a leaf has no level 1 down link
		{0, 12, math.NaN()},      // a top switch has no NIC
	} {
		got := cells.Z(c.col, c.row)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("row %d column %d: %v, want %v", c.row, c.col, got, c.want)
		}
	}
}

// TestWriteFiles: Write makes a PNG of the size asked and an SVG, and
// refuses results without a link list and other extensions.
func TestWriteFiles(t *testing.T) {
	r := synthetic(t, "torus2d-4x4", func(l fabric.Link) float64 { return float64(l.Switch+1) / 20 })
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "a.png")
	if _, err := Write(r, pngPath, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1875 || b.Dy() != 1292 {
		t.Errorf("PNG %dx%d, want 1875x1292 (900x620 points at 150 dpi)", b.Dx(), b.Dy())
	}
	if _, err := Write(r, filepath.Join(dir, "a.svg"), Options{Max: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(r, filepath.Join(dir, "a.jpg"), Options{}); err == nil {
		t.Error("a .jpg output was accepted")
	}
	r.Links.Links = nil
	if _, err := Write(r, pngPath, Options{}); !errors.Is(err, ErrNoLinks) {
		t.Errorf("results without links: %v, want ErrNoLinks", err)
	}
}

package sweep

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

// checkPlots: each figure is a PNG that decodes to a picture of the set
// size and a well-formed SVG document.
func checkPlots(t *testing.T, dir string, names []string) {
	t.Helper()
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n+".png"))
		if err != nil {
			t.Error(err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		w, h := sweepWidth, sweepHeight
		if n == "accepted" { // a panel for all SLs and one per SL of the sweep's summary
			sum, err := ReadSummary(filepath.Dir(dir))
			if err != nil {
				t.Fatal(err)
			}
			cols, rows := panelGrid(1 + len(sum.SLs))
			w, h = panelWidth*vg.Length(cols)+legendWidth, panelHeight*vg.Length(rows)+titleHeight
		}
		if err != nil {
			t.Errorf("%s.png: %v", n, err)
		} else if b := img.Bounds(); b.Dx() != int(float64(w/vg.Inch)*plotDPI) || b.Dy() != int(float64(h/vg.Inch)*plotDPI) {
			t.Errorf("%s.png is %dx%d, want %vx%v in at %d dpi", n, b.Dx(), b.Dy(), w/vg.Inch, h/vg.Inch, plotDPI)
		}
		checkSVG(t, filepath.Join(dir, n+".svg"))
	}
}

func checkSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Errorf("%s: not well-formed XML: %v", path, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", path, root)
	}
}

// TestFigureSeries: rows become one line per (scheduler, SL) in summary
// order; "all" rows, other schedulers and, on a log axis, missing or
// non-positive values are left out.
func TestFigureSeries(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	row := func(s string, l float64, sl string, mean, ci *float64) Row {
		return Row{Scheduler: s, Load: l, SL: sl, Metrics: map[string]Estimate{"latency_ns": {Mean: mean, CI95: ci, N: 3}}}
	}
	sum := &Summary{Schedulers: []string{"rr", "dtable"}, SLs: []SL{{Name: "VO"}, {Name: "VI"}}, Rows: []Row{
		row("rr", 0.1, "VO", v(100), v(5)), row("rr", 0.1, "VI", nil, nil), row("rr", 0.1, "all", v(90), nil),
		row("rr", 0.5, "VO", v(200), nil), row("rr", 0.5, "VI", v(0), nil),
		row("dtable", 0.1, "VO", v(80), nil), row("dtable", 0.1, "VI", v(120), nil),
	}}
	all := latencyFigure
	got, skipped := all.series(sum, io.Discard)
	if skipped != 0 || len(got) != 3 || got[0].scheduler != "rr" || got[0].sl != 0 || len(got[0].pts) != 2 ||
		got[0].pts[0] != (seriesPoint{0.1, 100, 5, 3}) || got[0].pts[1] != (seriesPoint{0.5, 200, 0, 3}) ||
		got[1].scheduler != "dtable" || got[2].sl != 1 {
		t.Errorf("latency series: %+v", got)
	}
	dt := dtableLatencyFigure
	if got, _ := dt.series(sum, io.Discard); len(got) != 2 || got[0].scheduler != "dtable" || got[1].scheduler != "dtable" {
		t.Errorf("dtable series: %+v", got)
	}
	sum.Schedulers = []string{"rr"}
	if p, _, why, err := dt.plot(sum, io.Discard); p != nil || err != nil || !strings.Contains(why, "no dtable runs") {
		t.Errorf("DTable figure without dtable: %v, %q", p, why)
	}
}

func TestLogAxis(t *testing.T) {
	for _, tc := range []struct{ v, down, up float64 }{
		{140, 100, 200}, {450, 200, 500}, {500, 500, 500}, {1300, 1000, 2000}, {0.07, 0.05, 0.1},
	} {
		if d, u := niceDown(tc.v), niceUp(tc.v); !near(d, tc.down) || !near(u, tc.up) {
			t.Errorf("nice(%v) = %v, %v; want %v, %v", tc.v, d, u, tc.down, tc.up)
		}
	}
	var labels []string
	for _, tk := range (logTicks{}).Ticks(200, 2000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if strings.Join(labels, " ") != "200 300 500 1000 2000" { // 1-2-5 gives four: 3 is labelled too
		t.Errorf("log tick labels on [200, 2000]: %v", labels)
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{100, 10000, "100 200 500 1000 2000 5000 10000"},
		{200, 500, "200 300 400 500"}, // 1-2-3-5 gives three: every digit
		{1, 1e6, "1 10 100 1000 10000 100000 1000000"},
	} {
		labels = labels[:0]
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("log tick labels on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	if l := tickLabel(0.1 * 3); l != "0.3" {
		t.Errorf("tickLabel(0.1*3) = %q", l)
	}
}

// TestPlotsSkipUndrawable: a value that is not finite, has a negative
// interval, or is too large or too small for its axis is reported (which
// figure, point and field) and left out; the finite points are still
// drawn; a figure with no drawable value is an ErrUndrawable error. Each
// case ends in well under a second instead of looping on the log axis.
func TestPlotsSkipUndrawable(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	good := func(l float64) Row {
		return Row{Scheduler: "rr", Load: l, SL: "VO", Metrics: map[string]Estimate{
			"latency_ns": {Mean: v(100 + 100*l), CI95: v(3)}, "normalized_throughput": {Mean: v(1), CI95: v(0)}}}
	}
	bad := func(l, mean, ci float64) Row {
		return Row{Scheduler: "rr", Load: l, SL: "VO", Metrics: map[string]Estimate{
			"latency_ns": {Mean: v(mean), CI95: v(ci)}, "normalized_throughput": {Mean: v(mean), CI95: v(ci)}}}
	}
	for _, tc := range []struct {
		name    string
		rows    []Row
		warn    []string
		drawn   bool // the latency figure is written
		errWant bool // ErrUndrawable
	}{
		{"+Inf among finite", []Row{good(0.1), bad(0.5, math.Inf(1), 0), good(0.9)},
			[]string{"latency: left out scheduler rr, load 0.5, SL VO: latency_ns mean +Inf", "not a finite number"}, true, false},
		{"NaN interval", []Row{good(0.1), bad(0.5, 200, math.NaN())}, []string{"ci95 NaN", "not a finite number"}, true, false},
		{"negative interval", []Row{good(0.1), bad(0.5, 200, -1)}, []string{"negative confidence interval"}, true, false},
		{"overflowing bar", []Row{good(0.1), bad(0.5, 1e308, 1e308)}, []string{"mean 1e+308", "beyond"}, true, false},
		{"subnormal on the log axis", []Row{good(0.1), bad(0.5, 5e-324, 0)}, []string{"latency: ", "too small for the log axis"}, true, false},
		{"nothing finite", []Row{bad(0.1, math.Inf(1), 0), bad(0.5, math.NaN(), 0)}, []string{"load 0.1", "load 0.5"}, false, true},
	} {
		start := time.Now()
		sum := &Summary{Schedulers: []string{"rr"}, SLs: []SL{{Name: "VO", Share: 1}}, Rows: tc.rows}
		dir := t.TempDir()
		var out, warn bytes.Buffer
		err := WritePlots(&out, &warn, dir, sum)
		if errors.Is(err, ErrUndrawable) != tc.errWant {
			t.Errorf("%s: error %v", tc.name, err)
		}
		for _, w := range tc.warn {
			if !strings.Contains(warn.String(), w) {
				t.Errorf("%s: warnings %q lack %q", tc.name, warn.String(), w)
			}
		}
		if tc.drawn {
			checkPlots(t, filepath.Join(dir, "plots"), []string{"latency"})
		} else if _, err := os.Stat(filepath.Join(dir, "plots", "latency.png")); err == nil {
			t.Errorf("%s: a latency figure was drawn with nothing finite", tc.name)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
	}
}

func TestLogTicksRefuseBadAxes(t *testing.T) {
	for _, r := range [][2]float64{{0, 10}, {-1, 10}, {1, math.Inf(1)}, {math.NaN(), 10}, {10, 1}} {
		if ticks := (logTicks{}).Ticks(r[0], r[1]); ticks != nil {
			t.Errorf("ticks on [%v, %v]: %v", r[0], r[1], ticks)
		}
	}
}

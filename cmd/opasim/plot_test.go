package main

import (
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		if err != nil {
			t.Errorf("%s.png: %v", n, err)
		} else if b := img.Bounds(); b.Dx() != int(float64(plotWidth/vg.Inch)*plotDPI) || b.Dy() != int(float64(plotHeight/vg.Inch)*plotDPI) {
			t.Errorf("%s.png is %dx%d", n, b.Dx(), b.Dy())
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

// TestPlotRedraws: `opasim plot DIR` draws the figures from summary.json
// alone: with the run files gone and the plots deleted, it draws them again.
func TestPlotRedraws(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	mustSweep(t, tinySweep(tinyConfig(t, dir), out))
	for _, sub := range []string{"runs", "plots"} {
		if err := os.RemoveAll(filepath.Join(out, sub)); err != nil {
			t.Fatal(err)
		}
	}
	stdout, _, err := cli(t, "plot", out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "ran") || !strings.Contains(stdout, "dtable_latency.svg") {
		t.Errorf("plot output:\n%s", stdout)
	}
	checkPlots(t, filepath.Join(out, "plots"), []string{"latency", "throughput", "dtable_latency"})
	if _, err := os.Stat(filepath.Join(out, "runs")); err == nil {
		t.Error("plot ran something: runs/ is back")
	}
}

// TestPlotBadInput: a directory without a summary, or no directory, is bad
// input.
func TestPlotBadInput(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "summary.json"), []byte(`{"rows": []}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", empty}, "summary.json"},
		{[]string{"plot", bad}, "not the summary of a sweep"},
		{[]string{"plot"}, "the directory of a sweep"},
		{[]string{"plot", empty, bad}, "got 2"},
	} {
		_, _, err := cli(t, tc.args...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want bad input mentioning %q", tc.args, err, tc.want)
		}
	}
}

// TestFigureSeries: rows become one line per (scheduler, SL) in summary
// order; "all" rows, other schedulers and, on a log axis, missing or
// non-positive values are left out.
func TestFigureSeries(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	row := func(s string, l float64, sl string, mean, ci *float64) summaryRow {
		return summaryRow{Scheduler: s, Load: l, SL: sl, Metrics: map[string]estimate{"latency_ns": {Mean: mean, CI95: ci}}}
	}
	sum := &sweepSummary{Schedulers: []string{"rr", "dtable"}, SLs: []summarySL{{Name: "VO"}, {Name: "VI"}}, Rows: []summaryRow{
		row("rr", 0.1, "VO", v(100), v(5)), row("rr", 0.1, "VI", nil, nil), row("rr", 0.1, "all", v(90), nil),
		row("rr", 0.5, "VO", v(200), nil), row("rr", 0.5, "VI", v(0), nil),
		row("dtable", 0.1, "VO", v(80), nil), row("dtable", 0.1, "VI", v(120), nil),
	}}
	all := figures[0]
	got := all.series(sum)
	if len(got) != 3 || got[0].scheduler != "rr" || got[0].sl != 0 || len(got[0].pts) != 2 ||
		got[0].pts[0] != (seriesPoint{0.1, 100, 5}) || got[0].pts[1] != (seriesPoint{0.5, 200, 0}) ||
		got[1].scheduler != "dtable" || got[2].sl != 1 {
		t.Errorf("latency series: %+v", got)
	}
	dt := figures[2]
	if got := dt.series(sum); len(got) != 2 || got[0].scheduler != "dtable" || got[1].scheduler != "dtable" {
		t.Errorf("dtable series: %+v", got)
	}
	sum.Schedulers = []string{"rr"}
	if p, why := dt.plot(sum); p != nil || !strings.Contains(why, "no dtable runs") {
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
	if strings.Join(labels, " ") != "200 500 1000 2000" {
		t.Errorf("log tick labels on [200, 2000]: %v", labels)
	}
	if l := tickLabel(0.1 * 3); l != "0.3" {
		t.Errorf("tickLabel(0.1*3) = %q", l)
	}
}

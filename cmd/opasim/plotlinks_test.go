package main

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/sim"
)

// TestPlotLinks: a run's results carry every link's utilization, and
// plot links draws them (a torus map, a tree's matrix) and prints each
// class's figures as the results give them.
func TestPlotLinks(t *testing.T) {
	dir := t.TempDir()
	for _, preset := range []string{"torus2d-4x4", "tree-8ary-2"} {
		res := filepath.Join(dir, preset+".json")
		if _, stderr, code := opasim(t, "run", "--preset", preset, "--traffic", "paper-mix", "--load", "0.6", "--cycles", "3000",
			"--warmup", "1000", "--engine", "sequential", "--out", res); code != 0 {
			t.Fatalf("%s: run: exit %d: %s", preset, code, stderr)
		}
		data, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		var r sim.Results
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if r.Links == nil || len(r.Links.Links) == 0 {
			t.Fatalf("%s: the results have no links", preset)
		}
		stdout, stderr, code := opasim(t, "plot", "links", res)
		if code != 0 {
			t.Fatalf("%s: plot links: exit %d: %s", preset, code, stderr)
		}
		picture := strings.TrimSuffix(res, ".json") + "-links.png"
		f, err := os.Open(picture)
		if err != nil {
			t.Fatalf("%s: %v (stdout %s)", preset, err, stdout)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %s: %v", preset, picture, err)
		}
		f.Close()
		for _, c := range r.Links.Classes {
			if want := fmt.Sprintf("mean %.3f  min %.3f  max %.3f (%s)", c.Mean, c.Min, c.Max, c.Busiest); !strings.Contains(stdout, want) {
				t.Errorf("%s: the output does not give class %s as %q:\n%s", preset, c.Class, want, stdout)
			}
		}
		kind := map[string]string{"torus2d-4x4": "torus map", "tree-8ary-2": "matrix of link classes"}[preset]
		if !strings.Contains(stdout, kind) {
			t.Errorf("%s: drew %q, want a %s", preset, stdout, kind)
		}
	}
}

// TestPlotLinksRefused: what plot links cannot draw is refused with exit
// status 2, naming the file and why.
func TestPlotLinksRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noLinks := write("nolinks.json", `{"switches": 1, "nics": 48, "config": {"topology": {"kind": "single_switch", "ports": 48}}}`)
	oneLink := write("onelink.json", `{"switches": 1, "nics": 48, "config": {"topology": {"kind": "single_switch", "ports": 48}},
		"links": {"classes": [{"class": "injection"}], "links": [{"from": "NIC 0", "class": "injection", "nic": 0, "switch": -1, "port": -1, "utilization": 0.5}]}}`)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no file", []string{"plot", "links"}, []string{"plot links", "want one argument", "got 0"}},
		{"two files", []string{"plot", "links", noLinks, noLinks}, []string{"want one argument", "got 2"}},
		{"a missing file", []string{"plot", "links", filepath.Join(dir, "gone.json")}, []string{"gone.json", "no such file"}},
		{"a directory", []string{"plot", "links", dir}, []string{"not a regular file"}},
		{"not JSON", []string{"plot", "links", write("x.json", "cycles: 3\n")}, []string{"x.json", "not a run's results"}},
		{"JSON of something else", []string{"plot", "links", write("y.json", `{"a": 1}`)}, []string{"y.json", "no switches or NICs"}},
		{"results without links", []string{"plot", "links", noLinks}, []string{"nolinks.json", "no per-link utilization", "opasim run --out"}},
		{"a picture of another kind", []string{"plot", "links", oneLink, "-o", filepath.Join(dir, "a.jpg")}, []string{"a.jpg", "must end in .png or .svg"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

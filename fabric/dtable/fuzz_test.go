package dtable

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParseSL: no panic; an accepted SL prints back to itself.
func FuzzParseSL(f *testing.F) {
	for _, s := range []string{"VO:2:2:0.1", "BE:16:16:0.05", " CL : 8 : 8 : 5e-1 ", "VO:2:2", "a:b:c:d", "x:1:1:NaN", "::::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sl, err := ParseSL(s)
		if err != nil {
			return
		}
		again, err := ParseSL(sl.String())
		if err != nil || again != sl {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, sl, sl.String(), again, err)
		}
	})
}

// FuzzLoadRequest: no panic; an accepted request survives yaml.Marshal and
// LoadRequest, and configures without panicking; a configured table
// survives WriteTable and ReadTable.
func FuzzLoadRequest(f *testing.F) {
	f.Add(table9YAML)
	f.Add("entries: 8\ngmtu: 4\nw: 4\nk: 3\nsls: [{name: '0', distance: 2, mtu: 1, share: 0.5}, {name: '1', distance: 2, mtu: 4, share: 0.5}]\n")
	f.Add("entries: 12\ngmtu: 1\nw: 1\nk: 1\nsls: [{name: A, distance: 2, mtu: 1, share: 0.5}, {name: B, distance: 3, mtu: 1, share: 0.5}]\n")
	f.Add("entries: 8\n---\n")
	f.Fuzz(func(t *testing.T, in string) {
		req, err := LoadRequest(strings.NewReader(in))
		if err != nil {
			return
		}
		out, err := yaml.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := LoadRequest(bytes.NewReader(out))
		if err != nil || !reflect.DeepEqual(again, req) {
			t.Fatalf("round trip: %+v → %s → %+v, %v", req, out, again, err)
		}
		checkConfigured(t, req)
	})
}

func checkConfigured(t *testing.T, req Request) {
	r, err := Configure(req)
	if err != nil {
		return // placement refused: distances that do not nest
	}
	_ = r.Text()
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable(&buf)
	if err != nil || !reflect.DeepEqual(got, r.File) {
		t.Fatalf("table round trip: %v\n%s", err, buf.String())
	}
	checkBounds(t, r)
}

// checkBounds: a configured table has bounds; every entry weighs at least
// its MTU, so the shares are the Fφ, and each visit sends under its weight
// + MTU credits, so a wait is under the sum of that over the entries of
// the other SLs.
func checkBounds(t *testing.T, r *Result) {
	bounds, err := r.Bounds(DefaultLink)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bounds {
		most := 0
		for _, e := range r.Table {
			if e.SL != i {
				most += e.Weight + r.SLs[e.SL].MTU - 1
			}
		}
		if math.Abs(b.Share-r.SLs[i].FPhi) > 1e-12 || b.WaitCredits < 0 || b.WaitCredits > most {
			t.Fatalf("SL %s: %+v, want share %v and a wait in [0, %d]", b.Name, b, r.SLs[i].FPhi, most)
		}
	}
}

// FuzzReadTable: no panic; an accepted table survives WriteYAML and ReadTable.
func FuzzReadTable(f *testing.F) {
	f.Add("sls: [{name: VO, mtu: 2}, {name: VI, mtu: 4}]\nentries: [{sl: VO, weight: 7}, {sl: VI, weight: 39}]\n")
	f.Add("sls:\n  - {name: '0', mtu: 1}\nentries:\n  - {sl: '0', weight: 4} # 0\n")
	f.Add("sls: []\nentries: []\n")
	f.Add("entries: [{sl: x, weight: 1, y: 2}]")
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ReadTable(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := tab.WriteYAML(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTable(&buf)
		if err != nil || !reflect.DeepEqual(again, tab) {
			t.Fatalf("round trip: %+v → %s → %+v, %v", tab, buf.String(), again, err)
		}
	})
}

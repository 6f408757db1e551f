package dtable

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSL(t *testing.T) {
	got, err := ParseSL("VO:2:2:0.1")
	if want := (SLRequest{Name: "VO", Distance: 2, MTU: 2, Share: 0.1}); err != nil || got != want {
		t.Errorf("ParseSL = %+v, %v; want %+v", got, err, want)
	}
	if got, err := ParseSL(" BE : 16 : 16 : 0.05 "); err != nil || got.Name != "BE" || got.Share != 0.05 {
		t.Errorf("ParseSL with spaces = %+v, %v", got, err)
	}
	if s := got.String(); s != "VO:2:2:0.1" {
		t.Errorf("String = %q", s)
	}
}

func TestParseSLErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"VO:2:2", `SL "VO:2:2": want NAME:DISTANCE:MTU:SHARE (e.g. VO:2:2:0.1), got 3 field(s)`},
		{"VO:x:2:0.1", `SL VO: distance "x" is not an integer (allowed [1, 4096])`},
		{"VO:0:2:0.1", "SL VO: distance 0 must be positive (allowed [1, 4096])"},
		{"VO:2:2000:0.1", "SL VO: mtu 2000 is above the limit 1024 by 976"},
		{"VO:2:2:abc", `SL VO: share "abc" is not a number (allowed (0, 1])`},
		{"VO:2:2:1.5", "SL VO: share 1.5 is above 1 by 0.5"},
		{"VO:2:2:NaN", "SL VO: share NaN is not a finite number"},
		{"V O:2:2:0.1", `SL "V O": name "V O" is not a valid SL name`},
		{":2:2:0.1", `name "" is not a valid SL name`},
	} {
		_, err := ParseSL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSL(%q) err = %v, want %q", c.in, err, c.want)
		}
	}
	_, err := ParseSL("VO:0:0:0")
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("want three problems at once, got %v", err)
	}
}

const table9YAML = `entries: 128
gmtu: 16
w: 8
k: 2
sls:
  - {name: VO, distance: 2, mtu: 2, share: 0.1}
  - {name: VI, distance: 4, mtu: 4, share: 0.3}
  - {name: CL, distance: 8, mtu: 8, share: 0.5}
  - {name: BE, distance: 16, mtu: 16, share: 0.05}
  - {name: BK, distance: 16, mtu: 16, share: 0.05}
`

func TestLoadRequest(t *testing.T) {
	got, err := LoadRequest(strings.NewReader(table9YAML))
	if err != nil || !reflect.DeepEqual(got, table9) {
		t.Errorf("LoadRequest = %+v, %v; want Table 9", got, err)
	}
}

func TestLoadRequestErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "request file is empty"},
		{"unknown key", table9YAML + "n: 3\n", "field n not found"},
		{"unknown SL key", strings.Replace(table9YAML, "share: 0.1}", "share: 0.1, vl: 0}", 1), "field vl not found"},
		{"invalid", strings.Replace(table9YAML, "k: 2", "k: 9", 1), "k 9 is above w 8 by 1"},
		{"not a map", "[1, 2]", "cannot unmarshal"},
	} {
		_, err := LoadRequest(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

package topo

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestPresetCounts checks every preset against seed 000 sections 4.1 and
// 4.3 (switches, radix, NICs) and hand-computed cable counts:
//   - torus: switches × active dims × trunk cables (each switch owns its +
//     trunks), one NIC cable per NIC;
//   - k-ary n-tree: (n-1) level gaps × k^(n-1) switches × k up links; the
//     k^(n-1) top switches leave their k up ports unused.
func TestPresetCounts(t *testing.T) {
	tests := []struct {
		name        string
		switches    int
		radices     []int
		nics        int
		switchLinks int
		unused      int
		diameter    int
	}{
		{"torus2d-8x8", 64, []int{48}, 512, 64 * 2 * 10, 0, 1 + 4 + 4},
		{"torus3d-8x8x4", 256, []int{28}, 1024, 256 * 3 * 4, 0, 1 + 4 + 4 + 2},
		{"tree-8ary-3", 192, []int{16}, 512, 2 * 64 * 8, 64 * 8, 5},
		{"tree-24ary-2", 48, []int{48}, 576, 1 * 24 * 24, 24 * 24, 3},
		{"torus2d-4x4", 16, []int{48}, 128, 16 * 2 * 10, 0, 1 + 2 + 2},
		{"tree-8ary-2", 16, []int{16}, 64, 1 * 8 * 8, 8 * 8, 3},
		{"single-switch", 1, []int{48}, 48, 0, 0, 1},
	}
	if len(tests) != len(Presets()) {
		t.Fatalf("%d presets, %d expectations", len(Presets()), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, spec, err := Preset(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := topo.Validate(); err != nil {
				t.Fatal(err)
			}
			if topo.Name != tc.name || spec.Name != tc.name {
				t.Errorf("names %q, %q, want %q", topo.Name, spec.Name, tc.name)
			}
			got := topo.Summary()
			want := Summary{
				Name: tc.name, Kind: spec.Kind, Shape: got.Shape, Switches: tc.switches, Radices: tc.radices,
				NICs: tc.nics, SwitchLinks: tc.switchLinks, NICLinks: tc.nics, UnusedPorts: tc.unused, Diameter: tc.diameter,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("summary\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestPresetRouting(t *testing.T) {
	want := map[string]string{
		"torus2d-8x8": "dor", "torus3d-8x8x4": "dor", "torus2d-4x4": "dor",
		"tree-8ary-3": "updown", "tree-24ary-2": "updown", "tree-8ary-2": "updown",
		"single-switch": "direct",
	}
	reg := DefaultRegistry()
	for _, s := range Presets() {
		if s.Routing != want[s.Name] {
			t.Errorf("%s: routing %q, want %q", s.Name, s.Routing, want[s.Name])
		}
		topo, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reg.New(s.Routing, topo, paperSC); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

func TestLookupPresetUnknown(t *testing.T) {
	_, err := LookupPreset("torus9d")
	if err == nil {
		t.Fatal("unknown preset accepted")
	}
	for _, name := range PresetNames() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %s", err, name)
		}
	}
	if _, _, err := Preset("nope"); err == nil {
		t.Error("Preset accepted an unknown name")
	}
}

func TestPresetsAreCopies(t *testing.T) {
	Presets()[0].Dims[0] = 99
	s, err := LookupPreset("torus2d-8x8")
	if err != nil {
		t.Fatal(err)
	}
	s.Dims[1] = 77
	if again, _ := LookupPreset("torus2d-8x8"); !slices.Equal(again.Dims, []int{8, 8}) {
		t.Errorf("presets were changed through a copy: %v", again.Dims)
	}
}

func TestSpecBuildErrors(t *testing.T) {
	for _, s := range []Spec{
		{Kind: "ring"},
		{Kind: KindTorus, Dims: []int{4, 0}, NICsPerSwitch: 1, Trunk: 1},
		{Kind: KindTree, K: 1, N: 2},
		{Kind: KindSingle, Ports: 6},
	} {
		if _, err := s.Build(); err == nil {
			t.Errorf("%+v: built", s)
		}
	}
}

func TestSummaryString(t *testing.T) {
	topo, _, err := Preset("torus2d-8x8")
	if err != nil {
		t.Fatal(err)
	}
	got := topo.Summary().String()
	for _, line := range []string{
		"topology:             torus2d-8x8 (2D torus 8x8, 8 NICs per switch, 10x trunks)\n",
		"switches:             64\n",
		"ports per switch:     48\n",
		"NICs:                 512\n",
		"switch-switch links:  1280\n",
		"NIC links:            512\n",
		"diameter (switches):  9\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("summary lacks %q:\n%s", line, got)
		}
	}
}

// TestDescribe: a preset is named with its kind and shape; a shape given
// by hand has no name.
func TestDescribe(t *testing.T) {
	for name, want := range map[string]string{
		"torus2d-4x4":   "torus2d-4x4 (torus 4x4, 8 NICs per switch, trunks of 10, routing dor)",
		"tree-8ary-3":   "tree-8ary-3 (8-ary 3-tree, routing updown)",
		"single-switch": "single-switch (single switch of 48 ports, routing direct)",
	} {
		s, err := LookupPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Describe(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := (Spec{Kind: KindSingle, Ports: 16, Routing: "direct"}).Describe(); got != "single switch of 16 ports, routing direct" {
		t.Errorf("a 16-port switch: %q", got)
	}
}

// TestSizeMatchesBuild: the arithmetic of Size gives the switches, the
// largest radix and the NICs of the built network, for every preset and a
// few shapes by hand; an absurd shape saturates instead of overflowing.
func TestSizeMatchesBuild(t *testing.T) {
	specs := Presets()
	specs = append(specs, Spec{Kind: KindTorus, Dims: []int{5, 1, 3}, NICsPerSwitch: 3, Trunk: 1},
		Spec{Kind: KindTree, K: 3, N: 4}, Spec{Kind: KindSingle, Ports: 16})
	for _, s := range specs {
		top, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		sw, radix, nics := s.Size()
		if int(sw) != top.NumSwitches() || int(radix) != slices.Max(top.Radix) || int(nics) != top.NumNICs() {
			t.Errorf("%s: Size %d switches, radix %d, %d NICs; built %d, %d, %d", s.Describe(), sw, radix, nics,
				top.NumSwitches(), slices.Max(top.Radix), top.NumNICs())
		}
	}
	if sw, _, nics := (Spec{Kind: KindTorus, Dims: []int{1 << 20, 1 << 20, 1 << 20}, NICsPerSwitch: 8, Trunk: 1}).Size(); sw != math.MaxInt32 || nics != math.MaxInt32 {
		t.Errorf("a huge torus: %d switches, %d NICs, want both saturated", sw, nics)
	}
}

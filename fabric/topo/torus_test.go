package topo

import (
	"reflect"
	"testing"
)

func TestTorusShapes(t *testing.T) {
	tests := []struct {
		name                 string
		dims                 []int
		nics, trunk          int
		switches, radix      int
		switchCables, unused int
		diameter             int
	}{
		// 8 + 4·10 = 48 and 4 + 6·4 = 28 ports: the paper's radices exactly.
		{"paper 2D", []int{8, 8}, 8, 10, 64, 48, 64 * 2 * 10, 0, 9},
		{"paper 3D", []int{8, 8, 4}, 4, 4, 256, 28, 256 * 3 * 4, 0, 11},
		// 1 + 2·1 = 3 ports, rounded up to 8: 5 unused per switch.
		{"ring rounded to 8", []int{3}, 1, 1, 3, 8, 3, 3 * 5, 2},
		// 2 + 2·2·3 = 14 ports, rounded up to 16.
		{"rounded to 16", []int{5, 3}, 2, 3, 15, 16, 15 * 2 * 3, 15 * 2, 4},
		// A dimension of size 1 has no trunk ports.
		{"size-1 dimension", []int{3, 1, 4}, 4, 2, 12, 12, 12 * 2 * 2, 0, 1 + 1 + 0 + 2},
		// Size 2: 2·trunk distinct cables between the two switches.
		{"size 2", []int{2}, 6, 3, 2, 12, 2 * 3, 0, 2},
		{"no trunks at all", []int{1, 1}, 5, 1, 1, 8, 0, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := Torus(tc.dims, tc.nics, tc.trunk)
			if err != nil {
				t.Fatal(err)
			}
			if err := topo.Validate(); err != nil {
				t.Fatal(err)
			}
			s := topo.Summary()
			want := Summary{
				Name: topo.Name, Kind: KindTorus, Shape: s.Shape, Switches: tc.switches, Radices: []int{tc.radix},
				NICs: tc.switches * tc.nics, SwitchLinks: tc.switchCables, NICLinks: tc.switches * tc.nics,
				UnusedPorts: tc.unused, Diameter: tc.diameter,
			}
			if !reflect.DeepEqual(s, want) {
				t.Errorf("summary\n got %+v\nwant %+v", s, want)
			}
		})
	}
}

// TestTorusLayout checks the documented port layout on torus2d-4x4 and
// torus3d-8x8x4: NIC n on switch n / NICsPerSwitch port n % NICsPerSwitch;
// + member m of dimension i (base b) wired to − member m (port b+trunk+m)
// of the switch one step up in that dimension.
func TestTorusLayout(t *testing.T) {
	for _, name := range []string{"torus2d-4x4", "torus3d-8x8x4"} {
		topo, _, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for n, at := range topo.NICPort {
			if at != (PortRef{n / topo.NICsPerSwitch, n % topo.NICsPerSwitch}) {
				t.Fatalf("%s: NIC %d at %v", name, n, at)
			}
		}
		for s := range topo.NumSwitches() {
			c := torusCoords(topo, s)
			stride, base := 1, topo.NICsPerSwitch
			for i, size := range topo.Dims {
				up := s + ((c[i]+1)%size-c[i])*stride
				for m := range topo.Trunk {
					want := Peer{Kind: PeerSwitch, Port: PortRef{up, base + topo.Trunk + m}}
					if got := topo.Wiring[s][base+m]; got != want {
						t.Fatalf("%s: switch %d %v dimension %d + member %d: %+v, want %+v", name, s, c, i, m, got, want)
					}
				}
				stride *= size
				base += 2 * topo.Trunk
			}
		}
	}
}

func TestSizeTwoDimensionCables(t *testing.T) {
	topo, err := Torus([]int{2, 4}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	between := 0
	for _, peer := range topo.Wiring[0] {
		if peer.Kind == PeerSwitch && peer.Port.Switch == 1 {
			between++
		}
	}
	if between != 2*3 {
		t.Errorf("%d cables between switches 0 and 1, want 2·trunk = 6", between)
	}
}

func TestTorusErrors(t *testing.T) {
	tests := []struct {
		dims        []int
		nics, trunk int
	}{
		{nil, 1, 1},
		{[]int{4, 0}, 1, 1},
		{[]int{-1}, 1, 1},
		{[]int{4}, 0, 1},
		{[]int{4}, 1, 0},
		{[]int{1024, 1024, 2}, 1, 1},
	}
	for _, tc := range tests {
		if _, err := Torus(tc.dims, tc.nics, tc.trunk); err == nil {
			t.Errorf("Torus(%v, %d, %d) accepted", tc.dims, tc.nics, tc.trunk)
		}
	}
}

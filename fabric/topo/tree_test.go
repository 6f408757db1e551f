package topo

import (
	"reflect"
	"testing"
)

// TestUpDownHandRoutes are routes worked out by hand. Switch s of a k-ary
// n-tree is at level s / k^(n-1) with label s % k^(n-1); ports 0..k-1 down,
// k..2k-1 up; at level l the packet for NIC p takes port p_l (down) or
// k+p_l (up).
func TestUpDownHandRoutes(t *testing.T) {
	tests := []struct {
		name     string
		preset   string
		src, dst int
		want     []Hop
	}{
		{
			// 8-ary 2-tree, NIC 0 (leaf 0) to NIC 63 = digits (7, 7):
			// up port 8+7 to top switch 8+7, which takes it on down port 0
			// (the leaf's digit 0) and sends it down port 7 to leaf 7, in
			// on up port 8+7; down port 7 to the NIC.
			name: "8-ary 2-tree across the top", preset: "tree-8ary-2", src: 0, dst: 63,
			want: []Hop{{0, 0, 15, 4}, {15, 0, 7, 4}, {7, 15, 7, 4}},
		},
		{
			// 8-ary 3-tree, NIC 5 (leaf 0) to NIC 300 = digits (4, 5, 4),
			// leaf 37. Up: leaf 0 port 8+4 to level-1 label 4 (switch
			// 64+4, in on port 0); port 8+5 to level-2 label 4+5·8 = 44
			// (switch 128+44, in on port 0). Down: port 4 to level-1 label
			// 4+4·8 = 36 (switch 100, in on 8+5); port 5 to leaf
			// 5+4·8 = 37 (in on 8+4); port 4 to the NIC.
			name: "8-ary 3-tree across the top", preset: "tree-8ary-3", src: 5, dst: 300,
			want: []Hop{{0, 5, 12, 4}, {68, 0, 13, 4}, {172, 0, 4, 4}, {100, 13, 5, 4}, {37, 12, 4, 4}},
		},
		{
			// 8-ary 3-tree, NIC 1 to NIC 12: leaves 0 and 1 share the
			// level-1 switches with label digit 1 = 0. Up port 8+4
			// (12's digit 0) to label 4 (switch 68), down port 1 (12's
			// digit 1) to leaf 1 (in on 8+4), down port 4.
			name: "8-ary 3-tree one level up", preset: "tree-8ary-3", src: 1, dst: 12,
			want: []Hop{{0, 1, 12, 4}, {68, 0, 1, 4}, {1, 12, 4, 4}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, _, err := Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewUpDown(topo)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Trace(topo, r, tc.src, tc.dst, 4, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("path\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestTreeWiring checks the k-ary n-tree rule: up port k+j of switch (l, w)
// reaches the level-(l+1) switch whose label is w with digit l set to j, on
// its down port w_l; leaves hold NICs k·w..k·w+k-1; top up ports are unused.
func TestTreeWiring(t *testing.T) {
	for _, kn := range [][2]int{{8, 3}, {3, 3}, {24, 2}, {2, 4}} {
		k, n := kn[0], kn[1]
		topo, err := Tree(k, n)
		if err != nil {
			t.Fatal(err)
		}
		pow := treePowers(k, n)
		per := pow[n-1]
		for s, ports := range topo.Wiring {
			l, w := s/per, s%per
			for p, peer := range ports {
				want := Peer{}
				switch {
				case p < k && l == 0:
					want = Peer{Kind: PeerNIC, NIC: w*k + p}
				case p < k:
					below := w + (p-w/pow[l-1]%k)*pow[l-1]
					want = Peer{Kind: PeerSwitch, Port: PortRef{(l-1)*per + below, k + w/pow[l-1]%k}}
				case p < 2*k && l < n-1:
					above := w + (p-k-w/pow[l]%k)*pow[l]
					want = Peer{Kind: PeerSwitch, Port: PortRef{(l+1)*per + above, w / pow[l] % k}}
				}
				if peer != want {
					t.Fatalf("%d-ary %d-tree: switch %d (level %d label %d) port %d: %+v, want %+v", k, n, s, l, w, p, peer, want)
				}
			}
		}
	}
}

func TestTreeShapes(t *testing.T) {
	tests := []struct {
		k, n                   int
		switches, radix, nics  int
		diameter, switchCables int
	}{
		{2, 4, 32, 8, 16, 7, 3 * 8 * 2},
		{3, 3, 27, 8, 27, 5, 2 * 9 * 3},
		{4, 1, 1, 8, 4, 1, 0},
		{12, 2, 24, 24, 144, 3, 12 * 12},
	}
	for _, tc := range tests {
		topo, err := Tree(tc.k, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if err := topo.Validate(); err != nil {
			t.Fatal(err)
		}
		s := topo.Summary()
		if s.Switches != tc.switches || !reflect.DeepEqual(s.Radices, []int{tc.radix}) || s.NICs != tc.nics ||
			s.Diameter != tc.diameter || s.SwitchLinks != tc.switchCables {
			t.Errorf("%d-ary %d-tree: %+v", tc.k, tc.n, s)
		}
	}
	for _, kn := range [][2]int{{1, 3}, {4, 0}, {2, 30}} {
		if _, err := Tree(kn[0], kn[1]); err == nil {
			t.Errorf("Tree(%d, %d) accepted", kn[0], kn[1])
		}
	}
}

func TestNewUpDownNeedsTree(t *testing.T) {
	topo, _, _ := Preset("torus2d-4x4")
	if _, err := NewUpDown(topo); err == nil {
		t.Error("updown accepted a torus")
	}
}

package topo

import (
	"reflect"
	"strings"
	"testing"
)

// previousDOR are the rules of the first implementation: ties go +, trunk
// member dst % trunk.
var previousDOR = RoutingOptions{Ties: TiesPlus, TrunkSelect: TrunkDstMod}

// TestDORHandRoutes are routes worked out by hand from the documented
// layout. torus2d-4x4 (8 NICs, 10x trunks, 48 ports): NIC ports 0-7,
// dimension 0 + ports 8-17 and − ports 18-27, dimension 1 + ports 28-37 and
// − ports 38-47; switch = x + 4y. torus2d-8x8 has the same port layout.
//
// They use previousDOR (+ on ties, member dst % trunk);
// TestDORBalancedHandRoutes pins the default rules.
func TestDORHandRoutes(t *testing.T) {
	tests := []struct {
		name     string
		preset   string
		src, dst int
		sc       int
		want     []Hop
	}{
		{
			// NIC 0 on switch 0 (0,0) to NIC 93 = switch 11 (3,2) port 5;
			// member 93 % 10 = 3. x: 0 -> 3 is 3 hops +, 1 hop −: take −
			// over the wrap 0 -> 3 (SC 1). y: 0 -> 2 is a tie: + twice,
			// back to SC 0 in the new dimension; the last hop keeps SC 0.
			name: "wrap in x, tie in y", preset: "torus2d-4x4", src: 0, dst: 93, sc: 0,
			want: []Hop{{0, 0, 18 + 3, 1}, {3, 8 + 3, 28 + 3, 0}, {7, 38 + 3, 28 + 3, 0}, {11, 38 + 3, 5, 0}},
		},
		{
			// NIC 24 on switch 3 (3,0) port 0 to NIC 106 = switch 13 (1,3)
			// port 2, SL 1 (SCs 2, 3); member 106 % 10 = 6. x: 3 -> 1 is a
			// tie: + over the wrap 3 -> 0 (SC 3) and on 0 -> 1 (still SC 3).
			// y: 0 -> 3 is 1 hop −, over the wrap 0 -> 3 (SC 3).
			name: "wrap then stay on second SC", preset: "torus2d-4x4", src: 24, dst: 106, sc: 2,
			want: []Hop{{3, 0, 8 + 6, 3}, {0, 18 + 6, 8 + 6, 3}, {1, 18 + 6, 38 + 6, 3}, {13, 28 + 6, 2, 3}},
		},
		{
			// NIC 49 on switch 6 (6,0) port 1 to NIC 9 = switch 1 (1,0) port
			// 1, injected on SL 0's second SC; member 9. x: 6 -> 1 is 3 hops
			// +: 6 -> 7 on SC 0 (new dimension), 7 -> 0 over the wrap on
			// SC 1, 0 -> 1 on SC 1; delivered on SC 1.
			name: "first SC until the dateline", preset: "torus2d-8x8", src: 49, dst: 9, sc: 1,
			want: []Hop{{6, 1, 8 + 9, 0}, {7, 18 + 9, 8 + 9, 1}, {0, 18 + 9, 8 + 9, 1}, {1, 18 + 9, 1, 1}},
		},
		{
			// Same switch: straight to the NIC's port, SC kept.
			name: "same switch", preset: "torus2d-8x8", src: 8, dst: 15, sc: 5,
			want: []Hop{{1, 0, 7, 5}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, _, err := Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewDOR(topo, topo.Dims, paperSC.SL2SC, paperSC.SC2SL, previousDOR)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Trace(topo, r, tc.src, tc.dst, tc.sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("path\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestDORBalancedHandRoutes are routes with the default rules, worked out
// by hand on torus2d-4x4 (layout as in TestDORHandRoutes; 8 NICs per
// switch, so src_dst's member is (8·src + dst) % 10). A tie in dimension i
// goes + when dst % 8 plus the destination's coordinates i and above is
// even.
func TestDORBalancedHandRoutes(t *testing.T) {
	tests := []struct {
		name     string
		src, dst int
		sc       int
		want     []Hop
	}{
		{
			// NIC 0 on switch 0 (0,0) to NIC 93 = switch 11 (3,2) port 5;
			// member (0 + 93) % 10 = 3. x: 0 -> 3 is 1 hop −, over the wrap
			// (SC 1). y: 0 -> 2 is a tie, 5 + 2 is odd: − over the wrap
			// 0 -> 3 (switch 15, SC 1 again in the new dimension), then
			// 3 -> 2 keeping SC 1; the last hop keeps it.
			name: "tie goes − over the wrap", src: 0, dst: 93, sc: 0,
			want: []Hop{{0, 0, 18 + 3, 1}, {3, 8 + 3, 38 + 3, 1}, {15, 28 + 3, 38 + 3, 1}, {11, 28 + 3, 5, 1}},
		},
		{
			// NIC 24 on switch 3 (3,0) port 0 to NIC 106 = switch 13 (1,3)
			// port 2, SL 1 (SCs 2, 3); member (192 + 106) % 10 = 8. x: 3 -> 1
			// is a tie, 2 + 1 + 3 is even: + over the wrap 3 -> 0 (SC 3) and
			// 0 -> 1 (SC 3). y: 0 -> 3 is 1 hop −, over the wrap (SC 3).
			name: "tie goes + over the wrap", src: 24, dst: 106, sc: 2,
			want: []Hop{{3, 0, 8 + 8, 3}, {0, 18 + 8, 8 + 8, 3}, {1, 18 + 8, 38 + 8, 3}, {13, 28 + 8, 2, 3}},
		},
		{
			// The same source to NIC 107, the next port of switch 13;
			// member (192 + 107) % 10 = 9. x: the tie is now odd (3 + 1 +
			// 3): − 3 -> 2 -> 1, never across the dateline (SC 2). y: − over
			// the wrap (SC 3).
			name: "tie goes − inside the ring", src: 24, dst: 107, sc: 2,
			want: []Hop{{3, 0, 18 + 9, 2}, {2, 8 + 9, 18 + 9, 2}, {1, 8 + 9, 38 + 9, 3}, {13, 28 + 9, 3, 3}},
		},
	}
	topo, _, err := Preset("torus2d-4x4")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DefaultRegistry().New("dor", topo, paperSC)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		got, err := Trace(topo, r, tc.src, tc.dst, tc.sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: path\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// TestDORWithoutDatelineDeadlocks shows the checker can fail: the same
// routing that never switches to the second SC closes a cycle around a
// ring (every torus dimension of size > 2 is such a ring).
func TestDORWithoutDatelineDeadlocks(t *testing.T) {
	for _, name := range []string{"torus2d-4x4", "torus3d-8x8x4"} {
		t.Run(name, func(t *testing.T) {
			topo, _, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewDOR(topo, nil, paperSC.SL2SC, paperSC.SC2SL, RoutingOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r.(*dor).dateline = false
			g := NewDependencyGraph(topo, len(paperSC.SC2SL))
			var hops []Hop
			for src := 0; src < topo.NumNICs(); src += topo.NICsPerSwitch {
				for dst := range topo.NumNICs() {
					if hops, err = Trace(topo, r, src, dst, 0, hops[:0]); err != nil {
						t.Fatal(err)
					}
					if err := g.AddPath(hops); err != nil {
						t.Fatal(err)
					}
				}
			}
			cycle := g.Cycle()
			if cycle == nil {
				t.Fatal("no cycle found without the dateline")
			}
			for i, c := range cycle {
				next := cycle[(i+1)%len(cycle)]
				from := g.node(Hop{Switch: c.Switch, OutPort: c.Port, SC: c.SC})
				to := g.node(Hop{Switch: next.Switch, OutPort: next.Port, SC: next.SC})
				if !containsNode(g.adj[from], to) || c.SC != 0 {
					t.Fatalf("cycle %v: no SC 0 dependency %v -> %v", cycle, c, next)
				}
			}
		})
	}
}

func TestNewDORErrors(t *testing.T) {
	torus, _, _ := Preset("torus2d-4x4")
	tree, _, _ := Preset("tree-8ary-2")
	tests := []struct {
		name  string
		topo  *Topology
		dims  []int
		sl2sc [][]int
		sc2sl []int
		want  string
	}{
		{"not a torus", tree, nil, paperSC.SL2SC, paperSC.SC2SL, "not a torus"},
		{"other dims", torus, []int{4, 8}, paperSC.SL2SC, paperSC.SC2SL, "differ"},
		{"one SC", torus, nil, [][]int{{0}, {1, 2}}, []int{0, 1, 1}, "two SCs"},
		{"SC of another SL", torus, nil, [][]int{{0, 1}, {1, 2}}, []int{0, 0, 1}, "SL in sc2sl is not 1"},
		{"SC out of range", torus, nil, [][]int{{0, 3}}, []int{0, 0}, "SL in sc2sl"},
		{"SL out of range", torus, nil, [][]int{{0, 1}}, []int{0, 0, 5}, "no such SL"},
	}
	for _, tc := range tests {
		_, err := NewDOR(tc.topo, tc.dims, tc.sl2sc, tc.sc2sl, RoutingOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, o := range []RoutingOptions{{Ties: "minus"}, {TrunkSelect: "random"}} {
		_, err := NewDOR(torus, nil, paperSC.SL2SC, paperSC.SC2SL, o)
		want := "known: balanced, plus"
		if o.TrunkSelect != "" {
			want = "known: src_dst, dst_mod, hash"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want one containing %q", o, err, want)
		}
		if _, err := DefaultRegistry().NewWith("dor", torus, paperSC, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("registry, %+v: error %v, want one containing %q", o, err, want)
		}
	}
}

package workload

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/static"
)

// TestPhased, by hand on a 2-ary 2-tree (4 servers, unit links): shift-1
// cut into phases of 2 flows, size 6, delay 1. Phase 1 is 0→1 and 1→2:
// they share no link (0→1 stays under one leaf; 1→2 goes up and down on
// its own links), so both end at 6. Phase 2 (2→3, 3→0) starts at 7 and
// ends at 13. Without phases all four flows run at once: 2→3 shares no
// link either, so everything ends at 6.
func TestPhased(t *testing.T) {
	tree, err := graph.NewTree(2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := route.NewDModK(tree)
	p, _ := static.Shift(4, 1)
	flows, barriers, err := Phased(p, 2, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) != 5 || len(barriers) != 1 || barriers[0] != 2 || len(flows[2].Deps) != 2 {
		t.Fatalf("flows %+v, barriers %v", flows, barriers)
	}
	res, err := dynamic.Run(r, flows)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{6, 6, 6, 13, 13}
	for i, w := range want {
		if res.Finish[i] != w {
			t.Errorf("flow %d (%d→%d) finishes at %v, want %v", i, flows[i].Src, flows[i].Dst, res.Finish[i], w)
		}
	}
	if res.Start[3] != 7 || res.Makespan != 13 {
		t.Errorf("phase 2 starts at %v, makespan %v; want 7, 13", res.Start[3], res.Makespan)
	}
	one, _, _ := Phased(p, 4, 6, 1)
	if res, _ := dynamic.Run(r, one); res.Makespan != 6 || len(one) != 4 {
		t.Errorf("one phase: %d flows, makespan %v; want 4, 6", len(one), res.Makespan)
	}
	for _, bad := range []struct {
		n           int
		size, delay float64
		want        string
	}{{0, 1, 0, "phase flows: 0"}, {1, -1, 0, "flow size: -1"}, {1, 1, -2, "phase delay: -2"}} {
		if _, _, err := Phased(p, bad.n, bad.size, bad.delay); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v, want %q", err, bad.want)
		}
	}
}

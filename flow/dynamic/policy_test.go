package dynamic

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
)

func runPolicy(t *testing.T, r route.Router, p maxmin.Policy, flows []Flow) *Result {
	t.Helper()
	res, err := RunWith(r, flows, Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPoliciesOverTime: seed 001's Fig. 1 on one path (ring 0→1, link
// capacity 1): an App flow (class 0) and an I/O flow (class 1) of size 1
// from time 0.
//
//   - NP: 1/2 each, both complete at 2.
//   - BA 50/50: the same.
//   - BA 75/25: App at 3/4 completes at 4/3; I/O, at 1/4 until then (1/3
//     done), takes the whole link for the remaining 2/3: completes at 2.
//   - FP: App alone at 1 completes at 1; I/O then runs at 1: 2.
//
// And FP with the I/O flow first (size 2, from 0) and the App flow from
// 0.5: I/O runs at 1 until 0.5, stops while App runs (0.5 to 1.5), and
// finishes its remaining 1.5 at 3.
func TestPoliciesOverTime(t *testing.T) {
	flows := []Flow{{Src: 0, Dst: 1, Size: 1, Class: 0}, {Src: 0, Dst: 1, Size: 1, Class: 1}}
	for _, c := range []struct {
		p      maxmin.Policy
		finish []float64
	}{
		{maxmin.Policy{}, []float64{2, 2}},
		{maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}, []float64{2, 2}},
		{maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.75, 0.25}}, []float64{4.0 / 3, 2}},
		{maxmin.Policy{Kind: maxmin.FP}, []float64{1, 2}},
	} {
		res := runPolicy(t, ring(t, 1), c.p, flows)
		expectTimes(t, res, []float64{0, 0}, c.finish)
	}
	res := runPolicy(t, ring(t, 1), maxmin.Policy{Kind: maxmin.FP}, []Flow{
		{Src: 0, Dst: 1, Size: 2, Class: 1},
		{Src: 0, Dst: 1, Size: 1, Start: 0.5, Class: 0},
	})
	expectTimes(t, res, []float64{0, 0.5}, []float64{3, 1.5})
}

// TestFullPriorityParkingLot: TestParkingLotInTime's flows with the long
// flow (0→3, size 4) as I/O and the short ones (sizes 1, 2, 3) as App,
// under FP: each short flow has its links to itself (rate 1) and
// completes at 1, 2, 3; the long flow gets nothing until the last of
// them is done, then runs alone at 1: 3 + 4 = 7.
func TestFullPriorityParkingLot(t *testing.T) {
	tor, err := graph.NewTorus([]int{7}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := runPolicy(t, route.NewDOR(tor), maxmin.Policy{Kind: maxmin.FP}, []Flow{
		{Src: 0, Dst: 3, Size: 4, Class: 1},
		{Src: 0, Dst: 1, Size: 1},
		{Src: 1, Dst: 2, Size: 2},
		{Src: 2, Dst: 3, Size: 3},
	})
	expectTimes(t, res, []float64{0, 0, 0, 0}, []float64{7, 1, 2, 3})
}

func TestPolicyClassError(t *testing.T) {
	_, err := RunWith(ring(t, 1), []Flow{{Src: 0, Dst: 1, Size: 1, Class: 2}}, Options{Policy: maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}})
	if err == nil || !strings.Contains(err.Error(), "maxmin flow class: 2 is not allowed") {
		t.Errorf("class 2 of 2: %v", err)
	}
	if _, err := New(ring(t, 1), Options{Policy: maxmin.Policy{Kind: maxmin.BA}}); err == nil {
		t.Errorf("BA without shares: no error")
	}
}

package dtable

import (
	"slices"
	"strings"
	"testing"
)

// TestPlaceTable6: distances 2, 4, 4 over 8 slots give seed 000 Table 6's
// layout 0,1,0,2,0,1,0,2.
func TestPlaceTable6(t *testing.T) {
	got, err := Place(8, []int{2, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 2, 0, 1, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("Place = %v, want %v", got, want)
	}
}

// TestPlaceTightestFirst: input order does not matter, distance does; ties
// keep input order. Distances 4, 2, 4 → the distance-2 SL (index 1) first.
func TestPlaceTightestFirst(t *testing.T) {
	got, err := Place(8, []int{4, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 0, 1, 2, 1, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("Place = %v, want %v", got, want)
	}
}

// TestPlaceNextStart: N=12, A and B distance 6, C distance 4. C first: 0,4,8.
// A: lowest free 1 → 1,7. B: lowest free 2 → 2,8 collides at 8, so the next
// free start 3 → 3,9. Slots 5,6,10,11 stay unused.
func TestPlaceNextStart(t *testing.T) {
	got, err := Place(12, []int{6, 6, 4})
	if err != nil {
		t.Fatal(err)
	}
	u := Unused
	if want := []int{2, 0, u, 1, 2, u, u, 0, 2, 1, u, u}; !slices.Equal(got, want) {
		t.Errorf("Place = %v, want %v", got, want)
	}
	table := compact(got, []int{1, 1, 1})
	if err := CheckSpacing(table, []int{6, 6, 4}); err != nil {
		t.Errorf("compacted table breaks a distance: %v", err)
	}
}

// TestPlaceImpossible: N=12, distances 2 and 3. The distance-2 SL takes
// the even slots; every residue class mod 3 holds an even slot.
func TestPlaceImpossible(t *testing.T) {
	_, err := Place(12, []int{2, 3})
	want := "sls[1]: distance 3 cannot be placed"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "slot 4 is taken by sls[0]") {
		t.Errorf("err = %v, want %q and slot 4 taken by sls[0]", err, want)
	}
}

func TestPlaceBadArgs(t *testing.T) {
	for _, c := range []struct {
		n         int
		distances []int
		want      string
	}{
		{0, []int{1}, "entries 0 must be positive"},
		{8, []int{3}, "sls[0]: distance 3 does not divide entries 8 (8 mod 3 = 2)"},
		{8, []int{0}, "sls[0]: distance 0 must be positive"},
		{8, []int{16}, "sls[0]: distance 16 is above the limit 8 by 8"},
		{8, []int{2, 2, 4}, "sum to 10, above entries 8 by 2"},
	} {
		_, err := Place(c.n, c.distances)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Place(%d, %v) err = %v, want %q", c.n, c.distances, err, c.want)
		}
	}
}

// TestCheckSpacing: SL0 at slots 0 and 1 of 4 is 3 apart across the wrap.
func TestCheckSpacing(t *testing.T) {
	table := tab(0, 1, 0, 1, 1, 1, 1, 1)
	err := CheckSpacing(table, []int{2, 2})
	want := "sls[0]: distance 2 is exceeded by 1: entries at slots 1 and 0 are 3 apart"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if err := CheckSpacing(table, []int{2, 2, 1}); err == nil || !strings.Contains(err.Error(), "sls[2]: entries 0") {
		t.Errorf("missing SL not reported: %v", err)
	}
}

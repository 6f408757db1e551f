package dtable

import (
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// tab builds a table from (SL, weight) pairs.
func tab(pairs ...int) []sched.Entry {
	var t []sched.Entry
	for i := 0; i+1 < len(pairs); i += 2 {
		t = append(t, sched.Entry{SL: pairs[i], Weight: pairs[i+1]})
	}
	return t
}

// table6 is seed 000 Table 6 before the correction.
var table6 = tab(0, 4, 1, 2, 0, 4, 2, 3, 0, 4, 1, 2, 0, 4, 2, 3)

// TestCorrectTable6: Dweight -3, +1, +2 from the end of the table: SL0
// takes entries 6, 4, 2; SL1 entry 5; SL2 entries 7, 3.
func TestCorrectTable6(t *testing.T) {
	got, left, err := Correct(table6, []int{-3, 1, 2}, []int{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := tab(0, 4, 1, 2, 0, 3, 2, 4, 0, 3, 1, 3, 0, 3, 2, 4)
	if !slices.Equal(got, want) || !slices.Equal(left, []int{0, 0, 0}) {
		t.Errorf("Correct = %v left %v, want %v left [0 0 0]", got, left, want)
	}
	if table6[2].Weight != 4 {
		t.Error("Correct changed its input")
	}
}

// TestCorrectWalk covers the round-robin wrap and the MTU floor by hand.
func TestCorrectWalk(t *testing.T) {
	for _, c := range []struct {
		name    string
		weights []int
		d, mtu  int
		want    []int
		left    int
	}{
		// +5 over two entries: 1, 2 (end first), 3, 4, 5 → last +3, first +2.
		{"wrap", []int{3, 3}, 5, 1, []int{5, 6}, 0},
		// -5 over 5,2,5 with MTU 2: slot 1 sits at the floor, so the walk
		// takes 2, 0, 2, 0, 2.
		{"floor", []int{5, 2, 5}, -5, 2, []int{3, 2, 2}, 0},
		// -7: two more units wanted after 3,2,2; only slot 0 can give one.
		{"left", []int{5, 2, 5}, -7, 2, []int{2, 2, 2}, -1},
		{"zero", []int{4, 4}, 0, 1, []int{4, 4}, 0},
	} {
		table := make([]sched.Entry, len(c.weights))
		for i, w := range c.weights {
			table[i] = sched.Entry{SL: 0, Weight: w}
		}
		got, left, err := Correct(table, []int{c.d}, []int{c.mtu})
		if err != nil {
			t.Fatal(err)
		}
		if w := weightsAt(got, []int{0, 1, 2}[:len(got)]); !slices.Equal(w, c.want) || left[0] != c.left {
			t.Errorf("%s: weights %v left %d, want %v left %d", c.name, w, left[0], c.want, c.left)
		}
	}
}

func TestCorrectBadArgs(t *testing.T) {
	for _, c := range []struct {
		table  []sched.Entry
		d, mtu []int
		want   string
	}{
		{table6, []int{0, 0}, []int{1, 1}, "table[3]: sl 2 is outside [0, 1]"},
		{table6, []int{0, 0, 0}, []int{1, 1}, "mtu has 2 values for 3 SLs"},
		{table6, []int{0, 0, 0}, []int{1, 0, 1}, "sls[1]: mtu 0 must be positive"},
		{tab(0, -1), []int{0}, []int{1}, "table[0]: weight -1 is below 0 by 1"},
	} {
		_, _, err := Correct(c.table, c.d, c.mtu)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

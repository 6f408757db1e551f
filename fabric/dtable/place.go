package dtable

import (
	"fmt"
	"slices"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/problem"
)

// Unused marks a layout slot that no SL owns.
const Unused = -1

// Place lays out a table of n slots for SLs with the given maximum entry
// distances; SL i gets n_i = n/distances[i] slots (seed 000 section 3.3: the
// distance between consecutive entries of an SL bounds its latency). It
// returns, for every slot, the index of the owning SL or Unused.
//
// Rule (MODEL.md section 8): SLs are taken from the tightest distance up,
// ties in input order; each takes the lowest free slot s and then s+d,
// s+2d, …. Since n_i·d = n, every gap must be exactly d, so an SL always
// occupies one residue class mod d; if the class of the lowest free slot
// collides, the next free start below d is tried. With power-of-two
// distances the lowest free slot always works, and distances 2, 4, 4 over
// 8 slots give Table 6's layout 0,1,0,2,0,1,0,2.
func Place(n int, distances []int) ([]int, error) {
	labels := make([]string, len(distances))
	for i := range labels {
		labels[i] = fmt.Sprintf("sls[%d]", i)
	}
	return place(n, distances, labels)
}

func place(n int, distances []int, labels []string) ([]int, error) {
	if err := checkPlaceArgs(n, distances, labels); err != nil {
		return nil, err
	}
	layout := slices.Repeat([]int{Unused}, n)
	for _, i := range tightestFirst(distances) {
		if err := placeOne(layout, i, distances[i], labels); err != nil {
			return nil, err
		}
	}
	return layout, nil
}

func checkPlaceArgs(n int, distances []int, labels []string) error {
	var ps problems
	if !ps.intIn("", "entries", n, 1, MaxEntries) {
		return problem.List(ps).Err()
	}
	used := 0
	for i, d := range distances {
		if !ps.intIn(labels[i], "distance", d, 1, n) {
			continue
		}
		if n%d != 0 {
			ps.add(labels[i], "distance", "%d does not divide entries %d (%d mod %d = %d)", d, n, n, d, n%d)
			continue
		}
		used += n / d
	}
	if used > n {
		ps.add("sls", "entries", "n_i = N/distance_i sum to %d, above entries %d by %d", used, n, used-n)
	}
	return problem.List(ps).Err()
}

// tightestFirst orders SL indices by distance, ties in input order.
func tightestFirst(distances []int) []int {
	order := make([]int, len(distances))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return distances[a] - distances[b] })
	return order
}

func placeOne(layout []int, sl, d int, labels []string) error {
	clash := Unused
	for start := 0; start < d; start++ {
		if layout[start] != Unused {
			continue
		}
		c := firstClash(layout, start, d)
		if c == Unused {
			for s := start; s < len(layout); s += d {
				layout[s] = sl
			}
			return nil
		}
		if clash == Unused {
			clash = c
		}
	}
	why := fmt.Sprintf("all slots 0..%d are taken", d-1)
	if clash != Unused {
		why = fmt.Sprintf("slot %d is taken by %s", clash, labels[layout[clash]])
	}
	return &Problem{Where: labels[sl], Field: "distance", Msg: fmt.Sprintf(
		"%d cannot be placed: no free slot s < %d has s, s+%d, s+2·%d, … all free (%s; tighter distances are placed first)",
		d, d, d, d, why)}
}

// firstClash returns the first taken slot of start, start+d, …, or Unused.
func firstClash(layout []int, start, d int) int {
	for s := start; s < len(layout); s += d {
		if layout[s] != Unused {
			return s
		}
	}
	return Unused
}

// compact drops the Unused slots and gives every entry the weight of its SL.
func compact(layout []int, weights []int) []sched.Entry {
	table := make([]sched.Entry, 0, len(layout))
	for _, sl := range layout {
		if sl != Unused {
			table = append(table, sched.Entry{SL: sl, Weight: weights[sl]})
		}
	}
	return table
}

// CheckSpacing verifies that consecutive entries of SL i in table are never
// more than distances[i] apart, counting circularly (the table is cycled),
// and that every SL has an entry.
func CheckSpacing(table []sched.Entry, distances []int) error {
	var ps problems
	for i, d := range distances {
		at := slotsOf(table, i)
		if len(at) == 0 {
			ps.add(fmt.Sprintf("sls[%d]", i), "entries", "0: the SL has no table entry")
			continue
		}
		if g, from := widestGap(at, len(table)); g > d {
			ps.add(fmt.Sprintf("sls[%d]", i), "distance", "%d is exceeded by %d: entries at slots %d and %d are %d apart",
				d, g-d, from, (from+g)%len(table), g)
		}
	}
	return problem.List(ps).Err()
}

func slotsOf(table []sched.Entry, sl int) []int {
	var at []int
	for s, e := range table {
		if e.SL == sl {
			at = append(at, s)
		}
	}
	return at
}

// widestGap returns the largest circular gap between consecutive slots of
// at (sorted) in a table of n slots, and the slot it starts from.
func widestGap(at []int, n int) (gap, from int) {
	gap, from = at[0]+n-at[len(at)-1], at[len(at)-1]
	for j := 1; j < len(at); j++ {
		if g := at[j] - at[j-1]; g > gap {
			gap, from = g, at[j-1]
		}
	}
	return gap, from
}

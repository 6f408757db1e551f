package dtable

import (
	"fmt"
	"math"
	"slices"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/problem"
)

// Correct applies the DTable bandwidth correction walk (seed 000 section
// 3.3.3, Table 6) and returns the corrected copy of table. For each SL i,
// dweight[i] is added one unit at a time to the SL's entries, walking from
// the end of the table backwards and starting again at the end when the
// first entry is passed (round-robin), and never taking an entry below
// mtu[i]. left[i] is the part of dweight[i] that could not be applied
// because every entry of SL i sat at mtu[i] (zero in every table Configure
// builds; Configure turns a non-zero left into a warning).
//
// Table 6: SL0 with Dweight -3 takes entries 6, 4 and 2; SL1 with +1 takes
// entry 5; SL2 with +2 takes entries 7 and 3.
func Correct(table []sched.Entry, dweight, mtu []int) (out []sched.Entry, left []int, err error) {
	if err := checkCorrectArgs(table, dweight, mtu); err != nil {
		return nil, nil, err
	}
	out = slices.Clone(table)
	left = make([]int, len(dweight))
	for sl, d := range dweight {
		at := slotsOf(out, sl)
		slices.Reverse(at)
		left[sl] = walk(out, at, mtu[sl], d)
	}
	return out, left, nil
}

func checkCorrectArgs(table []sched.Entry, dweight, mtu []int) error {
	var ps problems
	if len(mtu) != len(dweight) {
		ps.add("", "mtu", "has %d values for %d SLs (one per dweight)", len(mtu), len(dweight))
		return problem.List(ps).Err()
	}
	for i, m := range mtu {
		ps.intIn(fmt.Sprintf("sls[%d]", i), "mtu", m, 1, MaxWeight)
		ps.intIn(fmt.Sprintf("sls[%d]", i), "dweight", dweight[i], -MaxWeight, MaxWeight)
	}
	for s, e := range table {
		if e.SL < 0 || e.SL >= len(dweight) {
			ps.add(fmt.Sprintf("table[%d]", s), "sl", "%d is outside [0, %d]", e.SL, len(dweight)-1)
		}
		ps.intIn(fmt.Sprintf("table[%d]", s), "weight", e.Weight, 0, MaxWeight)
	}
	return problem.List(ps).Err()
}

// walk adds d to the weights of table at the slots at (already in walk
// order), one unit per entry per pass, keeping every weight ≥ floor. Whole
// passes are applied at once, so the cost does not grow with |d|. It
// returns what is left of d when no entry can move any more.
func walk(table []sched.Entry, at []int, floor, d int) int {
	for d != 0 {
		open := openSlots(table, at, floor, d)
		if len(open) == 0 {
			return d
		}
		step, units := 1, d
		if d < 0 {
			step, units = -1, -d
		}
		passes := min(units/len(open), room(table, open, floor, d))
		if passes == 0 {
			open, passes = open[:units], 1
		}
		for _, s := range open {
			table[s].Weight += step * passes
		}
		d -= step * passes * len(open)
	}
	return 0
}

// openSlots are the slots of at that can still move in the direction of d.
func openSlots(table []sched.Entry, at []int, floor, d int) []int {
	if d > 0 {
		return at
	}
	var open []int
	for _, s := range at {
		if table[s].Weight > floor {
			open = append(open, s)
		}
	}
	return open
}

// room is how many whole passes fit before an open slot reaches floor.
func room(table []sched.Entry, open []int, floor, d int) int {
	if d > 0 {
		return math.MaxInt
	}
	r := math.MaxInt
	for _, s := range open {
		r = min(r, table[s].Weight-floor)
	}
	return r
}

package dtable_test

import (
	"fmt"

	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
)

func row(table []sched.Entry) string {
	s := ""
	for j, e := range table {
		if j > 0 {
			s += "  "
		}
		s += fmt.Sprintf("%d,%d", e.SL, e.Weight)
	}
	return s
}

// Seed 000 Table 6: the layout for distances 2, 4, 4 and the correction
// walk for Dweight -3, +1, +2 (the weights 4, 2, 3 are the paper's).
func ExampleCorrect() {
	layout, _ := dtable.Place(8, []int{2, 4, 4})
	weight := []int{4, 2, 3}
	var table []sched.Entry
	for _, sl := range layout {
		table = append(table, sched.Entry{SL: sl, Weight: weight[sl]})
	}
	fixed, _, _ := dtable.Correct(table, []int{-3, 1, 2}, []int{1, 1, 1})
	fmt.Println("layout:", layout)
	fmt.Println("before:", row(table))
	fmt.Println("after: ", row(fixed))
	// Output:
	// layout: [0 1 0 2 0 1 0 2]
	// before: 0,4  1,2  0,4  2,3  0,4  1,2  0,4  2,3
	// after:  0,4  1,2  0,3  2,4  0,3  1,3  0,3  2,4
}

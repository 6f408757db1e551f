package qos

import (
	"reflect"
	"testing"
)

// TestNewTables: seed 000 Table 7's SLs (two SCs each) over its SC2VL give
// SC2SL 0,0,1,1,...; an SC no SL lists maps to SL 0, one outside SC2VL is
// ignored.
func TestNewTables(t *testing.T) {
	sl2sc := [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}
	tab := NewTables(sl2sc, []int{0, 1, 2, 3, 4, 5, 6, 7, 6, 7})
	if want := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}; !reflect.DeepEqual(tab.SC2SL, want) {
		t.Errorf("SC2SL %v, want %v", tab.SC2SL, want)
	}
	if tab.NumSLs() != 5 || !reflect.DeepEqual(tab.SCsOf(2), []int{4, 5}) || tab.SCsOf(5) != nil {
		t.Errorf("NumSLs %d, SCsOf(2) %v, SCsOf(5) %v", tab.NumSLs(), tab.SCsOf(2), tab.SCsOf(5))
	}
	odd := NewTables([][]int{{1, 7}}, []int{0, 0, 0})
	if want := []int{0, 0, 0}; !reflect.DeepEqual(odd.SC2SL, want) {
		t.Errorf("SC2SL %v, want %v", odd.SC2SL, want)
	}
}

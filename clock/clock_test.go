package clock

import (
	"slices"
	"testing"
)

// TestCalendar: windows start at the earliest wake, skip idle stretches,
// are cut at End, and list exactly the groups due in them.
func TestCalendar(t *testing.T) {
	c := NewCalendar(3, 8, 100)
	c.Set(0, 5)
	c.Set(1, 12)
	c.Set(2, Never)
	w, due, ok := c.Next(nil)
	if !ok || w != (Window{5, 13}) || !slices.Equal(due, []int{0, 1}) {
		t.Fatalf("first window %v due %v ok %v, want [5,13) with groups 0 and 1", w, due, ok)
	}
	c.Set(0, Never)
	c.Set(1, Never)
	c.Wake(2, 60)
	c.Wake(2, 70) // the earlier wake stays
	w, due, _ = c.Next(due)
	if w != (Window{60, 68}) || !slices.Equal(due, []int{2}) {
		t.Errorf("idle stretch not skipped: %v %v", w, due)
	}
	c.Set(2, 97)
	if w, _, _ = c.Next(due); w != (Window{97, 100}) {
		t.Errorf("window not cut at End: %v", w)
	}
	c.Set(2, 100)
	if _, _, ok := c.Next(due); ok {
		t.Error("a window at End")
	}
}

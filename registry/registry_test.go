package registry

import "testing"

// TestRegistry: names come sorted whatever the registration order, a taken
// name is refused, and an unknown name's error lists the known ones.
func TestRegistry(t *testing.T) {
	r := New[int]("widget")
	if r.Has("a") || len(r.Names()) != 0 {
		t.Fatal("a new registry is not empty")
	}
	for i, n := range []string{"c", "a", "b"} {
		if err := r.Register(n, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Register("a", 9); err == nil || err.Error() != `widget "a" is already registered` {
		t.Errorf("second a: %v", err)
	}
	if got := r.Names(); len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("names %v", got)
	}
	if v, err := r.Get("c"); v != 0 || err != nil || !r.Has("b") {
		t.Errorf("c: %d, %v", v, err)
	}
	if _, err := r.Get("d"); err == nil || err.Error() != `unknown widget "d" (known: a, b, c)` {
		t.Errorf("unknown: %v", err)
	}
}

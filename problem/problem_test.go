package problem

import (
	"errors"
	"testing"
)

// kind is a validator's own problem type.
type kind struct{ field string }

func (k *kind) Error() string { return k.field + " is odd" }

// TestList: an empty list is no error; a list reports one line per problem
// in the order found, and errors.As finds the list and each kind in it.
func TestList(t *testing.T) {
	var l List
	l.AtLeast("cycles", 5, 1)
	if l.Err() != nil {
		t.Fatalf("no problem yet, got %v", l.Err())
	}
	l.AtLeast("cycles", 0, 1)
	l.NotAllowed("engine", `"gpu"`, "must be one of: actors, sequential")
	l.Add(&kind{"k"})
	l.Addf("", "the file is empty")
	err := l.Err()
	want := "cycles: 0 is not allowed: must be at least 1\n" +
		`engine: "gpu" is not allowed: must be one of: actors, sequential` + "\nk is odd\nthe file is empty"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	var got List
	if !errors.As(err, &got) || len(got) != 4 {
		t.Errorf("errors.As to List: %v", got)
	}
	var k *kind
	if !errors.As(err, &k) || k.field != "k" {
		t.Errorf("errors.As to a member's type: %v", k)
	}
	var p *Problem
	if !errors.As(err, &p) || p.Where != "cycles" {
		t.Errorf("errors.As to Problem: %+v", p)
	}
}

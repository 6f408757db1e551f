// Package problem is opasim's one way of reporting bad input: every
// problem found at once, each an error that says where it is (a field or
// key path as the user wrote it), the value and what is allowed. A List is
// the error a validator returns; errors.As finds the List, and each of its
// problems (List unwraps to them), so a caller can pick out one kind.
//
// Imports: the standard library only.
package problem

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with an input: Where it is and What is wrong
// there.
type Problem struct {
	Where string // "traffic.load", "qos.sls[2].mtu_byts (line 7)"; "" for the input as a whole
	What  string // the value and what is allowed
}

func (p *Problem) Error() string {
	if p.Where == "" {
		return p.What
	}
	return p.Where + ": " + p.What
}

// List collects problems in the order they are found. Non-empty, it is an
// error whose message has one line per problem.
type List []error

func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the problems, for errors.Is and errors.As.
func (l List) Unwrap() []error { return l }

// Err is the list as an error: nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Add appends a problem (any error: a validator may have its own kinds).
func (l *List) Add(err error) { *l = append(*l, err) }

// Addf appends a Problem at where.
func (l *List) Addf(where, format string, args ...any) {
	l.Add(&Problem{Where: where, What: fmt.Sprintf(format, args...)})
}

// NotAllowed appends "where: value is not allowed: allowed".
func (l *List) NotAllowed(where string, value any, allowed string) {
	l.Addf(where, "%v is not allowed: %s", value, allowed)
}

// AtLeast appends a problem when v is below min.
func (l *List) AtLeast(where string, v, min int64) {
	if v < min {
		l.NotAllowed(where, v, fmt.Sprintf("must be at least %d", min))
	}
}

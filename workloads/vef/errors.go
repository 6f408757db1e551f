package vef

import "fmt"

// Error is everything the package reports about a trace: where (Line, and
// Field as the format names it), the Value found there as written, and
// what was Expected. Err is the underlying error of a failed read, if any.
//
// A Reader stops at the first Error and returns it from every later call:
// a trace is a stream whose checks depend on what came before (an id
// off by one shifts every id after it), so the first error is the one
// worth reading. Problems found at the end of the file (counts the header
// promised, collectives missing parts) name the line that made the
// promise: the header, or the collective's first part.
type Error struct {
	Line     int
	Field    string
	Value    string
	Expected string
	Err      error

	errShown bool // Value or Expected already says what Err says
}

func (e *Error) Error() string {
	s := fmt.Sprintf("line %d: %s %q: expected %s", e.Line, e.Field, e.Value, e.Expected)
	if e.Err != nil && !e.errShown {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives the underlying read error, if any.
func (e *Error) Unwrap() error { return e.Err }

func errorf(line int, field, value, format string, args ...any) *Error {
	return &Error{Line: line, Field: field, Value: value, Expected: fmt.Sprintf(format, args...)}
}

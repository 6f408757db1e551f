package vef

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzReader: no panic; every error is an *Error naming a line; a trace
// that reads without error writes back (Writer) to text that reads to the
// same header and records.
func FuzzReader(f *testing.F) {
	f.Add(example)
	f.Add("VEF 3 0 2 1 3 TRUE\nC0 2 0 1\nC1 2 0\nG0 0 3 0 1 0 0 0 -1\nG0 0 3 1 2 6 0 0 -1\nG0 0 3 2 3 0 0 0 -1\n")
	f.Add("VEF 2 1 1 1 2 FALSE\nC0 0 1\nG0 0 7 0 16 1 0 0 -1\n0 0 1 8 3 5 G0\nG0 0 7 1 16 1 1 0 0\n")
	f.Add("\n VEF\t1 1 1 0 0 FALSE\r\nC0 0\n0 0 0 0 0 7 -1\n")
	f.Fuzz(func(t *testing.T, in string) {
		h, recs, err := readAll(strings.NewReader(in))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var b bytes.Buffer
		w, err := NewWriter(&b, h)
		if err != nil {
			t.Fatalf("header read but not written: %v", err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatalf("record read but not written: %v", err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		h2, recs2, err := readAll(&b)
		if err != nil || !reflect.DeepEqual(h2, h) || !sameRecords(recs2, recs) {
			t.Fatalf("round trip: %+v %+v → %+v %+v, %v", h, recs, h2, recs2, err)
		}
	})
}

// sameRecords compares records but for their lines (the written trace
// has no blank lines).
func sameRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Line, y.Line = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

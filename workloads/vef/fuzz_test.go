package vef

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// FuzzGzip: a trace read through gzip, cut short at any byte and with any
// limit on its decompressed size, reads as the plain text does as far as
// it goes: the same header and a prefix of its records, then the plain
// text's own error or a gzip error (a cut: io.ErrUnexpectedEOF; the
// limit: ErrInflateLimit), never a complaint about half a line. Whole and
// within the limit, it reads exactly as the plain text.
func FuzzGzip(f *testing.F) {
	f.Add(example, uint(0), uint(1<<20))
	f.Add(example, uint(100), uint(1<<20))
	f.Add(example, uint(0), uint(150))
	f.Add("VEF 3 0 2 1 3 TRUE\nC0 2 0 1\nC1 2 0\nG0 0 3 0 1 0 0 0 -1\nG0 0 3 1 2 6 0 0 -1\nG0 0 3 2 3 0 0 0 -1\n", uint(60), uint(70))
	f.Add("\n\n\n\n  \t\n"+example, uint(0), uint(9))
	f.Fuzz(func(t *testing.T, text string, cut, limit uint) {
		limit = limit%(1<<20) + 1
		h, recs, plainErr := readAll(strings.NewReader(text))
		gz := gzipped(t, []byte(text))
		cut %= uint(len(gz)) + 1
		if cut == 0 {
			cut = uint(len(gz)) // whole
		}
		cut = max(cut, 2) // gzip's magic bytes: without them, plain text
		gh, grecs, openErr, err := readStream(gz[:cut], int64(limit))
		whole := cut == uint(len(gz)) && len(text) <= int(limit)
		if openErr != nil {
			err = openErr
		}
		var e *Error
		isGzip := errors.As(err, &e) && e.Field == "gzip" && e.Line >= 1 &&
			(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrInflateLimit))
		switch {
		case whole:
			if fmt.Sprint(err) != fmt.Sprint(plainErr) || !sameRecords(grecs, recs) || openErr == nil && plainErr == nil && !reflect.DeepEqual(gh, h) {
				t.Fatalf("whole: %v %+v, plain %v %+v", err, grecs, plainErr, recs)
			}
		case openErr != nil:
			if !isGzip && !errors.Is(err, io.ErrUnexpectedEOF) && fmt.Sprint(err) != fmt.Sprint(plainErr) {
				t.Fatalf("opening cut at %d, limit %d: %v (plain: %v)", cut, limit, err, plainErr)
			}
		default:
			if len(grecs) > len(recs) || !sameRecords(grecs, recs[:len(grecs)]) {
				t.Fatalf("cut at %d, limit %d: records %+v not a prefix of %+v", cut, limit, grecs, recs)
			}
			if !isGzip && (fmt.Sprint(err) != fmt.Sprint(plainErr) || len(grecs) != len(recs)) {
				t.Fatalf("cut at %d, limit %d: %v, want a gzip error or the plain text's %v", cut, limit, err, plainErr)
			}
		}
	})
}

package vef

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func gzipped(t testing.TB, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readStream reads data as Open reads a file: inflated if gzip, within
// maxInflated. err is the error that ended it (nil at the end), openErr
// the error of opening (the gzip header or the trace's header).
func readStream(data []byte, maxInflated int64) (h Header, recs []Record, openErr, err error) {
	rd, gz, openErr := openStream(bufio.NewReader(bytes.NewReader(data)), maxInflated)
	if openErr != nil {
		return h, nil, openErr, nil
	}
	if gz != nil {
		defer gz.Close()
	}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return rd.Header(), recs, nil, nil
		}
		if err != nil {
			return rd.Header(), recs, nil, err
		}
		recs = append(recs, rec)
	}
}

// TestTruncatedGzip: the example's gzip stream cut at every byte reads as
// a prefix of its records, then a gzip error naming the line reached and
// wrapping io.ErrUnexpectedEOF, never a complaint about half a line; cut
// in its header it is refused on opening.
func TestTruncatedGzip(t *testing.T) {
	gz := gzipped(t, []byte(example))
	for cut := 2; cut < len(gz); cut++ { // the two magic bytes at least: else the file is plain text
		h, recs, openErr, err := readStream(gz[:cut], DefaultMaxInflated)
		if openErr != nil {
			var e *Error
			if !errors.Is(openErr, io.ErrUnexpectedEOF) && !(errors.As(openErr, &e) && e.Field == "gzip") {
				t.Errorf("cut at %d: opening: %v, want a gzip error", cut, openErr)
			}
			continue
		}
		if len(recs) > len(exampleRecords) || len(recs) > 0 && !reflect.DeepEqual(recs, exampleRecords[:len(recs)]) {
			t.Errorf("cut at %d: records %+v, not a prefix of the example's", cut, recs)
		}
		var e *Error
		if !errors.As(err, &e) || e.Field != "gzip" || !errors.Is(err, io.ErrUnexpectedEOF) ||
			!strings.Contains(err.Error(), "truncated or corrupt") {
			t.Fatalf("cut at %d: %v, want a gzip error wrapping io.ErrUnexpectedEOF", cut, err)
		}
		// The error names the line after the last whole line read.
		if want := 4 + len(recs); len(recs) > 0 && e.Line > want+1 {
			t.Errorf("cut at %d: error at line %d after %d records (lines 4 to %d)", cut, e.Line, len(recs), want-1)
		}
		_ = h
	}
}

// TestInflateLimit: a gzip trace of exactly the limit reads; one byte
// less is refused with ErrInflateLimit, at the line where the limit fell.
func TestInflateLimit(t *testing.T) {
	gz := gzipped(t, []byte(example))
	n := int64(len(example))
	if _, recs, openErr, err := readStream(gz, n); openErr != nil || err != nil || len(recs) != len(exampleRecords) {
		t.Fatalf("at the limit: %v %v, %d records", openErr, err, len(recs))
	}
	_, recs, openErr, err := readStream(gz, n-1)
	var e *Error
	if openErr != nil || !errors.As(err, &e) || !errors.Is(err, ErrInflateLimit) || e.Field != "gzip" {
		t.Fatalf("one byte short: %v %v, want ErrInflateLimit", openErr, err)
	}
	// The example (189 bytes) less its last newline: the ten lines before
	// its last are read (7 records) and the error is on line 11.
	if len(recs) != len(exampleRecords)-1 || e.Line != 11 || !strings.Contains(err.Error(), "more than 188 bytes decompressed") {
		t.Errorf("one byte short: %d records, %v", len(recs), err)
	}
	if _, err := OpenLimit(filepath.Join(t.TempDir(), "x"), 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("OpenLimit with limit 0: %v", err)
	}
}

// TestInflateBomb: a 1 MiB gzip file of newlines inflates to 1 GiB; with
// a limit of 1 MiB, Open refuses it having read 1 MiB: line 1048577, the
// first beyond the 2^20 blank lines within the limit, named with the file.
func TestInflateBomb(t *testing.T) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	chunk := bytes.Repeat([]byte{'\n'}, 1<<20)
	for range 64 { // 64 MiB: far past the limit, a 64 KiB file
		zw.Write(chunk)
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "bomb.vef.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenLimit(path, 1<<20)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInflateLimit) || e.Line != 1<<20+1 || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "at most 1048576 bytes (1 MiB) once decompressed") {
		t.Errorf("bomb: %v", err)
	}
}

// TestBlankLinesCounted: blank lines (white space only) are skipped and counted:
// records keep the lines they are written on.
func TestBlankLinesCounted(t *testing.T) {
	lines := strings.SplitAfter(example, "\n")
	var b strings.Builder
	want := make([]Record, len(exampleRecords))
	copy(want, exampleRecords)
	line := 0
	for i, l := range lines {
		// i blank lines before the example's line i+1, of assorted white space.
		for k := range i {
			b.WriteString(strings.Repeat(" \t\r\v\f"[k%5:k%5+1], k))
			b.WriteString("\n")
			line++
		}
		b.WriteString(l)
		line++
		if r := i - 3; r >= 0 && r < len(want) {
			want[r].Line = line
		}
	}
	_, recs, err := readAll(strings.NewReader(b.String()))
	if err != nil || !reflect.DeepEqual(recs, want) {
		t.Errorf("%v: records\n%+v\nwant\n%+v", err, recs, want)
	}
	// A header missing after blank lines is missing at the line after them.
	_, _, err = readAll(strings.NewReader("\n \n\t\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 4 || e.Field != "magic" {
		t.Errorf("blank input: %v, want the magic missing at line 4", err)
	}
}

// TestLinearTime: a 1 MiB line arriving a byte a read is looked at about
// once, not once a read (which would be 2^39 bytes); so are a million
// blank lines.
func TestLinearTime(t *testing.T) {
	long := "VEF 2 1 1 0 0 FALSE\nC0 0 1\n0 0 1" + strings.Repeat(" ", 1<<20) + "8 0 0 -1\n"
	rd, err := NewReader(iotest.OneByteReader(strings.NewReader(long)))
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := rd.Next(); err != nil || rec.Message.Bytes != 8 || rec.Line != 3 {
		t.Fatalf("%+v %v", rec, err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatal(err)
	}
	if n := int64(len(long)); rd.looked > 2*n {
		t.Errorf("looked at %d bytes of a %d-byte input", rd.looked, n)
	}
	blank := strings.Repeat("\n", 1<<20) + example
	rd, err = NewReader(iotest.HalfReader(strings.NewReader(blank)))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = rd.Next()
	}
	if err != io.EOF || rd.line != 1<<20+11 {
		t.Fatalf("%v at line %d", err, rd.line)
	}
	if n := int64(len(blank)); rd.looked > 2*n {
		t.Errorf("looked at %d bytes of a %d-byte input", rd.looked, n)
	}
}

// TestReadErrorEndsLine: a read error that cuts the last line short
// is reported as such, not as a short line.
func TestReadErrorEndsLine(t *testing.T) {
	cut := example[:strings.Index(example, "FALSE")+3] // "... FAL"
	_, err := NewReader(io.MultiReader(strings.NewReader(cut), iotest.ErrReader(io.ErrUnexpectedEOF)))
	var e *Error
	if !errors.As(err, &e) || e.Field != "line" || e.Line != 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v, want a read error at line 1", err)
	}
}

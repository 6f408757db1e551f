package vef

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readFile reads a whole trace through Open.
func readFile(t *testing.T, path string) []Record {
	t.Helper()
	rd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// TestOpenGzip: the example, written plain and gzipped, reads the same.
func TestOpenGzip(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "example.vef")
	if err := os.WriteFile(plain, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	io.WriteString(zw, example)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zipped := filepath.Join(dir, "example.vef.gz")
	if err := os.WriteFile(zipped, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zipped} {
		if got := readFile(t, p); !reflect.DeepEqual(got, exampleRecords) {
			t.Errorf("%s: records\n%+v\nwant\n%+v", p, got, exampleRecords)
		}
	}
}

// TestOpenRefuses: a directory is not a trace; a gzip stream cut in its
// trailer, after the whole text, is a gzip error naming the line it
// stopped at and wrapping io.ErrUnexpectedEOF (cuts elsewhere:
// TestTruncatedGzip).
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open(dir): %v, want not a regular file", err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	io.WriteString(zw, example)
	zw.Close()
	cut := filepath.Join(dir, "cut.vef.gz")
	os.WriteFile(cut, zb.Bytes()[:zb.Len()-6], 0o644)
	rd, err := Open(cut)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for err == nil {
		_, err = rd.Next()
	}
	var e *Error
	if !errors.As(err, &e) || e.Field != "gzip" || !errors.Is(err, io.ErrUnexpectedEOF) || e.Line != 12 ||
		!strings.Contains(err.Error(), "truncated or corrupt") {
		t.Errorf("truncated gzip: %v, want a gzip *Error at line 12 wrapping io.ErrUnexpectedEOF", err)
	}
}

// TestWriterRoundTrip: the example's records, written by a Writer, read
// back the same, and the text is the example's.
func TestWriterRoundTrip(t *testing.T) {
	h, recs, err := readAll(strings.NewReader(example))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if b.String() != example {
		t.Errorf("written\n%s\nwant\n%s", b.String(), example)
	}
}

// TestWriterRefuses: a Writer checks like a Reader, names the line it
// would have written, and stops.
func TestWriterRefuses(t *testing.T) {
	h, _, _ := readAll(strings.NewReader(example))
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(msg(0, 0, 0, 9, 8, Independent, 0, -1))
	want := `line 4: dst "9": expected a task in [0, 4) (the header's tasks)`
	if err == nil || err.Error() != want {
		t.Errorf("Write: %v, want %s", err, want)
	}
	if err2 := w.Close(); err2 != err {
		t.Errorf("Close after an error: %v, want the same error", err2)
	}
	if err2 := w.Write(Record{Kind: 9}); err2 != err {
		t.Errorf("Write after an error: %v", err)
	}
	short := Header{Tasks: 1, Communicators: []Communicator{{0, []int{0}}}, P2PMessages: 1}
	w, _ = NewWriter(io.Discard, short)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), `p2p_messages "1": expected the body has 0`) {
		t.Errorf("Close with a message missing: %v", err)
	}
}

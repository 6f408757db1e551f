package vef

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxInflated is the most bytes a gzip-compressed trace may
// decompress to when opened with Open: 1 GiB, some 30 million messages of
// the generated traces. A gzip stream can inflate a thousandfold, so
// without a bound a small file could keep a reader busy for minutes; past
// the bound, reading stops with an *Error that wraps ErrInflateLimit.
// OpenLimit sets another bound.
const DefaultMaxInflated = 1 << 30

// ErrInflateLimit is wrapped by the error of a gzip trace that
// decompresses to more than its reader's limit.
var ErrInflateLimit = errors.New("the gzip trace decompresses past the limit")

// Open opens the trace file at path, gzip-compressed or not (told by its
// first two bytes, 1f 8b), and reads its header. The path must name a
// regular file (a link to one is fine): not a directory, pipe or device,
// which could block or never end. A gzip trace may decompress to at most
// DefaultMaxInflated bytes; a corrupt or truncated one is an *Error
// naming the line reached and the gzip error (io.ErrUnexpectedEOF for a
// file cut short). Close the reader when done.
func Open(path string) (*Reader, error) { return OpenLimit(path, DefaultMaxInflated) }

// OpenLimit is Open with a gzip trace allowed to decompress to at most
// maxInflated bytes (at least 1). A plain trace is read whatever its size.
func OpenLimit(path string, maxInflated int64) (*Reader, error) {
	if maxInflated < 1 {
		return nil, fmt.Errorf("the limit on a gzip trace's decompressed size is %d bytes: it must be at least 1", maxInflated)
	}
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rd, err := openFile(f, maxInflated)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rd, nil
}

func regular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); a trace must be one", path, st.Mode().Type())
	}
	return nil
}

func openFile(f *os.File, maxInflated int64) (*Reader, error) {
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file; a trace must be one")
	}
	rd, gz, err := openStream(bufio.NewReaderSize(f, 256<<10), maxInflated)
	if err != nil {
		return nil, err
	}
	rd.closer = f
	if gz != nil {
		rd.closer = closers{gz, f}
	}
	return rd, nil
}

// openStream reads the trace in br, inflating it (gz, to close) if it
// starts with gzip's magic bytes.
func openStream(br *bufio.Reader, maxInflated int64) (rd *Reader, gz *gzip.Reader, err error) {
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if gz, err = gzip.NewReader(br); err != nil {
			return nil, nil, fmt.Errorf("gzip header: %w: the file is truncated or corrupt", err)
		}
		rd, err = newReader(&inflateLimit{r: gz, left: maxInflated, max: maxInflated}, true)
		return rd, gz, err
	}
	rd, err = newReader(br, false)
	return rd, nil, err
}

// inflateLimit reads r, a decompressed stream, up to max bytes: one byte
// more is an *inflateLimitError.
type inflateLimit struct {
	r         io.Reader
	left, max int64
}

func (l *inflateLimit) Read(p []byte) (int, error) {
	if l.left == 0 {
		// At the limit: only the end of the stream is allowed.
		var b [1]byte
		for range 100 {
			n, err := l.r.Read(b[:])
			if n > 0 {
				return 0, &inflateLimitError{l.max}
			}
			if err != nil {
				return 0, err
			}
		}
		return 0, io.ErrNoProgress
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// inflateLimitError is the read error of a stream past its limit.
type inflateLimitError struct{ max int64 }

func (e *inflateLimitError) Error() string {
	return fmt.Sprintf("more than %d bytes decompressed", e.max)
}

func (e *inflateLimitError) Unwrap() error { return ErrInflateLimit }

// sizeText writes a size in bytes, and in the largest binary unit that
// divides it if one does: "1048576 bytes (1 MiB)".
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d bytes (%d %s)", n, n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// closers closes each in order and returns the first error.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Close closes the file a reader from Open reads; for a reader from
// NewReader it does nothing (the caller owns the io.Reader).
func (rd *Reader) Close() error {
	if rd.closer == nil {
		return nil
	}
	c := rd.closer
	rd.closer = nil
	return c.Close()
}

package vef

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// Open opens the trace file at path, gzip-compressed or not (told by its
// first two bytes, 1f 8b), and reads its header. The path must name a
// regular file (a link to one is fine): not a directory, pipe or device,
// which could block or never end. Close the reader when done.
func Open(path string) (*Reader, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rd, err := openFile(f)
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

func openFile(f *os.File) (*Reader, error) {
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file; a trace must be one")
	}
	br := bufio.NewReaderSize(f, 256<<10)
	var src io.Reader = br
	closer := io.Closer(f)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip header: %w", err)
		}
		src, closer = gz, closers{gz, f}
	}
	rd, err := NewReader(src)
	if err != nil {
		return nil, err
	}
	rd.closer = closer
	return rd, nil
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

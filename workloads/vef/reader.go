package vef

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line a Reader accepts. A C line lists a
// communicator's tasks, about 8 bytes each, so this allows a world of
// some 8 million tasks; records are far shorter.
const MaxLineBytes = 64 << 20

// Reader reads a trace one record at a time. NewReader reads the header
// and communicators; Next gives the records in file order, each checked
// against the header and the records before it. It keeps no record: see
// doc.go for what it keeps and the bound on it.
type Reader struct {
	sc     *bufio.Scanner
	src    *source
	line   int // the line of the last line read
	fields [][]byte
	h      Header
	chk    *checker
	err    error // the first error, returned from then on
	closer io.Closer
	gzip   bool // src inflates a gzip stream (Open)

	// The splitter's state (split): blank lines skipped since the last
	// line returned, and how many bytes at the start of the pending data
	// are known to hold no newline, so that a long line arriving in small
	// reads is searched once, not once a read.
	skipped int
	seen    int
	looked  int64 // bytes the splitter looked at, for the tests of its linear time
}

// NewReader reads the header and communicators of the trace in r and
// checks them. The error, if any, is an *Error.
func NewReader(r io.Reader) (*Reader, error) { return newReader(r, false) }

func newReader(r io.Reader, gzipped bool) (*Reader, error) {
	src := &source{r: r}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	rd := &Reader{sc: sc, src: src, gzip: gzipped}
	sc.Split(rd.split)
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// source reads r and keeps its first error other than io.EOF: the
// splitter then knows that the last line, with no newline, was cut short
// by the failed read rather than ended by the file's end.
type source struct {
	r   io.Reader
	err error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// split is the Scanner's split function: the next line that is not
// blank (blank lines, of white space only, are skipped in one pass and
// counted in skipped), without its newline. A last line without a newline
// is a line, unless a read failed: then the line is incomplete and the
// read error is returned. The time is linear in the input however it
// arrives: each byte is looked at once.
func (rd *Reader) split(data []byte, atEOF bool) (int, []byte, error) {
	start := 0
	if rd.seen == 0 {
		for {
			j := start
			for j < len(data) && isBlank(data[j]) {
				j++
			}
			rd.looked += int64(j - start)
			if j == len(data) || data[j] != '\n' {
				break
			}
			rd.skipped++
			start = j + 1
		}
	}
	if k := bytes.IndexByte(data[start+rd.seen:], '\n'); k >= 0 {
		rd.looked += int64(k + 1)
		end := start + rd.seen + k
		rd.seen = 0
		return end + 1, data[start:end], nil
	}
	rd.looked += int64(len(data) - start - rd.seen)
	if atEOF {
		rd.seen = 0
		if rd.src.err != nil {
			return 0, nil, rd.src.err
		}
		if start < len(data) {
			return len(data), data[start:], nil
		}
		return len(data), nil, nil
	}
	rd.seen = len(data) - start
	return start, nil, nil
}

// isBlank is the white space of a line (splitFields's, less the newline).
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// Header is the trace's header and communicators. Its slices are the
// reader's own: read them, do not change them.
func (rd *Reader) Header() Header { return rd.h }

// Next returns the next record, or io.EOF after the last one once the
// body matched the header's counts and every collective was complete. Any
// other error is an *Error, and Next returns it again on every later
// call.
func (rd *Reader) Next() (Record, error) {
	if rd.err != nil {
		return Record{}, rd.err
	}
	rec, err := rd.next()
	if err != nil {
		rd.err = err
		return Record{}, err
	}
	return rec, nil
}

func (rd *Reader) next() (Record, error) {
	f, err := rd.scan()
	if err == io.EOF {
		if e := rd.chk.finish(rd.line); e != nil {
			return Record{}, e
		}
		return Record{}, io.EOF
	}
	if err != nil {
		return Record{}, err
	}
	var rec Record
	var perr *Error
	switch f[0][0] {
	case 'G':
		rec, perr = parsePart(rd.line, f)
	case 'C':
		perr = errorf(rd.line, "id", string(f[0]), "a record: the header announces %d communicators, all read", len(rd.h.Communicators))
	default:
		rec, perr = parseMessage(rd.line, f)
	}
	if perr == nil {
		perr = rd.chk.record(&rec)
	}
	if perr != nil {
		return Record{}, perr
	}
	return rec, nil
}

// scan moves to the next non-blank line and returns its fields, or io.EOF
// at the end of the input, or an *Error wrapping a read error.
func (rd *Reader) scan() ([][]byte, error) {
	for rd.sc.Scan() {
		rd.line += rd.skipped + 1
		rd.skipped = 0
		rd.fields = splitFields(rd.fields, rd.sc.Bytes())
		if len(rd.fields) > 0 {
			return rd.fields, nil
		}
	}
	rd.line += rd.skipped
	rd.skipped = 0
	err := rd.sc.Err()
	if err == nil {
		return nil, io.EOF
	}
	var limit *inflateLimitError
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &Error{Line: rd.line + 1, Field: "line", Value: fmt.Sprintf("over %d bytes", MaxLineBytes), Expected: "a line that can be read", Err: err}
	case errors.As(err, &limit):
		return nil, &Error{Line: rd.line + 1, Field: "gzip", Value: fmt.Sprintf("more than %d bytes decompressed", limit.max),
			Expected: fmt.Sprintf("a trace of at most %s once decompressed, the limit on a gzip trace", sizeText(limit.max)),
			Err:      ErrInflateLimit, errShown: true}
	case rd.gzip:
		return nil, &Error{Line: rd.line + 1, Field: "gzip", Value: err.Error(),
			Expected: "the rest of the compressed data: the file is truncated or corrupt", Err: err, errShown: true}
	}
	return nil, &Error{Line: rd.line + 1, Field: "line", Value: "", Expected: "a line that can be read", Err: err}
}

// readHeader reads the header line and the communicator lines.
func (rd *Reader) readHeader() error {
	f, err := rd.scan()
	if err == io.EOF {
		return errorf(rd.line+1, "magic", "", "a header line: %s (the input is empty)", headerLayout)
	}
	if err != nil {
		return err
	}
	headerLine := rd.line
	comms := 0
	if rd.h, comms, err = parseHeaderLine(headerLine, f); err != nil {
		return err
	}
	members := make([][]int32, 0, len(rd.h.Communicators))
	for len(members) < comms {
		f, err := rd.scan()
		if err == io.EOF {
			return errorf(headerLine, "communicators", fmt.Sprint(comms), "%d C lines; the file ends after %d", comms, len(members))
		}
		if err != nil {
			return err
		}
		if f[0][0] != 'C' {
			return errorf(rd.line, "communicator", string(f[0]), "C%d: the header announces %d communicators", len(members), comms)
		}
		m, err := rd.readCommunicator(f)
		if err != nil {
			return err
		}
		members = append(members, m)
	}
	rd.chk = newChecker(&rd.h, members, headerLine)
	return nil
}

func (rd *Reader) readCommunicator(f [][]byte) ([]int32, error) {
	c, perr := parseCommunicator(rd.line, f)
	if perr != nil {
		return nil, perr
	}
	m, perr := checkCommunicator(rd.line, &rd.h, c)
	if perr != nil {
		return nil, perr
	}
	rd.h.Communicators = append(rd.h.Communicators, c)
	return m, nil
}

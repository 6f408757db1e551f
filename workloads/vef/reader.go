package vef

import (
	"bufio"
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
	line   int
	fields [][]byte
	h      Header
	chk    *checker
	err    error // the first error, returned from then on
	closer io.Closer
}

// NewReader reads the header and communicators of the trace in r and
// checks them. The error, if any, is an *Error.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	rd := &Reader{sc: sc}
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

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
		rd.line++
		rd.fields = splitFields(rd.fields, rd.sc.Bytes())
		if len(rd.fields) > 0 {
			return rd.fields, nil
		}
	}
	err := rd.sc.Err()
	if err == nil {
		return nil, io.EOF
	}
	value := ""
	if errors.Is(err, bufio.ErrTooLong) {
		value = fmt.Sprintf("over %d bytes", MaxLineBytes)
	}
	return nil, &Error{Line: rd.line + 1, Field: "line", Value: value, Expected: "a line that can be read", Err: err}
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

package vef

import (
	"bufio"
	"io"
	"strconv"
)

// Writer writes a trace: the header and communicators first
// (NewWriter), then records one at a time (Write), then Close. It checks
// what it writes exactly as a Reader checks what it reads, so a trace a
// Writer accepted reads back without error and gives the same records;
// errors are *Error naming the line being written. After an error the
// Writer writes nothing more and returns that error again.
type Writer struct {
	bw   *bufio.Writer
	h    Header
	chk  *checker
	line int
	buf  []byte
	err  error
}

// NewWriter checks h and writes its lines to w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	hh := h
	hh.Communicators = nil
	wr.line = 1
	if err := checkCounts(1, hh, len(h.Communicators)); err != nil {
		return nil, err
	}
	wr.writeHeader(h)
	members := make([][]int32, 0, len(h.Communicators))
	for _, c := range h.Communicators {
		wr.line++
		m, err := checkCommunicator(wr.line, &hh, c)
		if err != nil {
			return nil, err
		}
		hh.Communicators = append(hh.Communicators, c)
		members = append(members, m)
		wr.writeCommunicator(c)
	}
	wr.h = hh
	wr.chk = newChecker(&wr.h, members, 1)
	return wr, nil
}

func (wr *Writer) writeHeader(h Header) {
	b := append(wr.buf[:0], "VEF"...)
	for _, v := range []int64{int64(h.Tasks), h.P2PMessages, int64(len(h.Communicators)), h.Collectives, h.CollectiveParts} {
		b = strconv.AppendInt(append(b, ' '), v, 10)
	}
	if h.OnlySend {
		b = append(b, " TRUE\n"...)
	} else {
		b = append(b, " FALSE\n"...)
	}
	wr.flushLine(b)
}

func (wr *Writer) writeCommunicator(c Communicator) {
	b := strconv.AppendInt(append(wr.buf[:0], 'C'), int64(c.ID), 10)
	for _, t := range c.Tasks {
		b = strconv.AppendInt(append(b, ' '), int64(t), 10)
	}
	wr.flushLine(append(b, '\n'))
}

func (wr *Writer) flushLine(b []byte) {
	wr.buf = b
	if _, err := wr.bw.Write(b); err != nil && wr.err == nil {
		wr.err = &Error{Line: wr.line, Field: "line", Expected: "a line written", Err: err}
	}
}

// Write checks rec (its Line is ignored: it is the line written) and
// writes it.
func (wr *Writer) Write(rec Record) error {
	if wr.err != nil {
		return wr.err
	}
	wr.line++
	rec.Line = wr.line
	err := typed(&rec)
	if err == nil {
		err = wr.chk.record(&rec)
	}
	if err != nil {
		wr.err = err
		return err
	}
	b := wr.buf[:0]
	if rec.Kind == KindMessage {
		m := rec.Message
		b = appendInts(b, m.ID, int64(m.Src), int64(m.Dst), m.Bytes)
		b = appendDep(b, m.Dep)
	} else {
		p := rec.Part
		b = strconv.AppendInt(append(b, 'G'), p.GID, 10)
		b = appendInts(append(b, ' '), int64(p.Comm), int64(p.Op), int64(p.Task), p.SendBytes, p.RecvBytes)
		b = appendDep(b, p.Dep)
	}
	wr.flushLine(append(b, '\n'))
	return wr.err
}

// typed checks what a parsed record has by construction: a known kind,
// dependency kind and op.
func typed(r *Record) *Error {
	switch {
	case r.Kind != KindMessage && r.Kind != KindCollective:
		return errorf(r.Line, "kind", strconv.Itoa(int(r.Kind)), "KindMessage or KindCollective")
	case r.dep().Kind > AfterCollective:
		return errorf(r.Line, "dep", strconv.Itoa(int(r.dep().Kind)), "a dependency kind: an integer 0 to 3")
	case r.Kind == KindCollective && r.Part.Op >= numOps:
		return errorf(r.Line, "op", strconv.Itoa(int(r.Part.Op)), "a collective op: an integer 0 to %d", numOps-1)
	}
	return nil
}

// appendInts appends each value and a space after it.
func appendInts(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = append(strconv.AppendInt(b, v, 10), ' ')
	}
	return b
}

func appendDep(b []byte, d Dep) []byte {
	b = appendInts(b, int64(d.Kind), d.TimeNS)
	if d.Kind == AfterCollective {
		b = append(b, 'G')
	}
	return strconv.AppendInt(b, d.ID, 10)
}

// Close checks that the records written match the header's counts and
// complete every collective, and flushes. It does not close the
// io.Writer.
func (wr *Writer) Close() error {
	if wr.err != nil {
		return wr.err
	}
	if err := wr.chk.finish(wr.line); err != nil {
		wr.err = err
		return err
	}
	if err := wr.bw.Flush(); err != nil {
		wr.err = &Error{Line: wr.line, Field: "line", Expected: "the trace flushed", Err: err}
	}
	return wr.err
}

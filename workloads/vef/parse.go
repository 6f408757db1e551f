package vef

import (
	"math"
	"strconv"
)

// The field names of the two record kinds, as errors name them.
var (
	messageFields = []string{"id", "src", "dst", "bytes", "dep", "time", "dep_id"}
	partFields    = []string{"gid", "comm", "op", "task", "send_bytes", "recv_bytes", "dep", "time", "dep_id"}
)

// splitFields appends to dst[:0] the whitespace-separated fields of b
// (ASCII space, tab, CR, VT, FF), without copying.
func splitFields(dst [][]byte, b []byte) [][]byte {
	dst = dst[:0]
	start := -1
	for i, c := range b {
		if c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
			if start >= 0 {
				dst = append(dst, b[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, b[start:])
	}
	return dst
}

// parseInt reads a decimal integer: an optional '-' and 1 to 19 digits,
// within int64. No '+', no spaces, no other base.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// fieldParser reads the fields of one line in order, keeping the first
// error: the parse of a record reads straight through and looks at err
// once.
type fieldParser struct {
	line  int
	f     [][]byte
	names []string
	err   *Error
}

func (p *fieldParser) fail(i int, format string, args ...any) {
	if p.err == nil {
		p.err = errorf(p.line, p.names[i], string(p.f[i]), format, args...)
	}
}

// int64 reads field i as a decimal integer.
func (p *fieldParser) int64(i int) int64 {
	v, ok := parseInt(p.f[i])
	if !ok {
		p.fail(i, "a decimal integer (optional '-', then digits, within 64 bits)")
	}
	return v
}

// int reads field i as a decimal integer that fits 32 bits: tasks and
// communicators, whose range the checks then narrow.
func (p *fieldParser) int(i int) int {
	v, ok := parseInt(p.f[i])
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		p.fail(i, "a decimal integer within 32 bits")
	}
	return int(v)
}

// small reads field i as an integer in [0, n).
func (p *fieldParser) small(i int, n int64, what string) uint8 {
	v, ok := parseInt(p.f[i])
	if !ok || v < 0 || v >= n {
		p.fail(i, "%s: an integer 0 to %d", what, n-1)
	}
	return uint8(v)
}

// prefixed reads field i as the letter c followed by a non-negative
// decimal integer: "G12", "C0".
func (p *fieldParser) prefixed(i int, c byte) int64 {
	b := p.f[i]
	if len(b) > 1 && b[0] == c {
		if v, ok := parseInt(b[1:]); ok && v >= 0 && b[1] != '-' {
			return v
		}
	}
	p.fail(i, "%c followed by a non-negative decimal integer", c)
	return 0
}

// dep reads the three causality fields starting at field i.
func (p *fieldParser) dep(i int) Dep {
	d := Dep{Kind: DepKind(p.small(i, 4, "a dependency kind")), TimeNS: p.int64(i + 1)}
	if p.err != nil {
		return d
	}
	if d.Kind == AfterCollective {
		d.ID = p.prefixed(i+2, 'G')
	} else {
		d.ID = p.int64(i + 2)
	}
	return d
}

func (p *fieldParser) count(want int, layout string) bool {
	if len(p.f) != want {
		p.err = errorf(p.line, "fields", strconv.Itoa(len(p.f)), "%d fields: %s", want, layout)
		return false
	}
	return true
}

const (
	messageLayout = "<id> <src> <dst> <bytes> <dep> <time> <dep_id>"
	partLayout    = "G<gid> <comm> <op> <task> <send_bytes> <recv_bytes> <dep> <time> <dep_id>"
)

// parseMessage reads a point-to-point line.
func parseMessage(line int, f [][]byte) (Record, *Error) {
	p := fieldParser{line: line, f: f, names: messageFields}
	if !p.count(7, messageLayout) {
		return Record{}, p.err
	}
	m := Message{ID: p.int64(0), Src: p.int(1), Dst: p.int(2), Bytes: p.int64(3), Dep: p.dep(4)}
	return Record{Line: line, Kind: KindMessage, Message: m}, p.err
}

// parsePart reads a collective line.
func parsePart(line int, f [][]byte) (Record, *Error) {
	p := fieldParser{line: line, f: f, names: partFields}
	if !p.count(9, partLayout) {
		return Record{}, p.err
	}
	c := Part{GID: p.prefixed(0, 'G'), Comm: p.int(1), Op: Op(p.small(2, int64(numOps), "a collective op")),
		Task: p.int(3), SendBytes: p.int64(4), RecvBytes: p.int64(5), Dep: p.dep(6)}
	return Record{Line: line, Kind: KindCollective, Part: c}, p.err
}

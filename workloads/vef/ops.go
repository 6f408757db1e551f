package vef

import (
	"fmt"
	"math"
)

// sizes checks a part's send and recv sizes against its role in the
// collective op (the table of VEF.md) and the parts before it.
func (col *collective) sizes(r *Record) *Error {
	p, line := &r.Part, r.Line
	s, v := p.SendBytes, p.RecvBytes
	switch col.op {
	case Broadcast:
		return col.rooted(line, "send_bytes", s, "recv_bytes", v)
	case Reduce:
		return col.rooted(line, "recv_bytes", v, "send_bytes", s)
	case Allreduce:
		if s == 0 {
			return errorf(line, "send_bytes", "0", "a non-zero size for an allreduce")
		}
		if v != s {
			return errorf(line, "recv_bytes", num(v), "%d, equal to send_bytes for an allreduce", s)
		}
		return col.same(&col.size, line, "send_bytes", s)
	case Gather:
		col.sumSend = addSat(col.sumSend, s)
		if v != 0 {
			return col.oneRoot(line, "recv_bytes", v)
		}
	case Scatter:
		col.sumRecv = addSat(col.sumRecv, v)
		if s != 0 {
			return col.oneRoot(line, "send_bytes", s)
		}
	case Allgather:
		col.sumSend = addSat(col.sumSend, s)
		return col.same(&col.size, line, "recv_bytes", v)
	case Barrier:
		if err := zero(line, "send_bytes", s, "a barrier"); err != nil {
			return err
		}
		return zero(line, "recv_bytes", v, "a barrier")
	case Alltoall:
		return col.alltoall(line, s, v)
	}
	return nil
}

// rooted checks a broadcast (the root sends X, the others receive it) or,
// mirrored, a reduce: a part whose rootField is non-zero is the root and
// has 0 in otherField; every part shares X.
func (col *collective) rooted(line int, rootField string, rv int64, otherField string, ov int64) *Error {
	if rv == 0 {
		return col.same(&col.size, line, otherField, ov)
	}
	if err := zero(line, otherField, ov, fmt.Sprintf("the root of a %s (%s %d)", col.op, rootField, rv)); err != nil {
		return err
	}
	if err := col.oneRoot(line, rootField, rv); err != nil {
		return err
	}
	return col.same(&col.size, line, rootField, rv)
}

func (col *collective) alltoall(line int, s, v int64) *Error {
	if v != 0 && v != 1 {
		return errorf(line, "recv_bytes", num(v), "0 (send_bytes to every task) or 1 (vector: send_bytes split across the tasks) for an alltoall")
	}
	if err := col.same(&col.flag, line, "recv_bytes", v); err != nil {
		return err
	}
	if v == 0 {
		return col.same(&col.size, line, "send_bytes", s)
	}
	return nil
}

// sums checks, once every part is in (the last at line), what only the
// whole collective tells: a root where the sizes need one, and the sums
// of gather, scatter and allgather.
func (col *collective) sums(line int) *Error {
	g := gidText(col.gid)
	switch col.op {
	case Broadcast, Reduce:
		if col.size.v != 0 && !col.root {
			field := map[Op]string{Broadcast: "send_bytes", Reduce: "recv_bytes"}[col.op]
			return errorf(line, field, "0", "one part of %s with %s %d, its root (%s); none of its parts has one", g, field, col.size.v, col.op)
		}
	case Gather:
		return col.rootSum(line, "recv_bytes", col.sumSend, "send_bytes")
	case Scatter:
		return col.rootSum(line, "send_bytes", col.sumRecv, "recv_bytes")
	case Allgather:
		if col.size.v != col.sumSend {
			return errorf(col.size.line, "recv_bytes", num(col.size.v), "%d, the sum of %s's send_bytes (allgather, complete at line %d)", col.sumSend, g, line)
		}
	}
	return nil
}

// rootSum checks a gather's or scatter's root: its field is the sum of
// the parts' other field.
func (col *collective) rootSum(line int, field string, sum int64, of string) *Error {
	g := gidText(col.gid)
	switch {
	case col.root && col.rootSize != sum:
		return errorf(col.rootLine, field, num(col.rootSize), "%d, the sum of %s's %s (%s, complete at line %d)", sum, g, of, col.op, line)
	case !col.root && sum != 0:
		return errorf(line, field, "0", "a root in %s whose %s is the sum of the %s, %d; no part has a non-zero %s (%s)", g, field, of, sum, field, col.op)
	}
	return nil
}

// addSat adds sizes of at least 0, stopping at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

package vef

import "fmt"

// collective is the state of a collective whose parts are not all in:
// what its first part fixed and what the sizes of the parts so far add
// up to. It is dropped once the last part is in.
type collective struct {
	gid      int64
	line     int // of the first part
	comm     int
	op       Op
	done     []uint64 // bit per rank in the communicator
	count    int
	size     shared // X, the size every part shares
	flag     shared // an alltoall's recv_bytes: 0 or 1 for all parts
	root     bool   // a part in the root role is in
	rootLine int
	rootSize int64 // the root's size that must be the sum
	sumSend  int64 // saturating at math.MaxInt64
	sumRecv  int64
}

// shared is a value every part of a collective must repeat, as the first
// part that had it (at line) fixed it.
type shared struct {
	v    int64
	line int
	set  bool
}

func (col *collective) has(rank int) bool { return col.done[rank/64]&(1<<(rank%64)) != 0 }

func gidText(gid int64) string { return fmt.Sprintf("G%d", gid) }

// collective checks part r against the earlier parts of its collective
// and records it; the last part closes the collective.
func (c *checker) collective(r *Record) *Error {
	p := &r.Part
	size := len(c.members[p.Comm])
	col, err := c.collectiveOf(r, size)
	if err != nil {
		return err
	}
	rank, _ := c.rank(col.comm, p.Task)
	if col.has(rank) {
		return errorf(r.Line, "task", fmt.Sprint(p.Task), "a task without a part in %s yet (task %d has one before)", gidText(p.GID), p.Task)
	}
	if err := col.sizes(r); err != nil {
		return err
	}
	col.done[rank/64] |= 1 << (rank % 64)
	col.count++
	if col.count < size {
		return nil
	}
	if err := col.sums(r.Line); err != nil {
		return err
	}
	delete(c.open, p.GID)
	c.closed[p.GID] = int32(col.comm)
	return nil
}

// collectiveOf finds or opens the collective of part r, checking that
// the part agrees with the first one on communicator and op.
func (c *checker) collectiveOf(r *Record, size int) (*collective, *Error) {
	p := &r.Part
	if comm, ok := c.closed[p.GID]; ok {
		return nil, errorf(r.Line, "gid", gidText(p.GID), "a collective still open: every task of C%d already has its part in %s", comm, gidText(p.GID))
	}
	col, ok := c.open[p.GID]
	if !ok {
		col = &collective{gid: p.GID, line: r.Line, comm: p.Comm, op: p.Op, done: make([]uint64, (size+63)/64)}
		c.open[p.GID] = col
		return col, nil
	}
	if p.Comm != col.comm {
		return nil, errorf(r.Line, "comm", fmt.Sprint(p.Comm), "%d, the communicator of %s's first part (line %d)", col.comm, gidText(p.GID), col.line)
	}
	if p.Op != col.op {
		return nil, errorf(r.Line, "op", fmt.Sprint(uint8(p.Op)), "%d (%s), the op of %s's first part (line %d)", uint8(col.op), col.op, gidText(p.GID), col.line)
	}
	return col, nil
}

// same checks that v, in field, is the value s every part of the
// collective shares.
func (col *collective) same(s *shared, line int, field string, v int64) *Error {
	if !s.set {
		*s = shared{v: v, line: line, set: true}
		return nil
	}
	if v != s.v {
		return errorf(line, field, num(v), "%d, as in %s's part at line %d (%s)", s.v, gidText(col.gid), s.line, col.op)
	}
	return nil
}

// zero checks that field holds 0, as the part's role requires.
func zero(line int, field string, v int64, role string) *Error {
	if v != 0 {
		return errorf(line, field, num(v), "0 for %s", role)
	}
	return nil
}

// oneRoot records a part in the root role; a second one is an error.
func (col *collective) oneRoot(line int, field string, v int64) *Error {
	if col.root {
		return errorf(line, field, num(v), "0: %s has its root at line %d (only one part has a non-zero %s in a %s)", gidText(col.gid), col.rootLine, field, col.op)
	}
	col.root, col.rootLine, col.rootSize = true, line, v
	return nil
}

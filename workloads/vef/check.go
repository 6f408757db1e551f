package vef

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checker holds what validation needs across records, and nothing per
// message: the header, each communicator's tasks sorted (4 bytes a
// member), the next message id, the count of parts, the collectives not
// yet complete (a bit per task of their communicator and a few words) and,
// for the complete ones, their communicator (a map entry each). See doc.go
// for the bound.
type checker struct {
	h       *Header
	hline   int       // the header's line
	members [][]int32 // by communicator, sorted
	nextMsg int64
	parts   int64
	open    map[int64]*collective
	closed  map[int64]int32 // complete collective → its communicator
}

func newChecker(h *Header, members [][]int32, hline int) *checker {
	return &checker{h: h, hline: hline, members: members, open: map[int64]*collective{}, closed: map[int64]int32{}}
}

func num(v int64) string { return strconv.FormatInt(v, 10) }

// record checks r against the header and everything before it, and
// records it.
func (c *checker) record(r *Record) *Error {
	if r.Kind == KindMessage {
		return c.message(r)
	}
	return c.part(r)
}

func (c *checker) message(r *Record) *Error {
	m := &r.Message
	switch {
	case m.ID != c.nextMsg:
		return errorf(r.Line, "id", num(m.ID), "%d: message ids count 0, 1, 2, … in file order", c.nextMsg)
	case m.ID >= c.h.P2PMessages:
		return errorf(r.Line, "id", num(m.ID), "at most %d messages, as the header's p2p_messages says", c.h.P2PMessages)
	}
	if err := c.task(r.Line, "src", m.Src); err != nil {
		return err
	}
	if err := c.task(r.Line, "dst", m.Dst); err != nil {
		return err
	}
	if m.Bytes < 0 {
		return errorf(r.Line, "bytes", num(m.Bytes), "a size of at least 0")
	}
	if err := c.dep(r); err != nil {
		return err
	}
	c.nextMsg++
	return nil
}

func (c *checker) task(line int, field string, t int) *Error {
	if t < 0 || t >= c.h.Tasks {
		return errorf(line, field, strconv.Itoa(t), "a task in [0, %d) (the header's tasks)", c.h.Tasks)
	}
	return nil
}

func (c *checker) part(r *Record) *Error {
	p := &r.Part
	switch {
	case c.parts >= c.h.CollectiveParts:
		return errorf(r.Line, "gid", fmt.Sprintf("G%d", p.GID), "no more collective parts: the header's collective_parts is %d", c.h.CollectiveParts)
	case p.GID >= c.h.Collectives:
		return errorf(r.Line, "gid", fmt.Sprintf("G%d", p.GID), "a collective id G0 to G%d (the header's collectives is %d)", c.h.Collectives-1, c.h.Collectives)
	case p.Comm < 0 || p.Comm >= len(c.members):
		return errorf(r.Line, "comm", strconv.Itoa(p.Comm), "a communicator 0 to %d", len(c.members)-1)
	}
	if err := c.task(r.Line, "task", p.Task); err != nil {
		return err
	}
	if _, ok := c.rank(p.Comm, p.Task); !ok {
		return errorf(r.Line, "task", strconv.Itoa(p.Task), "a task of C%d (%s)", p.Comm, c.describe(p.Comm))
	}
	switch {
	case p.SendBytes < 0:
		return errorf(r.Line, "send_bytes", num(p.SendBytes), "a size of at least 0")
	case p.RecvBytes < 0:
		return errorf(r.Line, "recv_bytes", num(p.RecvBytes), "a size of at least 0")
	}
	if err := c.dep(r); err != nil {
		return err
	}
	if err := c.collective(r); err != nil {
		return err
	}
	c.parts++
	return nil
}

// rank is task's index among communicator comm's sorted tasks.
func (c *checker) rank(comm, task int) (int, bool) {
	return slices.BinarySearch(c.members[comm], int32(task))
}

// describe lists a communicator's tasks, the first 8 of them.
func (c *checker) describe(comm int) string {
	m := c.members[comm]
	var b strings.Builder
	fmt.Fprintf(&b, "%d tasks:", len(m))
	for i, t := range m {
		if i == 8 {
			b.WriteString(" …")
			break
		}
		fmt.Fprintf(&b, " %d", t)
	}
	return b.String()
}

// dep checks r's causality: a delay of at least 0 after something that
// came before it, seen from the record's task.
func (c *checker) dep(r *Record) *Error {
	d := r.dep()
	if d.TimeNS < 0 {
		return errorf(r.Line, "time", num(d.TimeNS), "a time or delay of at least 0 ns")
	}
	switch d.Kind {
	case Independent:
		if d.ID != -1 {
			return errorf(r.Line, "dep_id", num(d.ID), "-1 for an independent record (dep 0)")
		}
	case AfterSend, AfterReceive:
		if d.Kind == AfterReceive && c.h.OnlySend {
			return errorf(r.Line, "dep", "2", "0, 1 or 3: the header's only_send is TRUE")
		}
		if d.ID < 0 || d.ID >= c.nextMsg {
			return errorf(r.Line, "dep_id", num(d.ID), "%s", c.earlier())
		}
	case AfterCollective:
		return c.depCollective(r, d.ID)
	}
	return nil
}

func (c *checker) earlier() string {
	if c.nextMsg == 0 {
		return "no message id: no message comes before this record"
	}
	return fmt.Sprintf("a message id before this record, 0 to %d", c.nextMsg-1)
}

// depCollective checks that r's task has already played its part in
// collective gid.
func (c *checker) depCollective(r *Record, gid int64) *Error {
	task := r.task()
	done := false
	if comm, ok := c.closed[gid]; ok {
		_, done = c.rank(int(comm), task)
	} else if col, ok := c.open[gid]; ok {
		rank, in := c.rank(col.comm, task)
		done = in && col.has(rank)
	}
	if !done {
		return errorf(r.Line, "dep_id", fmt.Sprintf("G%d", gid), "a collective in which task %d has a part before this record", task)
	}
	return nil
}

// finish checks, at the end of the body (last is the last line read),
// what the header promised and that every collective is complete.
func (c *checker) finish(last int) *Error {
	h := c.h
	ends := fmt.Sprintf("the body has %%d (the file ends at line %d)", last)
	switch {
	case c.nextMsg != h.P2PMessages:
		return errorf(c.hline, "p2p_messages", num(h.P2PMessages), ends, c.nextMsg)
	case c.parts != h.CollectiveParts:
		return errorf(c.hline, "collective_parts", num(h.CollectiveParts), ends, c.parts)
	}
	if n := int64(len(c.open) + len(c.closed)); n != h.Collectives {
		return errorf(c.hline, "collectives", num(h.Collectives), ends, n)
	}
	var first *collective
	for _, col := range c.open {
		if first == nil || col.line < first.line {
			first = col
		}
	}
	if first != nil {
		return errorf(first.line, "gid", fmt.Sprintf("G%d", first.gid), "a part from each of the %d tasks of C%d; the file ends with %d",
			len(c.members[first.comm]), first.comm, first.count)
	}
	return nil
}

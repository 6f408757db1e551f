package vef

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

var headerFields = []string{"magic", "tasks", "p2p_messages", "communicators", "collectives", "collective_parts", "only_send"}

const headerLayout = "VEF <tasks> <p2p_messages> <communicators> <collectives> <collective_parts> <only_send>"

// parseHeaderLine reads the first non-blank line, numbered line, into a
// Header without communicators, and the number of them it announces.
func parseHeaderLine(line int, f [][]byte) (Header, int, error) {
	h, comms, err := parseHeaderFields(line, f)
	if err != nil {
		return Header{}, 0, err
	}
	return h, comms, nil
}

func parseHeaderFields(line int, f [][]byte) (Header, int, *Error) {
	p := fieldParser{line: line, f: f, names: headerFields}
	if !p.count(7, headerLayout) {
		return Header{}, 0, p.err
	}
	if string(f[0]) != "VEF" {
		p.fail(0, "VEF")
	}
	h := Header{Tasks: p.int(1), P2PMessages: p.int64(2)}
	comms := p.int(3)
	h.Collectives, h.CollectiveParts = p.int64(4), p.int64(5)
	switch string(f[6]) {
	case "TRUE":
		h.OnlySend = true
	case "FALSE":
	default:
		p.fail(6, "TRUE or FALSE")
	}
	if p.err != nil {
		return Header{}, 0, p.err
	}
	if err := checkCounts(line, h, comms); err != nil {
		return Header{}, 0, err
	}
	h.Communicators = make([]Communicator, 0, min(comms, 1024))
	return h, comms, nil
}

// checkCounts checks the header's numbers on their own; comms is the
// number of communicators announced.
func checkCounts(line int, h Header, comms int) *Error {
	switch {
	case h.Tasks < 1 || h.Tasks > math.MaxInt32:
		return errorf(line, "tasks", num(int64(h.Tasks)), "1 to %d tasks", math.MaxInt32)
	case h.P2PMessages < 0:
		return errorf(line, "p2p_messages", num(h.P2PMessages), "a count of at least 0")
	case comms < 1:
		return errorf(line, "communicators", num(int64(comms)), "at least 1 (C0, the world)")
	case h.Collectives < 0:
		return errorf(line, "collectives", num(h.Collectives), "a count of at least 0")
	case h.CollectiveParts < h.Collectives:
		return errorf(line, "collective_parts", num(h.CollectiveParts),
			"at least collectives (%d): every collective has a part per task of its communicator", h.Collectives)
	case h.Collectives == 0 && h.CollectiveParts != 0:
		return errorf(line, "collective_parts", num(h.CollectiveParts), "0, as there are no collectives")
	case h.Collectives > 0 && (h.CollectiveParts-1)/h.Collectives >= int64(h.Tasks):
		return errorf(line, "collective_parts", num(h.CollectiveParts),
			"at most collectives × tasks = %d × %d", h.Collectives, h.Tasks)
	}
	return nil
}

// parseCommunicator reads a C line: C<id> and at least one task.
func parseCommunicator(line int, f [][]byte) (Communicator, *Error) {
	names := make([]string, len(f))
	names[0] = "communicator"
	for i := 1; i < len(f); i++ {
		names[i] = "task"
	}
	p := fieldParser{line: line, f: f, names: names}
	id := p.prefixed(0, 'C')
	if id > math.MaxInt32 {
		p.fail(0, "a communicator id within 32 bits")
	}
	c := Communicator{ID: int(id), Tasks: make([]int, len(f)-1)}
	for i := range c.Tasks {
		c.Tasks[i] = p.int(i + 1)
	}
	return c, p.err
}

// checkCommunicator checks communicator c, found on line, as the next of
// h's; it returns its tasks sorted, for membership tests.
func checkCommunicator(line int, h *Header, c Communicator) ([]int32, *Error) {
	if want := len(h.Communicators); c.ID != want {
		return nil, errorf(line, "communicator", fmt.Sprintf("C%d", c.ID), "C%d: communicator ids count 0, 1, 2, …", want)
	}
	if len(c.Tasks) == 0 {
		return nil, errorf(line, "fields", "1", "C%d followed by at least one task", c.ID)
	}
	sorted := make([]int32, len(c.Tasks))
	for i, t := range c.Tasks {
		if t < 0 || t >= h.Tasks {
			return nil, errorf(line, "task", strconv.Itoa(t), "a task in [0, %d) (the header's tasks)", h.Tasks)
		}
		sorted[i] = int32(t)
	}
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, errorf(line, "task", strconv.Itoa(int(sorted[i])), "each task once in C%d", c.ID)
		}
	}
	if c.ID == 0 && len(sorted) != h.Tasks {
		return nil, errorf(line, "C0 tasks", strconv.Itoa(len(c.Tasks)), "all %d tasks: C0 is the world", h.Tasks)
	}
	return sorted, nil
}

package replay

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/opasim/opasim/workloads/vef"
)

// plan is what the checking pass learns of a trace, all that replay keeps
// per message: where the last record that waits on each message, and on
// each collective, sits in the file, so that a task that sends or receives
// the message (ends its part) reads just far enough to see every record
// that waits on it; and per task how many events it has, so that it knows
// when it is done.
type plan struct {
	header  vef.Header
	records int64 // body records
	// lastIndep is the position (record number, from 0) of the last
	// independent record, -1 when none: all of them are read before the run.
	lastIndep int64
	// msgLast[id] is 1 + the position of the last record that waits on
	// message id's send or receipt; 0 when none does. A uint32 a message.
	msgLast []uint32
	// msgDst[id] is message id's destination task: its receiver, when
	// several tasks share a NIC.
	msgDst []int32
	// collLast is the same for collectives, by collective id.
	collLast map[int64]uint32
	// events per task: its point-to-point sends, its receipts and its
	// collective parts; a task ends when it has seen them all.
	events []int64
}

// maxRecords bounds the body: positions are kept in 32 bits.
const maxRecords = math.MaxUint32 - 1

// check reads the whole trace from rd, which it does not close: the
// reader's own checks, and what only replay can check, each error naming
// the line: a task mapped beyond the network, a wait on the send of a
// message another task sends, or on the receipt of a message sent to
// another task (such a record could never be issued). Memory: 8 bytes a
// message while it reads (the tasks of each message), 8 kept (msgLast,
// msgDst).
func check(rd *vef.Reader) (*plan, error) {
	h := rd.Header()
	if h.P2PMessages+h.CollectiveParts > maxRecords {
		return nil, fmt.Errorf("line 1: %d records: at most %d can be replayed", h.P2PMessages+h.CollectiveParts, int64(maxRecords))
	}
	p := &plan{header: h, lastIndep: -1, msgLast: make([]uint32, h.P2PMessages), collLast: map[int64]uint32{},
		events: make([]int64, h.Tasks)}
	ends := make([]int32, 2*h.P2PMessages) // per message: src, dst
	p.msgDst = make([]int32, h.P2PMessages)
	for ; ; p.records++ {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return nil, err
		}
		pos := uint32(p.records + 1)
		var task int
		var dep vef.Dep
		if rec.Kind == vef.KindMessage {
			m := &rec.Message
			task, dep = m.Src, m.Dep
			ends[2*m.ID], ends[2*m.ID+1] = int32(m.Src), int32(m.Dst)
			p.msgDst[m.ID] = int32(m.Dst)
			p.events[m.Src]++
			p.events[m.Dst]++
		} else {
			task, dep = rec.Part.Task, rec.Part.Dep
			p.events[task]++
		}
		switch dep.Kind {
		case vef.Independent:
			p.lastIndep = p.records
		case vef.AfterSend, vef.AfterReceive:
			who, role := ends[2*dep.ID], "sends"
			if dep.Kind == vef.AfterReceive {
				who, role = ends[2*dep.ID+1], "receives"
			}
			if int(who) != task {
				return nil, &vef.Error{Line: rec.Line, Field: "dep_id", Value: fmt.Sprint(dep.ID),
					Expected: fmt.Sprintf("a message task %d %s (message %d is task %d's; task %d would wait for ever)", task, role, dep.ID, who, task)}
			}
			p.msgLast[dep.ID] = pos
		case vef.AfterCollective:
			p.collLast[dep.ID] = pos
		}
	}
}

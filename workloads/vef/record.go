package vef

import "fmt"

// Example is the 4-task example trace of the format's description: task
// 0 sends 1 KiB to task 1, which forwards 2 KiB to task 2 500 ns after
// receiving it, which forwards 4 KiB to task 3 100 ns after receiving;
// then all four run an 8-byte allreduce on C0, and 200 ns after its part
// ends task 3 sends 512 B to task 0.
const Example = `VEF 4 4 2 1 4 FALSE
C0 0 1 2 3
C1 0 1
0 0 1 1024 0 0 -1
1 1 2 2048 2 500 0
2 2 3 4096 2 100 1
G0 0 2 0 8 8 1 0 0
G0 0 2 1 8 8 1 0 1
G0 0 2 2 8 8 1 0 2
G0 0 2 3 8 8 2 0 2
3 3 0 512 3 200 G0
`

// Header is the first line of a trace and its communicators, everything a
// reader knows before the first record.
type Header struct {
	Tasks           int   // tasks 0 .. Tasks-1
	P2PMessages     int64 // point-to-point records in the body
	Communicators   []Communicator
	Collectives     int64 // collective operations (distinct G ids)
	CollectiveParts int64 // collective records: one per participating task
	OnlySend        bool  // no record depends on a message's receipt (dep 2)
}

// Communicator is one C line: its tasks in the order the line lists them.
// Communicator 0 is the world.
type Communicator struct {
	ID    int
	Tasks []int
}

// DepKind is what a record waits for before its delay starts.
type DepKind uint8

// The dependency kinds, numbered as in the file.
const (
	Independent     DepKind = 0 // Time is the absolute injection time
	AfterSend       DepKind = 1 // Time after this task sent message ID
	AfterReceive    DepKind = 2 // Time after this task received message ID
	AfterCollective DepKind = 3 // Time after this task's part of collective ID ended
)

func (k DepKind) String() string {
	switch k {
	case Independent:
		return "independent"
	case AfterSend:
		return "after-send"
	case AfterReceive:
		return "after-receive"
	case AfterCollective:
		return "after-collective"
	}
	return fmt.Sprintf("DepKind(%d)", uint8(k))
}

// Dep is a record's causality: its kind, the delay (or absolute time for
// Independent) in nanoseconds, and the message id (AfterSend,
// AfterReceive) or collective id (AfterCollective) it waits for; -1 for
// Independent.
type Dep struct {
	Kind   DepKind
	TimeNS int64
	ID     int64
}

// Op is a collective operation, numbered as in the file.
type Op uint8

// The collective operations.
const (
	Broadcast Op = iota
	Reduce
	Allreduce
	Gather
	Scatter
	Allgather
	Barrier
	Alltoall
	numOps
)

var opNames = [numOps]string{"broadcast", "reduce", "allreduce", "gather", "scatter", "allgather", "barrier", "alltoall"}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// OpNames are the ops' names, in op order.
func OpNames() []string { return append([]string(nil), opNames[:]...) }

// OpNamed is the op of a name of OpNames.
func OpNamed(name string) (Op, bool) {
	for i, n := range opNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

// Kind tells which of a Record's two bodies is set.
type Kind uint8

// The record kinds.
const (
	KindMessage    Kind = iota + 1 // a point-to-point message
	KindCollective                 // one task's part in a collective
)

// Message is a point-to-point record: Bytes from task Src to task Dst.
type Message struct {
	ID       int64
	Src, Dst int
	Bytes    int64
	Dep      Dep
}

// Part is one task's part in collective GID, run on communicator Comm.
// For Alltoall, RecvBytes is a flag: 0 sends SendBytes to every task, 1
// splits SendBytes across the tasks (vector all-to-all).
type Part struct {
	GID       int64
	Comm      int
	Op        Op
	Task      int
	SendBytes int64
	RecvBytes int64
	Dep       Dep
}

// Record is one body line: a Message or a Part, as Kind says; the other
// body is zero. Line is the line of the file it was read from (1 is the
// header).
type Record struct {
	Line    int
	Kind    Kind
	Message Message
	Part    Part
}

// task is the task that waits on the record's dependency.
func (r *Record) task() int {
	if r.Kind == KindMessage {
		return r.Message.Src
	}
	return r.Part.Task
}

func (r *Record) dep() Dep {
	if r.Kind == KindMessage {
		return r.Message.Dep
	}
	return r.Part.Dep
}

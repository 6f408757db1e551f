// Package replay replays a VEF trace (package vef) on a simulated network:
// each task of the trace is the source (workloads.Source) of the NIC it is
// mapped on, and a message is generated only when what it waits on has
// happened in the simulated network. A Replay is a workloads.Workload:
// the run layer hands its sources to the NICs, merged with the synthetic
// background traffic, and asks it between windows whether the run is over.
//
// # Causality
//
// A record waits on one event of its own task (VEF.md): nothing (dep 0:
// it is issued at its absolute time), the send of a message (dep 1: the
// cycle the message's last flit left the task's NIC, workloads.Sender),
// the receipt of a message (dep 2: the cycle its last flit arrived) or the
// end of the task's part of a collective (dep 3). A record waiting on an
// event of cycle e is issued in cycle e + 1 + ⌈delay⌉, the delay in cycles
// rounded up (Options.CyclesOf): a task reacts the cycle after, then
// computes. A message of b bytes is max(1, ⌈b / bytes per flit⌉) flits: a
// message of 0 bytes still carries a header. A message from a task to
// itself does not enter the network: it is sent and received in the cycle
// it is issued.
//
// # Collectives
//
// A collective is lowered to point-to-point messages by package
// collective, with the algorithm Options.Algorithms names for its op. A
// task's part begins when its record is issued; it runs the rounds in
// which its rank sends or receives, in order: a round begins the cycle
// after the previous one ended (the first when the part begins), sends its
// message then, and ends when its message has left and the one it
// receives has arrived; the part ends with its last round (at once when it
// has none). A message that arrives before its round is kept until the
// round begins. The reduction's computation takes no time.
//
// # Message IDs
//
// A trace message's sequence number (workloads.MessageID.Seq) has bit 39
// set, which no synthetic source reaches, so background traffic and a
// trace share a NIC; bit 38 marks a message of a collective, the low 38
// bits then number it among the run's collective messages (the
// collective's first number, fixed in the order collectives complete in
// the file, plus round × size + sender rank); otherwise the low bits are
// the trace's message id. The receiver knows from the ID alone which
// message arrived. Trace messages are causal (workloads.Message.Causal):
// the NIC never throttles them.
//
// # Memory
//
// New reads the whole trace once to check it (the reader's checks, plus
// what only replay can check: that a record waits on the send of a
// message its task sends, or on the receipt of one sent to its task), and
// keeps per message 8 bytes (the position of the last record that waits on
// it, and its destination task), per collective a map entry, per task a
// counter. Then the replay
// reads the trace again, as it goes: every independent record before the
// run, and, when a task's event happens, up to the last record that
// waits on it. Records read for another task wait in that task's inbox
// until it needs them. So the records held are those read ahead, not the
// trace's: for a trace written roughly in time order (each iteration's
// records after the previous one's) they are few; what grows with the
// trace is the 8 bytes a message (msgLast, msgDst).
//
// # Determinism
//
// The tasks share the reader (under a mutex) and two counters (atomic):
// which task reads a record depends on timing, what each task sees when
// it needs it does not (a task takes every record that waits on an event
// when the event happens). Every other state is the task's own, called
// by its NIC only. So a replay gives the same messages in the same
// cycles under every engine and partitioning.
//
// # Ending
//
// A task ends with the last of its events (its sends, its receipts, its
// parts); the application's execution time is the cycle its last task
// ends. The replay is stalled when no task can go on: no trace message is
// queued at a task or in flight, and some task has not ended (it waits on
// a message that will never come). Status then says what each waits on.
//
// Imports: clock, workloads, workloads/vef, workloads/collective,
// hdrhistogram-go; no goroutines.
package replay

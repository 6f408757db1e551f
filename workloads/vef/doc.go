// Package vef reads and writes VEF traces: the messages of an MPI
// application and the causal order between them (the format as the
// project's VEF specification describes it; seed 000 section 4.3 replays
// such traces of 512 tasks). A trace is a header line, its communicators
// (C lines), then a body of point-to-point records and collective parts in
// any mix.
//
// NewReader (or Open, for a file, plain or gzip) reads and checks the
// header and communicators; Reader.Next then yields the body one Record
// at a time, so a trace of any length is read in bounded memory. Every
// record is checked as it is read against the header and what came
// before it: message ids 0, 1, 2, … in file order and no more than the
// header announced; tasks within the task count and within the
// collective's communicator; sizes and delays at least 0; a dependency on
// a message or on this task's part of a collective that came earlier;
// only_send TRUE kept; the parts of a collective agreeing on
// communicator, op and the sizes their roles require (the op table of
// VEF.md); at the end, the header's counts met and every collective
// complete (a part from each task of its communicator). Writer writes
// records back, checked the same way, so a trace it accepts reads back.
//
// Errors are one type, *Error: the line, the field as the format names
// it, the value as written and what was expected. A reader stops at the
// first: checks depend on what came before, so later complaints would
// mostly echo the first (problem.List, which gathers every problem of a
// whole input at once, suits a config better than a stream).
//
// What is not checked, as it would cost memory per message: that a
// dependency on a send (dep 1) names a message this task sent, or on a
// receive (dep 2) one it received. A replay, which keeps per-task state
// anyway, can check it.
//
// # Memory
//
// A Reader keeps no record. It holds, beside a 256 KiB file buffer (Open)
// and the line buffer (64 KiB, growing to the longest line, at most
// MaxLineBytes):
//
//   - the communicators: their tasks twice (Header's []int in file
//     order, and a sorted []int32 for membership), 12 bytes a member;
//   - for each collective still missing parts: about 200 bytes and a bit
//     per task of its communicator;
//   - for each complete collective: one map entry (its communicator),
//     about 16 bytes amortised.
//
// Point-to-point records cost nothing each: a counter checks their ids.
// So the bound is 12 B × Σ|communicator| + 16 B × collectives + the open
// collectives + the longest line, whatever the number of messages. A
// trace whose collectives are each written together keeps few open.
//
// Imports: the standard library only. No goroutines, no global state.
package vef

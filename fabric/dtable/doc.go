// Package dtable is the DTable configuration methodology and bandwidth
// correction algorithm of seed 000 (sections 3.3.2 and 3.3.3, Tables 4-6,
// 9 and 10) as a pure library: from a Request (N table entries, GMTU, the
// decoupling parameters w and k, and per SL its maximum entry distance, MTU
// and wanted share φ) Configure derives the bandwidth bounds, the entry
// weights, the correction Dweight and the final arbitration table, or
// refuses the request listing every problem at once.
//
// The steps are exported on their own so that each can be checked against
// the paper: Place lays SLs out in the table, Correct walks a Dweight over
// an SL's entries from the end of the table. Result.Text prints the
// configuration, Result.WriteTable writes the arbitration table a run loads
// and ReadTable loads it back; ParseSL and LoadRequest read the CLI and file
// forms of a Request. Bounds derives from a table what it guarantees each
// SL at one output port: its share of the link and the worst-case wait of
// its head. docs/dtable.md describes the method, the bounds and the
// formats.
//
// All weights and MTUs are in flow-control credits (64 bytes).
//
// Imports: fabric/sched (for sched.Entry), problem and gopkg.in/yaml.v3 only. No
// goroutines, no RNG, no I/O beyond the readers and writers handed in.
package dtable

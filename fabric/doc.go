// Package fabric is the cycle-level model of the network: NICs, and switches
// made of MPorts (input buffers, routing units, input arbiters, the MPort
// crossbar), a central crossbar and output ports (output buffer, output
// arbiter, output scheduler, downstream credits). It follows
// ../shared/spec/MODEL.md; docs/model.md says how each rule is implemented.
//
// Every component is a plain, single-threaded state machine that talks to
// the others only through messages (package messages) stamped with the cycle
// they take effect. A component is advanced a window of cycles at a time;
// because every message has a latency of at least the window length, the
// components of a window can run in any order, or in parallel, and give the
// same result. The sequential engine here and the actor engine in package
// actors drive the same components.
//
// Imports: clock, messages, workloads, fabric/sched, fabric/topo. No
// goroutines, locks, wall clock, global RNG, logging or metrics.
package fabric

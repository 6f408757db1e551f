// Package actors runs a fabric.Network on protoactor-go: every NIC, MPort,
// central crossbar and output port is an actor with its own mailbox; each
// switch is a group actor that owns its components, and the NICs of a
// switch sit under a NIC-bank group actor. Partition actors, one per worker
// thread, run the groups: each has a contiguous range of groups (balanced
// by their measured wall time) and, once that range's due groups have run
// in a window, takes due groups from the ranges of partitions still
// running. A global clock actor ticks every partition once per window and
// waits for all of them (the barrier). A message for another group is
// handed to that group at once if it is idle (always, on one worker); if it
// is running on another worker, the message travels with the partition's
// report and the next tick. Engine is a
// sim.Engine: the clock actor drives the window loop every engine shares
// (sim.Windows), and the partitions report each group's window to the
// run's sim.Observer (package monitor's live metrics, for one) through
// sim.Hooks.
//
// RunMember runs some of a network's groups the same way, for a member of
// a run spread over processes (package distrib), its windows given by the
// run's coordinator.
//
// Imports: clock, messages, fabric, sim and protoactor-go. Metrics and profiling are in package
// monitor.
package actors

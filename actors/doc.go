// Package actors runs a fabric.Network on protoactor-go: every NIC, MPort,
// central crossbar and output port is an actor with its own mailbox; each
// switch is a group actor that owns its components, and the NICs of a
// switch sit under a NIC-bank group actor; a global clock actor keeps the
// groups in step with a barrier per window of cycles. Engine is a
// sim.Engine: the clock actor drives the window loop every engine shares
// (sim.Windows), and the groups report to the run's sim.Observer (package
// monitor's live metrics, for one) through sim.Hooks.
//
// Imports: clock, messages, fabric, sim and protoactor-go; it is the only
// package that imports protoactor-go. Metrics and profiling are in package
// monitor.
package actors

// Package runner is the flow-level engine's run layer: from a resolved
// config (flow/spec) to results. It builds the network within a memory
// budget, picks the workload (a pattern in causality phases, an
// application, the Markov model, a VEF trace, or applications with
// storage), checks each against the budget before making its flows, runs
// the static or the dynamic engine, re-runs a run with failed cables on
// the intact network for comparison, and computes the digest. The CLI
// (`opasim flow static|dynamic`) only turns flags into the config, shows
// progress (Show) and prints or writes the Results.
package runner

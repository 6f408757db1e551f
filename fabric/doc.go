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
// same result. The engines (the sequential one in package sim, the actor
// one in package actors) drive the same components; the run layer (package
// sim) builds, runs and measures a network. Package fabric reads no file
// (sim reads what a config names and passes it in Inputs).
//
// Besides the components, fabric holds the config (Config, its defaults and
// Validate), the building of a network (Build, BuildWith), its memory
// estimate (EstimateBytes), the conservation check, the queries the
// watchdog of package sim needs, and the snapshots live metrics read.
//
// Imports: clock, messages, problem, registry, workloads, workloads/vef,
// workloads/collective, fabric/qos, fabric/sched, fabric/topo and
// fabric/dtable; from outside the standard library, hdrhistogram-go (the
// latency histograms) only. No os, time or context: no goroutines, locks,
// files, wall clock, global RNG, logging or metrics.
package fabric

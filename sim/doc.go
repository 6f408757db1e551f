// Package sim is the run layer: it turns a config into a network (reading
// the files the config names), drives it with an engine through the one
// window loop every engine shares (Windows: the global clock's calendar,
// interruption, progress, the watchdog, the observer), and measures the
// outcome (Measure: Results, the digest). The sequential reference engine
// (Sequential) is here; the actor engine (package actors) plugs in through
// Engine.
//
// Config files: LoadConfig and DecodeConfig read them through package
// strictyaml, which checks a parsed YAML document against fabric.Config's
// yaml tags before decoding it, so every refusal names the key path as the
// file writes it and its line.
//
// A config that names a trace (trace.file) gets its replay here
// (buildTrace: the trace checked whole, its tasks placed on NICs), handed
// to the network as its workload; the window loop ends the run when the
// trace ends or stalls, and Measure adds what the replay measured
// (TraceResult).
//
// Imports: clock, messages, fabric, fabric/sched, fabric/dtable,
// strictyaml, workloads, workloads/vef and workloads/replay; from outside,
// hdrhistogram-go and pbnjay/memory (the machine's memory, the default
// memory budget).
package sim

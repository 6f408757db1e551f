// Package topo describes network topologies (seed 000 sections 4.1 and 4.3,
// seed 001 section 3.2) and their routing functions, as plain data: which
// switch port is wired to which, where each NIC attaches, and for every
// switch, input port and destination NIC the output port and the next
// service channel.
//
// Topologies: SingleSwitch, Torus (n-dimensional, with trunks) and Tree
// (k-ary n-tree); the paper's networks are named presets (presets.go).
// Routers: "direct" (single switch), "dor" (dimension-order routing on tori,
// deadlock-free with two SCs per SL and a dateline) and "updown" (d-mod-k
// up/down routing on trees), built by name from a Registry (dor's tie and
// trunk-member rules are RoutingOptions). Trace follows a routed packet hop
// by hop, DependencyGraph checks that a routing is deadlock-free and
// ChannelLoads computes every link's load and the saturation bound of a
// traffic matrix. docs/topologies.md describes port layouts and rules.
//
// Imports: fabric/qos (the SL/SC tables dor reads) and registry only. No goroutines, no RNG.
package topo

// Package qos holds the service-level tables of a run (seed 000 section
// 2.1, Table 7): which VL each service channel (SC) uses, which service
// level (SL) each SC carries and which SCs each SL owns. They are derived
// once, by NewTables, and shared by the routing (fabric/topo), the output
// schedulers (fabric/sched) and the switch model (fabric).
//
// Imports: nothing of opasim's. No goroutines, no RNG.
package qos

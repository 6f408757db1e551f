// Package linkplot draws a run's per-link utilization (sim.LinkResults) as
// a heat map: a two-dimensional torus (or a ring) as its grid of switches
// with each link coloured by its utilization, any other network as a
// matrix of link classes by switch. `opasim plot links` is its command.
package linkplot

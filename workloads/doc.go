// Package workloads generates traffic: synthetic destination patterns
// (seed 000 section 4.2, seed 001 section 3.3.1) and generation processes
// (Bernoulli, CBR, short/long message mixes). Every random choice draws from
// a generator the caller owns, derived from the run's seed and the NIC's
// number, so results do not depend on scheduling.
//
// Imports: clock only.
package workloads

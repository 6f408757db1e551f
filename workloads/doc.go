// Package workloads owns traffic: what each NIC offers to the network and
// when. It holds the synthetic destination patterns (seed 000 section 4.2,
// seed 001 section 3.3.1), the generation processes (Bernoulli, CBR), the
// message sizes (one size, seed 002's short/long mix, or a size per SL), the
// named traffic scenarios (seed 000's paper mix), and the Source that puts
// them together for one NIC. A NIC (package fabric) asks its Source for its
// next message and keeps only what happens to it after: segmentation into
// packets, the application queues and their bound, injection, reception.
//
// Every random choice draws from a generator the source owns, derived from
// the run's seed and the NIC's number (NewRNG), so results do not depend on
// scheduling, on the engine or on the other NICs.
//
// Imports: clock and registry (and the standard library).
package workloads

import "github.com/opasim/opasim/clock"

// Source yields the messages one NIC offers, one at a time, in the order
// it offers them. The NIC that owns it is its only caller: a Source is
// single-threaded, like the NIC.
//
// The contract:
//
//   - Next is the cycle of the next message, or clock.Never when the
//     source has nothing to send until it is told of a delivery (or
//     nothing ever). Next draws nothing and changes nothing: calling it any
//     number of times gives the same answer and leaves the source as it
//     was.
//   - Pop(now) returns the next message if its cycle is at most now, and
//     moves past it; otherwise it returns false and changes nothing. Every
//     random draw for a message (its destination, its size, the cycle of
//     the message after it) happens in Pop, in that order, so a run
//     repeats draw for draw. The NIC pops at the cycle Next gave, every
//     message due then; popped so, messages come in the order of their
//     cycles (Message.At, when each was generated), and Next is never
//     earlier than the last one's.
//   - Delivered(msg, gen, at) tells the source that message msg, sent to
//     the NIC by msg.Src() and generated there in cycle gen, has arrived
//     there whole (its last flit) in cycle at. The NIC calls it in the cycle at, after that cycle's generation;
//     a source it makes ready must give a Next after at (the NIC generates
//     no earlier than at+1). A source that ignores deliveries does nothing.
//   - The messages' IDs (Message.ID) are unique in a run and never 0:
//     NewMessageID of the NIC's number and the message's number at the
//     NIC, counted from 1.
//   - A source is deterministic: the same construction (seed, NIC number,
//     parameters) and the same calls give the same messages.
//
// Synthetic sources (Traffic.Source) offer the configured traffic and
// ignore deliveries; Reply sources answer every message delivered to them,
// and stay silent until one is; a trace replay's sources (package
// workloads/replay, through a Workload) send when what each message waits
// on has happened, and are Senders.
type Source interface {
	Next() clock.Cycle
	Pop(now clock.Cycle) (Message, bool)
	Delivered(msg MessageID, gen, at clock.Cycle)
}

// Sender is a Source that must know when each of its messages has left:
// the NIC calls Sent(msg, at) when it puts the last flit of message msg on
// its link, in cycle at (the cycle it transmits the message's last packet
// or later: at is the tail's cycle). As after Delivered, a source Sent
// makes ready gives a Next after at. Trace replay waits on sends.
type Sender interface {
	Source
	Sent(msg MessageID, at clock.Cycle)
}

// Workload is traffic beyond the synthetic that some NICs offer (trace
// replay), and that has a say in when the run ends. The run asks Source
// once per NIC while it builds the network, and Status between windows,
// when no source runs.
type Workload interface {
	// Source is NIC nic's source, nil when the workload has nothing at it.
	Source(nic int) Source
	// Status says whether the workload still runs, has finished (the run
	// may end) or is stalled (it can never go on); detail describes a
	// stall (what waits, on what).
	Status() (st Status, detail []string)
}

// Status is the state of a Workload.
type Status int

// The states of a Workload.
const (
	Running Status = iota
	Finished
	Stalled
)

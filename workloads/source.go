package workloads

import (
	"math/rand/v2"

	"github.com/opasim/opasim/clock"
)

// MessageID names a message in a run: the number of the NIC that sends it
// and the message's number at that NIC, counted from 1.
type MessageID uint64

// NewMessageID is the ID of message seq (1, 2, ...) of NIC nic.
func NewMessageID(nic int, seq uint64) MessageID { return MessageID(uint64(nic)<<40 | seq) }

// Src is the NIC that sends the message.
func (m MessageID) Src() int { return int(m >> 40) }

// Seq is the message's number at its NIC.
func (m MessageID) Seq() uint64 { return uint64(m) & (1<<40 - 1) }

// Message is one message a Source offers: when, of which SL, to which NIC,
// how many flits.
type Message struct {
	ID    MessageID
	At    clock.Cycle // generated in this cycle
	SL    int
	Dst   int // NIC
	Flits int
	// Causal: others wait for this message (trace replay), so the NIC
	// queues it even when its application queues are full: a message of a
	// trace is never throttled away.
	Causal bool
}

// Traffic is the synthetic traffic every NIC of a run offers: destinations
// from Pattern, and per SL a generation process at its share of the load,
// with its message sizes. Build one per run; Source gives each NIC its own.
type Traffic struct {
	Pattern Pattern
	NICs    int     // NICs in the network (the pattern's n)
	Process string  // "bernoulli" or "cbr" (NewProcess)
	Load    float64 // flits per cycle per NIC
	SLs     []SLTraffic
	Seed    uint64 // the run's seed
}

// SLTraffic is one SL's part of the traffic.
type SLTraffic struct {
	Share float64 // of the load
	Sizes Sizes   // of its messages, in flits
}

// Synthetic is one NIC's source of Traffic: per SL a process at rate
// Load·Share/Sizes.Mean() messages per cycle, each message to a destination
// of the pattern with a size of the SL's sizes. It ignores deliveries.
type Synthetic struct {
	t     *Traffic
	nic   int
	rng   *rand.Rand
	procs []Process     // per SL
	next  []clock.Cycle // per SL: the cycle of its next message
	first []clock.Cycle // per SL: the cycle of its first message
	seq   uint64        // messages popped
}

// Source builds NIC nic's source: its generator is NewRNG(Seed, nic), from
// which the cycle of each SL's first message is drawn now, in SL order.
func (t *Traffic) Source(nic int) *Synthetic {
	s := &Synthetic{t: t, nic: nic, rng: NewRNG(t.Seed, uint64(nic))}
	for _, sl := range t.SLs {
		p := NewProcess(t.Process, t.Load*sl.Share/sl.Sizes.Mean())
		s.procs = append(s.procs, p)
		s.next = append(s.next, p.First(s.rng))
	}
	s.first = append([]clock.Cycle(nil), s.next...)
	return s
}

// Next implements Source: the earliest SL's next message.
func (s *Synthetic) Next() clock.Cycle {
	next := clock.Never
	for _, c := range s.next {
		next = clock.Min(next, c)
	}
	return next
}

// Pop implements Source. Of the SLs with a message due, the lowest SL goes
// first; its destination is drawn, then its size, then the cycle of the
// SL's next message.
func (s *Synthetic) Pop(now clock.Cycle) (Message, bool) {
	for sl, at := range s.next {
		if at > now {
			continue
		}
		s.seq++
		m := Message{ID: NewMessageID(s.nic, s.seq), At: at, SL: sl}
		m.Dst = s.t.Pattern(s.nic, s.t.NICs, s.rng)
		m.Flits = s.t.SLs[sl].Sizes.Draw(s.rng)
		s.next[sl] = s.procs[sl].Next(at, s.rng)
		return m, true
	}
	return Message{}, false
}

// Delivered implements Source: synthetic traffic does not depend on what
// arrives.
func (s *Synthetic) Delivered(MessageID, clock.Cycle, clock.Cycle) {}

// FirstCycles is the cycle of each SL's first message, in SL order
// (clock.Never for an SL that sends nothing). A NIC sets a generation
// timer for each one earlier than all before it, as it did when it drew
// its traffic itself: a timer past traffic.stop_cycle still evaluates the
// NIC's send unit, so runs with a stop cycle repeat only with the same
// timers.
func (s *Synthetic) FirstCycles() []clock.Cycle { return s.first }

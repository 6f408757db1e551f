package workloads

import "github.com/opasim/opasim/clock"

// Merged is a NIC's synthetic source and a workload's source offering
// together: a trace replayed over background traffic. Messages come in
// cycle order; in a tie the synthetic source's go first. Deliveries and
// sends are told to both (each ignores what is not its own). Message IDs
// stay unique as long as the workload's carry a sequence the synthetic
// source never reaches (trace replay sets bit 39 of it).
type Merged struct {
	syn  *Synthetic
	work Source
	sent Sender // work, when it wants its sends
}

// Merge is the merged source of syn and work.
func Merge(syn *Synthetic, work Source) *Merged {
	m := &Merged{syn: syn, work: work}
	m.sent, _ = work.(Sender)
	return m
}

// Next implements Source.
func (m *Merged) Next() clock.Cycle { return min(m.syn.Next(), m.work.Next()) }

// Pop implements Source.
func (m *Merged) Pop(now clock.Cycle) (Message, bool) {
	if m.syn.Next() <= m.work.Next() {
		if msg, ok := m.syn.Pop(now); ok {
			return msg, true
		}
	}
	return m.work.Pop(now)
}

// Delivered implements Source.
func (m *Merged) Delivered(msg MessageID, gen, at clock.Cycle) {
	m.syn.Delivered(msg, gen, at)
	m.work.Delivered(msg, gen, at)
}

// Sent implements Sender.
func (m *Merged) Sent(msg MessageID, at clock.Cycle) {
	if m.sent != nil {
		m.sent.Sent(msg, at)
	}
}

// FirstCycles is the synthetic source's (see Synthetic.FirstCycles) and
// the workload's first cycle: the NIC's first generation timers.
func (m *Merged) FirstCycles() []clock.Cycle {
	return append(append([]clock.Cycle(nil), m.syn.FirstCycles()...), m.work.Next())
}

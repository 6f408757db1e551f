package workloads

import "github.com/opasim/opasim/clock"

// Reply is a source that answers: for every message delivered to its NIC,
// a message of Flits flits of SL SL back to the sender, Delay cycles after
// the delivery (at least 1). Told nothing, it sends nothing. It draws no
// random number. Its answers leave in the order of the deliveries.
type Reply struct {
	nic       int
	sl, flits int
	delay     clock.Cycle
	due       []Message // answers not yet popped, in cycle order
	seq       uint64
}

// NewReply is NIC nic's reply source.
func NewReply(nic, sl, flits int, delay clock.Cycle) *Reply {
	return &Reply{nic: nic, sl: sl, flits: flits, delay: max(delay, 1)}
}

// Next implements Source: clock.Never until a delivery has been answered.
func (r *Reply) Next() clock.Cycle {
	if len(r.due) == 0 {
		return clock.Never
	}
	return r.due[0].At
}

// Pop implements Source.
func (r *Reply) Pop(now clock.Cycle) (Message, bool) {
	if len(r.due) == 0 || r.due[0].At > now {
		return Message{}, false
	}
	m := r.due[0]
	r.due = r.due[1:]
	return m, true
}

// Delivered implements Source: the answer to msg, due delay cycles later.
func (r *Reply) Delivered(msg MessageID, _, at clock.Cycle) {
	r.seq++
	r.due = append(r.due, Message{ID: NewMessageID(r.nic, r.seq), At: at + r.delay, SL: r.sl, Dst: msg.Src(), Flits: r.flits})
}

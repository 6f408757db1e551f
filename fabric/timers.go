package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// timer asks for unit Unit of a component to be evaluated at cycle At.
type timer struct {
	At   clock.Cycle
	Unit int32
}

// timers is a min-heap ordered by (At, Unit), so a component evaluates its
// units in a fixed order within a cycle.
type timers []timer

func (h timers) less(i, j int) bool {
	return h[i].At < h[j].At || (h[i].At == h[j].At && h[i].Unit < h[j].Unit)
}

func (h *timers) Push(t timer) {
	*h = append(*h, t)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h timers) Top() clock.Cycle {
	if len(h) == 0 {
		return clock.Never
	}
	return h[0].At
}

func (h *timers) Pop() timer {
	s := *h
	t := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return t
}

// inbox holds the messages a component has not applied yet and gives them
// out by effect cycle, ties by sender and then by arrival order. One
// sender's messages arrive in the order it sent them under every engine,
// so the order in which a component applies its messages does not depend
// on the engine or on scheduling.
//
// The messages stay where they were stored (slots of msgs, reused through
// free); the heap orders small keys that name them, so that a push or a
// pop moves 24-byte keys rather than whole messages.
type inbox struct {
	msgs []messages.Msg
	free []int32 // slots of msgs not in use
	keys []inboxKey
	next uint64
}

// inboxKey orders one stored message: effect cycle, sender, arrival.
type inboxKey struct {
	at   clock.Cycle
	seq  uint64
	src  messages.CompID
	slot int32
}

func (a *inboxKey) less(b *inboxKey) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.src != b.src {
		return a.src < b.src
	}
	return a.seq < b.seq
}

// Push stores a copy of *m.
func (b *inbox) Push(m *messages.Msg) {
	var slot int32
	if n := len(b.free); n > 0 {
		slot = b.free[n-1]
		b.free = b.free[:n-1]
		b.msgs[slot] = *m
	} else {
		slot = int32(len(b.msgs))
		b.msgs = append(b.msgs, *m)
	}
	k := inboxKey{at: m.At, seq: b.next, src: m.Src, slot: slot}
	b.next++
	b.keys = append(b.keys, k)
	s := b.keys
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.less(&s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = k
}

func (b *inbox) Top() clock.Cycle {
	if len(b.keys) == 0 {
		return clock.Never
	}
	return b.keys[0].at
}

// Pop takes the first message out. It stays valid until the next Push.
func (b *inbox) Pop() *messages.Msg {
	s := b.keys
	slot := s[0].slot
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	b.keys = s
	if n > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && s[r].less(&s[c]) {
				c = r
			}
			if !s[c].less(&last) {
				break
			}
			s[i] = s[c]
			i = c
		}
		s[i] = last
	}
	b.free = append(b.free, slot)
	return &b.msgs[slot]
}

// Pending lists the messages not yet taken (for the conservation check).
func (b *inbox) Pending() []messages.Msg {
	out := make([]messages.Msg, 0, len(b.keys))
	for i := range b.keys {
		out = append(out, b.msgs[b.keys[i].slot])
	}
	return out
}

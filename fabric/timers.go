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

// inbox is a min-heap of messages by effect cycle, ties by sender and then
// by arrival order. One sender's messages arrive in the order it sent them
// under every engine, so the order in which a component applies its
// messages does not depend on the engine or on scheduling.
type inbox struct {
	msgs []messages.Msg
	seq  []uint64
	next uint64
}

func (b *inbox) less(i, j int) bool {
	x, y := &b.msgs[i], &b.msgs[j]
	if x.At != y.At {
		return x.At < y.At
	}
	if x.Src != y.Src {
		return x.Src < y.Src
	}
	return b.seq[i] < b.seq[j]
}

func (b *inbox) swap(i, j int) {
	b.msgs[i], b.msgs[j] = b.msgs[j], b.msgs[i]
	b.seq[i], b.seq[j] = b.seq[j], b.seq[i]
}

func (b *inbox) Push(m messages.Msg) {
	b.msgs = append(b.msgs, m)
	b.seq = append(b.seq, b.next)
	b.next++
	for i := len(b.msgs) - 1; i > 0; {
		p := (i - 1) / 2
		if !b.less(i, p) {
			break
		}
		b.swap(i, p)
		i = p
	}
}

func (b *inbox) Top() clock.Cycle {
	if len(b.msgs) == 0 {
		return clock.Never
	}
	return b.msgs[0].At
}

func (b *inbox) Pop() messages.Msg {
	m := b.msgs[0]
	n := len(b.msgs) - 1
	b.swap(0, n)
	b.msgs, b.seq = b.msgs[:n], b.seq[:n]
	for i := 0; ; {
		l, r, k := 2*i+1, 2*i+2, i
		if l < n && b.less(l, k) {
			k = l
		}
		if r < n && b.less(r, k) {
			k = r
		}
		if k == i {
			break
		}
		b.swap(i, k)
		i = k
	}
	return m
}

// Pending lists the messages not yet taken (for the conservation check).
func (b *inbox) Pending() []messages.Msg { return b.msgs }

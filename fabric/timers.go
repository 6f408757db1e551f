package fabric

import (
	"fmt"
	"math/bits"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// timer asks for unit Unit of a component to be evaluated at cycle At.
type timer struct {
	At   clock.Cycle
	Unit int32
}

// Timer keys pack a timer into one word, cycle above unit, so that one
// comparison orders them by (At, Unit).
const (
	unitBits = 16
	maxUnits = 1 << unitBits
	// maxTimerAt bounds the cycles a timer may be set for: 2^47, about
	// 1.4·10^14 cycles (years of simulation at a million cycles a second).
	maxTimerAt = clock.Cycle(1)<<(63-unitBits) - 1
)

func timerKey(t timer) uint64 { return uint64(t.At)<<unitBits | uint64(t.Unit) }

func timerOf(k uint64) timer {
	return timer{At: clock.Cycle(k >> unitBits), Unit: int32(k & (maxUnits - 1))}
}

// timerHeap is a min-heap of timer keys, ordered by (At, Unit).
type timerHeap []uint64

func (h *timerHeap) Push(t timer) {
	if t.At < 0 || t.At > maxTimerAt || t.Unit < 0 || t.Unit >= maxUnits {
		panic(fmt.Sprintf("timer at cycle %d for unit %d: out of range (cycles up to %d, units below %d)", t.At, t.Unit, maxTimerAt, maxUnits))
	}
	k := timerKey(t)
	s := append(*h, k)
	*h = s
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= k {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = k
}

func (h timerHeap) Top() clock.Cycle {
	if len(h) == 0 {
		return clock.Never
	}
	return clock.Cycle(h[0] >> unitBits)
}

func (h *timerHeap) Pop() timer { return timerOf(h.pop()) }

// pop removes and returns the first key.
func (h *timerHeap) pop() uint64 {
	s := *h
	top := s[0]
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	*h = s
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && s[r] < s[c] {
			c = r
		}
		if last <= s[c] {
			break
		}
		s[i] = s[c]
		i = c
	}
	s[i] = last
	return top
}

// wheelSlots is how many cycles ahead a component's timer wheel reaches.
const wheelSlots = 64

// timers are a component's unit timers, given out by (At, Unit), so a
// component evaluates its units in a fixed order within a cycle (core.at
// sets them, core.run takes them). A
// component of at most 64 units keeps the timers of the next wheelSlots
// cycles in a wheel, a word of unit bits per cycle (most timers are that
// close); the others, and every timer of a larger component, wait in a
// heap. Two timers of one unit and cycle are one evaluation either way.
type timers struct {
	near *[wheelSlots]uint64 // near[t % wheelSlots]: the units due at t, for t in [base, base+wheelSlots); nil: no wheel
	occ  uint64              // bit i: near[i] != 0
	base clock.Cycle         // the latest cycle run
	far  timerHeap
}

func newTimers(units int) timers {
	if units > 64 {
		return timers{}
	}
	return timers{near: new([wheelSlots]uint64)}
}

// top is the earliest timer's cycle (clock.Never if none).
func (tm *timers) top() clock.Cycle {
	t := tm.far.Top()
	if tm.occ != 0 {
		t = min(t, tm.base+clock.Cycle(bits.TrailingZeros64(bits.RotateLeft64(tm.occ, -int(uint64(tm.base)%wheelSlots)))))
	}
	return t
}

// The wheel's part of core.at and core.run (kept there, so that the
// compiler inlines them): a timer at t of a wheel with base b is in
// near[t % wheelSlots] when b <= t < b+wheelSlots, else in far; a cycle t
// run at or after base makes t the base and moves the far timers at t into
// near; one run before base (no timer of the wheel is earlier than base)
// takes its units from far only.

// inbox holds the messages a component has not applied yet and gives them
// out by effect cycle, ties by sender and then by arrival order. One
// sender's messages arrive in the order it sent them under every engine,
// so the order in which a component applies its messages does not depend
// on the engine or on scheduling.
//
// The messages stay where they were stored, in slots of a message store
// (msgStore) that the inboxes of a group share (the sequential engine
// shares one among all: Network.ShareMessageStore); the heap orders small
// keys that name them, so that a push or a pop moves 24-byte keys rather
// than whole messages.
type inbox struct {
	st   *msgStore // nil until the first push, unless shared
	keys []inboxKey
	top  clock.Cycle // keys[0].at when there are keys (kept here, in the line of the slice header)
	next uint64
	used int32 // the slot the last pop gave out plus one, freed at the next pop or by done; 0: none
}

// msgStore holds the messages of some inboxes. A slot freed is the first
// reused, while it is still in the cache. The free slots are linked
// through their messages' Slot fields, so that taking one touches only
// the slot.
type msgStore struct {
	msgs []messages.Msg
	free int32 // the first free slot plus one; 0: none (the next one is in its message's Slot, plus one)
}

func (st *msgStore) put(m *messages.Msg) int32 {
	if st.free != 0 {
		slot := st.free - 1
		st.free = st.msgs[slot].Slot
		st.msgs[slot] = *m
		return slot
	}
	st.msgs = append(st.msgs, *m)
	return int32(len(st.msgs) - 1)
}

func (st *msgStore) release(slot int32) {
	st.msgs[slot].Slot = st.free
	st.free = slot + 1
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
	if b.st == nil {
		b.st = new(msgStore)
	}
	k := inboxKey{at: m.At, seq: b.next, src: m.Src, slot: b.st.put(m)}
	b.next++
	if len(b.keys) == 0 || k.at < b.top {
		b.top = k.at
	}
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
	return b.top
}

// Pop takes the first message out. It stays valid until the next push
// into the store or the next Pop or done of this inbox.
func (b *inbox) Pop() *messages.Msg {
	b.done()
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
		b.top = s[0].at
	}
	b.used = slot + 1
	return &b.st.msgs[slot]
}

// done frees the slot of the message the last Pop gave out.
func (b *inbox) done() {
	if b.used != 0 {
		b.st.release(b.used - 1)
		b.used = 0
	}
}

// Pending lists the messages not yet taken (for the conservation check).
func (b *inbox) Pending() []messages.Msg {
	out := make([]messages.Msg, 0, len(b.keys))
	for i := range b.keys {
		out = append(out, b.st.msgs[b.keys[i].slot])
	}
	return out
}

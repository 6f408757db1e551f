package fabric

import (
	"fmt"
	"math/bits"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Component is one simulated hardware element. It receives messages with
// Deliver (any effect cycle not earlier than the cycle it has reached) and
// is advanced with Advance, which handles every event before to, in cycle
// order, sends what it has to send into out, and returns the next cycle at
// which it has work (clock.Never when idle until a message arrives).
type Component interface {
	ID() messages.CompID
	Deliver(msgs []messages.Msg)
	Advance(to clock.Cycle, out *Outbox) clock.Cycle
	Next() clock.Cycle
}

// Outbox collects the messages a component sends during an Advance.
type Outbox struct {
	Msgs []messages.Msg
}

// Send queues m.
func (o *Outbox) Send(m messages.Msg) { o.Msgs = append(o.Msgs, m) }

// handler is what a concrete component adds to core: how to apply one
// message and how to evaluate one of its units at a cycle.
type handler interface {
	apply(m *messages.Msg, out *Outbox)
	eval(unit int32, now clock.Cycle, out *Outbox)
}

// core is the event loop shared by all components: an inbox of messages by
// effect cycle and unit timers. At each cycle it first applies the
// messages taking effect, then evaluates the due units in unit order, each
// at most once per cycle.
type core struct {
	id       messages.CompID
	in       inbox
	tm       timers
	lastEval []clock.Cycle
	pending  []clock.Cycle // per unit: the earliest timer set since its last evaluation
	now      clock.Cycle
}

func newCore(id messages.CompID, units int) core {
	if units > maxUnits {
		panic(fmt.Sprintf("component %d: %d units, more than the timers' %d", id, units, maxUnits))
	}
	c := core{id: id, tm: newTimers(units), lastEval: make([]clock.Cycle, units), pending: make([]clock.Cycle, units)}
	for i := range c.lastEval {
		c.lastEval[i], c.pending[i] = -1, clock.Never
	}
	return c
}

func (c *core) ID() messages.CompID { return c.id }

func (c *core) base() *core { return c }

func (c *core) Deliver(msgs []messages.Msg) {
	for i := range msgs {
		c.in.Push(&msgs[i])
	}
}

func (c *core) Next() clock.Cycle {
	t := c.tm.top()
	if len(c.in.keys) > 0 && c.in.top < t {
		t = c.in.top
	}
	return t
}

// at asks for unit to be evaluated at cycle t. An evaluation looks at all
// of its unit's state and sets every timer that state still needs, so a
// timer later than one already set for the unit is left out: the earlier
// evaluation sets it again if it is still needed.
func (c *core) at(t clock.Cycle, unit int32) {
	if t <= c.lastEval[unit] || t >= c.pending[unit] {
		return // it is being (or was) evaluated at t, at most once a cycle; or due earlier
	}
	c.pending[unit] = t
	tm := &c.tm
	if d := uint64(t - tm.base); d < wheelSlots && tm.near != nil { // d wraps for a cycle before base
		tm.near[uint64(t)%wheelSlots] |= 1 << (uint32(unit) & 63)
		tm.occ |= 1 << (uint64(t) % wheelSlots)
		return
	}
	tm.far.Push(timer{At: t, Unit: unit})
}

func (c *core) run(h handler, to clock.Cycle, out *Outbox) clock.Cycle {
	tm := &c.tm
	for {
		t := c.Next()
		if t >= to {
			c.in.done()
			return t
		}
		c.now = t
		wheel := tm.near != nil && t >= tm.base
		i := uint64(t) % wheelSlots
		if wheel {
			tm.base = t
			for len(tm.far) > 0 && tm.far.Top() == t {
				tm.near[i] |= 1 << (tm.far.pop() & 63)
				tm.occ |= 1 << i
			}
		}
		for c.in.Top() == t {
			h.apply(c.in.Pop(), out)
		}
		for {
			var u int32
			if wheel {
				m := tm.near[i]
				if m == 0 || len(tm.far) > 0 && tm.far.Top() < t {
					break // done, or a unit asked for an earlier cycle: that one first
				}
				u = int32(bits.TrailingZeros64(m))
				m &= m - 1
				tm.near[i] = m
				if m == 0 {
					tm.occ &^= 1 << i
				}
			} else {
				if tm.far.Top() != t {
					break
				}
				u = int32(tm.far.pop() & (maxUnits - 1))
			}
			if c.lastEval[u] != t {
				c.lastEval[u], c.pending[u] = t, clock.Never
				h.eval(u, t, out)
			}
		}
	}
}

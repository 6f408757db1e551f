// Package clock holds simulated time and the pure bookkeeping of the global
// clock: integer cycles, and the wake calendar that decides which groups of
// components run in the next window. The window loop of package sim (which
// the clock actor in package actors and the sequential engine both drive)
// uses it.
//
// Imports: the standard library only.
package clock

import "math"

// Cycle is simulated time. One cycle moves one flit across one external link.
type Cycle int64

// Never is a wake time that never comes.
const Never Cycle = math.MaxInt64

// Min returns the earlier of two cycles.
func Min(a, b Cycle) Cycle {
	if a < b {
		return a
	}
	return b
}

// Max returns the later of two cycles.
func Max(a, b Cycle) Cycle {
	if a > b {
		return a
	}
	return b
}

// Window is a half-open range of cycles [From, To) that every woken group
// simulates between two barriers. Nothing sent inside a window can take
// effect before To, because every message between groups has a latency of
// at least the window length.
type Window struct {
	From, To Cycle
}

// Calendar tracks, per group, the first cycle at which it has work, and
// cuts the timeline into windows of at most Width cycles that start at the
// earliest wake, so idle stretches are skipped.
type Calendar struct {
	Width Cycle
	End   Cycle // the run stops before this cycle
	wake  []Cycle
}

// NewCalendar makes a calendar for n groups, all due at cycle 0.
func NewCalendar(n int, width, end Cycle) *Calendar {
	c := &Calendar{Width: width, End: end, wake: make([]Cycle, n)}
	return c
}

// Wake records that group g has work at cycle at (keeps the earliest).
func (c *Calendar) Wake(g int, at Cycle) {
	if at < c.wake[g] {
		c.wake[g] = at
	}
}

// Set replaces group g's wake time (after it ran a window).
func (c *Calendar) Set(g int, at Cycle) { c.wake[g] = at }

// WakeOf returns group g's next wake.
func (c *Calendar) WakeOf(g int) Cycle { return c.wake[g] }

// Next returns the next window and the groups due in it, in index order,
// appended to due[:0]. ok is false when no group has work before End.
func (c *Calendar) Next(due []int) (w Window, _ []int, ok bool) {
	first := Never
	for _, t := range c.wake {
		first = Min(first, t)
	}
	if first >= c.End {
		return Window{}, due[:0], false
	}
	w = Window{From: first, To: Min(first+c.Width, c.End)}
	due = due[:0]
	for g, t := range c.wake {
		if t < w.To {
			due = append(due, g)
		}
	}
	return w, due, true
}

package fabric

import (
	"fmt"
	"slices"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// recorder is a two-unit component that records what core makes it do:
// "m<Tag>@t" for a message applied, "u<unit>@t" for an evaluation. A
// message asks for unit Slot at cycle Count (at most once per cycle).
type recorder struct {
	core
	log []string
}

func (r *recorder) Advance(to clock.Cycle, out *Outbox) clock.Cycle { return r.run(r, to, out) }

func (r *recorder) apply(m *messages.Msg, _ *Outbox) {
	r.log = append(r.log, fmt.Sprintf("m%d@%d", m.Tag, r.now))
	r.at(clock.Cycle(m.Count), m.Slot)
}

func (r *recorder) eval(unit int32, now clock.Cycle, out *Outbox) {
	r.log = append(r.log, fmt.Sprintf("u%d@%d", unit, now))
	if unit == 0 {
		r.at(now, 0) // being evaluated now: nothing to do
		if now == 5 {
			r.at(6, 0) // so this one still counts
		}
	}
	if unit == 1 && now < 12 {
		r.at(now+2, 1) // unit 1 ticks every other cycle until 12
		out.Send(messages.Msg{At: now})
	}
}

// TestCoreEventLoop: at each cycle the messages taking effect are applied
// first, then the due units are evaluated in unit order, each at most once
// a cycle; a timer asked for at or before a unit's last evaluation, or
// later than one pending, changes nothing (and does not hide a later one),
// and Advance stops before its bound.
func TestCoreEventLoop(t *testing.T) {
	r := &recorder{core: newCore(7, 2)}
	r.Deliver([]messages.Msg{
		{At: 5, Src: 2, Tag: 1, Slot: 1, Count: 8},
		{At: 5, Src: 1, Tag: 2, Slot: 0, Count: 5}, // its unit is evaluated this very cycle
		{At: 5, Src: 1, Tag: 3, Slot: 1, Count: 8}, // unit 1 at 8 is already asked for
		{At: 9, Src: 1, Tag: 4, Slot: 0, Count: 3}, // in the past: unit 0 was evaluated at 5
	})
	var out Outbox
	if next := r.Advance(9, &out); next != 9 {
		t.Errorf("first Advance returns %d, want 9 (the next message)", next)
	}
	if next := r.Advance(100, &out); next != clock.Never {
		t.Errorf("second Advance returns %d, want never", next)
	}
	want := []string{"m2@5", "m3@5", "m1@5", "u0@5", "u0@6", "u1@8", "m4@9", "u1@10", "u1@12"}
	if !slices.Equal(r.log, want) {
		t.Errorf("log %v, want %v", r.log, want)
	}
	if len(out.Msgs) != 2 || r.ID() != 7 {
		t.Errorf("sent %d messages as %d, want 2 as 7", len(out.Msgs), r.ID())
	}
}

// TestParamsLatencies: λ and μ split AT (λ = floor(AT/2)); a packet takes
// ceil(flits / flits per credit) credits; a transfer's tail leaves
// ceil(flits / speed) − 1 cycles after its start, never before the tail is
// available.
func TestParamsLatencies(t *testing.T) {
	for _, tc := range []struct {
		at         int64
		lambda, mu clock.Cycle
	}{{16, 8, 8}, {5, 2, 3}, {2, 1, 1}} {
		p := benchParams(t, func(c *Config) { c.Switch.Latency.AT = tc.at })
		if p.requestLatency != tc.lambda || p.grantLatency != tc.mu || p.lookahead != tc.lambda+tc.mu {
			t.Errorf("AT %d: λ %d, μ %d, lookahead %d; want %d, %d, %d", tc.at, p.requestLatency, p.grantLatency, p.lookahead, tc.lambda, tc.mu, tc.at)
		}
	}
	p := benchParams(t, nil)
	for flits, credits := range map[int32]int32{1: 1, 4: 1, 5: 2, 16: 4, 17: 5} {
		if got := p.creditsOf(flits); got != credits {
			t.Errorf("%d flits: %d credits, want %d", flits, got, credits)
		}
	}
	for _, tc := range []struct {
		start       clock.Cycle
		flits, spd  int32
		avail, want clock.Cycle
	}{
		{198, 16, 3, 165, 203}, // ceil(16/3) = 6 cycles
		{198, 16, 4, 165, 201}, // 4 cycles
		{198, 16, 1, 165, 213}, // a link: one flit per cycle
		{198, 16, 3, 210, 210}, // cut-through waits for the tail
		{198, 1, 4, 0, 198},    // one flit: leaves at its start
	} {
		if got := transfer(tc.start, tc.flits, tc.spd, tc.avail); got != tc.want {
			t.Errorf("transfer(%d, %d flits at %d, tail at %d) = %d, want %d", tc.start, tc.flits, tc.spd, tc.avail, got, tc.want)
		}
	}
	if p.inCap != 64 || p.outCap != 64 || p.centralCap != 64 || p.excl != 4 || p.maxVL != 12 || p.lanes != 8 {
		t.Errorf("capacities in %d, out %d, central %d, exclusive %d, max %d, lanes %d; want 64, 64, 64, 4, 12, 8",
			p.inCap, p.outCap, p.centralCap, p.excl, p.maxVL, p.lanes)
	}
}

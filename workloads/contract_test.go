package workloads

import (
	"testing"

	"github.com/opasim/opasim/clock"
)

// The Source contract (doc.go), checked on every kind of source.

// mixed is traffic that uses every kind of draw: a hot spot (one or two
// draws per destination), the short/long mix (a draw per size), SLs of
// different shares, one SL that never sends.
func mixed(process string) *Traffic {
	p, _ := NewPattern("hot_spot", Options{HotSpot: 5, HotSpotPercent: 20})
	mix := Sizes{Short: 4, Long: 64, ShortPercent: 40}
	return &Traffic{Pattern: p, NICs: 12, Process: process, Load: 0.7, Seed: 99, SLs: []SLTraffic{
		{Share: 0.1, Sizes: Sizes{Short: 16, ShortPercent: 100}}, {Share: 0.3, Sizes: mix},
		{Share: 0, Sizes: mix}, {Share: 0.5, Sizes: mix}, {Share: 0.1, Sizes: Sizes{Short: 128, ShortPercent: 100}},
	}}
}

// formerNIC draws a NIC's messages the way the NIC did before sources
// existed: the first cycle of every SL at construction, in SL order; then
// at each generation cycle, SL by SL, for every message due: the
// destination, the size, the SL's next cycle.
func formerNIC(tr *Traffic, nic int, end clock.Cycle) []Message {
	rng := NewRNG(tr.Seed, uint64(nic))
	var procs []Process
	var next []clock.Cycle
	for _, sl := range tr.SLs {
		p := NewProcess(tr.Process, tr.Load*sl.Share/sl.Sizes.Mean())
		procs = append(procs, p)
		next = append(next, p.First(rng))
	}
	var got []Message
	for now := minOf(next); now < end; now = minOf(next) {
		for sl := range procs {
			for next[sl] <= now {
				dst := tr.Pattern(nic, tr.NICs, rng)
				flits := tr.SLs[sl].Sizes.Draw(rng)
				got = append(got, Message{At: now, SL: sl, Dst: dst, Flits: flits})
				next[sl] = procs[sl].Next(next[sl], rng)
			}
		}
	}
	return got
}

func minOf(cs []clock.Cycle) clock.Cycle {
	m := clock.Never
	for _, c := range cs {
		m = min(m, c)
	}
	return m
}

// TestSyntheticDrawOrder: a synthetic source gives, draw for draw, the
// messages the NIC used to draw itself, so every digest of a run is kept.
func TestSyntheticDrawOrder(t *testing.T) {
	for _, process := range []string{"bernoulli", "cbr"} {
		tr := mixed(process)
		for _, nic := range []int{0, 5, 11} {
			want := formerNIC(tr, nic, 30_000)
			got := popAll(t, tr.Source(nic), 30_000)
			if len(got) != len(want) || len(got) < 100 {
				t.Fatalf("%s NIC %d: %d messages, the former drawing %d", process, nic, len(got), len(want))
			}
			for i := range got {
				g := got[i]
				g.ID = 0
				if g != want[i] {
					t.Fatalf("%s NIC %d, message %d: %+v, the former drawing %+v", process, nic, i, g, want[i])
				}
			}
		}
	}
}

// sources builds a fresh source of every kind for NIC 3, with one delivery
// told to the reply sources (from NIC 7 at 40 and NIC 1 at 90).
func sources() map[string]func() Source {
	told := func(delay clock.Cycle) func() Source {
		return func() Source {
			r := NewReply(3, 1, 8, delay)
			r.Delivered(NewMessageID(7, 2), 31, 40)
			r.Delivered(NewMessageID(1, 9), 81, 90)
			return r
		}
	}
	return map[string]func() Source{
		"bernoulli":       func() Source { return mixed("bernoulli").Source(3) },
		"cbr":             func() Source { return mixed("cbr").Source(3) },
		"reply":           told(5),
		"reply, no delay": told(0),
	}
}

// TestSourceContract: for every kind of source, Next draws nothing and
// changes nothing; Pop before Next's cycle gives nothing and changes
// nothing; the same construction repeats; IDs are unique, not 0, and name
// the NIC; cycles never go back.
func TestSourceContract(t *testing.T) {
	for name, build := range sources() {
		want := popAll(t, build(), 20_000)
		if len(want) == 0 {
			t.Fatalf("%s: no message", name)
		}
		s := build()
		var got []Message
		for c := s.Next(); c < 20_000; c = s.Next() {
			if s.Next() != c {
				t.Fatalf("%s: Next changed on a second call", name)
			}
			if m, ok := s.Pop(c - 1); ok {
				t.Fatalf("%s: Pop(%d) gave %+v before Next's cycle %d", name, c-1, m, c)
			}
			m, _ := s.Pop(c)
			got = append(got, m)
		}
		seen := map[MessageID]bool{}
		for i, m := range got {
			if m != want[i] {
				t.Fatalf("%s: message %d is %+v, a fresh source's %+v", name, i, m, want[i])
			}
			if m.ID == 0 || seen[m.ID] || m.ID.Src() != 3 || m.ID.Seq() != uint64(i+1) {
				t.Fatalf("%s: message %d has ID %#x (NIC %d, number %d): want unique, NIC 3, number %d", name, i, m.ID, m.ID.Src(), m.ID.Seq(), i+1)
			}
			seen[m.ID] = true
			if i > 0 && m.At < got[i-1].At {
				t.Fatalf("%s: message %d at %d, after one at %d", name, i, m.At, got[i-1].At)
			}
		}
	}
}

// TestSyntheticIgnoresDeliveries: telling a synthetic source of
// deliveries changes none of its messages.
func TestSyntheticIgnoresDeliveries(t *testing.T) {
	want := popAll(t, mixed("bernoulli").Source(4), 10_000)
	s := mixed("bernoulli").Source(4)
	var got []Message
	for c := s.Next(); c < 10_000; c = s.Next() {
		s.Delivered(NewMessageID(2, uint64(c)), c-1, c)
		m, _ := s.Pop(c)
		got = append(got, m)
	}
	if len(got) != len(want) {
		t.Fatalf("%d messages when told of deliveries, %d when not", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("message %d: %+v when told of deliveries, %+v when not", i, got[i], want[i])
		}
	}
}

// TestReply: a reply source told nothing stays silent; each delivery is
// answered delay cycles later (at least 1), to the sender, in order.
func TestReply(t *testing.T) {
	r := NewReply(3, 2, 8, 4)
	if r.Next() != clock.Never {
		t.Fatalf("told nothing, Next is %d", r.Next())
	}
	for _, now := range []clock.Cycle{0, 1, 1000, clock.Never - 1} {
		if m, ok := r.Pop(now); ok {
			t.Fatalf("told nothing, Pop(%d) gave %+v", now, m)
		}
	}
	r.Delivered(NewMessageID(9, 1), 91, 100)
	r.Delivered(NewMessageID(6, 4), 91, 100)
	r.Delivered(NewMessageID(9, 2), 121, 130)
	want := []Message{
		{ID: NewMessageID(3, 1), At: 104, SL: 2, Dst: 9, Flits: 8},
		{ID: NewMessageID(3, 2), At: 104, SL: 2, Dst: 6, Flits: 8},
		{ID: NewMessageID(3, 3), At: 134, SL: 2, Dst: 9, Flits: 8},
	}
	if got := popAll(t, r, clock.Never); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("answers %+v, want %+v", got, want)
	}
	if r.Next() != clock.Never {
		t.Errorf("all answered, Next is %d", r.Next())
	}
	z := NewReply(0, 0, 1, 0)
	z.Delivered(NewMessageID(1, 1), 41, 50)
	if z.Next() != 51 {
		t.Errorf("delay 0: answer due at %d, want 51 (a reaction takes a cycle)", z.Next())
	}
}

// TestMessageID: an ID names its NIC and number, and is never 0.
func TestMessageID(t *testing.T) {
	for _, c := range []struct {
		nic int
		seq uint64
	}{{0, 1}, {1, 1}, {47, 12345}, {1<<20 - 1, 1<<40 - 1}} {
		id := NewMessageID(c.nic, c.seq)
		if id == 0 || id.Src() != c.nic || id.Seq() != c.seq {
			t.Errorf("NewMessageID(%d, %d) = %#x: NIC %d, number %d", c.nic, c.seq, id, id.Src(), id.Seq())
		}
	}
}

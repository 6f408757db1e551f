package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// islipParams: AT 16, so with two iterations each phase takes
// floor(16/5) = 3 cycles.
func islipParams() *params {
	return &params{requestLatency: 8, grantLatency: 8, islip: true, islipIters: 2, phase: clock.Cycle(islipPhase(16, 2))}
}

// islipSource is a central-buffer-like source (every output its own
// destination) with one ready 16-flit packet per queue: queue q's packet
// goes to output outs[q] (-1: none).
func islipSource(outs ...int32) source {
	s := newSource(&params{}, len(outs), -1, 1)
	for q, o := range outs {
		if o >= 0 {
			s.push(q, entry{Pkt: messages.Packet{ID: uint64(100 + q), Flits: 16, Credits: 2}, Out: o})
		}
	}
	return s
}

func sendTo(slot int32) islipSend {
	return func(e *entry, m *messages.Msg) { m.Src, m.Dst, m.Slot = 7, messages.CompID(e.Out), slot }
}

// TestIslipPhase: a = floor(AT / (2·iterations + 1)), so iteration k's
// accept reaches the destination by t0 + (2k+1)a <= t0 + AT.
func TestIslipPhase(t *testing.T) {
	for _, c := range []struct {
		at         int64
		iterations int
		want       int64
	}{{16, 1, 5}, {16, 2, 3}, {16, 3, 2}, {16, 7, 1}, {3, 1, 1}, {20, 4, 2}} {
		if got := islipPhase(c.at, c.iterations); got != c.want {
			t.Errorf("AT %d, %d iterations: phase %d, want %d", c.at, c.iterations, got, c.want)
		}
		if a := islipPhase(c.at, c.iterations); (2*int64(c.iterations)+1)*a > c.at {
			t.Errorf("AT %d, %d iterations: %d phases of %d exceed AT", c.at, c.iterations, 2*c.iterations+1, a)
		}
	}
}

// TestIslipSourceRound follows one source through a round by hand: it
// requests every ready head (queues 0 and 2 both for output 5, which will
// grant at most one), all for window now + AT;
// answers arrive together; it accepts the grant whose queue comes first
// from its accept pointer, declines the other, and moves the pointer
// past the accepted queue because the match came in the first iteration.
func TestIslipSourceRound(t *testing.T) {
	p := islipParams()
	s := islipSource(5, 6, 5, 9)
	var out Outbox
	if wake := s.nextIslip(100, p, func(e *entry, m *messages.Msg) { sendTo(2)(e, m); out.Send(*m) }, &out); wake != clock.Never {
		t.Fatalf("wake %d while answers are due", wake)
	}
	if len(out.Msgs) != 4 {
		t.Fatalf("%d requests, want 4: %+v", len(out.Msgs), out.Msgs)
	}
	for i, q := range []int32{0, 1, 2, 3} {
		m := out.Msgs[i]
		if m.Queue != q || m.At != 103 || m.Ready != 116 || m.Count != 1 {
			t.Errorf("request %d: queue %d at %d window %d iteration %d; want queue %d at 103 window 116 iteration 1", i, m.Queue, m.At, m.Ready, m.Count, q)
		}
	}
	// Outputs 6 and 9 grant, output 5 refuses both; answers arrive at 106.
	reqs := out.Msgs
	s.answeredIslip(&messages.Msg{Kind: messages.KindNack, Tag: reqs[0].Tag})
	s.answeredIslip(&messages.Msg{Kind: messages.KindGrant, Tag: reqs[1].Tag, Start: 116, TailOut: 131})
	s.answeredIslip(&messages.Msg{Kind: messages.KindNack, Tag: reqs[2].Tag})
	s.answeredIslip(&messages.Msg{Kind: messages.KindGrant, Tag: reqs[3].Tag, Start: 116, TailOut: 131})
	out.Msgs = nil
	wake := s.nextIslip(106, p, func(e *entry, m *messages.Msg) { t.Errorf("request at 106 while the read port is booked to 131") }, &out)
	if len(out.Msgs) != 2 || out.Msgs[0].Kind != messages.KindAccept || out.Msgs[0].Tag != reqs[1].Tag ||
		out.Msgs[1].Kind != messages.KindDecline || out.Msgs[1].Tag != reqs[3].Tag {
		t.Fatalf("settlement %+v: want accept of queue 1's grant, decline of queue 3's", out.Msgs)
	}
	if out.Msgs[0].At != 109 || out.Msgs[0].At > 116 {
		t.Errorf("accept arrives at %d, want 109 (before the window at 116)", out.Msgs[0].At)
	}
	if s.vaNext != 2 || s.q[1].Len() != 0 || s.q[3].Len() != 1 || s.q[0].Len() != 1 || s.readFree != 132 {
		t.Errorf("after accepting: pointer %d, queue 1 holds %d, queue 3 holds %d, read port free at %d; want 2, 0, 1, 132",
			s.vaNext, s.q[1].Len(), s.q[3].Len(), s.readFree)
	}
	if wake != 132-16 {
		t.Errorf("next round at %d, want %d (the read port frees at 132, AT 16 before)", wake, 132-16)
	}
	if r, ok := s.rel.Due(132); !ok || r.Credits != 2 || r.VL != 1 {
		t.Errorf("release %+v %t: want 2 credits of queue 1 at 132", r, ok)
	}
}

// TestIslipSecondIteration: a round with no grant is retried at once, for
// the same window, while its accept can still arrive by the window; a match
// in the second iteration leaves the accept pointer where it was.
func TestIslipSecondIteration(t *testing.T) {
	p := islipParams() // phase 3: iteration 2 starts at t0+6, its accept arrives at t0+15 <= t0+16
	s := islipSource(5, 6)
	var out Outbox
	collect := func(e *entry, m *messages.Msg) { sendTo(0)(e, m); out.Send(*m) }
	s.nextIslip(0, p, collect, &out)
	for _, m := range out.Msgs {
		s.answeredIslip(&messages.Msg{Kind: messages.KindNack, Tag: m.Tag})
	}
	out.Msgs = nil
	s.nextIslip(6, p, collect, &out)
	if len(out.Msgs) != 2 || out.Msgs[0].Count != 2 || out.Msgs[0].Ready != 16 || out.Msgs[0].At != 9 {
		t.Fatalf("second iteration %+v: want 2 requests, iteration 2, window 16, arriving at 9", out.Msgs)
	}
	s.answeredIslip(&messages.Msg{Kind: messages.KindNack, Tag: out.Msgs[0].Tag})
	s.answeredIslip(&messages.Msg{Kind: messages.KindGrant, Tag: out.Msgs[1].Tag, Start: 16, TailOut: 31})
	out.Msgs = nil
	s.nextIslip(12, p, collect, &out)
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != messages.KindAccept || out.Msgs[0].At != 15 {
		t.Fatalf("settlement %+v: want one accept arriving at 15", out.Msgs)
	}
	if s.vaNext != 0 {
		t.Errorf("accept pointer %d after a second-iteration match, want 0 (unchanged)", s.vaNext)
	}

	// With no time left for a second iteration the window is given up and
	// a new round starts for a later window.
	p.islipIters = 1
	p.phase = clock.Cycle(islipPhase(16, 1))
	s = islipSource(5)
	out.Msgs = nil
	s.nextIslip(0, p, collect, &out)
	s.answeredIslip(&messages.Msg{Kind: messages.KindNack, Tag: out.Msgs[0].Tag})
	out.Msgs = nil
	s.nextIslip(10, p, collect, &out)
	if len(out.Msgs) != 1 || out.Msgs[0].Count != 1 || out.Msgs[0].Ready != 26 {
		t.Fatalf("after a lost window %+v: want a first-iteration request for window 26", out.Msgs)
	}
}

// TestIslipDestination: the grant pointer picks round-robin among the
// requests that fit, a grant books the write port and the space, a
// decline gives both back (the write port only when nothing was booked
// after), and an accept queues the packet.
func TestIslipDestination(t *testing.T) {
	p := islipParams()
	sp := newSpace(2, 8, 0, 8)
	var d islipDest
	var reqs islipRequests
	for _, slot := range []int32{3, 0, 5} {
		reqs.add(&messages.Msg{Kind: messages.KindRequest, Src: messages.CompID(slot), Slot: slot, Tag: 1, VL: 1, Ready: 50,
			Pkt: messages.Packet{Flits: 16, Credits: 2}})
	}
	rs, taken := reqs.take()
	if rs[0].Slot != 0 || rs[1].Slot != 3 || rs[2].Slot != 5 {
		t.Fatalf("requests not sorted by slot: %+v", rs)
	}
	slot := func(m *messages.Msg) int { return int(m.Slot) }
	if i := pickIslip(rs, taken, 4, 8, -1, 0, &sp, slot); rs[i].Slot != 5 {
		t.Errorf("pointer 4 picks slot %d, want 5", rs[i].Slot)
	}
	if i := pickIslip(rs, taken, 6, 8, -1, 0, &sp, slot); rs[i].Slot != 0 {
		t.Errorf("pointer 6 picks slot %d, want 0 (wrapping)", rs[i].Slot)
	}
	if i := pickIslip(rs, taken, 0, 8, -1, 51, &sp, slot); i != -1 {
		t.Errorf("write port busy past the window: picked %d", i)
	}
	writeFree := clock.Cycle(40)
	g := d.offer(p, &rs[1], 44, 1, 2, 0, &sp, &writeFree, 9)
	if g.Kind != messages.KindGrant || g.At != 47 || g.Start != 50 || g.TailOut != 65 || writeFree != 66 || sp.Used(1) != 2 {
		t.Fatalf("grant %+v, write port free at %d, VL 1 holds %d; want start 50, tail 65, at 47, 66, 2", g, writeFree, sp.Used(1))
	}
	if _, mine, _ := d.settle(&messages.Msg{Kind: messages.KindDecline, Slot: 0, Tag: 1}, &sp, &writeFree); mine {
		t.Error("a decline from another slot settled the offer")
	}
	if _, mine, acc := d.settle(&messages.Msg{Kind: messages.KindDecline, Slot: 3, Tag: 1}, &sp, &writeFree); !mine || acc {
		t.Fatal("the decline did not settle the offer")
	}
	if writeFree != 40 || sp.Used(1) != 0 || len(d.offers) != 0 {
		t.Errorf("after the decline: write port free at %d, VL 1 holds %d, %d offers; want 40, 0, 0", writeFree, sp.Used(1), len(d.offers))
	}
	// Two offers; declining the first keeps the write port booked for the second.
	d.offer(p, &rs[1], 44, 1, 2, 0, &sp, &writeFree, 9)
	later := rs[2]
	later.Ready = 70
	d.offer(p, &later, 45, 1, 2, 0, &sp, &writeFree, 9)
	d.settle(&messages.Msg{Kind: messages.KindDecline, Slot: 3, Tag: 1}, &sp, &writeFree)
	if writeFree != 86 || sp.Used(1) != 2 {
		t.Errorf("write port free at %d, VL 1 holds %d; want 86 (the second booking), 2", writeFree, sp.Used(1))
	}
	o, mine, acc := d.settle(&messages.Msg{Kind: messages.KindAccept, Slot: 5, Tag: 1}, &sp, &writeFree)
	if !mine || !acc || o.e.Ready != 72 || o.e.TailAvail != 87 {
		t.Errorf("accepted %+v (mine %t, accepted %t): want the packet ready at 72, tail at 87", o, mine, acc)
	}
}

package fabric

import (
	"fmt"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
)

// This file is the test bench for one component built alone, with no
// Network: its links name made-up component IDs, the test delivers what the
// other ends would send and records what the component sends, with the
// cycle it was sent in.

// Made-up component IDs of the bench, far from one another so that a
// message sent to the wrong end shows at once.
const (
	benchSelf    messages.CompID = 1000 // the component under test
	benchUp      messages.CompID = 100  // + input port: the sender on that link
	benchOut     messages.CompID = 200  // + port: the switch's output ports
	benchCentral messages.CompID = 300  // the switch's central crossbar
	benchMPort   messages.CompID = 400  // + MPort: the switch's MPorts
	benchDown    messages.CompID = 500  // a link's receiver
)

// benchParams prepares the parameters of Default() with seed 002's
// buffers (the single 48-port switch, Table 1 latencies, 256-flit buffers:
// the hardware preset seed002), changed by edit, for building components.
func benchParams(t *testing.T, edit func(*Config)) *params {
	t.Helper()
	cfg := Default()
	if err := ApplyHardwarePreset(&cfg, HardwareSeed002); err != nil {
		t.Fatal(err)
	}
	cfg.Warmup = 0
	if edit != nil {
		edit(&cfg)
	}
	p, _, err := prepare(cfg, sched.Default(), Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// withAlloc sets the allocator (and nothing else).
func withAlloc(alloc string) func(*Config) {
	return func(c *Config) { c.Switch.Allocator = alloc }
}

// benchMPortLinks wires an MPort of the bench: input port i is fed by
// benchUp+i, output port q is benchOut+q.
func benchMPortLinks(p *params) mportLinks {
	l := mportLinks{central: benchCentral}
	for i := range l.in {
		l.in[i] = link{wired: true, comp: benchUp + messages.CompID(i)}
	}
	for q := 0; q < p.topo.Radix[0]; q++ {
		l.outputs = append(l.outputs, benchOut+messages.CompID(q))
	}
	return l
}

// sent is a message a component sent and the cycle it sent it in.
type sent struct {
	cycle clock.Cycle
	m     messages.Msg
}

func (s sent) String() string {
	m := s.m
	return fmt.Sprintf("@%d %s At=%d Dst=%d Slot=%d VL=%d Count=%d Out=%d Alone=%t Tag=%d Queue=%d Deadline=%d "+
		"Ready=%d TailAvail=%d Start=%d TailOut=%d Pkt{ID=%d SC=%d VL=%d Flits=%d Head=%d Tail=%d}",
		s.cycle, m.Kind, m.At, m.Dst, m.Slot, m.VL, m.Count, m.Out, m.Alone, m.Tag, m.Queue, m.Deadline,
		m.Ready, m.TailAvail, m.Start, m.TailOut, m.Pkt.ID, m.Pkt.SC, m.Pkt.VL, m.Pkt.Flits, m.Pkt.Head, m.Pkt.Tail)
}

// drive delivers in to c and advances it, one cycle with work at a time,
// up to (not including) cycle end. It returns what c sent, in order.
func drive(c Component, end clock.Cycle, in ...messages.Msg) []sent {
	c.Deliver(in)
	var got []sent
	var out Outbox
	for t := c.Next(); t < end; t = c.Next() {
		out.Msgs = out.Msgs[:0]
		c.Advance(t+1, &out)
		for _, m := range out.Msgs {
			got = append(got, sent{cycle: t, m: m})
		}
	}
	return got
}

// trim keeps the fields of a sent message that the tables state: the
// packet's identity and header fields, not its generation statistics.
func trim(s sent) sent {
	pk := s.m.Pkt
	s.m.Src = 0
	s.m.Pkt = messages.Packet{ID: pk.ID, SC: pk.SC, VL: pk.VL, Flits: pk.Flits, Head: pk.Head, Tail: pk.Tail}
	return s
}

// expectSent compares what a component sent with a table's rows (Src is
// not compared: it is always the component, checked once by checkSrc).
func expectSent(t *testing.T, got, want []sent) {
	t.Helper()
	for i := 0; i < max(len(got), len(want)); i++ {
		switch {
		case i >= len(got):
			t.Errorf("message %d: missing, want %v", i, want[i])
		case i >= len(want):
			t.Errorf("message %d: unexpected %v", i, trim(got[i]))
		case trim(got[i]) != want[i]:
			t.Errorf("message %d:\n got %v\nwant %v", i, trim(got[i]), want[i])
		}
	}
}

// checkSrc checks that every message names its sender.
func checkSrc(t *testing.T, got []sent, id messages.CompID) {
	t.Helper()
	for _, s := range got {
		if s.m.Src != id {
			t.Errorf("%v: Src %d, want %d", s, s.m.Src, id)
		}
	}
}

// pkt is a 16-flit (4-credit) packet of SL 0 for NIC dst on SC sc (VL sc,
// Table 7) whose header arrives at head, one flit per cycle.
func pkt(id uint64, dst int32, sc uint8, head clock.Cycle) messages.Packet {
	return messages.Packet{ID: id, Dst: dst, SC: messages.SC(sc), VL: messages.VL(sc), Flits: 16, Credits: 4, Head: head, Tail: head + 15}
}

// arrival is packet pk arriving at input slot of the component under test.
func arrival(slot int32, pk messages.Packet) messages.Msg {
	return messages.Msg{Kind: messages.KindPacket, At: pk.Head, Dst: benchSelf, Src: benchUp + messages.CompID(slot),
		Slot: slot, Pkt: pk}
}

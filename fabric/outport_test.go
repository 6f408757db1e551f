package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Output port timing at the Table 1 latencies (Default()): λ = μ = 8,
// MPort crossbar X 2 at 3 flits/cycle, central crossbar X 2 at 4
// flits/cycle, SB_out 50, FLY 8; the port under test is port 2 (MPort 0),
// its link enters input slot 3 of benchDown.
//
// A request of input buffer 1 (slot 1) takes effect at 190; the write port
// is free, so it is granted at once: effect 198, the transfer starts at 198,
// its tail leaves the input buffer at max(198 + 5, 165) = 203, the header
// lands at 198 + X = 200 and is stored at 200 + SB_out = 250, the tail at
// 203 + 2 + 50 = 255. At 250 the link is free: the header leaves, reaching
// the next device at 250 + FLY = 258, its tail at max(250 + 15, 255) + 8 =
// 273. That is the zero-load sum 100 + SB + RT + AT + X + SB + FLY from the
// header's arrival at the switch (MODEL.md section 3).
//
// A second request at 190, from central buffer 5 (slot 4+5 = 9), waits
// for the write port (free from 204): the arbiter looks again at 204 − μ =
// 196 and grants a start at 204; at 4 flits/cycle the tail leaves at
// max(204 + 3, 165) = 207, the header is stored at 204 + 2 + 50 = 256, its
// tail at 207 + 52 = 259. The link is busy with the first packet until
// 265, so it leaves at 266 (header at the next device at 274, tail at 289)
// when the downstream buffer has room, else when the credit comes back.

// outRequest is a request for port 2 from slot (0-3: an input buffer of
// MPort 0, 4+b: central buffer b), taking effect at 190.
func outRequest(p *params, slot int32, pk messages.Packet, alone bool) messages.Msg {
	src := benchMPort
	if slot >= 4 {
		src = benchCentral
	}
	ready := clock.Cycle(0)
	if p.pipelined {
		ready = 198
	}
	return messages.Msg{Kind: messages.KindRequest, At: 190, Dst: benchSelf, Src: src, Slot: slot, VL: int32(pk.VL),
		Out: 2, Alone: alone, Queue: int32(pk.VL), Ready: ready, TailAvail: 165, Pkt: pk}
}

// onLink is the packet message the port sends at cycle, with its header
// and tail times at the next device.
func onLink(cycle clock.Cycle, pk messages.Packet, head, tail clock.Cycle) sent {
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindPacket, At: head, Dst: benchDown, Slot: 3,
		Pkt: messages.Packet{ID: pk.ID, SC: pk.SC, VL: pk.VL, Flits: pk.Flits, Head: head, Tail: tail}}}
}

func newBenchOutput(p *params, downCredits int32) *outputPort {
	return newOutputPort(p, benchSelf, 0, 2, 12, link{wired: true, comp: benchDown, slot: 3, credits: downCredits})
}

// withSL gives pk service level sl.
func withSL(pk messages.Packet, sl messages.SL) messages.Packet {
	pk.SL = sl
	return pk
}

// TestOutputPortTwoPackets: the arbitration of the write port, the link
// and the downstream credits. With 35 credits downstream (140 flits), one
// packet of VL 0 fits but a second does not: the other seven VLs keep
// their 4 exclusive credits each (28), and 35 − 4 − 4 < 28. Its credit
// comes back at 300, so the second packet leaves then (tail at
// max(300 + 15, 259) + 8 = 323), after a stall of 300 − 266 = 34 cycles
// with the link free.
func TestOutputPortTwoPackets(t *testing.T) {
	a, b := pkt(1, 2, 0, 100), pkt(2, 2, 0, 100)
	credit := messages.Msg{Kind: messages.KindCredit, At: 300, Dst: benchSelf, Src: benchDown, VL: 0, Count: 4}
	for _, tc := range []struct {
		name    string
		alloc   string
		credits int32
		second  sent
		stall   int64
	}{
		{"serial, room downstream", AllocSerial, 64, onLink(266, b, 274, 289), 0},
		{"pipelined, room downstream", AllocPipelined, 64, onLink(266, b, 274, 289), 0},
		{"serial, credit stall", AllocSerial, 35, onLink(300, b, 308, 323), 34},
		{"pipelined, credit stall", AllocPipelined, 35, onLink(300, b, 308, 323), 34},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchParams(t, withAlloc(tc.alloc))
			o := newBenchOutput(p, tc.credits)
			got := drive(o, 1000, outRequest(p, 1, a, true), outRequest(p, 9, b, true), credit)
			expectSent(t, got, []sent{
				grantOf(190, benchMPort, 1, 0, 198, 203),
				grantOf(196, benchCentral, 9, 0, 204, 207),
				onLink(250, a, 258, 273),
				tc.second,
			})
			checkSrc(t, got, benchSelf)
			if o.StallCycles != tc.stall || o.Accepted != 2 || o.Sent != 2 || o.SentBySL[0] != 2 {
				t.Errorf("stalled %d cycles, accepted %d, sent %d (SL 0: %d); want %d, 2, 2, 2",
					o.StallCycles, o.Accepted, o.Sent, o.SentBySL[0], tc.stall)
			}
			// One credit came back at 300: one packet's 4 credits are still out.
			if u := o.down.Used(0); u != 4 {
				t.Errorf("downstream VL 0: %d credits used, want 4", u)
			}
		})
	}
}

// TestOutputPortCredits: the output buffer's space is taken at the grant
// and freed when the tail has left (265: free from 266); the downstream
// credits are taken when the header leaves (250) and come back with the
// credit message (300).
func TestOutputPortCredits(t *testing.T) {
	p := benchParams(t, nil)
	o := newBenchOutput(p, 64)
	a := pkt(1, 2, 0, 100)
	o.Deliver([]messages.Msg{outRequest(p, 1, a, true),
		{Kind: messages.KindCredit, At: 300, Dst: benchSelf, Src: benchDown, VL: 0, Count: 4}})
	var out Outbox
	for _, step := range []struct {
		to         clock.Cycle
		buf, downs int32
	}{
		{190, 0, 0}, {191, 4, 0}, {250, 4, 0}, {251, 4, 4}, {266, 4, 4}, {267, 0, 4}, {300, 0, 4}, {301, 0, 0},
	} {
		o.Advance(step.to, &out)
		if b, d := o.space.Used(0), o.down.Used(0); b != step.buf || d != step.downs {
			t.Errorf("up to %d: output buffer holds %d credits, downstream %d used; want %d, %d", step.to, b, d, step.buf, step.downs)
		}
	}
}

// TestOutputPortScheduler: three packets from input buffers 0, 1, 2 of SLs
// 0, 0, 2 on VLs 0, 1, 4, all requesting at 190. The write port takes them
// one after the other: starts 198, 204, 210 (each tail leaves 5 cycles
// after its start, the port is free the cycle after), stored at 250, 256,
// 262. The first leaves alone at 250, the link is free again at 266 with
// VL 1 (SL 0) and VL 4 (SL 2) ready: rr (per SL) gives the turn to the SL
// after the last one sent, SL 2, whose tail, available at 215 + 52 = 267,
// leaves at max(266 + 15, 267) = 281; VL 1 follows at 282. rr_vl (per VL)
// takes the VL after the last one sent, VL 1, then VL 4.
func TestOutputPortScheduler(t *testing.T) {
	a, b, c := pkt(1, 2, 0, 100), pkt(2, 2, 1, 100), withSL(pkt(3, 2, 4, 100), 2)
	for _, tc := range []struct {
		sched  string
		second sent
		third  sent
	}{
		{"rr", onLink(266, c, 274, 289), onLink(282, b, 290, 305)},
		{"rr_vl", onLink(266, b, 274, 289), onLink(282, c, 290, 305)},
	} {
		t.Run(tc.sched, func(t *testing.T) {
			p := benchParams(t, func(c *Config) { c.QoS.Scheduler = tc.sched })
			o := newBenchOutput(p, 64)
			got := drive(o, 1000, outRequest(p, 0, a, true), outRequest(p, 1, b, true), outRequest(p, 2, c, true))
			expectSent(t, got, []sent{
				grantOf(190, benchMPort, 0, 0, 198, 203),
				grantOf(196, benchMPort, 1, 1, 204, 209),
				grantOf(202, benchMPort, 2, 4, 210, 215),
				onLink(250, a, 258, 273),
				tc.second,
				tc.third,
			})
			if o.Decisions != 3 || o.SentBySL[0] != 2 || o.SentBySL[2] != 1 {
				t.Errorf("%d decisions, sent by SL %v; want 3, [2 0 1 0 0]", o.Decisions, o.SentBySL)
			}
		})
	}
}

// TestOutputPortRefusal: a request whose VL has no room in the output
// buffer (16 credits; a VL may hold 12) is refused at once (effect 198)
// unless it came alone; a held request withdrawn at 200 is refused then
// (effect 208).
func TestOutputPortRefusal(t *testing.T) {
	for _, alloc := range []string{AllocSerial, AllocPipelined} {
		for _, alone := range []bool{false, true} {
			p := benchParams(t, withAlloc(alloc))
			o := newBenchOutput(p, 64)
			big := pkt(1, 2, 0, 100)
			big.Flits, big.Credits = 64, 16
			in := []messages.Msg{outRequest(p, 1, big, alone)}
			want := []sent{{cycle: 190, m: messages.Msg{Kind: messages.KindNack, At: 198, Dst: benchMPort, Slot: 1}}}
			if alone {
				in = append(in, messages.Msg{Kind: messages.KindCancel, At: 200, Dst: benchSelf, Src: benchMPort, Slot: 1})
				want = []sent{{cycle: 200, m: messages.Msg{Kind: messages.KindNack, At: 208, Dst: benchMPort, Slot: 1}}}
			}
			t.Logf("%s, alone %t", alloc, alone)
			expectSent(t, drive(o, 1000, in...), want)
		}
	}
}

// TestOutputPortLinks: an unwired port has no downstream mirror; a wired
// one mirrors the receiver's capacity.
func TestOutputPortLinks(t *testing.T) {
	p := benchParams(t, nil)
	if o := newOutputPort(p, benchSelf, 0, 2, 12, link{}); o.down.used != nil {
		t.Errorf("unwired port has a downstream mirror")
	}
	o := newBenchOutput(p, 64)
	if o.downComp != benchDown || o.downSlot != 3 || o.down.FreeCredits() != 64 {
		t.Errorf("down %d slot %d with %d credits; want %d, 3, 64", o.downComp, o.downSlot, o.down.FreeCredits(), benchDown)
	}
}

// TestOutputPortBookedRequest: under the pipelined allocator a request
// that is not alone carries a booked start (Ready 198) and the last cycle
// a grant can still reach its source in time, Deadline = 198 − μ = 190. It
// takes effect at 190: in time, granted for 198. Had it been booked for
// 197 (deadline 189), it arrives too late and is refused at once, though
// the output buffer has room.
func TestOutputPortBookedRequest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ready    clock.Cycle
		deadline clock.Cycle
		want     sent
	}{
		{"in time", 198, 190, grantOf(190, benchMPort, 1, 0, 198, 203)},
		{"too late", 197, 189, sent{cycle: 190, m: messages.Msg{Kind: messages.KindNack, At: 198, Dst: benchMPort, Slot: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchParams(t, withAlloc(AllocPipelined))
			o := newBenchOutput(p, 64)
			r := outRequest(p, 1, pkt(1, 2, 0, 100), false)
			r.Ready, r.Deadline = tc.ready, tc.deadline
			got := drive(o, 250, r)
			expectSent(t, got, []sent{tc.want})
		})
	}
}

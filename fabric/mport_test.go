package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// MPort timing at the Table 1 latencies (Default(), fabric/params.go):
// SB_in 50, RT 32, AT 16 so λ = 8 (request) and μ = 8 (grant), FLY 8,
// MPort crossbar 3 flits/cycle; 16-flit packets of 4 credits.
//
// A header that arrives at a = 100 (tail at 115) is ready for allocation at
// r = a + SB_in + RT = 182; its tail is available at 115 + SB_in = 165.
// The input arbiter requests at r: the request takes effect at r + λ = 190.
// The serial allocator asks for the read port as soon as it is free
// (Ready 0); the pipelined one books the earliest window, r + AT = 198.
// A grant that arrives at 198 starts the transfer at 198; at 3 flits/cycle
// the tail leaves at max(198 + ceil(16/3) − 1, 165) = 203, the space is
// freed at 204 and the credit sent then reaches the upstream sender at
// 204 + FLY = 212.

// grantFor is the answer of destination dst to the request of slot (as the
// MPort numbers it at the destination) of queue tag, arriving at at.
func grantFor(kind messages.Kind, dst messages.CompID, slot int32, tag int32, at, start, tailOut clock.Cycle) messages.Msg {
	return messages.Msg{Kind: kind, At: at, Dst: benchSelf, Src: dst, Slot: slot, Tag: tag, Start: start, TailOut: tailOut}
}

// onePacket is the header at 100 of packet 1 on input 1 (port 1 of MPort
// 0), SC 0, for NIC 2: port 2, the same MPort.
var onePacket = pkt(1, 2, 0, 100)

// secondPacket arrives on input 1 right behind it: header at 116, tail at
// 131, SC 1 for NIC 3; ready at 116 + 82 = 198, tail available at 181.
var secondPacket = pkt(2, 3, 1, 116)

func requestOf(cycle clock.Cycle, dst messages.CompID, slot int32, out int32, pk messages.Packet, ready, tailAvail clock.Cycle, alone bool, tag int32) sent {
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindRequest, At: cycle + 8, Dst: dst, Slot: slot, VL: int32(pk.VL),
		Out: out, Alone: alone, Tag: tag, Queue: int32(pk.VL), Ready: ready, TailAvail: tailAvail,
		Pkt: messages.Packet{ID: pk.ID, SC: pk.SC, VL: pk.VL, Flits: pk.Flits, Head: pk.Head, Tail: pk.Tail}}}
}

func creditOf(cycle clock.Cycle, dst messages.CompID, vl, count int32) sent {
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindCredit, At: cycle + 8, Dst: dst, VL: vl, Count: count}}
}

// TestMPortLocalPacket: one packet for a port of the same MPort, under
// both allocators; then the same packet refused once.
func TestMPortLocalPacket(t *testing.T) {
	up1, out2 := benchUp+1, benchOut+2
	grant := grantFor(messages.KindGrant, out2, 1, 0, 198, 198, 203)
	for _, tc := range []struct {
		name  string
		alloc string
		in    []messages.Msg
		want  []sent
	}{
		// Request at r = 182 (effect 190); credit at TailOut+1 = 204.
		{"serial", AllocSerial, []messages.Msg{arrival(1, onePacket), grant}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 0, 165, true, 0),
			creditOf(204, up1, 0, 4),
		}},
		{"pipelined", AllocPipelined, []messages.Msg{arrival(1, onePacket), grant}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 198, 165, true, 0),
			creditOf(204, up1, 0, 4),
		}},
		// Refused at 198: requested again at once (effect 206), granted at
		// 214 (pipelined: the booked start 198 + AT = 214), tail out at
		// max(214 + 5, 165) = 219, credit at 220.
		{"serial refused once", AllocSerial, []messages.Msg{arrival(1, onePacket),
			grantFor(messages.KindNack, out2, 1, 0, 198, 0, 0), grantFor(messages.KindGrant, out2, 1, 0, 214, 214, 219)}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 0, 165, true, 0),
			requestOf(198, out2, 1, 2, onePacket, 0, 165, true, 0),
			creditOf(220, up1, 0, 4),
		}},
		{"pipelined refused once", AllocPipelined, []messages.Msg{arrival(1, onePacket),
			grantFor(messages.KindNack, out2, 1, 0, 198, 0, 0), grantFor(messages.KindGrant, out2, 1, 1, 214, 214, 219)}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 198, 165, true, 0),
			requestOf(198, out2, 1, 2, onePacket, 214, 165, true, 1),
			creditOf(220, up1, 0, 4),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchParams(t, withAlloc(tc.alloc))
			m := newMPort(p, benchSelf, 0, 0, benchMPortLinks(p))
			got := drive(m, 1000, tc.in...)
			expectSent(t, got, tc.want)
			checkSrc(t, got, benchSelf)
			if m.Arrived != 1 || m.Left != 1 || m.occ[1].Total() != 0 {
				t.Errorf("arrived %d, left %d, input 1 holds %d credits; want 1, 1, 0", m.Arrived, m.Left, m.occ[1].Total())
			}
		})
	}
}

// TestMPortCrossing: a packet for another MPort's port goes to the central
// crossbar; the MPort names its input buffer 4·MPort + input there, and the
// VL is the central buffer lane (one link class on a single switch: the
// next VL). MPort 1, input 2 (port 6), SC 3 for NIC 1 (port 1, MPort 0).
func TestMPortCrossing(t *testing.T) {
	pk := pkt(7, 1, 3, 100)
	for _, tc := range []struct {
		alloc string
		ready clock.Cycle
	}{{AllocSerial, 0}, {AllocPipelined, 198}} {
		t.Run(tc.alloc, func(t *testing.T) {
			p := benchParams(t, withAlloc(tc.alloc))
			m := newMPort(p, benchSelf, 0, 1, benchMPortLinks(p))
			got := drive(m, 1000, arrival(2, pk), grantFor(messages.KindGrant, benchCentral, 6, 0, 198, 198, 203))
			expectSent(t, got, []sent{
				requestOf(182, benchCentral, 6, 1, pk, tc.ready, 165, true, 0),
				creditOf(204, benchUp+2, 3, 4),
			})
		})
	}
}

// TestMPortSecondPacket: the second packet on the same input (VL 1) becomes
// ready at 198, when the first one's grant arrives.
//
// Granted first: the input arbiter requests it at 198 (messages are applied
// before units are evaluated). Serial: the read port is busy until the
// first tail leaves, so Ready is 204. Pipelined: the booked start is
// max(198 + AT, 204) = 214. Granted at 214 either way; the tail leaves at
// max(214 + 5, 181) = 219 and the second credit goes at 220.
//
// Not answered: the first request was sent "alone" (no other VL was ready),
// so the destination may hold it. When VL 1 becomes ready at 198 the input
// arbiter withdraws it with a cancel (effect 206); the destination refuses
// it at 206 (effect 214). Serial: the arbiter, round-robin past VL 0, now
// requests VL 1 (not alone: VL 0's packet is back and ready) at 214.
// Pipelined: the same request books max(214 + 16, 0) = 230, ends at
// max(230 + 5, 181) = 235 and so holds the read port until 236, with a
// deadline 230 − μ = 222; one cycle later VL 0's packet is requested for
// the next window, 236.
func TestMPortSecondPacket(t *testing.T) {
	out2, out3 := benchOut+2, benchOut+3
	cancel := sent{cycle: 198, m: messages.Msg{Kind: messages.KindCancel, At: 206, Dst: out2, Slot: 1}}
	refusal := grantFor(messages.KindNack, out2, 1, 0, 214, 0, 0)
	second := func(cycle, ready clock.Cycle, alone bool, tag int32) sent {
		return requestOf(cycle, out3, 1, 3, secondPacket, ready, 181, alone, tag)
	}
	for _, tc := range []struct {
		name  string
		alloc string
		in    []messages.Msg
		want  []sent
	}{
		{"serial granted", AllocSerial, []messages.Msg{grantFor(messages.KindGrant, out2, 1, 0, 198, 198, 203),
			grantFor(messages.KindGrant, out3, 1, 0, 214, 214, 219)}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 0, 165, true, 0),
			second(198, 204, true, 0),
			creditOf(204, benchUp+1, 0, 4),
			creditOf(220, benchUp+1, 1, 4),
		}},
		{"pipelined granted", AllocPipelined, []messages.Msg{grantFor(messages.KindGrant, out2, 1, 0, 198, 198, 203),
			grantFor(messages.KindGrant, out3, 1, 1, 214, 214, 219)}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 198, 165, true, 0),
			second(198, 214, true, 1),
			creditOf(204, benchUp+1, 0, 4),
			creditOf(220, benchUp+1, 1, 4),
		}},
		{"serial withdrawn", AllocSerial, []messages.Msg{refusal}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 0, 165, true, 0),
			cancel,
			second(214, 0, false, 0),
		}},
		{"pipelined withdrawn", AllocPipelined, []messages.Msg{refusal}, []sent{
			requestOf(182, out2, 1, 2, onePacket, 198, 165, true, 0),
			cancel,
			withDeadline(second(214, 230, false, 1), 222),
			requestOf(215, out2, 1, 2, onePacket, 236, 165, true, 2),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchParams(t, withAlloc(tc.alloc))
			m := newMPort(p, benchSelf, 0, 0, benchMPortLinks(p))
			in := append([]messages.Msg{arrival(1, onePacket), arrival(1, secondPacket)}, tc.in...)
			expectSent(t, drive(m, 1000, in...), tc.want)
		})
	}
}

func withDeadline(s sent, d clock.Cycle) sent {
	s.m.Deadline = d
	return s
}

// TestMPortOccupancy: the input buffer's space mirrors the upstream
// sender's credits: taken when the header arrives, freed (and the credit
// sent) the cycle after the tail has left.
func TestMPortOccupancy(t *testing.T) {
	p := benchParams(t, nil)
	m := newMPort(p, benchSelf, 0, 0, benchMPortLinks(p))
	m.Deliver([]messages.Msg{arrival(1, onePacket), grantFor(messages.KindGrant, benchOut+2, 1, 0, 198, 198, 203)})
	var out Outbox
	for _, step := range []struct {
		to   clock.Cycle // advanced up to here
		used int32       // credits VL 0 of input 1 holds
	}{
		{100, 0},  // before the header arrives
		{101, 4},  // the header arrived at 100: the whole packet's space
		{204, 4},  // the tail leaves at 203
		{205, 0},  // freed at 204
		{1000, 0}, // nothing else happens
	} {
		m.Advance(step.to, &out)
		if u := m.occ[1].Used(0); u != step.used {
			t.Errorf("up to cycle %d: input 1 VL 0 holds %d credits, want %d", step.to, u, step.used)
		}
	}
	if m.Next() != clock.Never {
		t.Errorf("MPort has work at %d after its only packet left", m.Next())
	}
}

// TestMPortLinks: the constructor takes what the MPort is connected to.
func TestMPortLinks(t *testing.T) {
	p := benchParams(t, nil)
	l := benchMPortLinks(p)
	l.in[3] = link{} // no link on input 3
	m := newMPort(p, benchSelf, 0, 2, l)
	for i := 0; i < 3; i++ {
		if !m.wired[i] || m.upComp[i] != benchUp+messages.CompID(i) {
			t.Errorf("input %d: wired %t from %d, want from %d", i, m.wired[i], m.upComp[i], benchUp+messages.CompID(i))
		}
	}
	if m.wired[3] {
		t.Errorf("input 3 is wired, want no link")
	}
	if m.central != benchCentral || len(m.outComp) != 48 || m.outComp[47] != benchOut+47 {
		t.Errorf("central %d, %d outputs (last %d)", m.central, len(m.outComp), m.outComp[len(m.outComp)-1])
	}
}

// TestMPortRejectsUnknownMessages: an MPort takes packets and answers only.
func TestMPortRejectsUnknownMessages(t *testing.T) {
	p := benchParams(t, nil)
	m := newMPort(p, benchSelf, 0, 0, benchMPortLinks(p))
	defer func() {
		if recover() == nil {
			t.Errorf("a credit delivered to an MPort did not panic")
		}
	}()
	drive(m, 10, messages.Msg{Kind: messages.KindCredit, At: 1, Dst: benchSelf})
}

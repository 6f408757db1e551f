package fabric

import (
	"fmt"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/workloads"
)

// NIC timing (Default(): FLY 8, 16-flit MTU for every SL of Table 7, 4
// flits per credit; the switch input buffer it feeds has 256 flits = 64
// credits, at most 48 flits = 12 credits per VL). The NIC under test is
// NIC 0; its link enters input slot 2 of benchMPort, and benchOut feeds it.
//
// A packet sent at cycle s moves one flit per cycle: its tail leaves at
// s + flits − 1 and the link is free from s + flits; header and tail reach
// the switch FLY cycles later.

// benchNIC builds NIC 0 alone, generating nothing by itself.
func benchNIC(t *testing.T, edit func(*Config)) *nicComp {
	t.Helper()
	return benchNICWith(t, edit, silent{})
}

// benchNICWith builds NIC 0 alone with source src.
func benchNICWith(t *testing.T, edit func(*Config), src workloads.Source) *nicComp {
	t.Helper()
	p := benchParams(t, edit)
	return newNIC(p, benchSelf, 0, NewStats(len(p.cfg.QoS.SLs)), src,
		nicLinks{up: link{wired: true, comp: benchMPort, slot: 2, credits: p.inCap}, down: benchOut})
}

// message is message seq of NIC 0: flits flits of SL sl for NIC dst.
func message(seq uint64, sl, dst, flits int) workloads.Message {
	return workloads.Message{ID: workloads.NewMessageID(0, seq), SL: sl, Dst: dst, Flits: flits}
}

// toSwitch is the packet message a NIC sends at cycle for packet id of
// flits on SC sc (VL sc).
func toSwitch(cycle clock.Cycle, id uint64, sc uint8, flits int32) sent {
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindPacket, At: cycle + 8, Dst: benchMPort, Slot: 2,
		Pkt: messages.Packet{ID: id, SC: messages.SC(sc), VL: messages.VL(sc), Flits: flits, Head: cycle + 8, Tail: cycle + clock.Cycle(flits) - 1 + 8}}}
}

// TestNICSegmentation: a message queued at cycle 10 is cut into packets
// of at most its SL's MTU, the last one shorter, and sent back to back at
// one flit per cycle. Packet IDs are NIC << 40 | sequence: the message
// takes number 1, its packets 2, 3, ...
//
// 40 flits at MTU 16: 16 + 16 + 8, sent at 10, 10 + 16 = 26, 42.
// 40 flits of SL 1 (SC 2) at an MTU of 256 bytes = 32 flits: 32 + 8, sent
// at 10 and 42. 16 flits: one packet.
func TestNICSegmentation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sl      int
		flits   int32
		mtu     int // bytes, of SL sl; 0: 128
		want    []sent
		credits []int32
	}{
		{"40 flits, MTU 16", 0, 40, 0, []sent{toSwitch(10, 2, 0, 16), toSwitch(26, 3, 0, 16), toSwitch(42, 4, 0, 8)}, []int32{4, 4, 2}},
		{"40 flits, MTU 32", 1, 40, 256, []sent{toSwitch(10, 2, 2, 32), toSwitch(42, 3, 2, 8)}, []int32{8, 2}},
		{"16 flits, MTU 16", 0, 16, 0, []sent{toSwitch(10, 2, 0, 16)}, []int32{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := benchNIC(t, func(c *Config) {
				if tc.mtu > 0 {
					c.QoS.SLs[tc.sl].MTUBytes = tc.mtu
				}
			})
			n.enqueue(message(1, tc.sl, 5, int(tc.flits)), 10)
			n.at(10, nicSend)
			got := drive(n, 1000)
			expectSent(t, got, tc.want)
			checkSrc(t, got, benchSelf)
			for i, s := range got {
				pk := s.m.Pkt
				last := i == len(got)-1
				if pk.Credits != tc.credits[i] || pk.Last != last || pk.Msg != 1 || pk.MsgFlits != tc.flits ||
					pk.InjAt != 10 || pk.GenAt != 10 || pk.Dst != 5 || pk.SL != messages.SL(tc.sl) {
					t.Errorf("packet %d: %+v; want %d credits, last %t, message 1 of %d flits injected and generated at 10, for NIC 5, SL %d",
						i, pk, tc.credits[i], last, tc.flits, tc.sl)
				}
			}
			if n.GenPackets != int64(len(tc.want)) || n.SentPackets != int64(len(tc.want)) {
				t.Errorf("generated %d packets, sent %d; want %d", n.GenPackets, n.SentPackets, len(tc.want))
			}
		})
	}
}

// TestNICCreditStall: an 80-flit message is 5 packets of 4 credits on VL
// 0, which may hold 12 credits of the switch input buffer: three packets
// leave at 10, 26, 42; at 58 the link is free but VL 0 has no credits left,
// so the NIC waits. A credit for 4 at 100 lets the fourth leave then; at
// 116 VL 0 is full again (packets 2, 3, 4); a credit at 130 lets the fifth
// leave. The injection buffer (also 12 credits per VL) admits the fourth
// and fifth packets as the first and second leave (26, 42); that does not
// delay them.
func TestNICCreditStall(t *testing.T) {
	n := benchNIC(t, nil)
	n.enqueue(message(1, 0, 5, 80), 10)
	n.at(10, nicSend)
	credit := func(at clock.Cycle) messages.Msg {
		return messages.Msg{Kind: messages.KindCredit, At: at, Dst: benchSelf, Src: benchMPort, VL: 0, Count: 4}
	}
	got := drive(n, 1000, credit(100), credit(130))
	expectSent(t, got, []sent{
		toSwitch(10, 2, 0, 16), toSwitch(26, 3, 0, 16), toSwitch(42, 4, 0, 16),
		toSwitch(100, 5, 0, 16), toSwitch(130, 6, 0, 16),
	})
	if u := n.down.Used(0); u != 12 || n.Decisions != 5 {
		t.Errorf("VL 0 uses %d credits of the switch input buffer after %d decisions; want 12, 5", u, n.Decisions)
	}
}

// TestNICAdmission: the injection buffer admits a packet only when its VL
// has room (12 credits per VL): of five 4-credit packets queued at 10,
// three are admitted; each departure (its tail leaves at 25, 41, ...)
// frees its space the cycle after and admits the next.
func TestNICAdmission(t *testing.T) {
	n := benchNIC(t, nil)
	n.enqueue(message(1, 0, 5, 80), 10)
	n.at(10, nicSend)
	var out Outbox
	for _, step := range []struct {
		to            clock.Cycle
		app, injected int // packets in the application queue, in the injection buffer
	}{
		{10, 5, 0}, {11, 2, 2}, {26, 2, 2}, {27, 1, 2}, {43, 0, 2}, {59, 0, 2}, {1000, 0, 2},
	} {
		n.Advance(step.to, &out)
		if a, i := n.app[0].Len(), n.inj[0].Len(); a != step.app || i != step.injected {
			t.Errorf("up to %d: %d packets queued, %d in the injection buffer; want %d, %d", step.to, a, i, step.app, step.injected)
		}
	}
}

// TestNICScheduler: messages of SL 2 (SC 4) and SL 0 queued at 10; the rr
// scheduler starts with SL 0 (none sent yet), then SL 2 at 26.
func TestNICScheduler(t *testing.T) {
	n := benchNIC(t, nil)
	n.enqueue(message(1, 2, 5, 16), 10)
	n.enqueue(message(2, 0, 6, 16), 10)
	n.at(10, nicSend)
	expectSent(t, drive(n, 1000), []sent{toSwitch(10, 4, 0, 16), toSwitch(26, 2, 4, 16)})
}

// TestNICReceive: a packet whose tail reaches the NIC at 215 is ejected
// then, and its 4 credits of VL 3 go back to the output port feeding the
// NIC, taking effect 1 + FLY later (224).
func TestNICReceive(t *testing.T) {
	n := benchNIC(t, nil)
	var seen []messages.Packet
	n.trace = func(pk messages.Packet) { seen = append(seen, pk) }
	pk := messages.Packet{ID: 77, Src: 9, Dst: 0, SL: 1, SC: 3, VL: 3, Last: true, Flits: 16, Credits: 4, MsgFlits: 16,
		GenAt: 50, InjAt: 60, Head: 200, Tail: 215}
	got := drive(n, 1000, messages.Msg{Kind: messages.KindPacket, At: 200, Dst: benchSelf, Src: benchOut, Pkt: pk})
	expectSent(t, got, []sent{{cycle: 215, m: messages.Msg{Kind: messages.KindCredit, At: 224, Dst: benchOut, VL: 3, Count: 4}}})
	if len(seen) != 1 || seen[0] != pk || n.DeliveredPackets != 1 || n.DeliveredFlits != 16 {
		t.Errorf("delivered %v (%d packets, %d flits); want the one packet of 16 flits", seen, n.DeliveredPackets, n.DeliveredFlits)
	}
}

// TestNICLinks: the constructor takes both directions of the NIC's link.
func TestNICLinks(t *testing.T) {
	n := benchNIC(t, nil)
	if n.upComp != benchMPort || n.upSlot != 2 || n.dnComp != benchOut || n.down.FreeCredits() != 64 {
		t.Errorf("up %d slot %d, down %d, %d credits; want %d, 2, %d, 64", n.upComp, n.upSlot, n.dnComp, n.down.FreeCredits(),
			benchMPort, benchOut)
	}
}

// TestNICReplies: a NIC tells its source of each message that has arrived
// whole, and sends what the source then has due. The reply source answers
// NIC 9's 32-flit message (two packets, tails at 215 and 231) once both
// have arrived: the answer is due at 232 and leaves then, 16 flits of SL 1
// on its first SC (2), for NIC 9. NIC 7's one-packet message (tail 300) is
// answered at 301 on SL 1's second SC (3). Told nothing, the source sends
// nothing; from traffic.stop_cycle on, nothing is generated.
func TestNICReplies(t *testing.T) {
	credit := func(at clock.Cycle) sent {
		return sent{cycle: at, m: messages.Msg{Kind: messages.KindCredit, At: at + 9, Dst: benchOut, Count: 4}}
	}
	from := func(src int, flits int32, head clock.Cycle) messages.Msg {
		pk := messages.Packet{ID: uint64(head), Msg: uint64(workloads.NewMessageID(src, 1)), Src: int32(src), Flits: 16,
			Credits: 4, MsgFlits: flits, Last: head != 200, Head: head, Tail: head + 15}
		return messages.Msg{Kind: messages.KindPacket, At: head, Dst: benchSelf, Src: benchOut, Pkt: pk}
	}
	for _, tc := range []struct {
		name string
		stop int64
		in   []messages.Msg
		want []sent
		dsts []int32
	}{
		{"told nothing", 0, nil, nil, nil},
		{"two messages", 0, []messages.Msg{from(9, 32, 200), from(9, 32, 216), from(7, 16, 285)},
			[]sent{credit(215), credit(231), toSwitch(232, 2, 2, 16), credit(300), toSwitch(301, 4, 3, 16)}, []int32{9, 7}},
		{"stop at 250", 250, []messages.Msg{from(9, 32, 200), from(9, 32, 216), from(7, 16, 285)},
			[]sent{credit(215), credit(231), toSwitch(232, 2, 2, 16), credit(300)}, []int32{9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := benchNICWith(t, func(c *Config) { c.Traffic.StopCycle = tc.stop }, workloads.NewReply(0, 1, 16, 1))
			got := drive(n, 1000, tc.in...)
			expectSent(t, got, tc.want)
			var dsts []int32
			for _, s := range got {
				if s.m.Kind == messages.KindPacket {
					dsts = append(dsts, s.m.Pkt.Dst)
				}
			}
			if fmt.Sprint(dsts) != fmt.Sprint(tc.dsts) {
				t.Errorf("replies to NICs %v, want %v", dsts, tc.dsts)
			}
		})
	}
}

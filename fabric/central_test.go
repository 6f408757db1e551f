package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Central crossbar timing at the Table 1 latencies (Default()): λ = μ = 8,
// MPort crossbar X 2 at 3 flits/cycle into the central buffers, 4
// flits/cycle out of them; 12 MPorts, so units 0-11 are the arbiters of the
// buffer pairs and 12+b is central buffer b as a source.
//
// A request of MPort 1's input 2 (slot 6 here) takes effect at 190, for a
// transfer the pipelined source booked at 198 (the serial one asks for 0:
// as soon as the grant arrives, 190 + μ = 198 again). The pair of MPort 1
// is buffers 2 and 3; the one with more free space takes it, ties to 2.
// Grant at 190, effect 198; the transfer starts at 198, the tail leaves at
// max(198 + ceil(16/3) − 1, 165) = 203 and the buffer's write port is free
// from 204. The header lands at 198 + X = 200, where the central buffer
// (perfect: seed 002 section 2.2) may request at once: effect 208, booked
// start 200 + AT = 216 (serial: 0). Granted at 216, at 4 flits/cycle the
// tail leaves at max(216 + 3, 205) = 219 (it was available at 203 + X);
// the space is freed at 220.

// centralRequest is a request of MPort mp's input i for output out, SC/VL
// vl, arriving at 190 (pipelined: booked at 198).
func centralRequest(p *params, id uint64, mp, i int, out int32, vl uint8, alone bool) messages.Msg {
	pk := pkt(id, out, vl, 100)
	ready := clock.Cycle(0)
	if p.pipelined {
		ready = 198
	}
	return messages.Msg{Kind: messages.KindRequest, At: 190, Dst: benchSelf, Src: benchMPort + messages.CompID(mp),
		Slot: int32(4*mp + i), VL: int32(vl), Out: out, Alone: alone, Queue: int32(vl), Ready: ready, TailAvail: 165, Pkt: pk}
}

// grantOf is the grant the bench expects at cycle, for the request of slot.
func grantOf(cycle clock.Cycle, dst messages.CompID, slot, vl int32, start, tailOut clock.Cycle) sent {
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindGrant, At: cycle + 8, Dst: dst, Slot: slot, VL: vl,
		Start: start, TailOut: tailOut}}
}

// centralOnward is central buffer b's request for output out of the packet
// of request r, sent at cycle.
func centralOnward(p *params, cycle clock.Cycle, b int32, r messages.Msg, ready clock.Cycle) sent {
	if !p.pipelined {
		ready = 0
	}
	pk := r.Pkt
	return sent{cycle: cycle, m: messages.Msg{Kind: messages.KindRequest, At: cycle + 8, Dst: benchOut + messages.CompID(r.Out),
		Slot: 4 + b, VL: int32(pk.VL), Out: r.Out, Alone: true, Queue: int32(pk.VL), Ready: ready, TailAvail: 205,
		Pkt: messages.Packet{ID: pk.ID, SC: pk.SC, VL: pk.VL, Flits: pk.Flits, Head: pk.Head, Tail: pk.Tail}}}
}

func newBenchCentral(p *params) *centralXbar {
	return newCentralCrossbar(p, benchSelf, 0, 12, benchMPortLinks(p).outputs)
}

// TestCentralOnePacket: accepted into the first buffer of the pair, then
// requested onward; the space is held until the tail has left.
func TestCentralOnePacket(t *testing.T) {
	for _, alloc := range []string{AllocSerial, AllocPipelined} {
		t.Run(alloc, func(t *testing.T) {
			p := benchParams(t, withAlloc(alloc))
			c := newBenchCentral(p)
			r := centralRequest(p, 1, 1, 2, 9, 3, true)
			onward := messages.Msg{Kind: messages.KindGrant, At: 216, Dst: benchSelf, Src: benchOut + 9, Slot: 6,
				VL: 3, Start: 216, TailOut: 219}
			got := drive(c, 220, r, onward)
			expectSent(t, got, []sent{
				grantOf(190, benchMPort+1, 6, 3, 198, 203),
				centralOnward(p, 200, 2, r, 216),
			})
			checkSrc(t, got, benchSelf)
			if u := c.buf[2].space.Used(3); u != 4 || c.Accepted != 1 || c.Left != 0 {
				t.Errorf("at 219: buffer 2 lane 3 holds %d credits, accepted %d, left %d; want 4, 1, 0", u, c.Accepted, c.Left)
			}
			drive(c, 221)
			if u := c.buf[2].space.Used(3); u != 0 || c.Left != 1 {
				t.Errorf("at 220: buffer 2 lane 3 holds %d credits, left %d; want 0, 1", u, c.Left)
			}
		})
	}
}

// TestCentralPair: three input buffers of MPort 1 request at once (inputs
// 0, 1, 2 for outputs 9, 10, 11, VL 0). The two buffers of the pair each
// accept one at 190, buffer 2 first (round-robin from input 0, ties on
// free space to the lower index), buffer 3 the next input. The third waits
// for a write port: buffer 2's is free from 204, so its arbiter looks again
// at 204 − μ = 196 (both buffers hold 4 credits: buffer 2 again) and grants
// for a start at 204, the tail leaving at max(204 + 5, 165) = 209. Each
// buffer requests onward when the header lands, X = 2 after the start: 200
// and 200. The third packet lands at 206 behind the first in buffer 2's
// lane 0, so it waits for the answer to the first one's request: granted
// at 216 (tail out at 219), then requested at 216, its tail available at
// 209 + 2 = 211; the read port is free from 220 (serial Ready), and the
// pipelined source books max(216 + AT, 220) = 232.
func TestCentralPair(t *testing.T) {
	for _, alloc := range []string{AllocSerial, AllocPipelined} {
		t.Run(alloc, func(t *testing.T) {
			p := benchParams(t, withAlloc(alloc))
			c := newBenchCentral(p)
			rs := []messages.Msg{centralRequest(p, 1, 1, 0, 9, 0, true), centralRequest(p, 2, 1, 1, 10, 0, true),
				centralRequest(p, 3, 1, 2, 11, 0, true)}
			third := centralOnward(p, 216, 2, rs[2], 232)
			third.m.TailAvail = 211
			if p.pipelined {
				third.m.Tag = 1 // the buffer's second request
			} else {
				third.m.Ready = 220
			}
			onward := messages.Msg{Kind: messages.KindGrant, At: 216, Dst: benchSelf, Src: benchOut + 9, Slot: 6,
				Start: 216, TailOut: 219}
			expectSent(t, drive(c, 1000, append(rs, onward)...), []sent{
				grantOf(190, benchMPort+1, 4, 0, 198, 203),
				grantOf(190, benchMPort+1, 5, 0, 198, 203),
				grantOf(196, benchMPort+1, 6, 0, 204, 209),
				centralOnward(p, 200, 2, rs[0], 216),
				centralOnward(p, 200, 3, rs[1], 216),
				third,
			})
		})
	}
}

// TestCentralRefusal: a request whose packet fits in neither buffer of the
// pair (16 credits on a lane that may hold 48 flits = 12) is refused at
// once (effect 190 + μ = 198), unless it was sent alone: the destination
// holds it then, until its source withdraws it (cancel at 200, refusal
// effective 208).
func TestCentralRefusal(t *testing.T) {
	for _, alloc := range []string{AllocSerial, AllocPipelined} {
		for _, alone := range []bool{false, true} {
			p := benchParams(t, withAlloc(alloc))
			c := newBenchCentral(p)
			r := centralRequest(p, 1, 1, 2, 9, 3, alone)
			r.Pkt.Flits, r.Pkt.Credits = 64, 16
			in := []messages.Msg{r}
			want := []sent{{cycle: 190, m: messages.Msg{Kind: messages.KindNack, At: 198, Dst: benchMPort + 1, Slot: 6, VL: 3}}}
			if alone {
				in = append(in, messages.Msg{Kind: messages.KindCancel, At: 200, Dst: benchSelf, Src: benchMPort + 1, Slot: 6})
				want = []sent{{cycle: 200, m: messages.Msg{Kind: messages.KindNack, At: 208, Dst: benchMPort + 1, Slot: 6, VL: 3}}}
			}
			t.Logf("%s, alone %t", alloc, alone)
			expectSent(t, drive(c, 1000, in...), want)
			if c.Accepted != 0 || c.buf[2].space.Total() != 0 || c.buf[3].space.Total() != 0 {
				t.Errorf("%s, alone %t: accepted %d", alloc, alone, c.Accepted)
			}
		}
	}
}

// TestCentralFreeSpaceRule: the buffer of the pair with more free space
// takes the packet. Buffer 2 already holds a packet (accepted at 190 from
// input 0, requested onward at 200 as slot 4+2); a request of input 1 at
// 300, when both write ports are free, goes to buffer 3: grant at 300, the
// header lands at 300 + μ + X = 310, when buffer 3 requests onward (slot
// 4+3).
func TestCentralFreeSpaceRule(t *testing.T) {
	p := benchParams(t, withAlloc(AllocSerial))
	c := newBenchCentral(p)
	first := centralRequest(p, 1, 1, 0, 9, 0, true)
	later := centralRequest(p, 2, 1, 1, 10, 0, true)
	later.At = 300
	got := drive(c, 1000, first, later)
	if len(got) != 4 {
		t.Fatalf("sent %d messages, want 2 grants and 2 requests: %v", len(got), got)
	}
	for i, want := range []struct {
		cycle clock.Cycle
		kind  messages.Kind
		slot  int32
	}{{190, messages.KindGrant, 4}, {200, messages.KindRequest, 6}, {300, messages.KindGrant, 5}, {310, messages.KindRequest, 7}} {
		if s := got[i]; s.cycle != want.cycle || s.m.Kind != want.kind || s.m.Slot != want.slot {
			t.Errorf("message %d: %v, want %s of slot %d at %d", i, s, want.kind, want.slot, want.cycle)
		}
	}
}

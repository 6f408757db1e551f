package fabric_test

import (
	"context"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// quiet builds a network whose NICs generate nothing on their own.
func quiet(t *testing.T, cfg fabric.Config) *fabric.Network {
	t.Helper()
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.NumNICs() {
		fabric.Silence(fabric.NICAt(n, i))
	}
	return n
}

// TestZeroLoadHeaderLatency checks MODEL.md section 3: one packet's header
// crosses the switch in RT+SB+AT+X+SB+FLY cycles inside an MPort and in
// RT+SB+AT+X+AT+X+SB+FLY cycles across MPorts, exactly, for the default
// latencies and for a second set of odd values, under every allocator
// (and the pipelined one with every switch.request_pipelining).
func TestZeroLoadHeaderLatency(t *testing.T) {
	for name, set := range allocVariants() {
		t.Run(name, func(t *testing.T) { zeroLoadHeaderLatency(t, set) })
	}
}

func zeroLoadHeaderLatency(t *testing.T, set func(*fabric.Config)) {
	odd := fabric.LatencyConfig{RT: 7, SBIn: 11, SBOut: 13, AT: 5, XMPort: 3, XCentral: 1, Fly: 2}
	for _, lat := range []fabric.LatencyConfig{fabric.Default().Switch.Latency, odd} {
		l := lat
		inMPort := l.RT + l.SBIn + l.AT + l.XMPort + l.SBOut + l.Fly
		across := l.RT + l.SBIn + l.AT + l.XMPort + l.AT + l.XCentral + l.SBOut + l.Fly
		for _, tc := range []struct {
			name     string
			src, dst int
			want     int64
		}{
			{"same MPort", 0, 1, inMPort},
			{"same MPort, last port", 47, 44, inMPort},
			{"across MPorts", 0, 5, across},
			{"across MPorts, far", 46, 3, across},
		} {
			cfg := fabric.Default()
			cfg.Switch.Latency = lat
			set(&cfg)
			cfg.Cycles = 2000
			cfg.Warmup = 0
			n := quiet(t, cfg)
			var got []messages.Packet
			fabric.TraceDeliveries(fabric.NICAt(n, tc.dst), func(p messages.Packet) { got = append(got, p) })
			const t0 = 100
			src := fabric.NICAt(n, tc.src)
			fabric.SendAt(src, 0, tc.dst, 16, t0)
			o := sim.RunSequential(context.Background(), n, sim.Hooks{})
			if len(got) != 1 {
				t.Fatalf("%s: %d packets delivered, want 1", tc.name, len(got))
			}
			p := got[0]
			// The header reaches the switch FLY cycles after leaving the NIC.
			if p.InjAt != t0 {
				t.Fatalf("%s: injected at %d, want %d (queued then, link idle)", tc.name, p.InjAt, t0)
			}
			if through := int64(p.Head - p.InjAt - clock.Cycle(l.Fly)); through != tc.want {
				t.Errorf("latency %+v, %s: header through the switch in %d cycles, want %d", l, tc.name, through, tc.want)
			}
			if p.Tail-p.Head != 15 {
				t.Errorf("%s: tail %d cycles behind the header, want 15 (one flit per cycle)", tc.name, p.Tail-p.Head)
			}
			if probs := n.CheckConservation(o.InFlight); len(probs) > 0 {
				t.Errorf("%s: conservation: %v", tc.name, probs)
			}
		}
	}
}

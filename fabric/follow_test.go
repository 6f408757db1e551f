package fabric_test

import (
	"context"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/workloads"
)

// TestFollowerWaitsForFirstAnswer: on an idle 8-port switch NIC 3 sends a
// 1-flit message to NIC 0 at 100 and another, on the other VL (the SL's
// next SC), to NIC 1 at 100 + d. The first crosses at zero load. The
// second is late by what its input buffer waits for the first one's
// answer:
//
//   - pipelined: the first request, sent while no other VL had a packet
//     ready, is "alone" (the destination may hold it), and nothing is
//     booked after an alone request; when the follower's head is ready
//     (d cycles later) the buffer withdraws the first request and waits for
//     its answer, which comes AT after it was sent. The follower is
//     requested AT − d cycles late (docs/validation.md, "a packet that
//     follows another");
//   - serial: one request in flight at a time, the same AT − d;
//   - islip (1 iteration, phases of a = AT/3): the buffer's round is in
//     flight until its answers arrive, 2a after its requests: 2a − d.
//
// and on time once d reaches that wait.
func TestFollowerWaitsForFirstAnswer(t *testing.T) {
	for _, alloc := range fabric.AllocatorNames() {
		for _, at := range []int64{10, 16, 24} {
			wait := at
			if alloc == fabric.AllocIslip {
				wait = 2 * (at / 3)
			}
			for _, d := range []int64{1, 2, at / 2, at - 1, at, at + 3} {
				first, second := followerDelay(t, alloc, at, d)
				if first != 0 || second != max(0, wait-d) {
					t.Errorf("%s, AT %d, follower %d cycles behind: late by %d and %d cycles; want 0 and %d",
						alloc, at, d, first, second, max(0, wait-d))
				}
			}
		}
	}
}

// followerDelay runs the two messages and returns how much later than the
// zero-load header latency each reaches its NIC.
func followerDelay(t *testing.T, alloc string, at, d int64) (first, second int64) {
	t.Helper()
	cfg := fabric.Default()
	cfg.Topology.Ports = 8
	cfg.Switch.Allocator = alloc
	cfg.Switch.Latency.AT = at
	cfg.Cycles, cfg.Warmup = 3000, 0
	n := quiet(t, cfg)
	l := cfg.Switch.Latency
	zeroLoad := l.Fly + l.RT + l.SBIn + l.AT + l.XMPort + l.SBOut + l.Fly // NIC to NIC, inside MPort 0
	got := map[int]messages.Packet{}
	for _, dst := range []int{0, 1} {
		fabric.TraceDeliveries(fabric.NICAt(n, dst), func(p messages.Packet) { got[dst] = p })
	}
	fabric.Script(fabric.NICAt(n, 3),
		workloads.Message{At: 100, SL: 0, Dst: 0, Flits: 1},
		workloads.Message{At: clock.Cycle(100 + d), SL: 0, Dst: 1, Flits: 1})
	o := sim.RunSequential(context.Background(), n, sim.Hooks{})
	if probs := n.CheckConservation(o.InFlight); len(probs) > 0 {
		t.Fatalf("conservation: %v", probs)
	}
	a, b := got[0], got[1]
	if a.ID == 0 || b.ID == 0 || a.VL == b.VL {
		t.Fatalf("packets %+v and %+v: want both delivered, on different VLs", a, b)
	}
	return int64(a.Head-a.InjAt) - zeroLoad, int64(b.Head-b.InjAt) - zeroLoad
}

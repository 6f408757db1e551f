package fabric_test

import (
	"context"
	"strings"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
	"github.com/opasim/opasim/workloads"
)

// Packet preemption, worked out by hand on an 8-port switch (SL MTUs of
// 64 flits) at the Table 1 latencies (RT 32, SB 50, AT 16 = λ 8 + μ 8, X 2, FLY 8; MPort crossbar
// 3 flits/cycle, central 4), VO (SL 0) allowed to preempt BE (SL 3) after
// 16 flits. Ports 0-3 share MPort 0.
//
// At the switch's output port. NIC 0 sends a BE packet of 64 flits to NIC 1
// at 100: its header reaches the switch at 108, is routed at 190, crosses at
// 206 (+AT), is stored in output buffer 1 at 206 + 2 + 50 = 258 and leaves
// on the link then (header at NIC 1 at 266). Its tail leaves NIC 0 at 163,
// reaches the switch at 171, is available at 221, crosses by
// max(206 + ⌈64/3⌉ − 1, 221) = 227 and is in the output buffer at 279; the
// link sends it by max(258 + 63, 279) = 321 (at NIC 1 at 329).
// NIC 2 sends a VO packet of 16 flits to NIC 1 at 132: at zero load it
// would leave the output port at 132 + 8 + 50 + 32 + 16 + 2 + 50 = 290
// (the write port is free from 228, before its crossing at 238). At 290
// the BE packet has sent 32 ≥ 16 flits: VO interrupts it and leaves at
// once (header at NIC 1 at 298, tail at max(290 + 15, 243 + 52) + 8 =
// 313), BE resumes at 306 with 32 flits left and its tail reaches NIC 1 at
// 306 + 31 + 8 = 345. Without preemption VO waits for BE's tail (321):
// header 330, tail 345; BE's tail 329.
//
// On the NIC's own link. NIC 0 sends the BE packet at 100 and a VO packet
// of 16 flits to NIC 5 (MPort 1) at 120: BE has sent 20 flits, VO goes
// 120-135, BE resumes at 136 and its tail leaves at 179 (at the switch 187,
// available at 237). The news reaches the switch at 128, before BE is
// routed (190): BE crosses from 206 until its tail, 237, holding input
// buffer 0's read port. VO, routed at 128 + 82 = 210, crosses at 238, not
// 226; from the central buffer at 240 + 16 = 256, is stored in output
// buffer 5 at 308: header at NIC 5 at 316, 12 cycles after its zero-load
// 304. BE's tail still reaches NIC 1 at 329: the output link (258 + 63)
// absorbs the 16 cycles. Without preemption VO leaves NIC 0 after BE, at
// 164, and crosses at zero load: header at NIC 5 at 164 + 8 + 176 = 348.
//
// A late packet waits for its tail. With a VO packet of 64 flits at 120
// on NIC 0's link, BE resumes at 184, its tail leaves at 227 and is
// available at the switch at 285: BE's flits could not follow from its
// routing (190), so input buffer 0 requests it only when its tail is in,
// at 285. VO, routed at 210, crosses first (226-247, its tail available at
// 241) and reaches NIC 5 at zero load: header 304, tail max(296 + 63, 249
// + 52) + 8 = 367. BE crosses from 285 + 16 = 301 until max(301 + 22 − 1,
// 285) = 322, is stored at 301 + 2 + 50 = 353 and leaves then: header at
// NIC 1 at 361, tail max(353 + 63, 322 + 52) + 8 = 424. Had BE been
// requested at 190, it would have held the read port from 206 to 285 and
// VO would have crossed 60 cycles later. (Requested as soon as its flits
// could follow, from 285 − 63 = 222, it would arrive at 308 and 371, but
// a second interruption upstream would then find its transfer running.) Without preemption VO
// leaves at 164 (tail available at the switch at 285, crossing 270-285,
// from the central buffer 288-303): header 348, tail max(340 + 63, 303 +
// 52) + 8 = 411.
func TestPreemptionTiming(t *testing.T) {
	type want struct{ voInj, voHead, voTail, beHead, beTail clock.Cycle }
	for _, tc := range []struct {
		name    string
		preempt bool
		voNIC   int
		voAt    clock.Cycle
		voDst   int
		voFlits int
		want    want
		links   int64 // packets interrupted on NIC 0's link
	}{
		{"output port, preemption", true, 2, 132, 1, 16, want{132, 298, 313, 266, 345}, 0},
		{"output port, none", false, 2, 132, 1, 16, want{132, 330, 345, 266, 329}, 0},
		{"NIC link, preemption", true, 0, 120, 5, 16, want{120, 316, 331, 266, 329}, 1},
		{"NIC link, none", false, 0, 120, 5, 16, want{164, 348, 363, 266, 329}, 0},
		{"NIC link, long preemptor", true, 0, 120, 5, 64, want{120, 304, 367, 361, 424}, 1},
		{"NIC link, long, none", false, 0, 120, 5, 64, want{164, 348, 411, 266, 329}, 0},
	} {
		for _, alloc := range fabric.AllocatorNames() {
			if tc.preempt && alloc == fabric.AllocIslip {
				continue // refused: islip does not model late tails (the cases without preemption run under it)
			}
			t.Run(tc.name+", "+alloc, func(t *testing.T) {
				cfg := fabric.Default()
				cfg.Topology.Ports = 8
				cfg.Switch.Allocator = alloc
				cfg.Cycles, cfg.Warmup = 2000, 0
				for i := range cfg.QoS.SLs {
					cfg.QoS.SLs[i].MTUBytes = 512 // 64 flits: the BE message is one packet
				}
				cfg.Switch.MaxVLFlits = 128
				if tc.preempt {
					cfg.QoS.Preemption = fabric.PreemptionConfig{Preempts: map[string][]string{"VO": {"BE"}}, MinFlits: 16}
				}
				n := quiet(t, cfg)
				got := map[messages.SL]messages.Packet{}
				for _, d := range []int{1, 5} {
					fabric.TraceDeliveries(fabric.NICAt(n, d), func(p messages.Packet) { got[p.SL] = p })
				}
				be := workloads.Message{At: 100, SL: 3, Dst: 1, Flits: 64}
				vo := workloads.Message{At: tc.voAt, SL: 0, Dst: tc.voDst, Flits: tc.voFlits}
				if tc.voNIC == 0 {
					fabric.Script(fabric.NICAt(n, 0), be, vo)
				} else {
					fabric.Script(fabric.NICAt(n, 0), be)
					fabric.Script(fabric.NICAt(n, tc.voNIC), vo)
				}
				o := sim.RunSequential(context.Background(), n, sim.Hooks{})
				v, b := got[0], got[3]
				if g := (want{v.InjAt, v.Head, v.Tail, b.Head, b.Tail}); g != tc.want {
					t.Errorf("VO injected %d, head %d, tail %d; BE head %d, tail %d\nwant %+v", g.voInj, g.voHead, g.voTail, g.beHead, g.beTail, tc.want)
				}
				if p := fabric.LinkPreemptions(fabric.NICAt(n, 0)); p != tc.links {
					t.Errorf("NIC 0's link: %d packets interrupted, want %d", p, tc.links)
				}
				tot := n.Totals()
				wantAll := int64(0)
				if tc.preempt {
					wantAll = 1
				}
				if tot.Preemptions != wantAll || tc.preempt && tot.PreemptionsByPair[0][3] != 1 {
					t.Errorf("%d packets interrupted in all (by pair %v), want %d", tot.Preemptions, tot.PreemptionsByPair, wantAll)
				}
				if probs := n.CheckConservation(o.InFlight); len(probs) > 0 {
					t.Errorf("conservation: %v", probs)
				}
			})
		}
	}
}

// TestConservationSeesPartlySentPackets: runs stopped at several cycles
// of a saturated fat tree with every SL preempting those below find packets
// interrupted and conserved at both ends; a receiver made to forget one is
// reported.
func TestConservationSeesPartlySentPackets(t *testing.T) {
	found := 0
	for _, end := range []int64{1501, 2203, 3007, 4111} {
		cfg := fabric.Default()
		if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
			t.Fatal(err)
		}
		cfg.Topology.Preset, cfg.QoS.Scheduler, cfg.Traffic.Load = "tree-8ary-2", "dtable", 1.0
		cfg.Cycles, cfg.Warmup = end, 0
		cfg.QoS.Preemption = fabric.PreemptionConfig{MinFlits: 4,
			Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"CL", "BE", "BK"}, "CL": {"BE", "BK"}}}
		n, err := fabric.Build(cfg, sched.Default())
		if err != nil {
			t.Fatal(err)
		}
		o := sim.RunSequential(context.Background(), n, sim.Hooks{})
		if probs := n.CheckConservation(o.InFlight); len(probs) > 0 {
			t.Fatalf("stopped at %d: %v", end, probs)
		}
		id, rcv, slot, ok := fabric.Interrupted(n)
		if !ok {
			continue
		}
		found++
		fabric.Forget(n, rcv, slot, id)
		probs := n.CheckConservation(o.InFlight)
		if len(probs) == 0 || !strings.Contains(strings.Join(probs, "\n"), "is partly sent, but its receiver") {
			t.Errorf("stopped at %d, packet %d forgotten by its receiver: %v", end, id, probs)
		}
	}
	if found == 0 {
		t.Fatal("no run stopped with a packet interrupted: the check was not tried")
	}
	t.Logf("%d of 4 stops had a packet interrupted", found)
}

// TestDeepPreemptionNoStartupLoss: seed 000's mix on the 48-port switch at
// load 1.0 with every SL preempting those below (min_flits 16). A packet
// interrupted upstream is requested only once its tail is in (source.due):
// requested as soon as its flits could follow, a further interruption
// upstream found its transfer running, and the read port, the write port
// and the output link were held for the new tail. That cost 0.77–0.79 of
// a link over the first 20,000 cycles (45,000 link cycles held for a
// late flit, seeds 1–3), recovering only after 50,000–100,000 cycles; now
// the switch accepts 0.97, as without preemption (0.98), from the start,
// and almost no link cycle is held.
func TestDeepPreemptionNoStartupLoss(t *testing.T) {
	cfg := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	cfg.QoS.Scheduler, cfg.Traffic.Load = "dtable", 1.0
	cfg.Cycles, cfg.Warmup = 20000, 5000
	cfg.QoS.Preemption = fabric.PreemptionConfig{MinFlits: 16,
		Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"CL", "BE", "BK"}, "CL": {"BE", "BK"}}}
	_, r := run(t, cfg)
	p := r.Preemption
	if p == nil || p.Preemptions < 10000 {
		t.Fatalf("preemption %+v: want packets interrupted", p)
	}
	if r.AcceptedThroughput < 0.95 || p.HoleCycles > 2000 {
		t.Errorf("accepted %.4f, %d link cycles held for a late flit; want at least 0.95 and at most 2,000", r.AcceptedThroughput, p.HoleCycles)
	}
	t.Logf("accepted %.4f, %d packets interrupted, %d link cycles held for a late flit", r.AcceptedThroughput, p.Preemptions, p.HoleCycles)
}

package fabric_test

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// laneScenario: one 16-port switch, CBR
// bit-complement traffic at load 1.0 (no two streams share an output), one
// SL on SC 0 with a 512-byte MTU, P-flit messages (one packet each). The 4
// NICs of an MPort send to 4 different ports of one other MPort, so the 4
// streams cross the central crossbar through their MPort's pair of central
// buffers, one lane each, every lane holding packets for 4 outputs.
const laneScenario = `
topology: {kind: single_switch, ports: 16}
switch: {max_vl_flits: 144}
qos:
  sls:
    - {name: A, scs: [0], mtu_bytes: 512, share: 1}
traffic: {pattern: bit_complement, process: cbr, load: 1.0, message_flits: 16}
`

func laneConfig(t *testing.T, pipelining string, at int64, depth int) fabric.Config {
	t.Helper()
	cfg := fabric.Default()
	if err := sim.DecodeConfig([]byte(laneScenario), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Switch.RequestPipelining, cfg.Switch.Latency.AT, cfg.Switch.AllocatorDepth = pipelining, at, depth
	cfg.Cycles, cfg.Warmup = 20000, 5000
	return cfg
}

// laneGaps are the gaps between consecutive transfer starts of a central
// buffer lane, split by whether the two packets go to the same output.
type laneGaps struct {
	same, diff   []float64
	sameFraction float64
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// runLanes runs cfg and returns its results and the gaps of every central
// buffer lane over the measured window.
func runLanes(t *testing.T, cfg fabric.Config) (*sim.Results, laneGaps) {
	t.Helper()
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	type xfer struct {
		start int64
		out   int32
	}
	reqs := map[[3]int64]messages.Msg{}
	lanes := map[[3]int64][]xfer{}
	see := func(m *messages.Msg) bool {
		switch m.Kind {
		case messages.KindRequest:
			reqs[[3]int64{int64(m.Src), int64(m.Slot), int64(m.Tag)}] = *m
		case messages.KindGrant, messages.KindNack:
			k := [3]int64{int64(m.Dst), int64(m.Slot), int64(m.Tag)}
			r := reqs[k]
			delete(reqs, k)
			if m.Kind == messages.KindGrant && fabric.KindOf(n, m.Dst) == "central" && int64(m.Start) >= cfg.Warmup {
				lane := [3]int64{int64(m.Dst), int64(m.Slot), int64(r.Queue)}
				lanes[lane] = append(lanes[lane], xfer{int64(m.Start), r.Out})
			}
		}
		return false
	}
	o, _ := sim.Sequential{Lose: see}.Run(context.Background(), n, sim.Hooks{})
	r := sim.Measure(n, o)
	if !r.ConservationOK {
		t.Fatalf("conservation: %v", r.ConservationProblems)
	}
	var g laneGaps
	for _, xs := range lanes {
		sort.Slice(xs, func(i, j int) bool { return xs[i].start < xs[j].start })
		for i := 1; i < len(xs); i++ {
			gap := float64(xs[i].start - xs[i-1].start)
			if xs[i].out == xs[i-1].out {
				g.same = append(g.same, gap)
			} else {
				g.diff = append(g.diff, gap)
			}
		}
	}
	g.sameFraction = float64(len(g.same)) / float64(max(len(g.same)+len(g.diff), 1))
	return r, g
}

// TestRequestPipeliningLaneRate pins the lane request rule, the isolating
// experiment of docs/validation.md. Under same_destination a central
// buffer lane requests a head bound for another output than the previous
// one only when the previous answer has come back, so consecutive
// transfers toward different outputs start AT apart, while those toward
// the same output follow one another (a transfer of ceil(P/4) cycles). With
// a fraction f of same-output successions, measured, and the same-output
// gap g, measured, a lane moves P flits per f·g + (1−f)·AT cycles; the 2
// lanes of an MPort carry its 4 streams, so each stream gets
// 2P / (4 (f·g + (1−f)·AT)) (0.646 at AT 16). With allocator_depth 1 every
// request waits for the previous answer whatever its output, so each gap
// is AT and a stream gets exactly 2P/(4·AT) under either setting. Under
// any_destination the lanes are not the bottleneck (2 lanes could move
// 2·P/ceil(P/4) = 8 flits/cycle, the 4 streams offer 4, the MPort's writes
// into its pair 2·P/ceil(P/3) = 5.3), so the streams reach the link rate.
func TestRequestPipeliningLaneRate(t *testing.T) {
	const flits = 16
	for _, at := range []int64{12, 16, 24} {
		r, g := runLanes(t, laneConfig(t, fabric.PipelineSameDestination, at, 0))
		if d := mean(g.diff); math.Abs(d-float64(at)) > 0.05*float64(at) {
			t.Errorf("AT %d, same_destination: consecutive transfers toward different outputs start %.2f cycles apart on average, want AT", at, d)
		}
		want := 2 * flits / (4 * (g.sameFraction*mean(g.same) + (1-g.sameFraction)*float64(at)))
		if s := r.AcceptedThroughput; math.Abs(s-want) > 0.03*want {
			t.Errorf("AT %d, same_destination: accepted %.4f, lane bound %.4f (f %.3f, same-output gap %.2f)", at, s, want, g.sameFraction, mean(g.same))
		}
		t.Logf("AT %d, same_destination: accepted %.4f, lane bound %.4f (f %.3f, same-output gap %.2f, other-output gap %.2f)",
			at, r.AcceptedThroughput, want, g.sameFraction, mean(g.same), mean(g.diff))
	}
	for _, at := range []int64{12, 16} {
		r, g := runLanes(t, laneConfig(t, fabric.PipelineAnyDestination, at, 0))
		if s := r.AcceptedThroughput; s < 0.98*r.OfferedLoad {
			t.Errorf("AT %d, any_destination: accepted %.4f of %.4f offered, want the link rate", at, s, r.OfferedLoad)
		}
		if d := mean(g.diff); d >= float64(at) {
			t.Errorf("AT %d, any_destination: transfers toward different outputs still start %.2f cycles apart", at, d)
		}
		t.Logf("AT %d, any_destination: accepted %.4f (other-output gap %.2f)", at, r.AcceptedThroughput, mean(g.diff))
	}
	for _, p := range fabric.RequestPipelinings() {
		r, _ := runLanes(t, laneConfig(t, p, 16, 1))
		if want := 2.0 * flits / (4 * 16); math.Abs(r.AcceptedThroughput-want) > 0.01*want {
			t.Errorf("%s, allocator_depth 1: accepted %.4f, want 2P/(4·AT) = %.4f", p, r.AcceptedThroughput, want)
		}
	}
}

// TestRequestPipeliningValidation: a bad switch.request_pipelining names
// the field, the value and the allowed values; any_destination needs the
// pipelined allocator; "" is same_destination.
func TestRequestPipeliningValidation(t *testing.T) {
	cfg := fabric.Default()
	cfg.Switch.RequestPipelining = "per_output"
	want := `switch.request_pipelining: "per_output" is not allowed: must be one of: same_destination, any_destination`
	if err := cfg.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	for _, a := range []string{fabric.AllocSerial, fabric.AllocIslip} {
		cfg := fabric.Default()
		cfg.Switch.Allocator, cfg.Switch.RequestPipelining = a, fabric.PipelineAnyDestination
		want := `switch.request_pipelining: "any_destination" is not allowed: must be same_destination (or absent) with switch.allocator "` + a + `"`
		if err := cfg.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", a, err, want)
		}
		cfg.Switch.RequestPipelining = fabric.PipelineSameDestination
		if err := cfg.Validate(sched.Default()); err != nil {
			t.Errorf("%s with same_destination: %v", a, err)
		}
	}
	for _, v := range []string{"", fabric.PipelineSameDestination, fabric.PipelineAnyDestination} {
		cfg := fabric.Default()
		cfg.Switch.RequestPipelining = v
		if err := cfg.Validate(sched.Default()); err != nil {
			t.Errorf("request_pipelining %q: %v", v, err)
		}
	}
	// "" and same_destination are the same run.
	a, _ := runLanes(t, laneConfig(t, "", 16, 0))
	b, _ := runLanes(t, laneConfig(t, fabric.PipelineSameDestination, 16, 0))
	if a.Digest != b.Digest {
		t.Errorf(`request_pipelining "" gives digest %s, same_destination %s`, a.Digest, b.Digest)
	}
}

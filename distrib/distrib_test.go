package distrib

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/internal/agreement"
	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/sim"
)

// testConfig is preset's network with seed 002's small buffers (under
// which credits run out, and more of a run's state crosses members).
func testConfig(preset string, cycles int64) fabric.Config {
	cfg := fabric.Default()
	if err := fabric.ApplyHardwarePreset(&cfg, fabric.HardwareSeed002); err != nil {
		panic(err)
	}
	cfg.Topology.Preset = preset
	cfg.Cycles, cfg.Warmup = cycles, cycles/4
	cfg.Traffic.Load = 0.6
	cfg.Switch.CentralBufferFlits = 1024 // a torus's central buffers have a lane per (direction, VL)
	return cfg
}

var testToken = []byte("a-test-token-of-some-length")

// The bounds of the tests' runs: generous, so that a loaded machine's
// delays never fail a test; a stuck run still ends, on the protocol's own
// timeouts. The liveness tests set short ones of their own.
const (
	testTimeout       = 2 * time.Minute // a process's silence
	testWindowTimeout = 5 * time.Minute // a step of the run
	testJoinTimeout   = 5 * time.Minute // every member joined
)

// testOptions are a coordinator's options in the tests: members, the
// test token, no log, the tests' bounds.
func testOptions(members int) Options {
	return Options{Members: members, Token: testToken, Log: quietLog(), Timeout: testTimeout, WindowTimeout: testWindowTimeout, JoinTimeout: testJoinTimeout}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// runInProcess runs cfg distributed over members members, each an actor
// system of its own with protoactor's remote layer on loopback, all in
// this process.
func runInProcess(t *testing.T, cfg fabric.Config, members int) (*sim.Results, Report) {
	t.Helper()
	skipUnderRace(t)
	n, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	addr := make(chan string, 1)
	memberErr := make(chan error, members)
	go func() {
		a := <-addr
		startMembers(ctx, a, members, memberErr)
	}()
	o := testOptions(members)
	o.Listening = func(a string) { addr <- a }
	res, rep, err := Coordinate(ctx, n, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < members; i++ {
		if err := <-memberErr; err != nil {
			t.Errorf("member: %v", err)
		}
	}
	return res, rep
}

// TestInProcessDigest: tree-8ary-2 (also with preemption) and
// torus2d-4x4 on 2 and 3 members in this process give the sequential
// digest, figures and conservation.
func TestInProcessDigest(t *testing.T) {
	preempt := testConfig("tree-8ary-2", 1500)
	preempt.Traffic.Load = 0.9
	preempt.QoS.Preemption = fabric.PreemptionConfig{MinFlits: 4, Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"CL", "BE", "BK"}}}
	// The quick suite runs each network on one number of members.
	reduced := testlong.Reduced(t)
	quick := map[string]int{"tree-8ary-2": 0, "torus2d-4x4": 2, "tree-8ary-2 with preemption": 3}
	for preset, cfg := range map[string]fabric.Config{"tree-8ary-2": testConfig("tree-8ary-2", 1500),
		"torus2d-4x4": testConfig("torus2d-4x4", 1500), "tree-8ary-2 with preemption": preempt} {
		n, err := sim.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := sim.Measure(n, sim.RunSequential(context.Background(), n, sim.Hooks{}))
		for _, members := range []int{2, 3} {
			if reduced && quick[preset] != members {
				continue
			}
			got, rep := runInProcess(t, cfg, members)
			if got.Digest != want.Digest {
				t.Errorf("%s on %d members: digest %s, sequential %s", preset, members, got.Digest, want.Digest)
			}
			if !got.ConservationOK || !want.ConservationOK {
				t.Errorf("%s on %d members: conservation %v, sequential %v", preset, members, got.ConservationProblems, want.ConservationProblems)
			}
			if want.Preemption != nil && want.Preemption.Preemptions == 0 {
				t.Errorf("%s: no packet preempted: the case tests nothing", preset)
			}
			if got.DeliveredFlits == 0 || got.DeliveredFlits != want.DeliveredFlits || got.Latency != want.Latency {
				t.Errorf("%s on %d members: delivered %d flits, latency %+v; sequential %d, %+v", preset, members,
					got.DeliveredFlits, got.Latency, want.DeliveredFlits, want.Latency)
			}
			if want.Links == nil || !reflect.DeepEqual(got.Links, want.Links) {
				t.Errorf("%s on %d members: the link utilizations differ from the sequential run's (or are missing)", preset, members)
			}
			t.Logf("%s on %d members: %s; %d windows, %d batches, %d bytes", preset, members, rep.Plan.Describe(), rep.Windows, rep.Batches, rep.Bytes)
		}
	}
}

// startMembers starts members members of the run at addr in this process,
// one node after another, and lets them join once all listen; each one's
// end goes to ends.
func startMembers(ctx context.Context, addr string, members int, ends chan<- error, tokens ...[]byte) {
	gate := make(chan struct{})
	for i := 0; i < members; i++ {
		listening := make(chan struct{})
		tok := testToken
		if i < len(tokens) {
			tok = tokens[i]
		}
		go func() {
			ends <- RunMember(ctx, MemberOptions{Join: addr, Token: tok, Log: quietLog(), Timeout: testTimeout,
				Listening: func(string) { close(listening) }, Gate: gate})
		}()
		select {
		case <-listening:
		case <-ctx.Done():
			return
		}
	}
	close(gate)
}

// skipUnderRace skips a test that runs several protoactor remotes in this
// process under the race detector: each remote's start sets grpc's global
// logger, which the detector sees against the nodes already serving. A
// real run has one node per process; cmd/opasim's tests run it so, and
// an opasim built with -race runs it under the detector.
func skipUnderRace(t *testing.T) {
	if raceDetector {
		t.Skip("several protoactor remotes in one process race on grpc's global logger (see skipUnderRace)")
	}
}

// TestAgreementConfigsDistributed: every engine-agreement config with
// switches enough for the members (the single-switch ones cannot be cut)
// gives the sequential digest on 2 and 3 members over the remote layer on
// loopback, as on the actor engine in one process. The quick suite runs
// two of them (quickAgreement); OPASIM_LONG=1 runs all.
func TestAgreementConfigsDistributed(t *testing.T) {
	reduced := testlong.Reduced(t)
	ran := 0
	for name, cfg := range agreement.Configs() {
		n, err := sim.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		members, quick := quickAgreement[name]
		if reduced && !quick {
			continue
		}
		want := sim.Measure(n, sim.RunSequential(context.Background(), n, sim.Hooks{}))
		for _, m := range []int{2, 3} {
			if n.NumSwitches() < m || (reduced && m != members) {
				continue
			}
			began := time.Now()
			got, rep := runInProcess(t, cfg, m)
			ran++
			if got.Digest != want.Digest || !got.ConservationOK {
				t.Errorf("%s on %d members: digest %s (conservation %v), sequential %s",
					name, m, got.Digest, got.ConservationOK, want.Digest)
			}
			t.Logf("%s on %d members: %d windows, %s", name, m, rep.Windows, time.Since(began).Round(time.Millisecond))
		}
	}
	if want := 10; reduced {
		if ran != len(quickAgreement) {
			t.Errorf("%d distributed runs, want %d: a config of quickAgreement is gone", ran, len(quickAgreement))
		}
	} else if ran < want {
		t.Errorf("%d distributed runs: the configs cover too few networks of several switches", ran)
	}
}

// quickAgreement are the agreement configs the quick suite runs
// distributed, each on the members given: what TestInProcessDigest does
// not cover (the light load, whose idle groups wake for one message
// across members).
var quickAgreement = map[string]int{"8-ary 2-tree, light load": 2}

package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// The liveness tests run with the shortest timeout a run takes, and check
// that it ends on it, no sooner; they wait for that end within
// testTimeout, which only a hang reaches.

// awaitEnd waits for a member's or coordinator's end and how long it took
// from began.
func awaitEnd(t *testing.T, what string, end <-chan error, began time.Time) (error, time.Duration) {
	t.Helper()
	select {
	case err := <-end:
		return err, time.Since(began)
	case <-time.After(testTimeout):
		t.Fatalf("%s still running after %s", what, testTimeout)
	}
	return nil, 0
}

// fakeActor is a stand-in for a coordinator or a member: receive handles
// each message on the actor's goroutine.
type fakeActor struct{ receive func(ctx actor.Context) }

func (f *fakeActor) Receive(ctx actor.Context) { f.receive(ctx) }

// startFake starts a node with a fakeActor named name on it.
func startFake(t *testing.T, name string, receive func(ctx actor.Context)) *node {
	t.Helper()
	nd, err := startNode("127.0.0.1:0", "", quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nd.stop)
	if _, err := nd.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &fakeActor{receive} }), name); err != nil {
		t.Fatal(err)
	}
	return nd
}

// TestJoinTimeoutHonoured: a member whose join gets no answer fails after
// its timeout, not before, though it keeps receiving messages that are
// not answers (a coordinator stand-in that replies to each join with a
// heartbeat; a failing connection's dead letters do the same), and a
// member whose coordinator's address has nothing listening fails alike.
func TestJoinTimeoutHonoured(t *testing.T) {
	skipUnderRace(t)
	var joins atomic.Int32
	fake := startFake(t, coordinatorName, func(ctx actor.Context) {
		if _, ok := ctx.Message().(*Join); ok {
			joins.Add(1)
			ctx.Respond(&Alive{Index: -1})
		}
	})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := closed.Addr().String()
	closed.Close()
	for _, addr := range []string{fake.address(), nothing} {
		end := make(chan error, 1)
		began := time.Now()
		go func() {
			end <- RunMember(context.Background(), MemberOptions{Join: addr, Token: testToken, Log: quietLog(), Timeout: MinTimeout})
		}()
		err, took := awaitEnd(t, "the member", end, began)
		if err == nil || !strings.Contains(err.Error(), "no answer from the coordinator at "+addr+" within 1s") {
			t.Errorf("join to %s: %v", addr, err)
		}
		if took < MinTimeout {
			t.Errorf("join to %s: failed after %s, before its timeout %s", addr, took, MinTimeout)
		}
		t.Logf("join to %s: %v after %s", addr, err, took.Round(time.Millisecond))
	}
	if joins.Load() < 3 {
		t.Errorf("the stand-in got %d joins: the member was not kept busy while it waited", joins.Load())
	}
}

// TestSlowMemberNotDead: a member that takes longer over one window than
// the timeout, but sends its heartbeats, is waited for: the run completes
// with the sequential digest. The timeout bounds silence, not work.
func TestSlowMemberNotDead(t *testing.T) {
	skipUnderRace(t)
	cfg := testConfig("tree-8ary-2", 300)
	n, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Measure(n, sim.RunSequential(context.Background(), n, sim.Hooks{}))
	if n, err = sim.Build(cfg); err != nil {
		t.Fatal(err)
	}
	const slow = 3 * MinTimeout
	var slept atomic.Bool
	addr := make(chan string, 1)
	ends := make(chan error, 2)
	go func() {
		a := <-addr
		for i := 0; i < 2; i++ {
			o := MemberOptions{Join: a, Token: testToken, Log: quietLog(), Timeout: MinTimeout}
			if i == 0 {
				o.Observe = func(*fabric.Network, MemberPart) sim.Observer {
					return sleeper{func() {
						if !slept.Swap(true) {
							time.Sleep(slow)
						}
					}}
				}
			}
			go func() { ends <- RunMember(context.Background(), o) }()
		}
	}()
	o := testOptions(2)
	o.Timeout, o.Listening = MinTimeout, func(a string) { addr <- a }
	began := time.Now()
	got, rep, err := Coordinate(context.Background(), n, o)
	if err != nil {
		t.Fatalf("coordinator: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err, _ := awaitEnd(t, "a member", ends, began); err != nil {
			t.Errorf("member: %v", err)
		}
	}
	if !slept.Load() || rep.Wall < slow {
		t.Errorf("the slow window did not happen: slept %v, the windows' wall time %s", slept.Load(), rep.Wall)
	}
	if got.Digest != want.Digest {
		t.Errorf("digest %s, sequential %s", got.Digest, want.Digest)
	}
}

// sleeper is an observer whose WindowDone calls window.
type sleeper struct{ window func() }

func (sleeper) GroupDone(int, clock.Window, time.Duration) {}
func (s sleeper) WindowDone(clock.Window, time.Duration)   { s.window() }

// fakeMember starts a member stand-in that joins the coordinator at addr,
// answers its setup with Ready and then only sends a heartbeat every
// HeartbeatEvery when beat is set: it answers no tick.
func fakeMember(t *testing.T, addr string, beat bool) {
	coord := actor.NewPID(addr, coordinatorName)
	startFake(t, memberName, func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(coord, &Join{Token: testToken})
		case *Setup:
			ctx.Request(coord, &Ready{Index: m.Index})
			if beat {
				self, root := ctx.Self(), ctx.ActorSystem().Root
				go func() {
					for range time.Tick(HeartbeatEvery) {
						root.RequestWithCustomSender(coord, &Alive{Index: m.Index}, self)
					}
				}()
			}
		}
	})
}

// TestSilentOrStuckMember: a member that stops sending anything after its
// Ready fails the run after the timeout, named as silent; one that sends
// heartbeats but never reports its window fails it after the window
// timeout, named as the one waited for.
func TestSilentOrStuckMember(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct {
		name string
		beat bool
		want string
	}{
		{"silent", false, "no word within 1s from [member 0 (127.0.0.1:"},
		{"stuck", true, "no answer within 1s (the window timeout) from [member 0 (127.0.0.1:"},
	} {
		n, err := sim.Build(testConfig("tree-8ary-2", 300))
		if err != nil {
			t.Fatal(err)
		}
		o := testOptions(1)
		if c.beat {
			o.WindowTimeout = MinTimeout
		} else {
			o.Timeout = MinTimeout
		}
		o.Listening = func(a string) { fakeMember(t, a, c.beat) }
		end := make(chan error, 1)
		began := time.Now()
		go func() {
			_, _, err := Coordinate(context.Background(), n, o)
			end <- err
		}()
		err, took := awaitEnd(t, "the coordinator", end, began)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "in window 1, cycles [0, ") {
			t.Errorf("%s member: %v; want %q in window 1", c.name, err, c.want)
		}
		if took < MinTimeout {
			t.Errorf("%s member: the run failed after %s, before the timeout", c.name, took)
		}
	}
}

// TestSilentCoordinator: a member whose coordinator sends its setup and
// then nothing (no heartbeat) fails after its timeout.
func TestSilentCoordinator(t *testing.T) {
	skipUnderRace(t)
	cfg := testConfig("tree-8ary-2", 300)
	n, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	config, err := json.Marshal(n.Config)
	if err != nil {
		t.Fatal(err)
	}
	setUp := false // a join repeated while the member builds its network gets no second setup, as from a coordinator
	fake := startFake(t, coordinatorName, func(ctx actor.Context) {
		if _, ok := ctx.Message().(*Join); ok && !setUp {
			setUp = true
			ctx.Request(ctx.Sender(), &Setup{Index: 0, Config: config, Owner: make([]int32, len(n.Groups)), Peers: []string{ctx.Sender().Address}})
		}
	})
	end := make(chan error, 1)
	began := time.Now()
	go func() {
		end <- RunMember(context.Background(), MemberOptions{Join: fake.address(), Token: testToken, Log: quietLog(), Timeout: MinTimeout})
	}()
	err, took := awaitEnd(t, "the member", end, began)
	if err == nil || !strings.Contains(err.Error(), "no word from the coordinator at "+fake.address()+" within 1s") {
		t.Errorf("member: %v", err)
	}
	if took < MinTimeout {
		t.Errorf("the member failed after %s, before its timeout", took)
	}
}

// logWatch is a slog handler that passes each record's message on.
type logWatch chan string

func (w logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w logWatch) Handle(_ context.Context, r slog.Record) error {
	select {
	case w <- r.Message:
	default:
	}
	return nil
}
func (w logWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w logWatch) WithGroup(string) slog.Handler      { return w }

// await waits for one of the messages msgs to be logged.
func (w logWatch) await(t *testing.T, msgs ...string) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case m := <-w:
			if slices.Contains(msgs, m) {
				return
			}
		case <-deadline:
			t.Fatalf("none of %q logged within %s", msgs, testTimeout)
		}
	}
}

// TestMemberLeaves: a member stopped mid-run tells the coordinator, which
// fails the run naming it and the reason; a member stopped in the lobby
// frees its place, which another takes, and the run completes.
func TestMemberLeaves(t *testing.T) {
	skipUnderRace(t)
	stopped := errors.New("stopped by the test")
	t.Run("mid-run", func(t *testing.T) {
		n, err := sim.Build(testConfig("tree-8ary-2", 100000))
		if err != nil {
			t.Fatal(err)
		}
		addr := make(chan string, 1)
		ends := make(chan error, 2)
		var leaver atomic.Int32
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		go func() {
			a := <-addr
			for i := 0; i < 2; i++ {
				o := MemberOptions{Join: a, Token: testToken, Log: quietLog(), Timeout: testTimeout}
				c := context.Background()
				if i == 0 {
					c = ctx
					o.Observe = func(_ *fabric.Network, p MemberPart) sim.Observer {
						leaver.Store(int32(p.Index))
						var windows atomic.Int32
						return sleeper{func() {
							if windows.Add(1) == 10 {
								cancel(stopped)
							}
						}}
					}
				}
				go func() { ends <- RunMember(c, o) }()
			}
		}()
		o := testOptions(2)
		o.Listening = func(a string) { addr <- a }
		_, _, err = Coordinate(context.Background(), n, o)
		want := "member " + strconv.Itoa(int(leaver.Load())) + " (127.0.0.1:"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "left the run (stopped by the test) in window") {
			t.Errorf("coordinator: %v; want %q… left the run", err, want)
		}
		left := 0
		for i := 0; i < 2; i++ {
			err, _ := awaitEnd(t, "a member", ends, time.Now())
			if errors.Is(err, stopped) {
				left++
			} else if err == nil {
				t.Errorf("a member ended without error in a failed run")
			}
		}
		if left != 1 {
			t.Errorf("%d members ended on the test's stop, want 1", left)
		}
	})
	t.Run("lobby", func(t *testing.T) {
		n, err := sim.Build(testConfig("tree-8ary-2", 300))
		if err != nil {
			t.Fatal(err)
		}
		coordLog := make(logWatch, 64)
		addr := make(chan string, 1)
		o := testOptions(2)
		o.Log, o.Listening = slog.New(coordLog), func(a string) { addr <- a }
		done := make(chan error, 1)
		go func() {
			_, _, err := Coordinate(context.Background(), n, o)
			done <- err
		}()
		a := <-addr
		member := func(ctx context.Context, log logWatch) <-chan error {
			end := make(chan error, 1)
			go func() {
				end <- RunMember(ctx, MemberOptions{Join: a, Token: testToken, Log: slog.New(log), Timeout: testTimeout})
			}()
			return end
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		firstLog := make(logWatch, 64)
		first := member(ctx, firstLog)
		firstLog.await(t, "joined; waiting for the other members")
		cancel(stopped)
		if err, _ := awaitEnd(t, "the first member", first, time.Now()); !errors.Is(err, stopped) {
			t.Errorf("the member that left: %v", err)
		}
		// The leave frees the place; so does the member's end, if the
		// leave was not taken in time.
		coordLog.await(t, "member left before the run began", "member gone before the run began")
		second, third := member(context.Background(), make(logWatch)), member(context.Background(), make(logWatch))
		if err, _ := awaitEnd(t, "the coordinator", done, time.Now()); err != nil {
			t.Errorf("coordinator: %v", err)
		}
		for _, end := range []<-chan error{second, third} {
			if err, _ := awaitEnd(t, "a member", end, time.Now()); err != nil {
				t.Errorf("member: %v", err)
			}
		}
	})
}

// TestCoordinatorStoppedInLobby: a coordinator stopped before every member
// joined ends at once with no run (its error wraps the cause), and tells
// the member in the lobby, which ends saying why.
func TestCoordinatorStoppedInLobby(t *testing.T) {
	skipUnderRace(t)
	n, err := sim.Build(testConfig("tree-8ary-2", 300))
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	o := testOptions(2)
	o.Listening = func(a string) { addr <- a }
	ctx, cancel := context.WithCancelCause(context.Background())
	stopped := errors.New("stopped by the test")
	done := make(chan error, 1)
	go func() {
		_, _, err := Coordinate(ctx, n, o)
		done <- err
	}()
	log := make(logWatch, 64)
	end := make(chan error, 1)
	a := <-addr
	go func() {
		end <- RunMember(context.Background(), MemberOptions{Join: a, Token: testToken, Log: slog.New(log), Timeout: testTimeout})
	}()
	log.await(t, "joined; waiting for the other members")
	cancel(stopped)
	if err, _ := awaitEnd(t, "the coordinator", done, time.Now()); !errors.Is(err, stopped) || !strings.Contains(err.Error(), "with 1 of 2 members joined") {
		t.Errorf("coordinator: %v", err)
	}
	if err, _ := awaitEnd(t, "the member", end, time.Now()); err == nil ||
		!strings.Contains(err.Error(), "stopped the run before it began: the coordinator was stopped (stopped by the test) with 1 of 2 members joined") {
		t.Errorf("member: %v", err)
	}
}

// TestLobbyWaitsWhileAnswered: a member in the lobby waits past its
// timeout as long as the coordinator answers its repeated joins, and the
// run completes once the other member joins.
func TestLobbyWaitsWhileAnswered(t *testing.T) {
	skipUnderRace(t)
	n, err := sim.Build(testConfig("tree-8ary-2", 300))
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	o := testOptions(2)
	o.Listening = func(a string) { addr <- a }
	done := make(chan error, 1)
	go func() {
		_, _, err := Coordinate(context.Background(), n, o)
		done <- err
	}()
	a := <-addr
	log := make(logWatch, 64)
	first, second := make(chan error, 1), make(chan error, 1)
	go func() {
		first <- RunMember(context.Background(), MemberOptions{Join: a, Token: testToken, Log: slog.New(log), Timeout: MinTimeout})
	}()
	log.await(t, "joined; waiting for the other members")
	select {
	case err := <-first:
		t.Fatalf("the member in the lobby ended: %v", err)
	case <-time.After(3 * MinTimeout):
	}
	go func() {
		second <- RunMember(context.Background(), MemberOptions{Join: a, Token: testToken, Log: quietLog(), Timeout: testTimeout})
	}()
	for what, end := range map[string]<-chan error{"the coordinator": done, "the first member": first, "the second member": second} {
		if err, _ := awaitEnd(t, what, end, time.Now()); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// TestRejoinAfterLeaveRefused: a join a member sent again before it left
// the lobby, arriving after its leave, is refused: taken, it would hold a
// place for a member on its way out, and the run would fail when that
// member's connection ends (seen on a loaded machine: the coordinator took
// the stale join, set the run up with it and the next member, and failed
// on "member 0 is gone while the members built their networks"). A fake
// member sends join, leave, join in that order.
func TestRejoinAfterLeaveRefused(t *testing.T) {
	skipUnderRace(t)
	n, err := sim.Build(testConfig("tree-8ary-2", 300))
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	o := testOptions(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.Listening = func(a string) { addr <- a }
	done := make(chan error, 1)
	go func() {
		_, _, err := Coordinate(ctx, n, o)
		done <- err
	}()
	coord := actor.NewPID(<-addr, coordinatorName)
	answers := make(chan any, 8)
	step := 0
	startFake(t, memberName, func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(coord, &Join{Token: testToken})
		case *Waiting, *Alive, *Refused:
			answers <- m
			switch step++; step {
			case 1: // the join taken: leave, then join again
				ctx.Request(coord, &Leave{Index: 0, Reason: "test"})
			case 2: // the leave taken
				ctx.Request(coord, &Join{Token: testToken})
			}
		}
	})
	var got []string
	for len(got) < 3 {
		select {
		case a := <-answers:
			got = append(got, fmt.Sprintf("%T", a))
			if r, ok := a.(*Refused); ok && !strings.Contains(r.Reason, "left the run before it began") {
				t.Errorf("refused for %q", r.Reason)
			}
		case <-time.After(testTimeout):
			t.Fatalf("answers so far %v; want a Waiting, an Alive and a Refused", got)
		}
	}
	if want := "[*distrib.Waiting *distrib.Alive *distrib.Refused]"; fmt.Sprint(got) != want {
		t.Errorf("answers %v, want %s", got, want)
	}
	cancel()
	<-done
}

package distrib

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// MemberOptions configure a member process.
type MemberOptions struct {
	Join      string // the coordinator's address, host:port
	Listen    string // where this member listens (host:port; default 127.0.0.1:0)
	Advertise string // the address peers reach it at, when not the listen address
	Token     []byte
	// Timeout bounds the coordinator's silence: no answer to the join (the
	// member repeats it), no heartbeat once the run is set up, and once
	// the member sent its part, the wait for the coordinator to let go.
	// DefaultTimeout when 0.
	Timeout time.Duration
	Log     *slog.Logger
	// Listening, when set, is told the member's address once it listens;
	// Gate, when set, holds the join until it is closed. Tests that run
	// several members in one process use them to start every node before
	// any talks (protoactor's remote sets grpc's global logger at each
	// start, which the race detector sees against a running node).
	Listening func(address string)
	Gate      <-chan struct{}
	// Observe, when set, is called once the member has built its network
	// and knows its part; the observer it returns sees each group the
	// member steps (GroupDone) and each window it runs (WindowDone), on
	// the member actor's goroutine (live metrics of this member's part).
	Observe func(n *fabric.Network, p MemberPart) sim.Observer
}

// MemberPart is what a member learns of its part at setup.
type MemberPart struct {
	Index int    // the member's index, from 0
	RunID string // the run's id, as the coordinator names it
	// Owned[g] tells whether the member runs group g of the network.
	Owned []bool
}

// RunMember joins the run the coordinator at o.Join holds and runs its
// share of it; it returns when the run is over (nil), or with what ended
// it: a refused join, a coordinator gone or silent past o.Timeout, a
// failure here. Cancelling ctx makes the member leave: once the
// coordinator has taken it, it tells the coordinator why (Leave, with
// ctx's cause) and waits up to leaveWait for the answer; the error wraps
// ctx's cause.
func RunMember(ctx context.Context, o MemberOptions) error {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	nd, err := startNode(o.Listen, o.Advertise, o.Log)
	if err != nil {
		return err
	}
	defer nd.stop()
	if o.Listening != nil {
		o.Listening(nd.address())
	}
	if o.Gate != nil {
		select {
		case <-o.Gate:
		case <-ctx.Done():
			return fmt.Errorf("member stopped: %w", context.Cause(ctx))
		}
	}
	end := make(chan error, 1)
	ma := &memberActor{o: o, coord: actor.NewPID(o.Join, coordinatorName), end: end}
	ma.index.Store(-1)
	ma.answered.Store(time.Now().UnixNano())
	root := nd.system.Root
	if _, err := root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &aliveActor{coord: ma.coord, heard: &ma.heard} }), aliveName); err != nil {
		return err
	}
	self, err := root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return ma }), memberName)
	if err != nil {
		return err
	}
	o.Log.Info("member listening", "address", nd.address(), "coordinator", o.Join)
	// The liveness checks and this member's heartbeats run here, not on
	// the member actor, which a window or the network build keeps busy.
	tick := time.NewTicker(HeartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-end:
			return err
		case <-ctx.Done():
			ma.leave(root, context.Cause(ctx))
			return fmt.Errorf("member stopped: %w", context.Cause(ctx))
		case now := <-tick.C:
			switch ma.phase.Load() {
			case joining:
				if now.Sub(time.Unix(0, ma.answered.Load())) > o.Timeout {
					return fmt.Errorf("no answer from the coordinator at %s within %s (--timeout; the address must be the one the coordinator prints)",
						o.Join, o.Timeout)
				}
			case running:
				root.RequestWithCustomSender(ma.coord, &Alive{Index: ma.index.Load()}, self)
				if now.Sub(time.Unix(0, ma.heard.Load())) > o.Timeout {
					return fmt.Errorf("no word from the coordinator at %s within %s (--timeout; no heartbeat: its process is stopped or cut off)",
						o.Join, o.Timeout)
				}
			case finished:
				if now.Sub(time.Unix(0, ma.heard.Load())) > o.Timeout {
					return nil // it has this member's part; it did not let go
				}
			}
		}
	}
}

// leaveWait is how long a member stopped by its context waits for the
// coordinator to take its Leave before it goes anyway (the coordinator
// then sees it gone), and the coordinator for the members in its lobby to
// take an Abort: a round trip, which a loaded machine may make slow.
const leaveWait = 5 * time.Second

// leave tells the coordinator this member goes, and why, when the
// coordinator has taken it and still waits for its part.
func (m *memberActor) leave(root *actor.RootContext, cause error) {
	if m.phase.Load() == finished || m.index.Load() < 0 {
		return
	}
	f := root.RequestFuture(m.coord, &Leave{Index: m.index.Load(), Reason: cause.Error()}, leaveWait)
	if _, err := f.Result(); err != nil {
		m.o.Log.Warn("the coordinator did not take the leave", "error", err)
	}
}

// The phases of a member, for RunMember's liveness checks.
const (
	joining  int32 = iota // the coordinator's answers to the join count
	running               // set up: heartbeats both ways
	finished              // the member's part sent: the coordinator should let go
)

// aliveActor takes the coordinator's heartbeats for a member, whose own
// actor may be busy with a window or its network build.
type aliveActor struct {
	coord *actor.PID
	heard *atomic.Int64
}

func (a *aliveActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*Alive); ok {
		if s := ctx.Sender(); s != nil && s.Equal(a.coord) {
			a.heard.Store(time.Now().UnixNano())
		}
	}
}

// memberActor is a member's actor: it joins the coordinator, builds its
// part, runs it window by window as the coordinator's ticks say and the
// other members' batches arrive, and sends its totals at the end.
type memberActor struct {
	o        MemberOptions
	coord    *actor.PID
	end      chan<- error
	p        *part
	peers    []*actor.PID
	taken    uint64   // batches filed, whole run
	batches  []*Batch // received and not yet taken
	tick     *Tick    // a tick waiting for batches
	finish   *Finish  // the end, waiting for batches
	enc      []byte
	obs      sim.Observer
	finished bool  // Final sent
	waiting  bool  // the coordinator took the join and waits for members
	over     bool  // end reported
	peerGone error // another member gone, which the coordinator has not yet ended the run on

	// Read by RunMember's goroutine: the member's phase, its index (-1
	// until the coordinator says), when the coordinator last answered a
	// join and last sent a heartbeat (unix nanoseconds).
	phase           atomic.Int32
	index           atomic.Int32
	answered, heard atomic.Int64
}

func (m *memberActor) Receive(ctx actor.Context) {
	defer func() {
		if v := recover(); v != nil {
			m.stop(fmt.Errorf("member failed: %v", v))
		}
	}()
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		m.join(ctx)
	case joinAgain:
		if m.p == nil && !m.over {
			m.join(ctx)
		}
	case *Waiting:
		if m.fromCoordinator(ctx) && m.p == nil {
			m.answered.Store(time.Now().UnixNano())
			m.index.Store(msg.Index)
			if !m.waiting {
				m.waiting = true
				ctx.Watch(m.coord)
				m.o.Log.Info("joined; waiting for the other members", "index", msg.Index, "joined", msg.Joined, "members", msg.Members)
			}
		}
	case *Refused:
		m.stop(fmt.Errorf("the coordinator at %s refused the join: %s", m.o.Join, msg.Reason))
	case *Abort:
		if m.fromCoordinator(ctx) {
			ctx.Request(m.coord, &Alive{Index: m.index.Load()}) // taken
			m.stop(fmt.Errorf("the coordinator at %s stopped the run before it began: %s", m.o.Join, msg.Reason))
		}
	case *Setup:
		if m.fromCoordinator(ctx) {
			m.stopOn(m.setup(ctx, msg))
		}
	case *Tick:
		if m.fromCoordinator(ctx) {
			m.tick = msg
			m.stopOn(m.runReady(ctx))
		}
	case *Batch:
		m.stopOn(m.takeBatch(ctx, msg))
	case *Finish:
		if m.fromCoordinator(ctx) {
			m.finish = msg
			m.stopOn(m.runReady(ctx))
		}
	case *actor.Terminated:
		m.terminated(ctx, msg.Who)
	case peerGone:
		if !m.finished {
			m.stop(m.peerGone)
		}
	case *actor.DeadLetterResponse:
		// A join reaching a node with no coordinator yet is repeated;
		// once set up, a message lost is the run's end.
		if m.phase.Load() == running && msg.Target != nil {
			m.stop(fmt.Errorf("a message to %s at %s was not delivered: there is no such actor there", msg.Target.Id, msg.Target.Address))
		}
	}
}

// terminated ends the member when the coordinator is gone. Another member
// gone before this one sent its part (its process or connection ended:
// what was sent to it may be lost) ends it only if the coordinator has not
// ended the run within the timeout: the coordinator watches every member
// and names the one that died, where this member's own end would race to
// be the first it sees.
func (m *memberActor) terminated(ctx actor.Context, who *actor.PID) {
	if who.Equal(m.coord) {
		switch {
		case m.finished:
			m.stop(nil)
		case m.peerGone != nil:
			m.stop(fmt.Errorf("the coordinator at %s is gone, after %w", m.o.Join, m.peerGone))
		default:
			m.stop(fmt.Errorf("the coordinator at %s is gone", m.o.Join))
		}
		return
	}
	for j, p := range m.peers {
		if p.Equal(who) && !m.finished && m.peerGone == nil {
			m.peerGone = fmt.Errorf("member %d (%s) is gone (its process or connection ended)", j, p.Address)
			self, root := ctx.Self(), ctx.ActorSystem().Root
			time.AfterFunc(m.o.Timeout, func() { root.Send(self, peerGone{}) })
		}
	}
}

// peerGone tells the member the timeout after another member was gone is
// over.
type peerGone struct{}

// joinAgain asks the member to repeat its join.
type joinAgain struct{}

// join sends the join and asks for it again after a while: until the
// member has its setup, it repeats the join (a join, or its answer, lost
// while a connection was being made is asked again; the coordinator
// answers a member it took with Waiting, so a member waits as long as the
// coordinator answers, and RunMember fails it after Timeout without an
// answer: only answers count, not the dead letters a join to a node with
// no coordinator brings back).
func (m *memberActor) join(ctx actor.Context) {
	ctx.Request(m.coord, &Join{Token: m.o.Token})
	self, root := ctx.Self(), ctx.ActorSystem().Root
	time.AfterFunc(min(time.Second, m.o.Timeout/4), func() { root.Send(self, joinAgain{}) })
}

func (m *memberActor) stop(err error) {
	if !m.over {
		m.over = true
		if m.p != nil {
			m.p.abandon()
		}
		m.end <- err
	}
}

func (m *memberActor) stopOn(err error) {
	if err != nil {
		m.stop(err)
	}
}

// fromCoordinator reports whether the message came from the coordinator
// this member joined; others are logged and dropped.
func (m *memberActor) fromCoordinator(ctx actor.Context) bool {
	if s := ctx.Sender(); s != nil && s.Equal(m.coord) {
		return true
	}
	m.o.Log.Warn("dropped a message not from the coordinator", "type", fmt.Sprintf("%T", ctx.Message()), "sender", ctx.Sender())
	return false
}

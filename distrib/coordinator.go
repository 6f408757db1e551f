package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// DefaultTimeout bounds silence: how long the coordinator goes without a
// word from a member (a report or a heartbeat) and a member without a word
// from the coordinator (an answer to its join, or a heartbeat) before it
// takes the other for dead. Heartbeats go every HeartbeatEvery whatever
// the process is busy with, so a member that is slow (a loaded machine, a
// large network to build) is not taken for dead: this bounds a stopped or
// cut-off process, not work. A run whose member died fails within the
// minute.
const DefaultTimeout = 30 * time.Second

// DefaultWindowTimeout bounds a step of the run while every member
// answers: the members' network builds, a window, their final totals.
// Such a step takes milliseconds (seconds for the build of the largest
// networks); one that takes this long is stuck, not slow.
const DefaultWindowTimeout = 10 * time.Minute

// HeartbeatEvery is how often the coordinator and each member send each
// other an Alive once the run is set up; the liveness checks run as often.
const HeartbeatEvery = 250 * time.Millisecond

// MinTimeout is the least timeout a run takes: four heartbeats.
const MinTimeout = 4 * HeartbeatEvery

// Options configure the coordinator of a distributed run.
type Options struct {
	Members   int
	Listen    string // host:port (default 127.0.0.1:0)
	Advertise string // the address members reach it at, when not the listen address
	Token     []byte
	// Timeout bounds a member's silence once the run is set up (no report
	// and no heartbeat: DefaultTimeout when 0); WindowTimeout a step of the
	// run while every member answers (DefaultWindowTimeout when 0);
	// JoinTimeout the wait for every member to join (0: no bound).
	Timeout, WindowTimeout, JoinTimeout time.Duration
	Log                                 *slog.Logger
	// Listening is told the address the coordinator listens on, before any
	// member can join.
	Listening func(address string)
	// RunID names the run: members label their metrics run_id with it.
	RunID string
	Hooks sim.Hooks // Progress only: an observer would read the coordinator's copy, which never runs
	// SnapshotEvery is the wall time between snapshots of the members'
	// totals, which partial results are made from (0: DefaultSnapshotEvery).
	SnapshotEvery time.Duration
}

// Report is what a distributed run measured of itself.
type Report struct {
	Plan    Plan
	Windows int64         // windows run
	Batches int64         // batches between members
	Bytes   int64         // their encoded messages
	Msgs    int64         // the messages in them
	Wall    time.Duration // from the first tick to the last report
	// Barrier is the sum over windows of the window's wall time (ticks
	// sent to the last report) less the longest member's own time in it:
	// what the barrier across processes cost.
	Barrier time.Duration
	// Snapshots counts the complete snapshots of the members' totals;
	// SnapshotBytes and SnapshotTime are what every totals report sent for
	// them cost: their encoded bytes, and the members' wall time to read
	// and encode them (summed over members).
	Snapshots     int64
	SnapshotBytes int64
	SnapshotTime  time.Duration
}

// Coordinate runs n across o.Members member processes: it waits for them
// to join, gives each its part of the network, holds the window loop, and
// measures the run from the members' totals. It returns an error if a
// member fails, dies, leaves or stays silent past the timeout, or a step
// of the run takes past the window timeout; then, if a complete snapshot
// of the members' totals was taken before, also the partial results made
// from the latest (marked Partial and Interrupted).
//
// Cancelling ctx ends the run at the next window, as in one process: the
// members send their totals and the results are marked interrupted. Before
// every member has joined there is no run: the members in the lobby are
// told (Abort) and the error wraps ctx's cause (errors.Is(err,
// context.Canceled)), with no results.
func Coordinate(ctx context.Context, n *fabric.Network, o Options) (*sim.Results, Report, error) {
	if err := checkRun(n, o); err != nil {
		return nil, Report{}, err
	}
	plan, err := Partition(n, o.Members)
	if err != nil {
		return nil, Report{}, err
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.WindowTimeout <= 0 {
		o.WindowTimeout = DefaultWindowTimeout
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = DefaultSnapshotEvery
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	cfg, err := json.Marshal(n.Config)
	if err != nil {
		return nil, Report{}, err
	}
	nd, err := startNode(o.Listen, o.Advertise, o.Log)
	if err != nil {
		return nil, Report{}, err
	}
	defer nd.stop()
	c := &coordinator{ctx: ctx, o: o, n: n, plan: plan, config: cfg, end: make(chan error, 1),
		expected: make([]uint64, o.Members), isReady: make([]bool, o.Members), dones: make([]*Done, 0, o.Members), finals: make([]*Final, o.Members)}
	c.report.Plan = plan
	pid, err := nd.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return c }), coordinatorName)
	if err != nil {
		return nil, Report{}, err
	}
	o.Log.Info("coordinator listening", "address", nd.address(), "members", o.Members, "plan", plan.Describe())
	if o.Listening != nil {
		o.Listening(nd.address())
	}
	select {
	case err = <-c.end:
	case <-ctx.Done():
		nd.system.Root.Send(pid, interrupt{})
		err = <-c.end
	}
	if err != nil {
		if c.partialErr != nil {
			err = fmt.Errorf("%w; and no partial results: %w", err, c.partialErr)
		}
		return c.partialRes, c.report, err
	}
	res, err := c.results()
	return res, c.report, err
}

// checkRun refuses what a distributed run cannot do.
func checkRun(n *fabric.Network, o Options) error {
	if len(o.Token) == 0 {
		return errors.New("a distributed run needs a shared token (OPASIM_TOKEN or a token file) for members to join")
	}
	if n.Workload != nil {
		return errors.New("trace.file: a trace replay cannot run distributed (its tasks' state is shared by every NIC)")
	}
	return nil
}

type coordinator struct {
	ctx    context.Context
	o      Options
	n      *fabric.Network
	plan   Plan
	config []byte
	end    chan error
	loop   *sim.Windows

	members  []*actor.PID // by index, in order of joining
	isReady  []bool       // per member: its network is built
	ready    int
	running  bool
	seq      uint64       // the window open
	window   clock.Window // its cycles
	last     string       // the last window every member completed
	expected []uint64     // per member, the batches sent it so far
	waiting  int
	dones    []*Done
	ticked   time.Time
	finals   []*Final
	set      bool            // every member joined: setups sent, heartbeats due
	heard    []time.Time     // per member, when it was last heard from (a report or a heartbeat)
	since    time.Time       // when the step the coordinator waits for began
	stopAt   time.Time       // when the run was interrupted (zero: not)
	aborting map[string]bool // interrupted in the lobby: the members told (by address) that have not yet taken it
	departed map[string]bool // members (by PID) that left the lobby or were gone from it: a join of theirs still on its way is refused
	joined   int             // and how many members had joined
	got      int
	over     bool
	report   Report
	snap     snapshots
	// The partial results made when a member fault ended the run (nil:
	// none, or no snapshot yet), or why they could not be made.
	partialRes *sim.Results
	partialErr error
}

func (c *coordinator) Receive(ctx actor.Context) {
	if c.over {
		return // the run has ended: Coordinate reads the coordinator's state
	}
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.last = "none"
		self, root := ctx.Self(), ctx.ActorSystem().Root
		if c.o.JoinTimeout > 0 {
			// A bound on the whole wait, which repeated joins do not reset.
			time.AfterFunc(c.o.JoinTimeout, func() { root.Send(self, joinExpired{}) })
		}
		time.AfterFunc(HeartbeatEvery, func() { root.Send(self, checkTick{}) })
	case checkTick:
		c.check(ctx, time.Now())
		self, root := ctx.Self(), ctx.ActorSystem().Root
		time.AfterFunc(HeartbeatEvery, func() { root.Send(self, checkTick{}) })
	case interrupt:
		c.interrupt(ctx)
	case abortExpired:
		c.stopAborted()
	case *Alive:
		if c.aborting != nil {
			c.aborted(ctx.Sender())
		} else {
			c.heardFrom(ctx, m.Index)
		}
	case *Leave:
		c.leave(ctx, m)
	case *actor.DeadLetterResponse:
		c.deadLetter(m)
	case joinExpired:
		if len(c.members) < c.o.Members {
			c.stop(fmt.Errorf("%d of %d members joined within %s", len(c.members), c.o.Members, c.o.JoinTimeout))
		}
	case *Join:
		c.join(ctx, m)
	case *Ready:
		if c.heardFrom(ctx, m.Index) && !c.isReady[m.Index] {
			c.isReady[m.Index] = true
			c.ready++
			if c.ready == len(c.members) {
				c.loop = sim.NewWindows(c.ctx, c.n, sim.Hooks{Progress: c.o.Hooks.Progress})
				c.snap = newSnapshots(len(c.members), c.o.SnapshotEvery, time.Now())
				c.running = true
				c.advance(ctx)
			}
		}
	case *Done:
		if c.heardFrom(ctx, m.Index) {
			c.done(ctx, m)
		}
	case *Final:
		if c.heardFrom(ctx, m.Index) && c.finals[m.Index] == nil {
			c.finals[m.Index] = m
			c.got++
			if c.got == len(c.members) {
				c.stop(nil)
			}
		}
	case *actor.Terminated:
		for i, p := range c.members {
			if p.Equal(m.Who) && !c.set {
				// Gone from the lobby (killed, say): its place is free.
				c.o.Log.Info("member gone before the run began", "index", i, "address", p.Address)
				c.depart(p)
				c.members = slices.Delete(c.members, i, i+1)
				c.aborted(p)
				break
			}
			if p.Equal(m.Who) {
				failed := fmt.Sprintf("member %d (%s)", i, p.Address)
				c.fail(failed, fmt.Errorf("%s is gone (its process or connection ended) %s; the last window every member completed: %s",
					failed, c.during(), c.last))
			}
		}
	}
}

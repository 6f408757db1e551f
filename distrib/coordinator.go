package distrib

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
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

// depart remembers that member p left the lobby (or was gone from it).
func (c *coordinator) depart(p *actor.PID) {
	if c.departed == nil {
		c.departed = map[string]bool{}
	}
	c.departed[pidKey(p)] = true
}

// pidKey names an actor by its process's address and its id.
func pidKey(p *actor.PID) string { return p.Address + "/" + p.Id }

// join takes a member that presents the token, while places are left;
// any other join is refused, logged and answered.
func (c *coordinator) join(ctx actor.Context, j *Join) {
	from := "an unknown sender"
	if s := ctx.Sender(); s != nil {
		from = s.Address
	}
	reason := ""
	switch {
	case ctx.Sender() == nil:
		reason = "no sender to answer"
	case subtle.ConstantTimeCompare(j.Token, c.o.Token) != 1:
		reason = "wrong or missing token"
	case c.departed[pidKey(ctx.Sender())]:
		// A join the member sent again before it left, arriving after
		// its leave: taken, it would hold a place for a member that is
		// going away.
		reason = "this member left the run before it began"
	}
	if reason == "" {
		for i, p := range c.members {
			if p.Equal(ctx.Sender()) {
				// A repeated join: the member has its place; while the
				// run waits, say so again (its setup is on its way
				// otherwise). Sent as a request: the member checks the
				// sender is the coordinator (Respond names none).
				if len(c.members) < c.o.Members {
					ctx.Request(ctx.Sender(), &Waiting{Index: int32(i), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
				}
				return
			}
		}
		if len(c.members) == c.o.Members {
			reason = "the run has all its members"
		}
	}
	if reason != "" {
		c.o.Log.Warn("refused a join", "from", from, "reason", reason)
		if ctx.Sender() != nil {
			ctx.Respond(&Refused{Reason: reason})
		}
		return
	}
	c.members = append(c.members, ctx.Sender())
	ctx.Watch(ctx.Sender()) // in the lobby too: a member gone frees its place
	c.o.Log.Info("member joined", "index", len(c.members)-1, "address", from)
	if len(c.members) < c.o.Members {
		ctx.Request(ctx.Sender(), &Waiting{Index: int32(len(c.members) - 1), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
		return
	}
	c.set, c.since = true, time.Now() // building the network is the members' first work
	c.heard = make([]time.Time, len(c.members))
	for i := range c.heard {
		c.heard[i] = c.since
	}
	peers := make([]string, len(c.members))
	for i, p := range c.members {
		peers[i] = p.Address
	}
	for i, p := range c.members {
		ctx.Request(p, &Setup{Index: int32(i), Config: c.config, Owner: c.plan.Owner, Peers: peers, RunId: c.o.RunID})
	}
}

// heardFrom reports whether a report or heartbeat naming member i came
// from it once the run is set up, and notes when the member was heard.
func (c *coordinator) heardFrom(ctx actor.Context, i int32) bool {
	if c.set && i >= 0 && int(i) < len(c.members) && ctx.Sender() != nil && ctx.Sender().Equal(c.members[i]) {
		c.heard[i] = time.Now()
		return true
	}
	c.o.Log.Warn("dropped a report not from the member it names", "member", i, "sender", ctx.Sender(), "type", fmt.Sprintf("%T", ctx.Message()))
	return false
}

// check runs every HeartbeatEvery: it sends each member a heartbeat once
// the run is set up, fails the run on members silent for the timeout, or
// on a step of the run that takes past the window timeout though every
// member answers (or past the timeout once the run was interrupted).
func (c *coordinator) check(ctx actor.Context, now time.Time) {
	if !c.set {
		return
	}
	for _, p := range c.members {
		ctx.Request(actor.NewPID(p.Address, aliveName), &Alive{Index: -1})
	}
	var silent, waited []string
	for i, p := range c.members {
		name := fmt.Sprintf("member %d (%s)", i, p.Address)
		if now.Sub(c.heard[i]) > c.o.Timeout {
			silent = append(silent, name)
		}
		if !c.answered(i) {
			waited = append(waited, name)
		}
	}
	if len(silent) > 0 {
		failed := strings.Join(silent, ", ")
		c.fail(failed, fmt.Errorf("no word within %s from [%s] (no report and no heartbeat: its process is stopped or cut off) %s; the last window every member completed: %s",
			c.o.Timeout, failed, c.during(), c.last))
		return
	}
	if len(waited) == 0 {
		return
	}
	failed := strings.Join(waited, ", ")
	if took := now.Sub(c.since); took > c.o.WindowTimeout {
		c.fail(failed, fmt.Errorf("no answer within %s (the window timeout) from [%s] %s, though every member sends heartbeats; the last window every member completed: %s",
			c.o.WindowTimeout, failed, c.during(), c.last))
		return
	}
	if !c.stopAt.IsZero() && now.Sub(later(c.stopAt, c.since)) > c.o.Timeout {
		c.fail(failed, fmt.Errorf("interrupted, and no answer within %s from [%s] %s; the last window every member completed: %s",
			c.o.Timeout, failed, c.during(), c.last))
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// interrupt ends the run on a cancelled context. Once every member
// joined, the window loop ends the run at the next window (it reads the
// context), and the members send their totals. In the lobby there is no
// run: the members there are told (Abort), and the coordinator ends once
// each has taken it or is gone, or after leaveWait.
func (c *coordinator) interrupt(ctx actor.Context) {
	if c.set {
		if c.stopAt.IsZero() {
			c.stopAt = time.Now()
			c.o.Log.Info("interrupted: the run ends at the next window", "during", c.during())
		}
		return
	}
	if c.aborting != nil {
		return
	}
	c.aborting, c.joined = map[string]bool{}, len(c.members)
	reason := fmt.Sprintf("the coordinator was stopped (%v) with %d of %d members joined", context.Cause(c.ctx), len(c.members), c.o.Members)
	for _, p := range c.members {
		c.aborting[p.Address] = true
		ctx.Request(p, &Abort{Reason: reason})
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	time.AfterFunc(leaveWait, func() { root.Send(self, abortExpired{}) })
	c.aborted(nil)
}

// aborted notes that the member at p took the Abort (or is gone), and ends
// the coordinator once every member told has.
func (c *coordinator) aborted(p *actor.PID) {
	if c.aborting == nil {
		return
	}
	if p != nil {
		delete(c.aborting, p.Address)
	}
	if len(c.aborting) == 0 {
		c.stopAborted()
	}
}

func (c *coordinator) stopAborted() {
	c.stop(fmt.Errorf("no run: %w; stopped with %d of %d members joined", context.Cause(c.ctx), c.joined, c.o.Members))
}

// leave takes a member's Leave: in the lobby its place is freed (the
// members after it move up); once the run is set up the run fails on it.
func (c *coordinator) leave(ctx actor.Context, l *Leave) {
	s := ctx.Sender()
	k := -1
	for i, p := range c.members {
		if s != nil && p.Address == s.Address {
			k = i
		}
	}
	if k < 0 {
		c.o.Log.Warn("dropped a leave from no member", "sender", s)
		return
	}
	ctx.Respond(&Alive{Index: -1})
	if !c.set {
		c.o.Log.Info("member left before the run began", "index", k, "address", c.members[k].Address, "reason", l.Reason)
		c.depart(c.members[k])
		c.members = slices.Delete(c.members, k, k+1)
		return
	}
	failed := fmt.Sprintf("member %d (%s)", k, c.members[k].Address)
	c.fail(failed, fmt.Errorf("%s left the run (%s) %s; the last window every member completed: %s", failed, l.Reason, c.during(), c.last))
}

// deadLetter fails the run on a message to a member's actor that its
// process says does not exist (a heartbeat to a member on its way out is
// not one).
func (c *coordinator) deadLetter(d *actor.DeadLetterResponse) {
	if !c.set || d.Target == nil || d.Target.Id != memberName {
		return
	}
	for i, p := range c.members {
		if p.Address == d.Target.Address {
			failed := fmt.Sprintf("member %d (%s)", i, p.Address)
			c.fail(failed, fmt.Errorf("%s has no member actor any more (a message to it was not delivered) %s; the last window every member completed: %s",
				failed, c.during(), c.last))
		}
	}
}

// advance opens the next window and ticks the members that run groups in
// it, or ends the run.
func (c *coordinator) advance(ctx actor.Context) {
	w, due, ok := c.loop.Next()
	if !ok {
		c.finish(ctx)
		return
	}
	c.seq++
	c.window = w
	ticks := make([]*Tick, len(c.members))
	for _, g := range due {
		o := c.plan.Owner[g]
		if ticks[o] == nil {
			ticks[o] = &Tick{Seq: c.seq, From: int64(w.From), To: int64(w.To), Expect: c.expected[o]}
		}
		ticks[o].Groups = append(ticks[o].Groups, int32(g))
	}
	c.dones = c.dones[:0]
	c.ticked = time.Now()
	c.since = c.ticked
	snapshot := c.snap.due(c.ticked)
	for o, t := range ticks {
		if t != nil {
			t.SendTotals = snapshot
			c.waiting++
			ctx.Request(c.members[o], t)
		}
	}
}

func (c *coordinator) done(ctx actor.Context, d *Done) {
	if !c.running || d.Seq != c.seq || c.waiting == 0 {
		c.stop(fmt.Errorf("member %d reported window %d, the open window is %d", d.Index, d.Seq, c.seq))
		return
	}
	c.dones = append(c.dones, d)
	c.waiting--
	if c.waiting > 0 {
		return
	}
	if err := c.barrier(); err != nil {
		c.stop(err)
		return
	}
	c.advance(ctx)
}

// barrier closes the window: every group's own next wake first, then the
// wakes for what it was sent (as the actor engine's clock does), and the
// batches each member must now expect.
func (c *coordinator) barrier() error {
	wall := time.Since(c.ticked)
	var busy int64
	for _, d := range c.dones {
		if len(d.Groups) != len(d.Next) || len(d.WakeGroups) != len(d.WakeAt) {
			return fmt.Errorf("member %d's report of window %d is malformed", d.Index, d.Seq)
		}
		for k, g := range d.Groups {
			c.loop.Done(int(g), clock.Cycle(d.Next[k]))
		}
		busy = max(busy, d.BusyNs)
		c.snap.record(int(d.Index), d.Seq, d.Totals)
		c.report.SnapshotBytes += int64(len(d.Totals))
		c.report.SnapshotTime += time.Duration(d.TotalsNs)
	}
	for _, d := range c.dones {
		for k, g := range d.WakeGroups {
			if g < 0 || int(g) >= len(c.n.Groups) {
				return fmt.Errorf("member %d woke group %d, which does not exist", d.Index, g)
			}
			c.loop.Wake(int(g), clock.Cycle(d.WakeAt[k]))
		}
		for _, to := range d.SentTo {
			if to < 0 || int(to) >= len(c.members) {
				return fmt.Errorf("member %d sent a batch to member %d, which does not exist", d.Index, to)
			}
			c.expected[to]++
			c.report.Batches++
		}
		c.report.Bytes += int64(d.BatchBytes)
		c.report.Msgs += int64(d.BatchMsgs)
	}
	c.loop.Barrier(wall)
	c.report.Windows++
	c.report.Wall += wall
	c.report.Barrier += max(wall-time.Duration(busy), 0)
	c.last = c.describeWindow()
	if c.snap.complete(c.seq, c.window, c.report.Wall, time.Now()) {
		c.report.Snapshots++
		if c.report.Snapshots == 1 { // once: from here on a member fault leaves partial results
			c.o.Log.Info("first snapshot of the members' totals", "window", c.seq, "cycle", int64(c.window.To))
		}
	}
	return nil
}

func (c *coordinator) describeWindow() string {
	return fmt.Sprintf("window %d, cycles [%d, %d)", c.seq, c.window.From, c.window.To)
}

// during says what the run was doing, for an error.
func (c *coordinator) during() string {
	switch {
	case !c.running && c.ready < len(c.members):
		return "while the members built their networks"
	case c.waiting > 0:
		return "in " + c.describeWindow()
	default:
		return "while the members sent their totals"
	}
}

// joinExpired tells the coordinator its JoinTimeout is over; checkTick
// that its checks are due; interrupt that the run's context is cancelled;
// abortExpired that the members in the lobby had leaveWait to take the
// Abort.
type (
	joinExpired  struct{}
	checkTick    struct{}
	interrupt    struct{}
	abortExpired struct{}
)

// answered reports whether member i has answered what the coordinator
// waits for now.
func (c *coordinator) answered(i int) bool {
	switch {
	case !c.running && c.ready < len(c.members):
		return c.isReady[i]
	case c.waiting > 0:
		for _, d := range c.dones {
			if int(d.Index) == i {
				return true
			}
		}
		return false
	default:
		return c.finals[i] != nil
	}
}

// finish asks every member for its totals.
func (c *coordinator) finish(ctx actor.Context) {
	c.running = false
	c.ready = len(c.members)
	c.since = time.Now()
	for i, p := range c.members {
		ctx.Request(p, &Finish{Expect: c.expected[i]})
	}
}

// fail ends the run on a member fault (failed names the member or
// members), with the partial results of the latest complete snapshot.
func (c *coordinator) fail(failed string, err error) {
	if !c.over {
		c.partialRes, c.partialErr = c.partial(failed, err)
	}
	c.stop(err)
}

func (c *coordinator) stop(err error) {
	if !c.over {
		c.over = true
		c.end <- err
	}
}

// results measures the run from the members' totals and held messages.
func (c *coordinator) results() (*sim.Results, error) {
	sum, base := baseTotals(c.n)
	var held []messages.Msg
	var terms fabric.ConservationTerms
	for i, f := range c.finals {
		t, ct, err := decodeTotals(f.Totals)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if err := mergeTotals(&sum, &t, &base); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if i == 0 {
			terms = ct
		} else if err := terms.Add(&ct); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if held, err = decodeMsgs(held, f.Held, int(f.HeldCount)); err != nil {
			return nil, fmt.Errorf("member %d's held messages: %w", i, err)
		}
	}
	o := c.loop.Outcome("distributed")
	o.InFlight = held
	return sim.MeasureTotals(c.n, o, sum, terms.Check()), nil
}

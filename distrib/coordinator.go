package distrib

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// DefaultTimeout is how long the coordinator waits for a member's report
// of a window (and a member for the coordinator's answer to its join):
// far above a window's work on any network this machine runs (milliseconds)
// and the build of the largest network a member makes, short enough that
// a run whose member died fails within the minute.
const DefaultTimeout = 30 * time.Second

// Options configure the coordinator of a distributed run.
type Options struct {
	Members   int
	Listen    string // host:port (default 127.0.0.1:0)
	Advertise string // the address members reach it at, when not the listen address
	Token     []byte
	// Timeout bounds the wait for any member's report of a window (and its
	// build); JoinTimeout the wait for every member to join (0: no bound).
	Timeout, JoinTimeout time.Duration
	Log                  *slog.Logger
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
// member fails, dies or stays silent past the timeout; then, if a complete
// snapshot of the members' totals was taken before, also the partial
// results made from the latest (marked Partial and Interrupted).
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
	if _, err := nd.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return c }), coordinatorName); err != nil {
		return nil, Report{}, err
	}
	o.Log.Info("coordinator listening", "address", nd.address(), "members", o.Members, "plan", plan.Describe())
	if o.Listening != nil {
		o.Listening(nd.address())
	}
	if err := <-c.end; err != nil {
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
		if c.o.JoinTimeout > 0 {
			// A bound on the whole wait, which repeated joins do not reset.
			self, root := ctx.Self(), ctx.ActorSystem().Root
			time.AfterFunc(c.o.JoinTimeout, func() { root.Send(self, joinExpired{}) })
		}
	case joinExpired:
		if len(c.members) < c.o.Members {
			c.stop(fmt.Errorf("%d of %d members joined within %s", len(c.members), c.o.Members, c.o.JoinTimeout))
		}
	case *Join:
		c.join(ctx, m)
	case *Ready:
		if c.fromMember(ctx, m.Index) && !c.isReady[m.Index] {
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
		if c.fromMember(ctx, m.Index) {
			c.done(ctx, m)
		}
	case *Final:
		if c.fromMember(ctx, m.Index) && c.finals[m.Index] == nil {
			c.finals[m.Index] = m
			c.got++
			if c.got == len(c.members) {
				c.stop(nil)
			}
		}
	case *actor.Terminated:
		for i, p := range c.members {
			if p.Equal(m.Who) {
				failed := fmt.Sprintf("member %d (%s)", i, p.Address)
				c.fail(failed, fmt.Errorf("%s is gone (its process or connection ended) %s; the last window every member completed: %s",
					failed, c.during(), c.last))
			}
		}
	case *actor.ReceiveTimeout:
		c.timeout()
	}
}

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
	}
	if reason == "" {
		for i, p := range c.members {
			if p.Equal(ctx.Sender()) {
				// A repeated join: the member has its place; while the
				// run waits, say so again (its setup is on its way
				// otherwise).
				if len(c.members) < c.o.Members {
					ctx.Respond(&Waiting{Index: int32(i), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
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
	c.o.Log.Info("member joined", "index", len(c.members)-1, "address", from)
	if len(c.members) < c.o.Members {
		ctx.Respond(&Waiting{Index: int32(len(c.members) - 1), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
		return
	}
	ctx.SetReceiveTimeout(c.o.Timeout) // building the network is the members' first work
	peers := make([]string, len(c.members))
	for i, p := range c.members {
		peers[i] = p.Address
	}
	for i, p := range c.members {
		ctx.Watch(p)
		ctx.Request(p, &Setup{Index: int32(i), Config: c.config, Owner: c.plan.Owner, Peers: peers, RunId: c.o.RunID})
	}
}

// fromMember reports whether a report naming member i came from it.
func (c *coordinator) fromMember(ctx actor.Context, i int32) bool {
	if i >= 0 && int(i) < len(c.members) && ctx.Sender() != nil && ctx.Sender().Equal(c.members[i]) {
		return true
	}
	c.o.Log.Warn("dropped a report not from the member it names", "member", i, "sender", ctx.Sender(), "type", fmt.Sprintf("%T", ctx.Message()))
	return false
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

// joinExpired tells the coordinator its JoinTimeout is over.
type joinExpired struct{}

// timeout fails the run on the members silent for Timeout (set once
// every member joined).
func (c *coordinator) timeout() {
	var silent []string
	for i, p := range c.members {
		if !c.answered(i) {
			silent = append(silent, fmt.Sprintf("member %d (%s)", i, p.Address))
		}
	}
	failed := strings.Join(silent, ", ")
	c.fail(failed, fmt.Errorf("no answer within %s from [%s] %s; the last window every member completed: %s",
		c.o.Timeout, failed, c.during(), c.last))
}

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

package distrib

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// part is a member's share of a run: its copy of the network, whose own
// groups run on the actor engine (actors.RunMember: every component an
// actor under its group actor, the groups shared out among partition
// actors, a clock actor with its barrier), window by window as the
// coordinator's ticks say. What its components send components of its own
// groups stays in the engine; what they send other members' comes back
// with each window's report and goes out as one batch per member.
type part struct {
	index   int
	n       *fabric.Network
	owner   []int32          // group -> member
	groupOf []int            // component -> group
	in      []messages.Msg   // what other members sent, for the next window
	batch   [][]messages.Msg // per member, what this window sends it
	win     chan actors.MemberWindow
	rep     chan actors.MemberReport
	ended   chan partEnd // the engine's end, once
	end     *partEnd     // the engine's end, once seen
	closed  bool         // win closed
}

// partEnd is how the member's engine ended: the messages its components
// held, or its failure.
type partEnd struct {
	held []messages.Msg
	err  error
}

// newPart starts the member's engine on its groups; obs (or nil) sees its
// groups and windows.
func newPart(n *fabric.Network, index int, owner []int32, members int, obs sim.Observer) *part {
	p := &part{index: index, n: n, owner: owner, groupOf: make([]int, len(n.Comps)),
		batch: make([][]messages.Msg, members), win: make(chan actors.MemberWindow),
		rep: make(chan actors.MemberReport), ended: make(chan partEnd, 1)}
	owned := make([]bool, len(n.Groups))
	for g, grp := range n.Groups {
		owned[g] = int(owner[g]) == index
		for _, id := range grp.Members {
			p.groupOf[id] = g
		}
	}
	go func() {
		held, err := actors.RunMember(n, owned, p, actors.Engine{}, obs)
		p.ended <- partEnd{held, err}
	}()
	return p
}

// Next and Report make the part the member engine's actors.Driver: the
// engine's clock takes each window from window, and hands back its report.
func (p *part) Next() (actors.MemberWindow, bool) {
	w, ok := <-p.win
	return w, ok
}

func (p *part) Report(r actors.MemberReport) { p.rep <- r }

// take files messages another member sent, for the next window.
func (p *part) take(msgs []messages.Msg) error {
	for _, m := range msgs {
		if int(m.Dst) < 0 || int(m.Dst) >= len(p.groupOf) || int(p.owner[p.groupOf[m.Dst]]) != p.index {
			return fmt.Errorf("a message for component %d, which member %d does not run", m.Dst, p.index)
		}
	}
	p.in = append(p.in, msgs...)
	return nil
}

// window runs window w on the member's engine: its groups due (all its
// own) and the messages other members sent them before. The report's
// messages for other members are filed in batch.
func (p *part) window(w clock.Window, due []int) (actors.MemberReport, error) {
	if err := p.failed(); err != nil {
		return actors.MemberReport{}, err
	}
	select {
	case p.win <- actors.MemberWindow{W: w, Due: due, In: p.in}:
	case e := <-p.ended:
		return actors.MemberReport{}, p.stopped(e)
	}
	p.in = nil
	select {
	case r := <-p.rep:
		for _, m := range r.Out {
			o := p.owner[p.groupOf[m.Dst]]
			p.batch[o] = append(p.batch[o], m)
		}
		return r, nil
	case e := <-p.ended:
		return actors.MemberReport{}, p.stopped(e)
	}
}

// abandon ends the member's engine if the run ends without close (a
// failure), so that its actors stop; it does not wait for them.
func (p *part) abandon() {
	if !p.closed {
		p.closed = true
		close(p.win)
	}
}

// close ends the member's engine and returns every message its components
// have not taken, with those other members sent after its last window.
func (p *part) close() ([]messages.Msg, error) {
	if err := p.failed(); err != nil {
		return nil, err
	}
	p.abandon()
	e := <-p.ended
	p.end = &e
	if e.err != nil {
		return nil, e.err
	}
	return append(e.held, p.in...), nil
}

func (p *part) failed() error {
	if p.end != nil {
		return fmt.Errorf("the member's engine has stopped: %v", p.end.err)
	}
	return nil
}

func (p *part) stopped(e partEnd) error {
	p.end = &e
	if e.err == nil {
		e.err = errors.New("it ended before the run did")
	}
	return fmt.Errorf("the member's engine stopped: %w", e.err)
}

// runs reports whether this member runs component id.
func (p *part) runs(id messages.CompID) bool { return int(p.owner[p.groupOf[id]]) == p.index }

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

func (m *memberActor) setup(ctx actor.Context, s *Setup) error {
	if m.p != nil {
		return errors.New("a second setup")
	}
	// From here on heartbeats go both ways, while the network is built.
	m.index.Store(s.Index)
	m.heard.Store(time.Now().UnixNano())
	m.phase.Store(running)
	var cfg fabric.Config
	if err := json.Unmarshal(s.Config, &cfg); err != nil {
		return fmt.Errorf("setup: the config: %w", err)
	}
	n, err := sim.Build(cfg)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if len(s.Owner) != len(n.Groups) || int(s.Index) >= len(s.Peers) || s.Index < 0 {
		return fmt.Errorf("setup: %d owners for %d groups, member %d of %d", len(s.Owner), len(n.Groups), s.Index, len(s.Peers))
	}
	for j, a := range s.Peers {
		p := actor.NewPID(a, memberName)
		m.peers = append(m.peers, p)
		if j != int(s.Index) {
			ctx.Watch(p) // a batch to a member whose connection ended may be lost
		}
	}
	if m.o.Observe != nil {
		owned := make([]bool, len(s.Owner))
		for g, o := range s.Owner {
			owned[g] = o == s.Index
		}
		m.obs = m.o.Observe(n, MemberPart{Index: int(s.Index), RunID: s.RunId, Owned: owned})
	}
	m.p = newPart(n, int(s.Index), s.Owner, len(s.Peers), m.obs)
	ctx.Watch(m.coord)
	m.o.Log.Info("member set up", "index", s.Index, "members", len(s.Peers))
	ctx.Request(m.coord, &Ready{Index: s.Index})
	return nil
}

func (m *memberActor) takeBatch(ctx actor.Context, b *Batch) error {
	if m.p == nil || b.From < 0 || int(b.From) >= len(m.peers) || int(b.From) == m.p.index {
		m.o.Log.Warn("dropped a batch from an unknown member", "from", b.From, "sender", ctx.Sender())
		return nil
	}
	if s := ctx.Sender(); s == nil || !s.Equal(m.peers[b.From]) {
		m.o.Log.Warn("dropped a batch whose sender is not the member it names", "from", b.From, "sender", s)
		return nil
	}
	m.batches = append(m.batches, b)
	return m.runReady(ctx)
}

// runReady runs the waiting tick or finish once every batch it expects
// has arrived.
func (m *memberActor) runReady(ctx actor.Context) error {
	if m.p == nil {
		return nil
	}
	if t := m.tick; t != nil && m.before(t.Seq) >= t.Expect {
		m.tick = nil
		return m.runTick(ctx, t)
	}
	if f := m.finish; f != nil && m.before(^uint64(0)) >= f.Expect {
		m.finish = nil
		return m.final(ctx)
	}
	return nil
}

// before counts the batches received from windows before seq: a faster
// member's batch of the window seq itself may already be here, and must
// not stand in for a slower member's of an earlier window.
func (m *memberActor) before(seq uint64) uint64 {
	n := m.taken
	for _, b := range m.batches {
		if b.Seq < seq {
			n++
		}
	}
	return n
}

// takeBatches files the batches sent in windows before seq, in the order
// of their windows and senders.
func (m *memberActor) takeBatches(seq uint64) error {
	slices.SortFunc(m.batches, func(a, b *Batch) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.From, b.From))
	})
	k := 0
	var msgs []messages.Msg
	for ; k < len(m.batches) && m.batches[k].Seq < seq; k++ {
		b := m.batches[k]
		var err error
		if msgs, err = decodeMsgs(msgs[:0], b.Msgs, int(b.Count)); err != nil {
			return fmt.Errorf("member %d's batch of window %d: %w", b.From, b.Seq, err)
		}
		if err := m.p.take(msgs); err != nil {
			return fmt.Errorf("member %d's batch of window %d: %w", b.From, b.Seq, err)
		}
	}
	m.taken += uint64(k)
	m.batches = append(m.batches[:0], m.batches[k:]...)
	return nil
}

func (m *memberActor) runTick(ctx actor.Context, t *Tick) error {
	began := time.Now()
	if err := m.takeBatches(t.Seq); err != nil {
		return err
	}
	p := m.p
	d := &Done{Index: int32(p.index), Seq: t.Seq}
	due := make([]int, 0, len(t.Groups))
	for _, g := range t.Groups {
		if g < 0 || int(g) >= len(p.owner) || int(p.owner[g]) != p.index {
			return fmt.Errorf("window %d: told to run group %d, which is not this member's", t.Seq, g)
		}
		due = append(due, int(g))
	}
	r, err := p.window(clock.Window{From: clock.Cycle(t.From), To: clock.Cycle(t.To)}, due)
	if err != nil {
		return fmt.Errorf("window %d: %w", t.Seq, err)
	}
	for _, x := range r.Ran {
		d.Groups, d.Next = append(d.Groups, int32(x.Group)), append(d.Next, int64(x.At))
	}
	for _, x := range r.Wakes {
		d.WakeGroups, d.WakeAt = append(d.WakeGroups, int32(x.Group)), append(d.WakeAt, int64(x.At))
	}
	for to, msgs := range p.batch {
		if len(msgs) == 0 {
			continue
		}
		m.enc = appendMsgs(m.enc[:0], msgs)
		b := &Batch{From: int32(p.index), Seq: t.Seq, Msgs: append([]byte(nil), m.enc...), Count: int32(len(msgs))}
		ctx.Request(m.peers[to], b)
		d.SentTo = append(d.SentTo, int32(to))
		d.BatchBytes += uint64(len(b.Msgs))
		d.BatchMsgs += uint64(len(msgs))
		p.batch[to] = msgs[:0]
	}
	d.BusyNs = time.Since(began).Nanoseconds()
	if t.SendTotals {
		if err := m.snapshot(d); err != nil {
			return fmt.Errorf("window %d: %w", t.Seq, err)
		}
	}
	ctx.Request(m.coord, d)
	return nil
}

// snapshot puts the member's totals after the window into its report, for
// the partial results a coordinator writes if another member fails later.
// The member's engine has finished the window and waits for the next, so
// its network is still. The conservation terms are left out: partial
// results do not check conservation (the messages in transit are in no
// member's totals).
func (m *memberActor) snapshot(d *Done) error {
	began := time.Now()
	tot, err := encodeTotals(m.p.n.Totals(), fabric.ConservationTerms{})
	if err != nil {
		return fmt.Errorf("the totals for a snapshot: %w", err)
	}
	d.Totals, d.TotalsNs = tot, time.Since(began).Nanoseconds()
	return nil
}

// final takes every batch left and sends this member's part of the
// results.
func (m *memberActor) final(ctx actor.Context) error {
	if err := m.takeBatches(^uint64(0)); err != nil {
		return err
	}
	held, err := m.p.close()
	if err != nil {
		return err
	}
	tot, err := encodeTotals(m.p.n.Totals(), m.p.n.ConservationTerms(held, m.p.runs))
	if err != nil {
		return err
	}
	ctx.Request(m.coord, &Final{Index: int32(m.p.index), Totals: tot, Held: appendMsgs(nil, held), HeldCount: int32(len(held))})
	m.finished = true
	// The coordinator ends its process once it has every member's totals,
	// which this member sees as its end; RunMember's timeout is for a
	// coordinator that does not.
	m.phase.Store(finished)
	return nil
}

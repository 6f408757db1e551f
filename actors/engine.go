package actors

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// engine is one actor run of a network.
type engine struct {
	net    *fabric.Network
	system *actor.ActorSystem
	ranges [][2]int // per partition, the groups [lo, hi) it runs first; changed only between windows
	parts  []*actor.PID
	groups []inline
	fixed  bool   // never rebalance the partitions
	refuse int    // Engine.refuseEvery
	owned  []bool // the groups this engine runs (nil: all); see owns
	// backlog[g]: the exchange holds messages for group g from an earlier
	// window that it has not taken (set by the clock at the barrier,
	// cleared by the group's turn; read by the group when handed a
	// message, under its mailbox).
	backlog []bool
	pool    *pool
	clock   *clockActor
	// partitionActors are the partitions' actors (their counts, after the
	// run).
	partitionActors []*partitionActor
	groupOf         []int // component -> group
	childOf         []int // component -> its index among its group's children
	// children and wakes hold every group's children and their next
	// wakes, group after group (group g's from firstChild[g]), so that
	// the groups' children sit together in memory as the sequential
	// engine's per-component arrays do.
	children   []child
	wakes      []clock.Cycle
	firstChild []int
	clockPID   *actor.PID
	finished   chan struct{}
	failed     chan error
	supervisor actor.SupervisorStrategy
	observer   sim.Observer
}

// Engine is the actor engine: every component an actor, grouped per switch
// and per switch's NICs, the groups shared out among partition actors (one
// per worker), all kept in step by a global clock actor.
type Engine struct {
	// Fixed keeps the first partitioning (by the groups' component counts)
	// for the whole run instead of rebalancing by measured time.
	Fixed bool
	// refuseEvery > 0 makes every refuseEvery-th hand-over of a message
	// to another group fail as if that group were busy (tests: the
	// exchange path, taken otherwise only when two workers meet).
	refuseEvery int
	// paths, if set, receives how the messages between groups went.
	paths *paths
}

// paths counts the messages between groups handed to an idle group at
// once (direct) and those left in the exchange for the next window.
type paths struct{ direct, exchanged int64 }

// Run drives n on actors until the configured end, an interruption of ctx,
// or a failure of any actor (which aborts the run with an error: a model
// actor is never restarted with fresh state).
func (en Engine) Run(ctx context.Context, n *fabric.Network, h sim.Hooks) (sim.Outcome, error) {
	return run(ctx, n, h, en)
}

// Run drives n on actors with the default Engine.
func Run(ctx context.Context, n *fabric.Network, h sim.Hooks) (sim.Outcome, error) {
	return Engine{}.Run(ctx, n, h)
}

// groupsPerPartition is how many groups a partition gets at least when the
// config leaves the count to the engine: on a single switch (two groups)
// a window's work is too small to pay for handing half of it to another
// core (measured: 100,000 cycles at load 0.9 take 2.35 s on two partitions
// and 2.04 s on one, GOMAXPROCS=2); on an 8-ary 2-tree (24 groups) two
// were no slower than one (30,000 cycles at load 0.7: medians 1.03 s and
// 0.99 s, best runs 0.80 s and 0.99 s).
const groupsPerPartition = 8

// Partitions is the number of partitions a run of n uses: the config's
// partitions, at most one per group; if the config leaves it (0), one per
// GOMAXPROCS, at most one per groupsPerPartition groups.
func Partitions(n *fabric.Network) int {
	if p := n.Config.Partitions; p > 0 {
		return min(p, len(n.Groups))
	}
	return max(1, min(runtime.GOMAXPROCS(0), len(n.Groups)/groupsPerPartition))
}

func run(ctx context.Context, n *fabric.Network, h sim.Hooks, en Engine) (sim.Outcome, error) {
	loop := sim.NewWindows(ctx, n, h) // its wall time starts here
	e, err := launch(n, h.Observer, en, loop, nil)
	if err != nil {
		return sim.Outcome{}, err
	}
	held, err := e.finish(en)
	if err != nil {
		return sim.Outcome{}, err
	}
	o := loop.Outcome("actors")
	o.InFlight, o.Partitions = held, len(e.ranges)
	return o, nil
}

// launch builds the engine of a run of n's groups that owned marks (nil:
// all of them), spawns its actors and starts its clock on loop.
func launch(n *fabric.Network, obs sim.Observer, en Engine, loop windowLoop, owned []bool) (*engine, error) {
	e := &engine{net: n, system: newSystem(), finished: make(chan struct{}, 1), failed: make(chan error, 1),
		observer: obs, fixed: en.Fixed, refuse: en.refuseEvery, owned: owned}
	e.supervisor = stopAndReport{e.failed}
	e.groupOf, e.childOf = make([]int, len(n.Comps)), make([]int, len(n.Comps))
	e.backlog = make([]bool, len(n.Groups))
	e.children, e.wakes = make([]child, len(n.Comps)), make([]clock.Cycle, len(n.Comps))
	first := 0
	for gi, g := range n.Groups {
		e.firstChild = append(e.firstChild, first)
		first += len(g.Members)
		for i, id := range g.Members {
			e.groupOf[id], e.childOf[id] = gi, i
		}
	}
	e.ranges = split(e.groupWeights(), e.partitions())
	workers := min(runtime.GOMAXPROCS(0), len(e.ranges))
	e.pool = newPool(workers, len(e.ranges)+16, 64)
	// The groups and partitions are top-level actors whose failures the
	// guardian reports like any other.
	root := e.system.Root.WithGuardian(e.supervisor)
	sp := newSpawner(e)
	groups, boxes := make([]groupActor, len(n.Groups)), make([]inlineMailbox, len(n.Groups))
	e.groups = make([]inline, len(n.Groups))
	for g := range n.Groups {
		if e.owns(g) {
			groups[g] = groupActor{index: g, e: e}
			e.groups[g] = sp.spawn(root, fmt.Sprintf("g%d", g), &groups[g], &boxes[g])
		}
	}
	for q := range e.ranges {
		pa := newPartition(e, q)
		e.partitionActors = append(e.partitionActors, pa)
		props := actor.PropsFromProducer(func() actor.Actor { return pa },
			actor.WithDispatcher(e.pool), actor.WithSupervisor(e.supervisor))
		pid, err := root.SpawnNamed(props, fmt.Sprintf("p%d", q))
		if err != nil {
			e.shutdown(true)
			e.pool.close()
			return nil, err
		}
		e.parts = append(e.parts, pid)
	}
	e.clock = newClock(e, loop, obs != nil)
	if m, ok := loop.(*memberLoop); ok {
		m.attach(e)
	}
	e.clockPID = root.Spawn(actor.PropsFromProducer(func() actor.Actor { return e.clock },
		actor.WithDispatcher(actor.NewSynchronizedDispatcher(1000)), actor.WithSupervisor(e.supervisor)))
	root.Send(e.clockPID, &start{})
	return e, nil
}

// finish waits for the end of the run (its loop's, or a failure), then
// gathers the messages the engine still holds and stops every actor.
func (e *engine) finish(en Engine) ([]messages.Msg, error) {
	defer e.pool.close()
	select {
	case <-e.finished:
	case err := <-e.failed:
		e.shutdown(true)
		return nil, err
	}
	held := e.collect()
	e.shutdown(false)
	if en.paths != nil {
		for _, pa := range e.partitionActors {
			en.paths.direct += pa.x.direct
			en.paths.exchanged += pa.x.exchanged
		}
	}
	return held, nil
}

// owns reports whether this engine runs group g (in a distributed run, a
// member runs some of the groups).
func (e *engine) owns(g int) bool { return e.owned == nil || e.owned[g] }

// partitions is how many partitions the engine's groups get: Partitions,
// counting only the groups it runs.
func (e *engine) partitions() int {
	if e.owned == nil {
		return Partitions(e.net)
	}
	groups := 0
	for _, o := range e.owned {
		if o {
			groups++
		}
	}
	if p := e.net.Config.Partitions; p > 0 {
		return max(1, min(p, groups))
	}
	return max(1, min(runtime.GOMAXPROCS(0), groups/groupsPerPartition))
}

// groupWeights estimates each group's share of the work: its components
// (none for a group another member runs).
func (e *engine) groupWeights() []int {
	w := make([]int, len(e.net.Groups))
	for g, grp := range e.net.Groups {
		if e.owns(g) {
			w[g] = len(grp.Members)
		}
	}
	return w
}

// split cuts groups 0..len(weights)-1 into parts contiguous ranges of
// nearly equal total weight, none empty (parts ≤ len(weights)).
func split(weights []int, parts int) [][2]int {
	total := 0
	for _, w := range weights {
		total += w
	}
	ranges := make([][2]int, 0, parts)
	lo, sum := 0, 0
	for g, w := range weights {
		sum += w
		q := len(ranges)
		left := len(weights) - g - 1 // groups after g
		if q < parts-1 && left >= parts-q-1 && (sum*parts >= total*(q+1) || left == parts-q-1) {
			ranges = append(ranges, [2]int{lo, g + 1})
			lo = g + 1
		}
	}
	return append(ranges, [2]int{lo, len(weights)})
}

// newSystem makes an actor system that logs only errors: the run's own
// output is the summary and the results file.
func newSystem() *actor.ActorSystem {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
}

// collect gathers, once the partitions are idle, the messages sent in the
// last window and those the groups' components have not taken.
func (e *engine) collect() []messages.Msg {
	var msgs []messages.Msg
	for _, d := range e.clock.dones {
		if d != nil {
			for _, g := range d.out.groups {
				if e.owns(g) { // a member reported the others' with its last window
					msgs = append(msgs, d.out.msgs[g]...)
				}
			}
		}
	}
	for _, g := range e.groups {
		if g.pid == nil {
			continue // another member's
		}
		h := &held{}
		g.send(h)
		msgs = append(msgs, h.msgs...)
	}
	return msgs
}

// shutdown stops every actor. After a failure it does not wait for them:
// the actor that failed (and those it was driving inline) will not answer.
func (e *engine) shutdown(failed bool) {
	pids := slices.Clone(e.parts)
	for _, g := range e.groups {
		if g.pid != nil {
			pids = append(pids, g.pid)
		}
	}
	if e.clockPID != nil {
		pids = append(pids, e.clockPID)
	}
	for _, pid := range pids {
		if failed {
			e.system.Root.Stop(pid)
		} else {
			_ = e.system.Root.StopFuture(pid).Wait()
		}
	}
	e.system.Shutdown()
}

// stopAndReport is the supervision strategy of every actor: a failure
// stops the actor and aborts the run, it is never restarted.
type stopAndReport struct{ failed chan<- error }

func (s stopAndReport) HandleFailure(_ *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason, msg any) {
	select {
	case s.failed <- fmt.Errorf("actor %s failed on %T: %v", child.Id, msg, reason):
	default:
	}
	sup.StopChildren(child)
}

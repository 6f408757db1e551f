package actors

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// engine is one actor run of a network.
type engine struct {
	net        *fabric.Network
	system     *actor.ActorSystem
	groups     []*actor.PID
	groupOf    []int // component -> group
	childOf    []int // component -> its index among its group's children
	clockPID   *actor.PID
	finished   chan struct{}
	failed     chan error
	supervisor actor.SupervisorStrategy
	observer   sim.Observer
	due        int // groups ticked in the current window
}

// Engine is the actor engine: every component an actor, grouped per switch
// and per switch's NICs, kept in step by a global clock actor.
type Engine struct{}

// Run drives n on actors (see the package doc).
func (Engine) Run(ctx context.Context, n *fabric.Network, h sim.Hooks) (sim.Outcome, error) {
	return Run(ctx, n, h)
}

// Run drives n on actors until the configured end, an interruption of ctx,
// or a failure of any actor (which aborts the run with an error: a model
// actor is never restarted with fresh state).
func Run(ctx context.Context, n *fabric.Network, h sim.Hooks) (sim.Outcome, error) {
	loop := sim.NewWindows(ctx, n, h) // its wall time starts here
	e := &engine{net: n, system: newSystem(), finished: make(chan struct{}, 1), failed: make(chan error, 1)}
	e.supervisor = stopAndReport{e.failed}
	e.groupOf, e.childOf = make([]int, len(n.Comps)), make([]int, len(n.Comps))
	for gi, g := range n.Groups {
		for i, id := range g.Members {
			e.groupOf[id], e.childOf[id] = gi, i
		}
	}
	workers := runtime.GOMAXPROCS(0)
	p := newPool(workers, 4*len(n.Groups)+16, 64)
	defer p.close()
	root := e.system.Root
	for gi := range n.Groups {
		ga := &groupActor{index: gi, e: e, outgoing: map[int]*batch{}}
		props := actor.PropsFromProducer(func() actor.Actor { return ga },
			actor.WithDispatcher(p), actor.WithSupervisor(e.supervisor))
		pid, err := root.SpawnNamed(props, fmt.Sprintf("g%d", gi))
		if err != nil {
			return sim.Outcome{}, err
		}
		e.groups = append(e.groups, pid)
	}
	ca := &clockActor{e: e, loop: loop, timed: h.Observer != nil}
	e.observer = h.Observer
	e.clockPID = root.Spawn(actor.PropsFromProducer(func() actor.Actor { return ca },
		actor.WithDispatcher(actor.NewSynchronizedDispatcher(1000)), actor.WithSupervisor(e.supervisor)))
	root.Send(e.clockPID, &start{})
	select {
	case <-e.finished:
	case err := <-e.failed:
		e.shutdown()
		return sim.Outcome{}, err
	}
	held := e.collect()
	e.shutdown()
	o := ca.loop.Outcome("actors")
	o.InFlight = held
	return o, nil
}

// newSystem makes an actor system that logs only errors: the run's own
// output is the summary and the results file.
func newSystem() *actor.ActorSystem {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
}

// collect asks every group for the messages it still holds; batches sent in
// the last window reach their group before this request does.
func (e *engine) collect() []messages.Msg {
	var held []messages.Msg
	for _, pid := range e.groups {
		reply := make(chan []messages.Msg, 1)
		e.system.Root.Send(pid, &flush{reply: reply})
		held = append(held, <-reply...)
	}
	return held
}

func (e *engine) shutdown() {
	for _, pid := range e.groups {
		_ = e.system.Root.StopFuture(pid).Wait()
	}
	_ = e.system.Root.StopFuture(e.clockPID).Wait()
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

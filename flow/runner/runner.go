package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

// Engines are the engines Run runs.
const (
	Static  = "static"
	Dynamic = "dynamic"
)

// InputError is an error of the run's input (the config, a trace file, a
// workload over the budget): the caller's to fix, not the engine's.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

func bad(err error) error { return InputError{err} }

// Progress shows how far a stage of the run is: Set gives the units done
// of a total (0: the total given before), Finish the state it ended in
// ("done", "interrupted", "failed", "stopped").
type Progress interface {
	Set(done, total int64)
	Finish(state string)
}

// Show starts showing a stage of the run: what it is (e.g. "flow
// dynamic"), the unit its Progress counts ("" when it shows the time only),
// the total if known, whether to mark each tenth of it, and a sentence
// saying what starts. It may return nil (nothing shown); a nil Show shows
// nothing.
type Show func(what, unit string, total int64, tenths bool, format string, a ...any) Progress

func (s Show) start(what, unit string, total int64, tenths bool, format string, a ...any) Progress {
	if s == nil {
		return nil
	}
	return s(what, unit, total, tenths, format, a...)
}

func finish(p Progress, state string) {
	if p != nil {
		p.Finish(state)
	}
}

// finishState is the state a stage ended in.
func finishState(err error, interrupted bool) string {
	switch {
	case err != nil:
		return "failed"
	case interrupted:
		return "interrupted"
	}
	return "done"
}

// Run builds cfg's network within budget and runs engine (Static or
// Dynamic) on it, showing its stages through show. Cancelling ctx stops
// the run (the build of a large graph too): the results then say
// Interrupted and hold what was done. Errors of the input are InputError.
// The process's CPU time and memory are the caller's to fill in.
func Run(ctx context.Context, engine string, cfg spec.Config, budget spec.Budget, show Show) (*Results, error) {
	if engine != Static && engine != Dynamic {
		return nil, fmt.Errorf("flow engine %q: must be %s or %s", engine, Static, Dynamic)
	}
	budget.Dynamic = engine != Static // the network's estimate before building: one worker's scratch
	halt := func() bool { return ctx.Err() != nil }
	began := time.Now()
	res := &Results{Engine: engine, Config: cfg}
	net, err := cfg.BuildWithin(budget, halt)
	if errors.Is(err, topology.ErrStopped) {
		res.Interrupted, res.BuildSecs = true, time.Since(began).Seconds()
		return res, nil
	}
	if err != nil {
		return nil, bad(err)
	}
	pat, err := workload.Build(cfg.Pattern, net.Graph.NumServers(), cfg.Seed)
	if err != nil {
		return nil, bad(err)
	}
	res.Config = cfg // with the preset resolved
	res.Servers, res.Switches, res.Links, res.GraphBytes = net.Graph.NumServers(), net.Graph.NumSwitches(), net.Graph.NumLinks(), net.Graph.MemoryBytes()
	res.FailedCables, res.BuildSecs = net.FailedCables, time.Since(began).Seconds()
	if engine == Static {
		if err := budget.Check(cfg.StaticBytes(net), fmt.Sprintf("the static engine on %d servers, %d switches and %d links with %d workers (--workers)",
			res.Servers, res.Switches, res.Links, cfg.Workers)); err != nil {
			return nil, bad(err)
		}
	}
	ran := time.Now()
	switch {
	case ctx.Err() != nil:
		res.Interrupted = true // stopped while the network was built
	case engine == Static:
		err = runStatic(ctx, show, net, pat, cfg, res)
	default:
		err = runDynamic(ctx, show, net, pat, cfg, budget, res)
	}
	if err != nil {
		return nil, err
	}
	if c, ok := net.Router.(interface{ Cache() *route.PathCache }); ok {
		st := c.Cache().Stats()
		res.PathCache = &st
	}
	res.RunSecs = time.Since(ran).Seconds()
	return res, nil
}

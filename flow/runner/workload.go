package runner

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/flow/trace"
	"github.com/opasim/opasim/flow/workload"
	"github.com/opasim/opasim/workloads/vef"
)

// dynWorkload is the configured workload as the dynamic engine's flows.
type dynWorkload struct {
	flows    []dynamic.Flow
	barriers []int // the phases' barrier flows
	tsum     *TraceSummary
	plan     *trace.Plan // a trace's
	// causal: the flows depend on each other (a trace, the Markov model,
	// an application), so one the network cannot route is an error.
	causal bool
}

// flowBudget refuses a workload's flows over the memory budget.
type flowBudget struct {
	net    *spec.Network
	cfg    *spec.Config
	budget spec.Budget
	// most is the most flows the budget takes: each workload is counted,
	// or bounded, up to just past it before its flows are made.
	most int64
}

// newFlowBudget is the flow budget of cfg's run on net within budget.
func newFlowBudget(net *spec.Network, cfg *spec.Config, budget spec.Budget) flowBudget {
	most := max(budget.Bytes-cfg.DynamicBytes(net, 0), 0) / spec.DynamicFlowBytes
	if budget.Bytes <= 0 {
		most = 1 << 32 // nothing is refused: the counts need not be exact
	}
	return flowBudget{net: net, cfg: cfg, budget: budget, most: most}
}

// check refuses flows flows over the budget; counted (a count that stops
// past most), they may be more.
func (fb flowBudget) check(flows int64, counted bool, what string) error {
	if counted && flows > fb.most {
		return fb.budget.CheckAtLeast(fb.cfg.DynamicBytes(fb.net, flows), fmt.Sprintf("%s (dynamic engine: more than %d flows at about %d B each)", what, fb.most, spec.DynamicFlowBytes))
	}
	return fb.budget.Check(fb.cfg.DynamicBytes(fb.net, flows), fmt.Sprintf("%s (dynamic engine: %d flows at about %d B each)", what, flows, spec.DynamicFlowBytes))
}

// dynamicWorkload makes the flows of the configured workload — a trace,
// the Markov model, an application or the pattern in phases — once their
// estimated memory is within budget. stop is asked while a trace is read;
// pr receives the progress a trace's reading starts.
func dynamicWorkload(net *spec.Network, pat static.Pattern, cfg *spec.Config, stop func() bool, budget spec.Budget, show Show, pr *Progress) (*dynWorkload, error) {
	d := cfg.Dynamic
	phase := d.PhaseFlows
	if phase == 0 {
		phase = math.MaxInt32
	}
	servers := net.Graph.NumServers()
	fb := newFlowBudget(net, cfg, budget)
	w := &dynWorkload{causal: true}
	var err error
	if tf := cfg.Trace; tf.File != "" {
		return traceWorkload(tf, servers, fb, stop, show, pr)
	} else if m := cfg.Markov; m.Tasks != 0 {
		if m.Seed == 0 {
			m.Seed = cfg.Seed
		}
		if err := fb.check(m.MaxFlows(fb.most), m.Comm.Name != "", fmt.Sprintf("markov (%d tasks, max_phases %d)", m.Tasks, m.MaxPhases)); err != nil {
			return nil, bad(err)
		}
		w.flows, _, err = m.Flows(servers)
	} else if a := cfg.App; a.Kind != "" {
		return appWorkload(a, cfg, servers, fb)
	} else {
		w.causal = false
		n := static.CountFlows(pat, fb.most)
		if err := fb.check(n+n/int64(max(phase, 1)), true, fmt.Sprintf("pattern %s (--pattern) on %d servers", pat.Name(), servers)); err != nil {
			return nil, bad(err)
		}
		w.flows, w.barriers, err = workload.Phased(pat, phase, d.FlowSize, d.PhaseDelay)
	}
	if err != nil {
		return nil, bad(err)
	}
	return w, nil
}

// traceWorkload reads trace tf (--trace) into flows on servers servers,
// within the flow budget; pr receives the progress it starts. Stopped
// (stop), it returns trace.ErrStopped.
func traceWorkload(tf spec.Trace, servers int, fb flowBudget, stop func() bool, show Show, pr *Progress) (*dynWorkload, error) {
	rd, err := vef.Open(tf.File)
	if err != nil {
		return nil, bad(fmt.Errorf("trace.file: %w", err))
	}
	h := rd.Header()
	what := fmt.Sprintf("trace.file %s (--trace) of %d messages and %d collective parts", tf.File, h.P2PMessages, h.CollectiveParts)
	if err := fb.check(h.P2PMessages+h.CollectiveParts, false, what); err != nil {
		rd.Close()
		return nil, bad(err)
	}
	limit := func(flows int64) error { return fb.check(flows, false, what+" so far") }
	if fb.budget.Bytes <= 0 {
		limit = nil
	}
	*pr = show.start("flow dynamic", "", 0, false, "reading and replaying %s", tf.File)
	plan, err := trace.Build(rd, servers, trace.Options{CPUFactor: tf.Factor(), SerialSends: tf.SerialSends, Limit: limit, Stop: stop})
	rd.Close()
	if errors.Is(err, trace.ErrStopped) {
		return nil, err
	}
	if err != nil {
		return nil, bad(fmt.Errorf("trace.file %s: %w", tf.File, err))
	}
	tsum := &TraceSummary{File: tf.File, CPUFactor: tf.Factor(), Tasks: plan.Tasks, Messages: plan.Messages, Parts: plan.Parts,
		SerialSends: tf.SerialSends}
	return &dynWorkload{flows: plan.Flows, tsum: tsum, plan: plan, causal: true}, nil
}

// appWorkload makes the flows and barriers of application a (--app) on
// servers servers, its unset fields taken from cfg, within the flow
// budget.
func appWorkload(a workload.App, cfg *spec.Config, servers int, fb flowBudget) (*dynWorkload, error) {
	if a.Tasks == 0 {
		a.Tasks = servers
	}
	if a.Tasks > servers {
		return nil, bad(fmt.Errorf("app.tasks: %d is not allowed: must be at most the network's %d servers", a.Tasks, servers))
	}
	if a.Size == 0 {
		a.Size = cfg.Dynamic.FlowSize
	}
	if a.Seed == 0 {
		a.Seed = cfg.Seed
	}
	if a.Kind == workload.Bench && a.Pattern == "" {
		a.Pattern = cfg.Pattern.Name // the run's pattern (--pattern)
	}
	n, err := a.MaxFlows(fb.most)
	if err != nil {
		return nil, bad(err)
	}
	if err := fb.check(n, a.Kind == workload.Bench, fmt.Sprintf("app %s (--app) of %d tasks (--tasks) and %d iterations (--iterations)", a.Kind, a.Tasks, max(a.Iterations, 1))); err != nil {
		return nil, bad(err)
	}
	w := &dynWorkload{causal: true}
	w.flows, w.barriers, err = a.FlowsAndBarriers()
	if err != nil {
		return nil, bad(err)
	}
	return w, nil
}

package sim

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/pbnjay/memory"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/strictyaml"
)

// Engine drives a network from its first cycle to the configured end, an
// interruption of ctx, or a blocked network. It returns an error only when
// it failed (the outcome of a blocked or interrupted run is not an error).
type Engine interface {
	Run(ctx context.Context, n *fabric.Network, h Hooks) (Outcome, error)
}

// ConfigError is a config the run layer refused: bad input, not a failure.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// Build reads the files cfg names (qos.dtable_file, trace.file and
// trace.mapping_file: the whole trace is checked first) and builds the network
// with the default schedulers. Every error is a ConfigError.
func Build(cfg fabric.Config) (*fabric.Network, error) {
	reg := sched.Default()
	if err := cfg.Validate(reg); err != nil {
		return nil, ConfigError{err}
	}
	if err := checkMemory(cfg); err != nil {
		return nil, ConfigError{err}
	}
	var in fabric.Inputs
	if path := cfg.QoS.DTableFile; path != "" {
		tab, err := readDTable(path)
		if err != nil {
			return nil, ConfigError{err}
		}
		in.DTable = &tab
	}
	if cfg.Trace.File != "" {
		rep, err := buildTrace(&cfg)
		if err != nil {
			return nil, ConfigError{err}
		}
		in.Workload = rep
	}
	n, err := fabric.BuildWith(cfg, reg, in)
	if err != nil {
		return nil, ConfigError{err}
	}
	return n, nil
}

func readDTable(path string) (dtable.Table, error) {
	data, err := strictyaml.ReadChecked(path, reflect.TypeOf(dtable.Table{}))
	if err != nil {
		return dtable.Table{}, fmt.Errorf("qos.dtable_file %s", err)
	}
	tab, err := dtable.ReadTable(bytes.NewReader(data))
	if err != nil {
		return dtable.Table{}, fmt.Errorf("qos.dtable_file %s: %w", path, err)
	}
	return tab, nil
}

// Execute runs n on engine e and measures it.
func Execute(ctx context.Context, n *fabric.Network, e Engine, h Hooks) (*Results, error) {
	o, err := e.Run(ctx, n, h)
	if err != nil {
		return nil, err
	}
	return Measure(n, o), nil
}

// Simulate builds cfg's network and runs it on the engine cfg names, one of
// engines: the whole run in one call, for callers that need neither the
// network nor an observer that reads it (the sweep library's tests).
func Simulate(ctx context.Context, cfg fabric.Config, engines map[string]Engine, h Hooks) (*Results, error) {
	n, err := Build(cfg)
	if err != nil {
		return nil, err
	}
	e, ok := engines[cfg.Engine]
	if !ok {
		return nil, ConfigError{fmt.Errorf("engine: %q is not available here", cfg.Engine)}
	}
	return Execute(ctx, n, e, h)
}

// checkMemory refuses a network whose estimated memory (fabric.EstimateBytes)
// is above the budget: memory_budget_mb, or this machine's memory.
func checkMemory(cfg fabric.Config) error {
	budget, from := cfg.MemoryBudget<<20, "memory_budget_mb"
	if cfg.MemoryBudget == 0 {
		budget, from = int64(min(memory.TotalMemory(), 1<<62)), "this machine's memory; set memory_budget_mb to change it"
	}
	if budget <= 0 {
		return nil // the machine's memory is unknown
	}
	if est := fabric.EstimateBytes(cfg); est > budget {
		return fmt.Errorf("memory: this network would take about %s (estimated from %s; buffers full and %d packets queued per NIC), "+
			"more than the budget of %s (%s)", mib(est), cfg.TopologySpec().Describe(), cfg.MaxQueuedPackets(), mib(budget), from)
	}
	return nil
}

func mib(b int64) string {
	if b >= 1<<40 {
		return fmt.Sprintf("%.3g TiB", float64(b)/(1<<40))
	}
	return fmt.Sprintf("%.3g GiB", float64(b)/(1<<30))
}

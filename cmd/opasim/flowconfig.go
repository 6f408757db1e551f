package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/storage"
	"github.com/opasim/opasim/strictyaml"
)

// effective is the config: the default, the file over it, the flags over
// both.
func (f *flowFlags) effective(fl *pflag.FlagSet) (spec.Config, error) {
	cfg, err := f.fileConfig()
	if err != nil {
		return cfg, err
	}
	set := fl.Changed
	f.applyTopologyFlags(set, &cfg)
	f.applyNumberFlags(set, &cfg)
	if err := f.applyRunFlags(set, &cfg); err != nil {
		return cfg, err
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	return cfg, nil
}

// fileConfig is the default config with --config's file over it.
func (f *flowFlags) fileConfig() (spec.Config, error) {
	cfg := spec.Default()
	if f.config != "" {
		cfg.Topology = spec.Topology{} // a file names its own topology
		if err := strictyaml.Load(f.config, &cfg); err != nil {
			return cfg, err
		}
		if cfg.Topology.Preset == "" && cfg.Topology.Kind == "" {
			cfg.Topology.Preset = spec.Default().Topology.Preset
		}
	}
	return cfg, nil
}

// applyTopologyFlags sets the topology, routing and pattern flags set on
// the command line over cfg.
func (f *flowFlags) applyTopologyFlags(set func(string) bool, cfg *spec.Config) {
	if set("preset") {
		capacity := cfg.Topology
		cfg.Topology = spec.Topology{Preset: f.preset}
		cfg.Topology.KeepCapacity(capacity)
	}
	if set("kind") {
		cfg.Topology.Preset, cfg.Topology.Kind = "", f.kind
	}
	if set("routing") {
		cfg.Routing.Name = f.routing
	}
	if set("paths") {
		cfg.Routing.Paths = f.paths
	}
	if set("pattern") {
		cfg.Pattern.Name = f.pattern
	}
}

// applyNumberFlags sets the numeric flags set on the command line (sizes,
// counts, fractions, capacity, budget, seed) over cfg.
func (f *flowFlags) applyNumberFlags(set func(string) bool, cfg *spec.Config) {
	ints := []struct {
		flag string
		v    int
		to   *int
	}{{"flows-per-server", f.flowsPerServer, &cfg.Pattern.FlowsPerServer}, {"region", f.region, &cfg.Pattern.Region},
		{"group-size", f.groupSize, &cfg.Pattern.GroupSize}, {"shift", f.shift, &cfg.Pattern.Shift},
		{"workers", f.workers, &cfg.Workers}, {"phase-flows", f.phaseFlows, &cfg.Dynamic.PhaseFlows},
		{"fail-count", f.failCount, &cfg.Topology.FailCount}, {"d", f.allpathD, &cfg.Routing.D}, {"cache-mb", f.cacheMB, &cfg.Routing.CacheMB}}
	for _, x := range ints {
		if set(x.flag) {
			*x.to = x.v
		}
	}
	floats := []struct {
		flag string
		v    float64
		to   *float64
	}{{"probability", f.probability, &cfg.Pattern.Probability}, {"mean", f.mean, &cfg.Pattern.Mean},
		{"flow-size", f.flowSize, &cfg.Dynamic.FlowSize},
		{"phase-delay", f.phaseDelay, &cfg.Dynamic.PhaseDelay}, {"start-quantum", f.startQuantum, &cfg.Dynamic.StartQuantum}, {"rate-cap", f.rateCap, &cfg.Dynamic.RateCap}, {"fail-fraction", f.failFraction, &cfg.Topology.FailFraction}}
	for _, x := range floats {
		if set(x.flag) {
			*x.to = x.v
		}
	}
	if set("capacity") {
		cfg.Topology.SetCapacity(f.capacity)
	}
	if set("memory-budget-mb") {
		cfg.MemoryBudgetMB = f.budgetMB
	}
	if set("seed") {
		cfg.Seed = f.seed
	}
}

// applyRunFlags sets the flags of the dynamic engine, the applications and
// the trace set on the command line over cfg.
func (f *flowFlags) applyRunFlags(set func(string) bool, cfg *spec.Config) error {
	if set("policy") {
		cfg.Dynamic.Policy = f.policy
	}
	if set("shares") {
		cfg.Dynamic.Shares = f.shares
	}
	if set("storage-policy") {
		if len(cfg.Apps) == 0 {
			return fmt.Errorf("--storage-policy: %q is not allowed without apps in the config file: it sets each application's storage policy", f.storagePolicy)
		}
		for i := range cfg.Apps {
			cfg.Apps[i].Storage = storage.Assign{Policy: f.storagePolicy}
		}
	}
	if set("app") {
		cfg.App.Kind = f.app
	}
	if set("tasks") {
		cfg.App.Tasks = f.tasks
	}
	if set("iterations") {
		cfg.App.Iterations = f.iterations
	}
	if set("compute") {
		cfg.App.Compute = f.compute
	}
	if set("trace") {
		cfg.Trace.File = f.traceFile
	}
	if set("serial-sends") {
		cfg.Trace.SerialSends = f.serialSends
	}
	if set("cpu-factor") {
		x := f.cpuFactor
		cfg.Trace.CPUFactor = &x
	}
	return nil
}

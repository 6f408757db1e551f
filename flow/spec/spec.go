// Package spec is the flow engine's run configuration: the topology, the
// routing, the traffic and the engine's options, as `opasim flow` reads
// them from YAML and flags, with presets, validation that names the field,
// the value and the allowed range, and the building of the network and its
// router.
package spec

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/storage"
	"github.com/opasim/opasim/flow/workload"
)

// Config is one flow-level run.
type Config struct {
	Topology Topology      `yaml:"topology" json:"topology"`
	Routing  Routing       `yaml:"routing" json:"routing"`
	Pattern  workload.Spec `yaml:"pattern" json:"pattern"`
	Seed     uint64        `yaml:"seed" json:"seed"`
	Workers  int           `yaml:"workers" json:"workers"` // static: goroutines routing flows (0: GOMAXPROCS)
	Dynamic  Dynamic       `yaml:"dynamic" json:"dynamic"`
	// App, if its kind is set, is what the dynamic engine runs instead of
	// the pattern: an application's causal flows, task i on server i.
	App workload.App `yaml:"app" json:"app,omitempty"`
	// Markov, if its tasks are set, is what the dynamic engine runs: the
	// Markov-chain application model.
	Markov workload.Markov `yaml:"markov" json:"markov,omitempty"`
	// Storage is the storage hardware (flow/storage: NVM devices behind
	// PCIe, a memory cache, a SAN) and Apps the applications run together
	// on it, each a Markov model on its partition with its data placed by
	// a storage policy. Apps, if given, is what the dynamic engine runs.
	Storage storage.Config `yaml:"storage" json:"storage"`
	Apps    []storage.App  `yaml:"apps" json:"apps,omitempty"`
	// Trace, if its file is set, is what the dynamic engine runs: a VEF
	// trace replayed at flow level (package flow/trace).
	Trace Trace `yaml:"trace" json:"trace,omitempty"`
	// MemoryBudgetMB is the memory a run may take, in MiB (0: this
	// machine's memory): a run estimated to take more is refused before
	// it starts (NewBudget).
	MemoryBudgetMB int64 `yaml:"memory_budget_mb" json:"memory_budget_mb,omitempty"`

	// budget and stop bound BuildWithin's graph file read.
	budget Budget
	stop   func() bool
}

// Trace is a VEF trace to replay at flow level: message sizes are bytes
// and times ns, so link capacities are in bytes per ns (12.5: 100 Gb/s).
type Trace struct {
	File string `yaml:"file" json:"file,omitempty"`
	// CPUFactor multiplies the trace's computation times (nil: 1).
	CPUFactor *float64 `yaml:"cpu_factor" json:"cpu_factor,omitempty"`
	// SerialSends makes every server send its messages one at a time, in
	// the trace's order, as the cycle-level NIC does
	// (trace.Options.SerialSends).
	SerialSends bool `yaml:"serial_sends" json:"serial_sends,omitempty"`
}

// Factor is the CPU factor, 1 when not given.
func (t Trace) Factor() float64 {
	if t.CPUFactor == nil {
		return 1
	}
	return *t.CPUFactor
}

// Routing names the routing: dmodk (trees, XGFTs and thin trees), dor
// (tori), ecmp (any graph; paths: 0 all shortest paths, 1 single-path
// BFS, P at most P), ksp (any graph: the paths shortest paths, default
// 4), allpath (any graph: paths up to d links longer than the shortest,
// at most paths of them), minimal and valiant (dragonflies; paths:
// intermediate groups), or "" for the topology's default (dmodk, dor,
// minimal, else bfs).
type Routing struct {
	Name  string `yaml:"name" json:"name"`
	Paths int    `yaml:"paths" json:"paths"`
	// D is allpath's slack: paths at most D links longer than the
	// shortest (paths: the most kept, 0 all).
	D int `yaml:"d" json:"d,omitempty"`
	// CacheMB bounds ksp's and allpath's path cache, in MiB (0: 64);
	// least recently used pairs are dropped past it.
	CacheMB int `yaml:"cache_mb" json:"cache_mb,omitempty"`
}

// Dynamic holds the dynamic engine's options: every flow's size, and the
// causality phases (seed 001 section 3.3.2: phase_flows flows a phase, 0
// for one phase, each phase starting phase_delay after the previous one
// completed).
type Dynamic struct {
	FlowSize   float64 `yaml:"flow_size" json:"flow_size"`
	PhaseFlows int     `yaml:"phase_flows" json:"phase_flows"`
	PhaseDelay float64 `yaml:"phase_delay" json:"phase_delay"`
	// Policy is how links share among traffic classes (seed 001 Fig. 1):
	// np (max-min over all flows, the default), ba (class c guaranteed
	// shares[c] of every link) or fp (class 0 first). The Markov model's
	// storage flows are class 1, everything else class 0.
	Policy string    `yaml:"policy" json:"policy,omitempty"`
	Shares []float64 `yaml:"shares" json:"shares,omitempty"`
	// StartQuantum, if positive, rounds every flow's start time up to a
	// multiple of it (dynamic.Options.StartQuantum): a cheaper model for
	// runs whose cost is one solve per start time, whose error
	// docs/flow.md measures. 0 (the default): exact start times.
	StartQuantum float64 `yaml:"start_quantum" json:"start_quantum,omitempty"`
	// RateCap, if positive, bounds every flow's rate (a flow with a cap
	// of its own keeps the lower): for instance the rate one stream gets
	// at the cycle level, with links at what its VLs carry
	// (docs/validation.md, "Flow level against cycle level"). 0 (the default): no bound.
	RateCap float64 `yaml:"rate_cap" json:"rate_cap,omitempty"`
}

// Classes is the number of traffic classes the configured workload's
// flows use: 2 (0 the applications', 1 storage I/O) for the storage
// study (apps) and for a Markov model that reads or writes, else 1.
func (c *Config) Classes() int {
	if len(c.Apps) > 0 {
		return 2
	}
	if m := c.Markov; m.Tasks != 0 {
		for a := range workload.NumPhases {
			if m.Matrix[a][workload.PhaseRead] > 0 || m.Matrix[a][workload.PhaseWrite] > 0 {
				return 2
			}
		}
	}
	return 1
}

// MaxShares bounds dynamic.shares (the solver's most classes).
const MaxShares = 256

// PolicyOf is the maxmin policy d names for a workload whose flows are of
// classes traffic classes (Config.Classes). Every error names the key
// and its flag.
func (d Dynamic) PolicyOf(classes int) (maxmin.Policy, error) {
	switch d.Policy {
	case "", "np", "fp":
		if len(d.Shares) > 0 {
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed with policy %s: only policy ba takes shares", d.Shares, cmp.Or(d.Policy, "np"))
		}
		if d.Policy == "fp" {
			return maxmin.Policy{Kind: maxmin.FP}, nil
		}
		return maxmin.Policy{Kind: maxmin.NP}, nil
	case "ba":
		if len(d.Shares) == 0 {
			return maxmin.Policy{}, errors.New("dynamic.shares: [] is not allowed with policy ba: give each class's share, e.g. [0.75, 0.25] (--shares 0.75,0.25)")
		}
		sum := 0.0
		for i, x := range d.Shares {
			if !(x >= 0 && x <= 1) {
				return maxmin.Policy{}, fmt.Errorf("dynamic.shares[%d] (--shares): %v is not allowed: must be in [0, 1]", i, x)
			}
			sum += x
		}
		switch {
		case len(d.Shares) > MaxShares:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %d shares is not allowed: must be 1 to %d", len(d.Shares), MaxShares)
		case sum > 1+1e-9:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed: they sum to %v, must sum to at most 1", d.Shares, sum)
		case len(d.Shares) < classes:
			return maxmin.Policy{}, fmt.Errorf("dynamic.shares (--shares): %v is not allowed: this workload's flows are of %d classes "+
				"(0: the applications', 1: storage I/O): give %d shares summing to at most 1, e.g. --shares 0.5,0.5", d.Shares, classes, classes)
		}
		return maxmin.Policy{Kind: maxmin.BA, Shares: d.Shares}, nil
	}
	return maxmin.Policy{}, fmt.Errorf("dynamic.policy: %q is not allowed: must be one of np, ba, fp", d.Policy)
}

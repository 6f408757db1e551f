package storage

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/workload"
)

// App is one application of a run of several: a Markov-chain model
// (flow/workload) on a partition of consecutive nodes, with its data
// placed by a storage assignment. Its storage flows are of class 1 (I/O),
// its communication of class 0 (App).
type App struct {
	Name string `yaml:"name" json:"name,omitempty"`
	// First is the partition's first node: tasks 0..markov.tasks-1 run
	// on nodes first, first+1, ... (unset: right after the previous
	// application's partition, the first application's at node 0).
	// Partitions must not overlap.
	First *int `yaml:"first" json:"first,omitempty"`
	// Start is when the application starts (its Init), >= 0.
	Start   float64         `yaml:"start" json:"start,omitempty"`
	Markov  workload.Markov `yaml:"markov" json:"markov"`
	Storage Assign          `yaml:"storage" json:"storage"`
}

// MaxTasksTotal bounds the tasks of all applications together.
const MaxTasksTotal = 1 << 22

// Partitions returns each application's nodes, checking the partitions fit
// the servers and do not overlap.
func Partitions(apps []App, servers int) ([][]int32, error) {
	used := make(map[int32]int)
	parts := make([][]int32, len(apps))
	next := 0
	total := 0
	for i, a := range apps {
		p := fmt.Sprintf("apps[%d].", i)
		n := a.Markov.Tasks
		if n < 2 || n > servers {
			return nil, fmt.Errorf("%smarkov.tasks: %d is not allowed: must be in [2, %d] (the servers)", p, n, servers)
		}
		if total += n; total > MaxTasksTotal {
			return nil, fmt.Errorf("%smarkov.tasks: %d is not allowed: the applications' tasks must total at most %d", p, n, MaxTasksTotal)
		}
		first := next
		if a.First != nil {
			first = *a.First
		}
		if first < 0 || first+n > servers {
			return nil, fmt.Errorf("%sfirst: %d is not allowed: must be in [0, %d] (its %d tasks on consecutive nodes of the %d; unset: after the previous application's)", p, first, servers-n, n, servers)
		}
		part := make([]int32, n)
		for k := range part {
			v := int32(first + k)
			if j, ok := used[v]; ok {
				return nil, fmt.Errorf("%sfirst: %d is not allowed: its nodes %d..%d overlap apps[%d]'s at node %d", p, first, first, first+n-1, j, v)
			}
			used[v] = i
			part[k] = v
		}
		parts[i] = part
		next = first + n
	}
	return parts, nil
}

// AppResult is what one application did.
type AppResult struct {
	Name    string   `json:"name"`
	Nodes   string   `json:"nodes"`
	Policy  string   `json:"storage_policy"`
	Walk    []string `json:"walk"`
	Start   float64  `json:"start"`
	End     float64  `json:"end"` // +Inf if it never ends
	Runtime float64  `json:"runtime"`
	// Time spent in each kind of phase (end of the phase − end of the one
	// before): computation, communication, reads and writes.
	CompTime  float64 `json:"comp_time"`
	CommTime  float64 `json:"comm_time"`
	ReadTime  float64 `json:"read_time"`
	WriteTime float64 `json:"write_time"`
	// IOTime is ReadTime + WriteTime: the application's I/O completion
	// time, summed over its I/O phases.
	IOTime float64 `json:"io_time"`
	// IOFlows are its storage flows; IOMean their mean completion time
	// (finish − start; cache hits on the reader's node count with 0).
	IOFlows int     `json:"io_flows"`
	IOMean  float64 `json:"io_mean"`
	IOLast  float64 `json:"io_last"` // when its last storage flow completed (0: none)
	// CommFlows, CommMean: the same for its communication flows.
	CommFlows int     `json:"comm_flows"`
	CommMean  float64 `json:"comm_mean"`
}

// Result is a run of several applications.
type Result struct {
	Apps     []AppResult `json:"apps"`
	Makespan float64     `json:"makespan"`
	Flows    int         `json:"flows"`
	// Unfinished counts flows that never completed.
	Unfinished  int   `json:"unfinished"`
	Batches     int   `json:"batches"`
	Resolved    int64 `json:"resolved"`
	Interrupted bool  `json:"interrupted"`
	// Start and Finish per flow, in the order of Flows (for digests).
	Start, Finish []float64 `json:"-"`
}

// Build returns the flows of the applications on system s: each
// application's Markov model with its seed (0: seed + its index), its
// tasks on its partition and its reads and writes going to its storage
// targets. It also returns where each application's flows are.
func Build(s *System, cfg Config, apps []App, seed uint64) ([]dynamic.Flow, []Span, error) {
	if len(apps) == 0 {
		return nil, nil, errors.New("apps: [] is not allowed: give at least one application")
	}
	c := cfg.WithDefaults()
	servers := int(s.Servers())
	parts, err := Partitions(apps, servers)
	if err != nil {
		return nil, nil, err
	}
	var flows []dynamic.Flow
	spans := make([]Span, len(apps))
	for i, a := range apps {
		if flows, spans[i], err = appFlows(s, c, i, a, parts[i], seed, flows); err != nil {
			return nil, nil, err
		}
	}
	return flows, spans, nil
}

// appFlows appends to flows those of application a, the i-th, on
// partition part, and returns them with its span. seed + i is its
// Markov model's seed if it gives none.
func appFlows(s *System, c Config, i int, a App, part []int32, seed uint64, flows []dynamic.Flow) ([]dynamic.Flow, Span, error) {
	p := fmt.Sprintf("apps[%d].", i)
	m := a.Markov
	if len(m.Storage) > 0 {
		return nil, Span{}, fmt.Errorf("%smarkov.storage: %v is not allowed here: an application's data is placed by %sstorage", p, m.Storage, p)
	}
	if err := m.CheckChain(p+"markov.", int(s.Servers())); err != nil {
		return nil, Span{}, err
	}
	if !(a.Start >= 0) || a.Start > 1e300 {
		return nil, Span{}, fmt.Errorf("%sstart: %v is not allowed: must be in [0, 1e300]", p, a.Start)
	}
	if m.Seed == 0 {
		m.Seed = seed + uint64(i)
	}
	targets, err := s.Targets(p+"storage.", a.Storage, part)
	if err != nil {
		return nil, Span{}, err
	}
	pl, err := m.FlowsOn(part, s.storageIO(c, part, targets))
	if err != nil {
		return nil, Span{}, fmt.Errorf("%smarkov: %w", p, err)
	}
	off := len(flows)
	for k := range pl.Flows {
		f := pl.Flows[k]
		for d := range f.Deps {
			f.Deps[d] += off
		}
		if len(f.Deps) == 0 {
			f.Start = a.Start
		}
		flows = append(flows, f)
	}
	for k := range pl.Ends {
		pl.Ends[k] += off
	}
	name := a.Name
	if name == "" {
		name = fmt.Sprintf("app%d", i)
	}
	sp := Span{Name: name, Nodes: span(part), Policy: policyName(a.Storage.Policy), From: off, To: len(flows), Start: a.Start, Walk: pl.Walk, Ends: pl.Ends}
	return flows, sp, nil
}

// storageIO is the storage flows of the tasks on partition part, task
// i's data on targets[i]: a write goes from the task's node to its
// target; a read from an NVM device is served from its node's memory in
// part c.CacheHit (at once when that is the reader's own), the rest from
// the device; other reads come from the target.
func (s *System) storageIO(c Config, part, targets []int32) workload.IOFunc {
	return func(task int, write bool, size float64, add func(src, dst int32, size float64)) {
		node, tg := part[task], targets[task]
		switch {
		case write:
			add(node, tg, size)
		case tg < 2*s.Servers() && c.CacheHit > 0: // an NVM device: part of the read is in its node's memory
			hit := size * c.CacheHit
			if holder := tg - s.Servers(); holder != node {
				add(holder, node, hit)
			} else {
				add(node, node, hit) // in the reader's own memory: at once
			}
			add(tg, node, size-hit)
		default:
			add(tg, node, size)
		}
	}
}

func policyName(p string) string {
	if p == "" {
		return Local
	}
	return p
}

// Span is where one application's flows are in the list Build returns.
type Span struct {
	Name, Nodes, Policy string
	From, To            int // flows[From:To]
	Start               float64
	Walk                []int
	Ends                []int // the barrier ending each phase of Walk
}

// Policy is p for this system: under BA only the network's links are
// apportioned (the devices and the SAN carry I/O alone, which takes all
// of them; maxmin.Policy.Apportioned).
func (s *System) Policy(p maxmin.Policy) maxmin.Policy {
	if p.Kind == maxmin.BA {
		p.Apportioned = s.links
	}
	return p
}

// Run builds the system and the applications' flows and runs them on the
// dynamic engine under policy.
func Run(r route.Router, cfg Config, apps []App, seed uint64, policy maxmin.Policy, interrupt func() bool) (*Result, error) {
	s, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	flows, spans, err := Build(s, cfg, apps, seed)
	if err != nil {
		return nil, err
	}
	res, err := dynamic.RunWith(s, flows, dynamic.Options{Policy: s.Policy(policy), Interrupt: interrupt})
	if err != nil {
		return nil, err
	}
	return Summarize(flows, spans, res), nil
}

// Summarize turns the engine's times into per-application results.
func Summarize(flows []dynamic.Flow, spans []Span, res *dynamic.Result) *Result {
	out := &Result{Makespan: res.Makespan, Flows: len(flows), Unfinished: res.Unfinished, Batches: res.Batches,
		Resolved: res.Resolved, Interrupted: res.Interrupted, Start: res.Start, Finish: res.Finish}
	for _, sp := range spans {
		a := AppResult{Name: sp.Name, Nodes: sp.Nodes, Policy: sp.Policy, Start: sp.Start}
		barrier := make(map[int]bool, len(sp.Ends))
		for _, e := range sp.Ends {
			barrier[e] = true
		}
		prev := sp.Start
		for k, ph := range sp.Walk {
			a.Walk = append(a.Walk, workload.PhaseNames[ph])
			end := res.Finish[sp.Ends[k]]
			d := end - prev
			switch ph {
			case workload.PhaseComp:
				a.CompTime += d
			case workload.PhaseComm:
				a.CommTime += d
			case workload.PhaseRead:
				a.ReadTime += d
			case workload.PhaseWrite:
				a.WriteTime += d
			}
			prev = end
		}
		a.End = prev
		a.Runtime = a.End - a.Start
		a.IOTime = a.ReadTime + a.WriteTime
		ioSum, commSum := 0.0, 0.0
		for i := sp.From; i < sp.To; i++ {
			if barrier[i] {
				continue
			}
			d := res.Finish[i] - res.Start[i]
			if flows[i].Class == 1 {
				a.IOFlows++
				ioSum += d
				a.IOLast = math.Max(a.IOLast, res.Finish[i])
			} else {
				a.CommFlows++
				commSum += d
			}
		}
		if a.IOFlows > 0 {
			a.IOMean = ioSum / float64(a.IOFlows)
		}
		if a.CommFlows > 0 {
			a.CommMean = commSum / float64(a.CommFlows)
		}
		out.Apps = append(out.Apps, a)
	}
	return out
}

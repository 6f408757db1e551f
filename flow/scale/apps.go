package scale

import (
	"context"
	"fmt"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/topology"
	"github.com/opasim/opasim/flow/workload"
)

// The application study (seed 001 section 4.2, Figs. 8 and 9): the
// execution time of application models on topologies of about the same
// size, each normalized to the fat tree's, and the effect of multipath
// routing (the time with single-path routing over the time with ECMP).

// Topo is a named topology of the study with its routings: the
// topology's own and, for the multipath comparison, another.
type Topo struct {
	Name      string
	Topology  spec.Topology
	Multipath *spec.Routing // nil: not in the multipath comparison
}

// StudyTopologies are seed 001's kinds at about 4,096 servers.
func StudyTopologies() []Topo {
	ecmp := &spec.Routing{Name: "ecmp", Paths: 4}
	return []Topo{
		{"torus-3d", spec.Topology{Kind: spec.KindTorus, Dims: []int{16, 16, 16}, ServersPerSwitch: 1}, nil},
		{"torus-6d", spec.Topology{Kind: spec.KindTorus, Dims: []int{4, 4, 4, 4, 4, 4}, ServersPerSwitch: 1}, nil},
		{"fat-tree", spec.Topology{Kind: spec.KindTree, K: 16, N: 3}, ecmp},
		{"thin-tree-2:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 8, N: 3}, ecmp},
		{"thin-tree-4:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 4, N: 3}, ecmp},
		{"dragonfly", spec.Topology{Kind: spec.KindDragonfly, A: 12, H: 6, P: 6, Arrangement: topology.DragonflyAbsolute}, nil},
		{"jellyfish", spec.Topology{Kind: spec.KindJellyfish, Switches: 256, Ports: 32, SwitchPorts: 16}, ecmp},
	}
}

// StudyApps are the applications (4,096 tasks where the flows stay few
// enough; 256 for the quadratic ones), flows of 1,000 capacity-time units
// and computations of 10, then seed 001's third group, the benchmarking
// patterns (StudyBenches).
func StudyApps() []workload.App {
	return append([]workload.App{
		{Kind: workload.Stencil3D, Tasks: 4096, Iterations: 5, Size: 1000, Compute: 10},
		{Kind: workload.Sweep2D, Tasks: 4096, Iterations: 2, Size: 1000, Compute: 10},
		{Kind: workload.NBody, Tasks: 256, Iterations: 1, Size: 1000, Compute: 10},
		{Kind: workload.MapReduce, Tasks: 256, Size: 1000, Compute: 10},
		{Kind: workload.Unstructured, Tasks: 4096, Iterations: 5, Size: 1000, Compute: 10, Seed: 1},
		{Kind: workload.DCNTraffic, Tasks: 4096, Iterations: 4, Size: 1000, Seed: 1},
	}, StudyBenches(4096, 4096, 256)...)
}

// StudyBenches are the benchmarking patterns, causality-enhanced (seed
// 001 section 3.3.3's third group: each phase waits for the previous
// one): 4 rounds of a random uniform pattern, a random permutation and a
// shift by one on tasks tasks, of the bit complement, the bit reversal
// and the butterfly on pow2 tasks (a power of two: they need one), and
// one round of all-to-all on a2a tasks (quadratic, as n-body); flows of
// 1,000, computations of 10 between rounds.
func StudyBenches(tasks, pow2, a2a int) []workload.App {
	bench := func(pattern string, n, rounds int) workload.App {
		return workload.App{Kind: workload.Bench, Pattern: pattern, Tasks: n, Iterations: rounds, Size: 1000, Compute: 10, Seed: 1}
	}
	return []workload.App{
		bench("uniform", tasks, 4),
		bench("permutation", tasks, 4),
		bench("shift", tasks, 4),
		bench("bit-complement", pow2, 4),
		bench(workload.BitReversal, pow2, 4),
		bench(workload.Butterfly, pow2, 4),
		bench("all-to-all", a2a, 1),
	}
}

// Study sizes: the servers the study's topologies have, about.
const (
	Study4k  = "4k"
	Study64k = "64k"
)

// StudySizes lists the sizes StudyOf knows.
func StudySizes() []string { return []string{Study4k, Study64k} }

// StudyOf returns the topologies and applications of the study of the
// given size ("4k": StudyTopologies and StudyApps; "64k":
// StudyTopologies64k and StudyApps64k).
func StudyOf(size string) ([]Topo, []workload.App, error) {
	switch size {
	case Study4k:
		return StudyTopologies(), StudyApps(), nil
	case Study64k:
		return StudyTopologies64k(), StudyApps64k(), nil
	}
	return nil, nil, fmt.Errorf("study size: %q is not allowed: must be one of %s", size, strings.Join(StudySizes(), ", "))
}

// StudyTopologies64k are the same kinds at about 65,536 servers. The 3D
// torus is 40³ (64,000) rather than 32×32×64 (65,536) so that the
// stencil's 40³ grid lies on it as the 16³ one does on the 16³ torus:
// neighbouring tasks on neighbouring switches. The dragonfly stays
// balanced (a = 2h, p = h) as at 4k, which puts it above the others
// (83,232 servers: 289 groups of 24 routers, 12 global links and 12
// servers each; the next balanced one down, h = 11, has 58,806, fewer
// than the tasks), as the 5,256-server one is above 4,096; the
// applications use its first servers.
func StudyTopologies64k() []Topo {
	ecmp := &spec.Routing{Name: "ecmp", Paths: 4}
	return []Topo{
		{"torus-3d", spec.Topology{Kind: spec.KindTorus, Dims: []int{40, 40, 40}, ServersPerSwitch: 1}, nil},
		{"torus-6d", spec.Topology{Kind: spec.KindTorus, Dims: []int{4, 4, 8, 8, 8, 8}, ServersPerSwitch: 1}, nil},
		{"fat-tree", spec.Topology{Kind: spec.KindTree, K: 16, N: 4}, ecmp},
		{"thin-tree-2:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 8, N: 4}, ecmp},
		{"thin-tree-4:1", spec.Topology{Kind: spec.KindThinTree, K: 16, KUp: 4, N: 4}, ecmp},
		{"dragonfly", spec.Topology{Kind: spec.KindDragonfly, A: 24, H: 12, P: 12, Arrangement: topology.DragonflyAbsolute}, nil},
		{"jellyfish", spec.Topology{Kind: spec.KindJellyfish, Switches: 4096, Ports: 32, SwitchPorts: 16}, ecmp},
	}
}

// StudyApps64k are StudyApps at 64,000 tasks (the 3D torus's servers,
// the fewest of StudyTopologies64k), so that every topology runs the same
// tasks: the stencil on 40³, the sweep on the largest square below,
// 252² = 63,504; the quadratic ones (n-body, MapReduce) on 1,024. The
// order is the cheapest first (as measured at 4k), so that with a run
// limit the table fills from the cheap end; then the benchmarking
// patterns on 64,000 tasks (the bit permutations on 32,768, the largest
// power of two below; all-to-all on 1,024).
func StudyApps64k() []workload.App {
	return append([]workload.App{
		{Kind: workload.Sweep2D, Tasks: 252 * 252, Iterations: 2, Size: 1000, Compute: 10},
		{Kind: workload.NBody, Tasks: 1024, Iterations: 1, Size: 1000, Compute: 10},
		{Kind: workload.MapReduce, Tasks: 1024, Size: 1000, Compute: 10},
		{Kind: workload.Stencil3D, Tasks: 40 * 40 * 40, Iterations: 5, Size: 1000, Compute: 10},
		{Kind: workload.Unstructured, Tasks: 64000, Iterations: 5, Size: 1000, Compute: 10, Seed: 1},
		{Kind: workload.DCNTraffic, Tasks: 64000, Iterations: 4, Size: 1000, Seed: 1},
	}, StudyBenches(64000, 1<<15, 1024)...)
}

// AppPoint is one application on one topology and routing. A run stopped
// by its limit (AppOptions.RunLimit) or a signal is not a result:
// Unfinished is set, Makespan is 0 and Reached (its last completion's
// time) and Completed (the flows completed) say how far it got.
type AppPoint struct {
	Topology   string  `json:"topology"`
	App        string  `json:"app"`
	Routing    string  `json:"routing"`
	Multipath  bool    `json:"multipath"`
	Servers    int     `json:"servers"`
	Flows      int     `json:"flows"`
	Makespan   float64 `json:"makespan"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Unfinished bool    `json:"unfinished,omitempty"`
	Reached    float64 `json:"reached,omitempty"`   // unfinished: the time of the last completion before it stopped (0: none)
	Completed  int     `json:"completed,omitempty"` // unfinished: the flows completed by then
	// Interrupted: a cancelled context (a signal), not the run limit,
	// stopped the unfinished run.
	Interrupted bool `json:"interrupted,omitempty"`
	// StartQuantum is the grid the run's start times were rounded up to
	// (AppOptions.StartQuantum; 0: exact start times).
	StartQuantum float64 `json:"start_quantum,omitempty"`
}

// Multipath routings RunAppsWith can compare with single-path routing
// (AppOptions.Multipath), on the topologies that have a multipath
// routing in the study.
const (
	MultipathECMP = "ecmp" // the study's own: ECMP over 4 paths
	MultipathKSP  = "ksp"  // the 4 shortest paths (Yen's), seed 001's KSP
)

// kspRouting is KSP-4 with a path cache large enough that a 64k study's
// pairs are not dropped from it.
var kspRouting = spec.Routing{Name: "ksp", Paths: 4, CacheMB: 1024}

// Routings selects which of a topology's routings RunAppsWith runs.
const (
	RoutingsBoth      = "both"      // its own, and its multipath one if it has one
	RoutingsSingle    = "single"    // its own only
	RoutingsMultipath = "multipath" // its multipath one only (topologies without one are skipped)
)

// AppOptions configures RunAppsWith.
type AppOptions struct {
	Seed uint64 // of the random topologies
	// RunLimit, if positive, bounds each run's wall time (building its
	// flows and simulating them): a run that reaches it is stopped and
	// reported unfinished, and the study goes on with the next, so that
	// one hopeless run cannot take the time of all the others.
	RunLimit time.Duration
	// StartQuantum, if positive, starts the flows on a grid of that step
	// (dynamic.Options.StartQuantum): a cheaper model, for the runs whose
	// cost is one solve per start time. 0: exact start times.
	StartQuantum float64
	Routings     string         // RoutingsBoth (also when empty), RoutingsSingle or RoutingsMultipath
	Multipath    string         // MultipathECMP (also when empty) or MultipathKSP
	Done         func(AppPoint) // called after each run, finished or not
}

// RunApps runs every application on every topology with its own routing,
// and on the multipath topologies with their multipath routing too; done
// is called after each run. A cancelled ctx stops before the next run.
func RunApps(ctx context.Context, topos []Topo, apps []workload.App, seed uint64, done func(AppPoint)) ([]AppPoint, error) {
	return RunAppsWith(ctx, topos, apps, AppOptions{Seed: seed, Done: done})
}

// RunAppsWith is RunApps with a per-run time limit and a choice of
// routings. A cancelled ctx also stops the run under way, which is
// reported unfinished.
func RunAppsWith(ctx context.Context, topos []Topo, apps []workload.App, opt AppOptions) ([]AppPoint, error) {
	if opt.RunLimit < 0 {
		return nil, fmt.Errorf("run limit: %v is not allowed: must be at least 0 (0: no limit)", opt.RunLimit)
	}
	if q := opt.StartQuantum; !(q >= 0) || q > 1e300 {
		return nil, fmt.Errorf("start quantum: %v is not allowed: must be in [0, 1e300] (0: exact start times)", q)
	}
	switch opt.Multipath {
	case "", MultipathECMP, MultipathKSP:
	default:
		return nil, fmt.Errorf("multipath: %q is not allowed: must be one of %s, %s", opt.Multipath, MultipathECMP, MultipathKSP)
	}
	var out []AppPoint
	for _, t := range topos {
		if t.Multipath != nil && opt.Multipath == MultipathKSP {
			ksp := kspRouting
			t.Multipath = &ksp
		}
		routings, err := t.routings(opt.Routings)
		if err != nil {
			return out, err
		}
		for _, r := range routings {
			cfg := spec.Config{Topology: t.Topology, Routing: *r, Seed: opt.Seed}
			net, err := cfg.Build()
			if err != nil {
				return out, fmt.Errorf("%s: %w", t.Name, err)
			}
			for _, a := range apps {
				if ctx.Err() != nil {
					return out, nil
				}
				if a.Tasks > net.Graph.NumServers() {
					return out, fmt.Errorf("%s: %s needs %d servers, the network has %d", t.Name, a.Name(), a.Tasks, net.Graph.NumServers())
				}
				pt, err := runApp(ctx, net, a, opt.RunLimit, opt.StartQuantum)
				if err != nil {
					return out, fmt.Errorf("%s %s: %w", t.Name, a.Name(), err)
				}
				pt.Topology, pt.Multipath = t.Name, r == t.Multipath
				out = append(out, pt)
				if opt.Done != nil {
					opt.Done(pt)
				}
			}
		}
	}
	return out, nil
}

// routings returns the topology's routings that sel selects: the zero
// Routing (its own) and its multipath one.
func (t Topo) routings(sel string) ([]*spec.Routing, error) {
	own := &spec.Routing{}
	switch sel {
	case "", RoutingsBoth:
		if t.Multipath != nil {
			return []*spec.Routing{own, t.Multipath}, nil
		}
		return []*spec.Routing{own}, nil
	case RoutingsSingle:
		return []*spec.Routing{own}, nil
	case RoutingsMultipath:
		if t.Multipath != nil {
			return []*spec.Routing{t.Multipath}, nil
		}
		return nil, nil
	}
	return nil, fmt.Errorf("routings: %q is not allowed: must be one of %s, %s, %s", sel, RoutingsBoth, RoutingsSingle, RoutingsMultipath)
}

// runApp builds the application's flows and simulates them (starts on a
// grid of quantum, if positive), stopping when limit (if positive) has
// passed since it began or ctx is cancelled.
func runApp(ctx context.Context, net *spec.Network, a workload.App, limit time.Duration, quantum float64) (AppPoint, error) {
	began, cpu0 := time.Now(), cpuSeconds()
	flows, err := a.Flows()
	if err != nil {
		return AppPoint{}, err
	}
	interrupt := func() bool {
		return ctx.Err() != nil || (limit > 0 && time.Since(began) > limit)
	}
	res, err := dynamic.RunWith(net.Router, flows, dynamic.Options{Interrupt: interrupt, StartQuantum: quantum})
	if err != nil {
		return AppPoint{}, err
	}
	if res.Unfinished > 0 {
		return AppPoint{}, fmt.Errorf("%d flows never completed", res.Unfinished)
	}
	pt := AppPoint{App: a.Name(), Routing: net.Router.Name(), Servers: net.Graph.NumServers(), Flows: len(flows),
		Makespan: res.Makespan, Seconds: time.Since(began).Seconds(), CPUSeconds: cpuSeconds() - cpu0, StartQuantum: quantum}
	// The interrupt is asked after the last batch too: a run stopped with
	// every flow completed is finished.
	if left := countInf(res.Finish); res.Interrupted && left > 0 {
		pt.Unfinished, pt.Makespan, pt.Reached, pt.Completed = true, 0, res.Makespan, len(flows)-left
		pt.Interrupted = ctx.Err() != nil
	}
	return pt, nil
}

// countInf counts the +Inf values: the flows not completed.
func countInf(xs []float64) int {
	n := 0
	for _, x := range xs {
		if math.IsInf(x, 1) {
			n++
		}
	}
	return n
}

// cpuSeconds is the process' user and system CPU time so far (0 if the
// system does not say).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

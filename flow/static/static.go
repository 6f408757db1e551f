// Package static is the flow engine's static mode (seed 001 section 3.1):
// every flow of a traffic pattern is routed at once, each link's capacity
// is shared among the flows crossing it, and the engine reports link
// loads, path lengths and the figures of merit of seed 001 section 4.
//
// Definitions. A flow split over paths (multipath routing) puts share w_p
// of itself on path p (Σ w_p = 1); a link's load is the sum of the shares
// of the paths crossing it (for single-path routing, the number of flows).
// A link of capacity C and load L gives each unit of share C/L, so path p
// runs at w_p · min over its links of C/L and a flow's rate is the sum
// over its paths: with single-path routing and unit capacities, 1/(the
// highest load on its path). Then:
//
//   - non-restricted aggregate throughput: the sum of all flows' rates
//     (loosely coupled applications: every flow at its own bottleneck);
//   - restricted aggregate throughput: the number of flows times the
//     lowest rate (tightly coupled applications: every flow at the speed
//     of the slowest);
//   - throughput per port: either aggregate divided by the number of
//     ports, one per directed link (each link is one port's transmit side).
//
// Rates are in the unit of the graph's capacities.
package static

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// Options tune Run.
type Options struct {
	// Workers is the number of goroutines routing flows (0: 1). Each keeps
	// its own link-load array (8 bytes per link) and router.
	Workers int
	// Bins is the number of bins of the link-load histogram (0: 16).
	Bins int
	// Stop, if set, is asked before each source's flows are routed (in
	// both passes); once it returns true no further source starts, and
	// the result covers the sources routed so far (Interrupted, Sources,
	// RatedSources), not necessarily the first ones.
	Stop func() bool
	// Progress, if set, is called (from any goroutine, one call at a time
	// per worker) after each chunk with the chunks done of the two passes'
	// 2·total.
	Progress func(done, total int)
	// Connectivity asks for Result.Connectivity: what the network still
	// connects, whatever the routing (see Connect) — for networks with
	// failed links, where Unrouted says what the routing could not route.
	Connectivity bool
}

// Limits on Options.
const (
	MaxWorkers = 256
	MaxBins    = 1 << 20
)

// Histogram counts links by load: Counts[i] links have load in
// [i·Width, (i+1)·Width), the last bin also holding load = Bins·Width.
type Histogram struct {
	Width  float64
	Counts []int64
}

// Result is what a static run measures.
type Result struct {
	Routing, Pattern string
	// Sources is the number of servers whose flows were routed: all of
	// them, or fewer when Options.Stop ended the run early (Interrupted).
	// The loads, hop counts, Flows, Unrouted and Paths cover their flows.
	Sources     int
	Interrupted bool
	// RatedSources is the number of servers whose flows' rates were
	// found (the second pass): Sources, or fewer when Options.Stop ended
	// the run during the second pass. The rates and throughputs cover
	// their flows.
	RatedSources int
	Flows        int64 // flows routed
	Unrouted     int64 // flows whose destination cannot be reached (counted nowhere else)
	Paths        int64 // paths of the routed flows (Flows with single-path routing)
	Links        int   // directed links, one per port

	Load     []float64 // Load[l]: the shares of the flows crossing link l
	MaxLoad  float64   // the highest link load
	MeanLoad float64   // the mean link load over all links
	// MaxRelativeLoad is the highest load/capacity ratio (MaxLoad with
	// unit capacities).
	MaxRelativeLoad float64
	LoadHistogram   Histogram

	// Hops[h] is the number of flows (weighted by path share) whose path
	// crosses h links.
	Hops     []float64
	MeanHops float64
	MaxHops  int

	MinRate, MeanRate, MaxRate float64 // over routed flows
	NonRestricted              float64 // Σ rates
	Restricted                 float64 // Flows · MinRate
	NonRestrictedPerPort       float64 // NonRestricted / Links
	RestrictedPerPort          float64 // Restricted / Links

	// Connectivity is set when Options.Connectivity asks for it: pairs of
	// servers still connected, and how many of the pattern's flows have a
	// reachable destination (Flows + Unrouted = Connectivity.Flows; a
	// routing that routes every reachable flow has Flows =
	// Connectivity.Reachable).
	Connectivity *Connectivity
}

// chunks is how many ranges the sources are cut into, whatever the number
// of workers: sums are added chunk by chunk in order, or are exact (the
// loads and hop counts: whole numbers, or multipath shares in fixed
// point), so results do not depend on Workers or on which worker took
// which chunk.
const chunks = 1024

// fixedUnit is the resolution of the multipath shares a link's load sums:
// 2^-30 of a flow, added as integers so that the sums do not depend on the
// order the workers add them in (float sums did, in their last bits). A
// link can carry 2^33 flows before its sum overflows.
const fixedUnit = 1 << 30

// Run routes every flow of p with r and measures the result.
func Run(r route.Router, p Pattern, o Options) (*Result, error) {
	g := r.Graph()
	if err := o.check(p, g); err != nil {
		return nil, err
	}
	bins := o.Bins
	if bins == 0 {
		bins = 16
	}
	n := g.NumServers()
	nc := min(n, chunks)
	sr := &staticRun{r: r, p: p, o: &o, g: g, n: n, nc: nc}
	workers := min(max(o.Workers, 1), nc)
	sr.ws = make([]*worker, workers)
	for i := range sr.ws {
		sr.ws[i] = newWorker(r.Clone(), g.NumLinks())
	}
	res, routed, err := sr.pass1()
	if err != nil {
		return nil, err
	}
	res.loadStats(g, bins)
	if err := sr.pass2(res, routed); err != nil {
		return nil, err
	}
	if o.Connectivity && !res.Interrupted {
		var err error
		if res.Connectivity, err = Connect(g, p); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// check refuses a pattern p whose servers are not graph g's, and workers
// or bins out of range.
func (o *Options) check(p Pattern, g *graph.Graph) error {
	if p.Servers() != g.NumServers() {
		return fmt.Errorf("static pattern %s servers: %d is not allowed: must equal the network's %d servers", p.Name(), p.Servers(), g.NumServers())
	}
	if o.Workers < 0 || o.Workers > MaxWorkers {
		return fmt.Errorf("static workers: %d is not allowed: must be in [0, %d] (0: 1)", o.Workers, MaxWorkers)
	}
	if o.Bins < 0 || o.Bins > MaxBins {
		return fmt.Errorf("static bins: %d is not allowed: must be in [0, %d] (0: 16)", o.Bins, MaxBins)
	}
	return nil
}

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
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

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

// staticRun is one Run's pattern, router, workers and chunks of sources.
type staticRun struct {
	r    route.Router
	p    Pattern
	o    *Options
	g    *graph.Graph
	n    int // servers
	nc   int // chunks
	ws   []*worker
	done atomic.Int64 // chunks done, over both passes
}

// bound is the first source of chunk c (the sources' end for c = nc).
func (sr *staticRun) bound(c int) int32 { return int32(int64(c) * int64(sr.n) / int64(sr.nc)) }

// step reports one more chunk done to Options.Progress.
func (sr *staticRun) step() {
	if sr.o.Progress != nil {
		sr.o.Progress(int(sr.done.Add(1)), 2*sr.nc)
	}
}

// pass1 routes every flow, chunk by chunk, for the link loads and hop
// counts, and returns the result so far and, per chunk c, the end of the
// sources routed from bound(c) (less than bound(c+1) if stopped).
func (sr *staticRun) pass1() (*Result, []int32, error) {
	p, o, ws := sr.p, sr.o, sr.ws
	// routed[c]: chunk c's sources [bound(c), routed[c]) were routed.
	routed := make([]int32, sr.nc)
	for c := range routed {
		routed[c] = sr.bound(c)
	}
	parallel(ws, sr.nc, o.Stop, func(w *worker, c int) {
		routed[c] = bySource(sr.bound(c), sr.bound(c+1), o.Stop, func(lo, hi int32) int64 {
			n := w.flows + w.unrouted
			w.pass1(p, lo, hi)
			return w.flows + w.unrouted - n
		})
		sr.step()
	})
	sources, interrupted := 0, false
	for c, r := range routed {
		sources += int(r - sr.bound(c))
		interrupted = interrupted || r < sr.bound(c+1)
	}
	if err := firstError(ws); err != nil {
		return nil, nil, err
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(w.finish1)
	}
	wg.Wait()
	res := &Result{Routing: sr.r.Name(), Pattern: p.Name(), Links: sr.g.NumLinks(), Load: ws[0].load,
		Sources: sources, Interrupted: interrupted}
	res.addPass1(ws)
	return res, routed, nil
}

// pass2 rates every flow routed in the first pass (chunk c's sources
// [bound(c), routed[c])) from the relative loads, and sets res's rate
// figures.
func (sr *staticRun) pass2(res *Result, routed []int32) error {
	p, o := sr.p, sr.o
	var ls *route.Lines
	if rr, ok := sr.r.(route.RunRouter); ok {
		ls = rr.Lines()
	}
	lim := newLimits(sr.g, res.Load, ls)
	if res.Unrouted > 0 {
		lim.up, lim.down = nil, nil // the shortcut would count unroutable flows
	}
	part := make([]rates, sr.nc)
	rated := make([]int32, sr.nc)
	for c := range rated {
		rated[c], part[c] = sr.bound(c), rates{min: math.Inf(1)}
	}
	parallel(sr.ws, sr.nc, o.Stop, func(w *worker, c int) {
		rated[c] = bySource(sr.bound(c), routed[c], o.Stop, func(lo, hi int32) int64 {
			n := part[c].n
			w.pass2(p, lo, hi, lim, &part[c])
			return part[c].n - n
		})
		sr.step()
	})
	if err := firstError(sr.ws); err != nil {
		return err
	}
	res.addRates(part, rated, sr.bound)
	return nil
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

// addPass1 adds up the workers' flows, paths, unrouted flows, hop counts
// and link loads (into ws[0]'s, which res.Load is), once the first pass
// is done; the other workers' loads are dropped.
func (res *Result) addPass1(ws []*worker) {
	mergeFixed(ws)
	for _, w := range ws {
		res.Flows += w.flows
		res.Paths += w.paths
		res.Unrouted += w.unrouted
		if len(w.hops) > len(res.Hops) {
			res.Hops = append(res.Hops, make([]float64, len(w.hops)-len(res.Hops))...)
		}
		for h, c := range w.hops {
			res.Hops[h] += c
		}
	}
	for _, w := range ws[1:] {
		for l, x := range w.load {
			res.Load[l] += x
		}
		w.load = nil
	}
}

// addRates sets the rate figures from the chunks' rates part, chunk c's
// sources [bound(c), rated[c]) having been rated in the second pass.
func (res *Result) addRates(part []rates, rated []int32, bound func(int) int32) {
	res.MinRate = math.Inf(1)
	ratedFlows := int64(0)
	for c, pr := range part {
		res.NonRestricted += pr.sum
		res.MinRate = min(res.MinRate, pr.min)
		res.MaxRate = max(res.MaxRate, pr.max)
		ratedFlows += pr.n
		res.RatedSources += int(rated[c] - bound(c))
	}
	flows := res.Flows
	if res.RatedSources < res.Sources { // stopped in the second pass: the rates cover fewer flows
		res.Interrupted, flows = true, ratedFlows
	}
	if flows == 0 {
		res.MinRate = 0
	} else {
		res.MeanRate = res.NonRestricted / float64(flows)
	}
	res.Restricted = float64(flows) * res.MinRate
	if res.Links > 0 {
		res.NonRestrictedPerPort = res.NonRestricted / float64(res.Links)
		res.RestrictedPerPort = res.Restricted / float64(res.Links)
	}
}

// loadStats sets the load figures, the load histogram (bins bins) and the
// hop figures from res's loads and hop counts.
func (res *Result) loadStats(g *graph.Graph, bins int) {
	sum := 0.0
	for l, x := range res.Load {
		sum += x
		res.MaxLoad = max(res.MaxLoad, x)
		res.MaxRelativeLoad = max(res.MaxRelativeLoad, x/g.Capacity(int32(l)))
	}
	if len(res.Load) > 0 {
		res.MeanLoad = sum / float64(len(res.Load))
	}
	res.LoadHistogram = Histogram{Width: res.MaxLoad / float64(bins), Counts: make([]int64, bins)}
	if res.MaxLoad == 0 {
		res.LoadHistogram.Width = 1
	}
	for _, x := range res.Load {
		b := min(int(x/res.LoadHistogram.Width), bins-1)
		res.LoadHistogram.Counts[b]++
	}
	hsum := 0.0
	for h, c := range res.Hops {
		hsum += float64(h) * c
		if c > 0 {
			res.MaxHops = h
		}
	}
	if res.Flows > 0 {
		res.MeanHops = hsum / float64(res.Flows)
	}
}

// pieceFlows is about how many flows bySource routes between two
// questions to stop: a few milliseconds' work.
const pieceFlows = 1 << 16

// bySource runs do on sources [lo, hi): at once if stop is nil, else in
// pieces of sources, asking stop before each. A piece starts as one
// source and doubles while the last one had fewer than pieceFlows flows
// (do returns how many it met), so a source with many flows (all-to-all)
// is a piece of its own and sources of one flow each are not asked
// about one by one. It returns the end of the sources done: hi, or less
// when stop said to stop.
func bySource(lo, hi int32, stop func() bool, do func(lo, hi int32) int64) int32 {
	if stop == nil {
		do(lo, hi)
		return hi
	}
	piece := int32(1)
	for s := lo; s < hi; {
		if stop() {
			return s
		}
		e := s + min(piece, hi-s)
		if do(s, e) < pieceFlows {
			piece = min(2*piece, 1<<20)
		} else {
			piece = max(piece/2, 1)
		}
		s = e
	}
	return hi
}

// parallel runs do for every chunk in [0, nc), spread over the workers.
// It returns the number of chunks run: nc, or fewer when stop (nil:
// never) said to stop; those run are always chunks 0..n-1.
func parallel(ws []*worker, nc int, stop func() bool, do func(w *worker, c int)) int {
	var next atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			for {
				if stop != nil && (stopped.Load() || stop()) {
					stopped.Store(true)
					return
				}
				c := int(next.Add(1) - 1)
				if c >= nc {
					return
				}
				if w.err == nil {
					do(w, c)
				}
				if w.err != nil && w.errChunk < 0 {
					w.errChunk = c
				}
			}
		})
	}
	wg.Wait()
	return min(int(next.Load()), nc)
}

// firstError returns the error of the lowest chunk, if any.
func firstError(ws []*worker) error {
	var err error
	best := -1
	for _, w := range ws {
		if w.err != nil && (best < 0 || w.errChunk < best) {
			err, best = w.err, w.errChunk
		}
	}
	return err
}

type worker struct {
	r        route.Router
	fixed    []int64          // multipath: link loads in fixedUnit
	hopsFix  []int64          // multipath: hop counts in fixedUnit
	single   route.SinglePath // r, when it gives one path per flow
	runs     route.RunRouter  // r, when its paths are runs along lines
	load     []float64
	hops     []float64
	flows    int64
	paths    int64
	unrouted int64
	buf      []int32
	runBuf   []route.Run
	lines    *lineLoads // runs' difference array
	err      error
	errChunk int
}

func newWorker(r route.Router, links int) *worker {
	w := &worker{r: r, load: make([]float64, links), errChunk: -1}
	w.single, _ = r.(route.SinglePath)
	if w.runs, _ = r.(route.RunRouter); w.runs != nil {
		w.lines = newLineLoads(w.runs.Lines())
	}
	return w
}

func (w *worker) addHops(h int, share float64) {
	for len(w.hops) <= h {
		w.hops = append(w.hops, 0)
	}
	w.hops[h] += share
}

// pass1 adds the loads and hop counts of the flows from sources [lo, hi).
func (w *worker) pass1(p Pattern, lo, hi int32) {
	switch {
	case w.runs != nil:
		w.pass1Runs(p, lo, hi)
	case w.single != nil:
		w.pass1Single(p, lo, hi)
	default:
		w.pass1Multi(p, lo, hi)
	}
}

func (w *worker) pass1Runs(p Pattern, lo, hi int32) {
	rr, ll := w.runs, w.lines
	buf, hops := w.runBuf, w.hops
	flows := int64(0)
	p.Flows(lo, hi, func(src, dst int32) {
		buf = rr.AppendRuns(buf[:0], src, dst)
		h := int32(0)
		for _, r := range buf {
			ll.add(r)
			h += r.Count
		}
		for len(hops) <= int(h) {
			hops = append(hops, 0)
		}
		hops[h]++
		flows++
	})
	w.runBuf, w.hops = buf, hops
	w.flows += flows
	w.paths += flows
}

func (w *worker) pass1Single(p Pattern, lo, hi int32) {
	sp, load := w.single, w.load
	buf, hops := w.buf, w.hops
	flows := int64(0)
	p.Flows(lo, hi, func(src, dst int32) {
		buf = sp.AppendPath(buf[:0], src, dst)
		for _, l := range buf {
			load[l]++
		}
		for len(hops) <= len(buf) {
			hops = append(hops, 0)
		}
		hops[len(buf)]++
		flows++
	})
	w.buf, w.hops = buf, hops
	w.flows += flows
	w.paths += flows
}

func (w *worker) pass1Multi(p Pattern, lo, hi int32) {
	if w.fixed == nil {
		w.fixed = make([]int64, len(w.load))
	}
	fixed := w.fixed
	onPath := func(links []int32, share float64) {
		u := int64(math.Round(share * fixedUnit))
		for _, l := range links {
			fixed[l] += u
		}
		for len(w.hopsFix) <= len(links) {
			w.hopsFix = append(w.hopsFix, 0)
		}
		w.hopsFix[len(links)] += u
		w.paths++
	}
	p.Flows(lo, hi, func(src, dst int32) {
		if w.err != nil {
			return
		}
		switch err := w.r.Route(src, dst, onPath); {
		case err == nil:
			w.flows++
		case errors.Is(err, route.ErrNoPath):
			w.unrouted++
		default:
			w.err = err
		}
	})
}

// mergeFixed sums the workers' multipath loads and hop counts, held in
// fixed point, into the first worker's load and every worker's hops
// (exact integer sums, converted once).
func mergeFixed(ws []*worker) {
	var fixed, hops []int64
	for _, w := range ws {
		if w.fixed == nil {
			continue
		}
		if fixed == nil {
			fixed = make([]int64, len(w.fixed))
		}
		for l, u := range w.fixed {
			fixed[l] += u
		}
		for len(hops) < len(w.hopsFix) {
			hops = append(hops, 0)
		}
		for h, u := range w.hopsFix {
			hops[h] += u
		}
		w.fixed, w.hopsFix = nil, nil
	}
	if fixed == nil {
		return
	}
	for l, u := range fixed {
		ws[0].load[l] = float64(u) / fixedUnit
	}
	w := ws[0]
	for h, u := range hops {
		w.addHops(h, float64(u)/fixedUnit)
	}
}

// finish1 moves loads held in difference arrays into the load array.
func (w *worker) finish1() {
	if w.lines != nil {
		w.lines.flush(w.load)
		w.lines = nil
	}
}

// rates sums the rates of one chunk's flows, n of them.
type rates struct {
	sum, min, max float64
	n             int64
}

func (r *rates) add(rate float64) {
	r.sum += rate
	r.min = min(r.min, rate)
	r.max = max(r.max, rate)
	r.n++
}

// limits is what pass 2 reads: every link's load/capacity, its maximum,
// and, when every server has exactly one link out and one in, those links'
// ids (a flow whose first or last link is a most loaded one runs at
// 1/maxRel, with no need to route it again).
type limits struct {
	rel      []float64
	maxRel   float64
	up, down []int32 // up[s], down[s]: server s's only outgoing and incoming link; nil if some server has more
	rmq      *rangeMax
}

func newLimits(g *graph.Graph, load []float64, ls *route.Lines) *limits {
	lim := &limits{rel: make([]float64, g.NumLinks())}
	for l, x := range load {
		lim.rel[l] = x / g.Capacity(int32(l))
		lim.maxRel = max(lim.maxRel, lim.rel[l])
	}
	n := int32(g.NumServers())
	lim.up, lim.down = make([]int32, n), make([]int32, n)
	for s := int32(0); s < n; s++ {
		in := g.In(s)
		if g.Degree(s) != 1 || len(in) != 1 {
			lim.up, lim.down = nil, nil
			break
		}
		lim.up[s], lim.down[s] = g.OutStart(s), in[0]
	}
	if ls != nil {
		lim.rmq = newRangeMax(ls, lim.rel)
	}
	return lim
}

// saturated reports whether the flow src→dst crosses a most loaded link
// at one of its ends.
func (lim *limits) saturated(src, dst int32) bool {
	return lim.up != nil && max(lim.rel[lim.up[src]], lim.rel[lim.down[dst]]) >= lim.maxRel
}

// pass2 adds the rates of the flows from sources [lo, hi) to out, in
// the flows' order (so that a chunk's sum does not depend on the calls
// it takes).
func (w *worker) pass2(p Pattern, lo, hi int32, lim *limits, out *rates) {
	switch {
	case w.runs != nil:
		w.pass2Runs(p, lo, hi, lim, out)
	case w.single != nil:
		w.pass2Single(p, lo, hi, lim, out)
	default:
		w.pass2Multi(p, lo, hi, lim, out)
	}
}

// pass2Runs is pass2 for a router that gives a flow's path as runs of
// lines (route.RunRouter): a run's most loaded link is a range maximum.
func (w *worker) pass2Runs(p Pattern, lo, hi int32, lim *limits, out *rates) {
	rr, buf := w.runs, w.runBuf
	sum, least, most, n := out.sum, out.min, out.max, out.n
	p.Flows(lo, hi, func(src, dst int32) {
		var worst float64
		if lim.saturated(src, dst) {
			worst = lim.maxRel
		} else {
			buf = rr.AppendRuns(buf[:0], src, dst)
			for _, r := range buf {
				worst = max(worst, lim.rmq.max(r))
			}
		}
		rate := 1 / worst
		sum += rate
		least = min(least, rate)
		most = max(most, rate)
		n++
	})
	w.runBuf = buf
	*out = rates{sum, least, most, n}
}

// pass2Single is pass2 for a router that gives every flow one path.
func (w *worker) pass2Single(p Pattern, lo, hi int32, lim *limits, out *rates) {
	sp, buf, rel := w.single, w.buf, lim.rel
	sum, least, most, n := out.sum, out.min, out.max, out.n
	p.Flows(lo, hi, func(src, dst int32) {
		var worst float64
		if lim.saturated(src, dst) {
			worst = lim.maxRel
		} else {
			buf = sp.AppendPath(buf[:0], src, dst)
			for _, l := range buf {
				worst = max(worst, rel[l])
			}
		}
		rate := 1 / worst
		sum += rate
		least = min(least, rate)
		most = max(most, rate)
		n++
	})
	w.buf = buf
	*out = rates{sum, least, most, n}
}

// pass2Multi is pass2 for any router (multipath ones: a flow's rate is
// the sum over its paths of their shares over their most loaded links).
// A routing error other than route.ErrNoPath is kept in w.err and ends
// the pass.
func (w *worker) pass2Multi(p Pattern, lo, hi int32, lim *limits, out *rates) {
	rate := 0.0
	onPath := func(links []int32, share float64) {
		worst := 0.0
		for _, l := range links {
			worst = max(worst, lim.rel[l])
		}
		rate += share / worst
	}
	p.Flows(lo, hi, func(src, dst int32) {
		if w.err != nil {
			return
		}
		if lim.saturated(src, dst) {
			out.add(1 / lim.maxRel)
			return
		}
		rate = 0
		switch err := w.r.Route(src, dst, onPath); {
		case err == nil:
			out.add(rate)
		case errors.Is(err, route.ErrNoPath):
		default:
			w.err = err
		}
	})
}

package static

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

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

package static

import (
	"errors"
	"math"

	"github.com/opasim/opasim/flow/route"
)

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

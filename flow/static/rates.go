package static

import (
	"errors"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

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

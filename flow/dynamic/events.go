package dynamic

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
)

// next returns the time of the earliest pending event.
func (e *Engine) next() (float64, bool) {
	if e.readyAt < len(e.ready) {
		return e.now, true
	}
	t := math.Inf(1)
	if e.done.len() > 0 {
		t = e.done.keys[0]
	}
	if e.starts.Len() > 0 {
		_, st := e.starts.Min()
		t = min(t, st)
	}
	if e.wakes.len() > 0 {
		t = min(t, e.wakes.min())
	}
	return t, !math.IsInf(t, 1)
}

// batch processes every event at time t — paths completing, then
// wake-ups and flows becoming ready (including those the completions and
// wake-ups add) until none is left at t — then re-solves the rates and
// reschedules the paths whose rate changed.
func (e *Engine) batch(t float64) {
	e.now = t
	e.stats.Batches++
	for e.err == nil && e.done.len() > 0 && e.done.keys[0] == t {
		e.complete1(e.pop())
	}
	for e.err == nil {
		switch {
		case e.wakes.len() > 0 && e.wakes.min() == t:
			e.wakes.pop()
			e.call(e.w.Wake(e))
			e.drain()
		case e.startsAt(t):
			i, _ := e.starts.Pop()
			e.ready = append(e.ready, i)
		case e.readyAt < len(e.ready):
			i := e.ready[e.readyAt]
			e.readyAt++
			e.start(i)
			e.drain()
		default:
			e.peakReady = max(e.peakReady, len(e.ready))
			e.ready, e.readyAt = e.ready[:0], 0
			e.solve()
			return
		}
	}
}

// startsAt reports whether a waiting flow becomes ready at t.
func (e *Engine) startsAt(t float64) bool {
	if e.starts.Len() == 0 {
		return false
	}
	_, st := e.starts.Min()
	return st == t
}

func (e *Engine) call(err error) {
	if err != nil && e.err == nil {
		e.err = err
	}
}

// schedule makes waiting flow i ready at t (on the start quantum's grid
// at or after t, if there is one and the flow crosses links: a flow of
// size 0 or to its own source completes as it starts and costs no solve,
// so a barrier is not delayed).
func (e *Engine) schedule(i int32, t float64) {
	if e.quantum > 0 {
		if p := &e.pend[pendOf(e.slots.At(i).x)]; p.size > 0 && p.src != p.dst {
			t = onGrid(t, e.quantum)
		}
	}
	if t <= e.now {
		e.ready = append(e.ready, i)
	} else {
		e.starts.Set(i, t)
	}
}

// onGrid returns the least multiple k·q of q (k an integer) that is at
// least t, or t itself where t/q is beyond float64's range (a grid that
// fine is no grid at all).
func onGrid(t, q float64) float64 {
	k := math.Ceil(t / q)
	if math.IsInf(k, 0) {
		return t
	}
	if g := k * q; g >= t {
		return g
	}
	return (k + 1) * q
}

// start routes flow i and adds its paths to the solver.
func (e *Engine) start(i int32) {
	s := e.slots.At(i)
	k := pendOf(s.x)
	p := e.pend[k]
	e.freePend = append(e.freePend, k)
	s.start, s.x = e.now, 0
	if p.size == 0 || p.src == p.dst {
		e.complete(i)
		return
	}
	e.cur, e.curSize, e.curCap, e.curClass = i, p.size, p.rateCap, p.class
	err := e.r.Route(p.src, p.dst, e.onPathF)
	switch {
	case errors.Is(err, route.ErrNoPath) && e.noPathErr:
		e.call(&NoPathError{Tag: int64(s.tag), Src: p.src, Dst: p.dst, At: e.now})
	case errors.Is(err, route.ErrNoPath):
		e.doom(i)
	case err != nil:
		e.call(fmt.Errorf("dynamic flow (tag %d): %w", s.tag, err))
	}
}

// onPath adds one path of the flow being started to the solver.
func (e *Engine) onPath(links []int32, share float64) {
	rc := maxmin.NoCap
	if e.curCap > 0 {
		rc = e.curCap * share
	}
	id, err := e.solver.AddClassFlow(links, rc, e.curClass)
	if err != nil {
		e.call(fmt.Errorf("dynamic flow (tag %d): %w", e.slots.At(e.cur).tag, err))
		return
	}
	for int(id) >= e.subs.Len() {
		e.subs.Append(sub{})
	}
	*e.subs.At(int32(id)) = sub{own: ^e.cur, k: uint32(take(&e.rest, &e.freeR, e.curSize*share))}
	e.slots.At(e.cur).x++
}

// finishSub removes path id, just taken out of the completion heap, from
// the solver; its flow completes with its last path.
func (e *Engine) finishSub(id int32) {
	s := e.subs.At(id)
	s.own, s.k = ^s.own, noRest
	if err := e.solver.RemoveFlow(maxmin.FlowID(id)); err != nil {
		e.call(err)
		return
	}
	o := s.owner()
	x := &e.slots.At(o).x
	if *x--; *x == 0 {
		e.complete(o)
	}
}

// complete records flow i's completion, readies its dependants and tells
// the workload.
func (e *Engine) complete(i int32) {
	for k := e.slots.At(i).after; k >= 0; {
		j, next := e.edges[k].to, e.edges[k].next
		e.freeEdgeAt(k)
		k = next
		if sj := e.slots.At(j); isWaiting(sj.x) {
			p := &e.pend[pendOf(sj.x)]
			sj.start = max(sj.start, e.now+p.delay)
			if p.waiting--; p.waiting == 0 {
				e.schedule(j, sj.start)
			}
		}
	}
	s := e.slots.At(i)
	d := Done{Ref: makeRef(i, s.gen), Tag: int64(s.tag), Start: s.start, Finish: e.now}
	s.after, e.slots.At(i).x = -1, xFree
	e.freeSlot = append(e.freeSlot, i)
	e.active--
	e.stats.Completed++
	e.stats.Makespan = e.now
	e.call(e.w.FlowDone(e, d))
}

// doom marks flow i as never completing; drain reports it.
func (e *Engine) doom(i int32) {
	if isWaiting(e.slots.At(i).x) {
		e.freePend = append(e.freePend, pendOf(e.slots.At(i).x))
	}
	e.slots.At(i).x = xNever
	e.doomed = append(e.doomed, i)
}

// drain reports the doomed flows, dooming the flows waiting on them.
func (e *Engine) drain() {
	for e.err == nil && e.doomAt < len(e.doomed) {
		i := e.doomed[e.doomAt]
		e.doomAt++
		for k := e.slots.At(i).after; k >= 0; {
			j, next := e.edges[k].to, e.edges[k].next
			e.freeEdgeAt(k)
			k = next
			if isWaiting(e.slots.At(j).x) {
				e.slots.At(j).start = math.Inf(1)
				e.doom(j)
			}
		}
		s := e.slots.At(i)
		s.after = -1
		e.active--
		e.stats.Unfinished++
		e.call(e.w.FlowDone(e, Done{Ref: makeRef(i, s.gen), Tag: int64(s.tag), Start: s.start, Finish: math.Inf(1)}))
	}
	if e.doomAt == len(e.doomed) {
		e.doomed, e.doomAt = e.doomed[:0], 0
	}
}

// solve re-solves the rates the batch's changes touched and reschedules
// every path whose rate changed: its remaining size is brought up to now
// at its old rate, and its predicted completion is set anew (or it is
// parked, at rate 0). A path whose rate did not change keeps its
// predicted completion.
func (e *Engine) solve() {
	changed := e.solver.Solve()
	prev := e.solver.Previous()
	e.stats.Resolved += int64(e.solver.Recomputed())
	e.stats.Changed += int64(len(changed))
	last, lastT := int32(-1), 0.0
	for i, fid := range changed {
		id := int32(fid)
		s := e.subs.At(id)
		var r float64
		if s.own < 0 {
			r = e.rest[s.k]
			e.freeR = append(e.freeR, int32(s.k))
			s.own = ^s.own
		} else {
			// Its rate was prev[i] since its completion was set.
			r = max((e.done.keys[e.due(s)]-e.now)*prev[i], 0)
			e.unschedule(s)
		}
		rate := e.solver.Rate(fid)
		if !(rate > 0) {
			s.own, s.k = ^s.own, uint32(take(&e.rest, &e.freeR, r))
			continue
		}
		if t := e.now + r/rate; last >= 0 && t == lastT {
			e.join(id, last)
		} else {
			e.push(id, t)
			lastT = t
		}
		last = id
	}
	e.trim()
}

package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/sched"
)

// MaxDecisionCycles is the largest qos.decision_cycles: a decision 1,024
// cycles long is already slower than a 1,024-flit packet, the largest an
// MTU makes at the default flit.
const MaxDecisionCycles = 1024

// decisionUnit is the decision pipeline of an output scheduler, owned by a
// switch output port or a NIC (qos.decision_cycles D; docs/schedulers.md,
// "Hardware constraints"):
//
//   - A decision takes D cycles: started at cycle s, it is complete at
//     s+D−1, and the link can start the packet it chose then, no earlier.
//     With D = 1 a decision is made and sent in the same cycle, the model
//     before this key existed.
//   - The unit makes one decision at a time. The next one may start the
//     cycle after the last one completed, and starts as late as lets it
//     complete when the link frees (linkFree−D+1), overlapping the packet
//     in transmission: with packets of at least D flits sent back to back
//     the link never waits for the scheduler; a packet of L < D flits
//     leaves it idle D−L cycles.
//   - A decision starts only when some head is eligible (as a decision of
//     D = 1 is made only then), and it sees the heads of its start cycle:
//     the scheduler's Pick and Commit or Miss run on those heads, and a
//     packet that reaches a head later waits for the next decision.
//   - Whether the head picked can send is judged when the decision
//     completes, with the eligibility of that cycle. If it cannot, the
//     decision is wasted (counted, and in table_feedback the scheduler's
//     Miss runs): the link stays idle and the next decision starts the next
//     cycle. In the eligible view a head eligible at the start is still
//     eligible at completion (the port sends nothing meanwhile, its credits
//     only grow and a header once ready stays ready), so a decision wasted
//     there would be a head changed by something else than the port.
//   - IdleCycles counts the cycles the link is free and some head eligible
//     but no decision sends: from the later of the decision's start and the
//     link's freeing up to its completion, plus the completion cycle itself
//     when the decision is wasted. With D = 1 that is the wasted decisions.
type decisionUnit struct {
	cycles     clock.Cycle // D
	busy       bool        // a decision is in progress
	start      clock.Cycle // its start
	done       clock.Cycle // its completion
	free       clock.Cycle // the earliest start of the next decision
	snap       []sched.Head
	IdleCycles int64
}

func newDecisionUnit(d int, vls int) decisionUnit {
	return decisionUnit{cycles: clock.Cycle(max(d, 1)), snap: make([]sched.Head, 0, vls)}
}

// due is the first cycle at which the port must run the unit: the
// completion of the decision in progress, else the earliest start of the
// next one given that the link frees at linkFree.
func (u *decisionUnit) due(linkFree clock.Cycle) clock.Cycle {
	if u.busy {
		return u.done
	}
	return clock.Max(linkFree-u.cycles+1, u.free)
}

// step runs the unit at cycle now, which is at or after due(linkFree):
// it completes the decision in progress, with heads giving each VL's
// eligibility now, or starts one on heads (the caller makes sure some head
// is eligible), which completes at once when D = 1. ok reports a decision
// complete now; then h is the head picked and hit whether it can send.
func (u *decisionUnit) step(p *params, s sched.Scheduler, heads []sched.Head, now, linkFree clock.Cycle) (h sched.Head, hit, ok bool) {
	decide := heads
	switch {
	case u.busy:
		u.refresh(heads)
		u.busy, decide = false, u.snap
	case u.cycles > 1:
		u.start, u.done, u.busy = now, now+u.cycles-1, true
		u.snap = append(u.snap[:0], heads...)
		return sched.Head{}, false, false
	default:
		u.start = now
	}
	i, hit := p.decide(s, decide)
	u.free = now + 1
	u.IdleCycles += int64(max(now-clock.Max(u.start, linkFree), 0))
	if !hit {
		u.IdleCycles++
	}
	return decide[i], hit, true
}

// refresh sets the Eligible flag of every head the decision in progress
// sees to its VL's eligibility now (false when heads no longer lists it).
func (u *decisionUnit) refresh(heads []sched.Head) {
	for k := range u.snap {
		e := false
		for _, h := range heads {
			if h.VL == u.snap[k].VL {
				e = h.Eligible && h.SC == u.snap[k].SC && h.Credits == u.snap[k].Credits
				break
			}
		}
		u.snap[k].Eligible = e
	}
}

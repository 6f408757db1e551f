package actors

import (
	"fmt"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// A distributed run spreads the groups of one network over several member
// processes. Each member runs its groups here, as the actor engine runs all
// of them in one process (every component an actor under its group actor,
// the groups shared out among partition actors, a clock actor with its
// barrier), but its clock does not own the window loop: the run's
// coordinator does, and hands each member its windows through a Driver.

// MemberWindow is one window of a member: its groups due in it (by the
// coordinator's calendar) and the messages other members' groups sent its
// groups in the window before.
type MemberWindow struct {
	W   clock.Window
	Due []int
	In  []messages.Msg
}

// MemberReport is what a member's groups did in a window: each group that
// ran and its next wake, the earliest cycle each group (the member's or
// another's) must wake for a message sent to it, the messages for other
// members' groups, and the member's barrier wait. The coordinator applies
// every member's Ran before any member's Wakes, as the clock actor does.
type MemberReport struct {
	Ran   []GroupWake
	Wakes []GroupWake
	Out   []messages.Msg
	Wait  time.Duration
}

// GroupWake is a group and a cycle: when it must run next.
type GroupWake struct {
	Group int
	At    clock.Cycle
}

// Driver links a member to the coordinator. Next blocks for the member's
// next window; ok false ends the run. Report hands back what the window
// did; the report is the driver's to keep.
type Driver interface {
	Next() (w MemberWindow, ok bool)
	Report(r MemberReport)
}

// RunMember runs the groups of n that owned marks (owned[g], one entry a
// group) on actors, window by window as d gives them, until d ends the
// run or an actor fails. It returns the messages its groups' components
// had not taken at the end (its share of sim.Outcome.InFlight; the
// messages it sent other members' groups went out with its reports). n is
// the member's copy of the network: its other groups' components are never
// stepped. obs, if not nil, sees each group the member runs (GroupDone,
// from the partitions) and each window (WindowDone, from its clock).
func RunMember(n *fabric.Network, owned []bool, d Driver, en Engine, obs sim.Observer) ([]messages.Msg, error) {
	if len(owned) != len(n.Groups) {
		return nil, fmt.Errorf("member: %d groups marked, the network has %d", len(owned), len(n.Groups))
	}
	l := &memberLoop{d: d, obs: obs}
	e, err := launch(n, obs, en, l, owned)
	if err != nil {
		return nil, err
	}
	return e.finish(en)
}

// memberLoop is a member's window loop: the coordinator's windows through
// the driver. It runs on the clock actor.
type memberLoop struct {
	d   Driver
	obs sim.Observer
	w   clock.Window // the window running
	rep MemberReport
	e   *engine // set at launch (attach)
}

func (l *memberLoop) attach(e *engine) { l.e = e }

// Next takes the member's next window and hands the messages other members
// sent to their groups (idle between windows, so each takes them at once).
func (l *memberLoop) Next() (clock.Window, []int, bool) {
	w, ok := l.d.Next()
	if !ok {
		return clock.Window{}, nil, false
	}
	for _, g := range w.Due {
		if g < 0 || g >= len(l.e.groups) || !l.e.owns(g) {
			panic(fmt.Sprintf("member: window %v names group %d as due, which this member does not run", w.W, g))
		}
	}
	dv := deliver{remote: true}
	for i := range w.In {
		m := &w.In[i]
		if int(m.Dst) < 0 || int(m.Dst) >= len(l.e.groupOf) || !l.e.owns(l.e.groupOf[m.Dst]) {
			panic(fmt.Sprintf("member: a message for component %d, which this member does not run", m.Dst))
		}
		dv.m, dv.took = m, false
		if !l.e.groups[l.e.groupOf[m.Dst]].mbox.tryPost(&dv) || !dv.took {
			panic("member: a group was busy between windows")
		}
	}
	l.w = w.W
	return w.W, w.Due, true
}

func (l *memberLoop) Done(g int, next clock.Cycle) {
	l.rep.Ran = append(l.rep.Ran, GroupWake{Group: g, At: next})
}

func (l *memberLoop) Wake(g int, at clock.Cycle) {
	l.rep.Wakes = append(l.rep.Wakes, GroupWake{Group: g, At: at})
}

// Barrier reports the window, with the messages for other members' groups
// (in the partitions' buffers of the window, which the clock hands out
// again only to the groups here).
func (l *memberLoop) Barrier(wait time.Duration) {
	for _, d := range l.e.clock.dones {
		if d == nil {
			continue
		}
		for _, g := range d.out.groups {
			if !l.e.owns(g) {
				l.rep.Out = append(l.rep.Out, d.out.msgs[g]...)
			}
		}
	}
	l.rep.Wait = wait
	if l.obs != nil {
		l.obs.WindowDone(l.w, wait)
	}
	l.d.Report(l.rep)
	l.rep = MemberReport{}
}

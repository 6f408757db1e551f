package distrib

import (
	"errors"
	"fmt"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// part is a member's share of a run: its copy of the network, whose own
// groups run on the actor engine (actors.RunMember: every component an
// actor under its group actor, the groups shared out among partition
// actors, a clock actor with its barrier), window by window as the
// coordinator's ticks say. What its components send components of its own
// groups stays in the engine; what they send other members' comes back
// with each window's report and goes out as one batch per member.
type part struct {
	index   int
	n       *fabric.Network
	owner   []int32          // group -> member
	groupOf []int            // component -> group
	in      []messages.Msg   // what other members sent, for the next window
	batch   [][]messages.Msg // per member, what this window sends it
	win     chan actors.MemberWindow
	rep     chan actors.MemberReport
	ended   chan partEnd // the engine's end, once
	end     *partEnd     // the engine's end, once seen
	closed  bool         // win closed
}

// partEnd is how the member's engine ended: the messages its components
// held, or its failure.
type partEnd struct {
	held []messages.Msg
	err  error
}

// newPart starts the member's engine on its groups; obs (or nil) sees its
// groups and windows.
func newPart(n *fabric.Network, index int, owner []int32, members int, obs sim.Observer) *part {
	p := &part{index: index, n: n, owner: owner, groupOf: make([]int, len(n.Comps)),
		batch: make([][]messages.Msg, members), win: make(chan actors.MemberWindow),
		rep: make(chan actors.MemberReport), ended: make(chan partEnd, 1)}
	owned := make([]bool, len(n.Groups))
	for g, grp := range n.Groups {
		owned[g] = int(owner[g]) == index
		for _, id := range grp.Members {
			p.groupOf[id] = g
		}
	}
	go func() {
		held, err := actors.RunMember(n, owned, p, actors.Engine{}, obs)
		p.ended <- partEnd{held, err}
	}()
	return p
}

// Next and Report make the part the member engine's actors.Driver: the
// engine's clock takes each window from window, and hands back its report.
func (p *part) Next() (actors.MemberWindow, bool) {
	w, ok := <-p.win
	return w, ok
}

func (p *part) Report(r actors.MemberReport) { p.rep <- r }

// take files messages another member sent, for the next window.
func (p *part) take(msgs []messages.Msg) error {
	for _, m := range msgs {
		if int(m.Dst) < 0 || int(m.Dst) >= len(p.groupOf) || int(p.owner[p.groupOf[m.Dst]]) != p.index {
			return fmt.Errorf("a message for component %d, which member %d does not run", m.Dst, p.index)
		}
	}
	p.in = append(p.in, msgs...)
	return nil
}

// window runs window w on the member's engine: its groups due (all its
// own) and the messages other members sent them before. The report's
// messages for other members are filed in batch.
func (p *part) window(w clock.Window, due []int) (actors.MemberReport, error) {
	if err := p.failed(); err != nil {
		return actors.MemberReport{}, err
	}
	select {
	case p.win <- actors.MemberWindow{W: w, Due: due, In: p.in}:
	case e := <-p.ended:
		return actors.MemberReport{}, p.stopped(e)
	}
	p.in = nil
	select {
	case r := <-p.rep:
		for _, m := range r.Out {
			o := p.owner[p.groupOf[m.Dst]]
			p.batch[o] = append(p.batch[o], m)
		}
		return r, nil
	case e := <-p.ended:
		return actors.MemberReport{}, p.stopped(e)
	}
}

// abandon ends the member's engine if the run ends without close (a
// failure), so that its actors stop; it does not wait for them.
func (p *part) abandon() {
	if !p.closed {
		p.closed = true
		close(p.win)
	}
}

// close ends the member's engine and returns every message its components
// have not taken, with those other members sent after its last window.
func (p *part) close() ([]messages.Msg, error) {
	if err := p.failed(); err != nil {
		return nil, err
	}
	p.abandon()
	e := <-p.ended
	p.end = &e
	if e.err != nil {
		return nil, e.err
	}
	return append(e.held, p.in...), nil
}

func (p *part) failed() error {
	if p.end != nil {
		return fmt.Errorf("the member's engine has stopped: %v", p.end.err)
	}
	return nil
}

func (p *part) stopped(e partEnd) error {
	p.end = &e
	if e.err == nil {
		e.err = errors.New("it ended before the run did")
	}
	return fmt.Errorf("the member's engine stopped: %w", e.err)
}

// runs reports whether this member runs component id.
func (p *part) runs(id messages.CompID) bool { return int(p.owner[p.groupOf[id]]) == p.index }

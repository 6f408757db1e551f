package distrib

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// depart remembers that member p left the lobby (or was gone from it).
func (c *coordinator) depart(p *actor.PID) {
	if c.departed == nil {
		c.departed = map[string]bool{}
	}
	c.departed[pidKey(p)] = true
}

// pidKey names an actor by its process's address and its id.
func pidKey(p *actor.PID) string { return p.Address + "/" + p.Id }

// refusal is why a join from sender is refused before its place is
// looked at ("": it is not).
func (c *coordinator) refusal(sender *actor.PID, j *Join) string {
	switch {
	case sender == nil:
		return "no sender to answer"
	case subtle.ConstantTimeCompare(j.Token, c.o.Token) != 1:
		return "wrong or missing token"
	case c.departed[pidKey(sender)]:
		// A join the member sent again before it left, arriving after
		// its leave: taken, it would hold a place for a member that is
		// going away.
		return "this member left the run before it began"
	}
	return ""
}

// join takes a member that presents the token, while places are left;
// any other join is refused, logged and answered.
func (c *coordinator) join(ctx actor.Context, j *Join) {
	from := "an unknown sender"
	if s := ctx.Sender(); s != nil {
		from = s.Address
	}
	reason := c.refusal(ctx.Sender(), j)
	if reason == "" {
		for i, p := range c.members {
			if p.Equal(ctx.Sender()) {
				// A repeated join: the member has its place; while the
				// run waits, say so again (its setup is on its way
				// otherwise). Sent as a request: the member checks the
				// sender is the coordinator (Respond names none).
				if len(c.members) < c.o.Members {
					ctx.Request(ctx.Sender(), &Waiting{Index: int32(i), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
				}
				return
			}
		}
		if len(c.members) == c.o.Members {
			reason = "the run has all its members"
		}
	}
	if reason != "" {
		c.o.Log.Warn("refused a join", "from", from, "reason", reason)
		if ctx.Sender() != nil {
			ctx.Respond(&Refused{Reason: reason})
		}
		return
	}
	c.members = append(c.members, ctx.Sender())
	ctx.Watch(ctx.Sender()) // in the lobby too: a member gone frees its place
	c.o.Log.Info("member joined", "index", len(c.members)-1, "address", from)
	if len(c.members) < c.o.Members {
		ctx.Request(ctx.Sender(), &Waiting{Index: int32(len(c.members) - 1), Joined: int32(len(c.members)), Members: int32(c.o.Members)})
		return
	}
	c.set, c.since = true, time.Now() // building the network is the members' first work
	c.heard = make([]time.Time, len(c.members))
	for i := range c.heard {
		c.heard[i] = c.since
	}
	peers := make([]string, len(c.members))
	for i, p := range c.members {
		peers[i] = p.Address
	}
	for i, p := range c.members {
		ctx.Request(p, &Setup{Index: int32(i), Config: c.config, Owner: c.plan.Owner, Peers: peers, RunId: c.o.RunID})
	}
}

// heardFrom reports whether a report or heartbeat naming member i came
// from it once the run is set up, and notes when the member was heard.
func (c *coordinator) heardFrom(ctx actor.Context, i int32) bool {
	if c.set && i >= 0 && int(i) < len(c.members) && ctx.Sender() != nil && ctx.Sender().Equal(c.members[i]) {
		c.heard[i] = time.Now()
		return true
	}
	c.o.Log.Warn("dropped a report not from the member it names", "member", i, "sender", ctx.Sender(), "type", fmt.Sprintf("%T", ctx.Message()))
	return false
}

// check runs every HeartbeatEvery: it sends each member a heartbeat once
// the run is set up, fails the run on members silent for the timeout, or
// on a step of the run that takes past the window timeout though every
// member answers (or past the timeout once the run was interrupted).
func (c *coordinator) check(ctx actor.Context, now time.Time) {
	if !c.set {
		return
	}
	for _, p := range c.members {
		ctx.Request(actor.NewPID(p.Address, aliveName), &Alive{Index: -1})
	}
	var silent, waited []string
	for i, p := range c.members {
		name := fmt.Sprintf("member %d (%s)", i, p.Address)
		if now.Sub(c.heard[i]) > c.o.Timeout {
			silent = append(silent, name)
		}
		if !c.answered(i) {
			waited = append(waited, name)
		}
	}
	if len(silent) > 0 {
		failed := strings.Join(silent, ", ")
		c.fail(failed, fmt.Errorf("no word within %s from [%s] (no report and no heartbeat: its process is stopped or cut off) %s; the last window every member completed: %s",
			c.o.Timeout, failed, c.during(), c.last))
		return
	}
	if len(waited) == 0 {
		return
	}
	failed := strings.Join(waited, ", ")
	if took := now.Sub(c.since); took > c.o.WindowTimeout {
		c.fail(failed, fmt.Errorf("no answer within %s (the window timeout) from [%s] %s, though every member sends heartbeats; the last window every member completed: %s",
			c.o.WindowTimeout, failed, c.during(), c.last))
		return
	}
	if !c.stopAt.IsZero() && now.Sub(later(c.stopAt, c.since)) > c.o.Timeout {
		c.fail(failed, fmt.Errorf("interrupted, and no answer within %s from [%s] %s; the last window every member completed: %s",
			c.o.Timeout, failed, c.during(), c.last))
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// interrupt ends the run on a cancelled context. Once every member
// joined, the window loop ends the run at the next window (it reads the
// context), and the members send their totals. In the lobby there is no
// run: the members there are told (Abort), and the coordinator ends once
// each has taken it or is gone, or after leaveWait.
func (c *coordinator) interrupt(ctx actor.Context) {
	if c.set {
		if c.stopAt.IsZero() {
			c.stopAt = time.Now()
			c.o.Log.Info("interrupted: the run ends at the next window", "during", c.during())
		}
		return
	}
	if c.aborting != nil {
		return
	}
	c.aborting, c.joined = map[string]bool{}, len(c.members)
	reason := fmt.Sprintf("the coordinator was stopped (%v) with %d of %d members joined", context.Cause(c.ctx), len(c.members), c.o.Members)
	for _, p := range c.members {
		c.aborting[p.Address] = true
		ctx.Request(p, &Abort{Reason: reason})
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	time.AfterFunc(leaveWait, func() { root.Send(self, abortExpired{}) })
	c.aborted(nil)
}

// aborted notes that the member at p took the Abort (or is gone), and ends
// the coordinator once every member told has.
func (c *coordinator) aborted(p *actor.PID) {
	if c.aborting == nil {
		return
	}
	if p != nil {
		delete(c.aborting, p.Address)
	}
	if len(c.aborting) == 0 {
		c.stopAborted()
	}
}

func (c *coordinator) stopAborted() {
	c.stop(fmt.Errorf("no run: %w; stopped with %d of %d members joined", context.Cause(c.ctx), c.joined, c.o.Members))
}

// leave takes a member's Leave: in the lobby its place is freed (the
// members after it move up); once the run is set up the run fails on it.
func (c *coordinator) leave(ctx actor.Context, l *Leave) {
	s := ctx.Sender()
	k := -1
	for i, p := range c.members {
		if s != nil && p.Address == s.Address {
			k = i
		}
	}
	if k < 0 {
		c.o.Log.Warn("dropped a leave from no member", "sender", s)
		return
	}
	ctx.Respond(&Alive{Index: -1})
	if !c.set {
		c.o.Log.Info("member left before the run began", "index", k, "address", c.members[k].Address, "reason", l.Reason)
		c.depart(c.members[k])
		c.members = slices.Delete(c.members, k, k+1)
		return
	}
	failed := fmt.Sprintf("member %d (%s)", k, c.members[k].Address)
	c.fail(failed, fmt.Errorf("%s left the run (%s) %s; the last window every member completed: %s", failed, l.Reason, c.during(), c.last))
}

// deadLetter fails the run on a message to a member's actor that its
// process says does not exist (a heartbeat to a member on its way out is
// not one).
func (c *coordinator) deadLetter(d *actor.DeadLetterResponse) {
	if !c.set || d.Target == nil || d.Target.Id != memberName {
		return
	}
	for i, p := range c.members {
		if p.Address == d.Target.Address {
			failed := fmt.Sprintf("member %d (%s)", i, p.Address)
			c.fail(failed, fmt.Errorf("%s has no member actor any more (a message to it was not delivered) %s; the last window every member completed: %s",
				failed, c.during(), c.last))
		}
	}
}

// joinExpired tells the coordinator its JoinTimeout is over; checkTick
// that its checks are due; interrupt that the run's context is cancelled;
// abortExpired that the members in the lobby had leaveWait to take the
// Abort.
type (
	joinExpired  struct{}
	checkTick    struct{}
	interrupt    struct{}
	abortExpired struct{}
)

// answered reports whether member i has answered what the coordinator
// waits for now.
func (c *coordinator) answered(i int) bool {
	switch {
	case !c.running && c.ready < len(c.members):
		return c.isReady[i]
	case c.waiting > 0:
		for _, d := range c.dones {
			if int(d.Index) == i {
				return true
			}
		}
		return false
	default:
		return c.finals[i] != nil
	}
}

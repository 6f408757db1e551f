package distrib

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// advance opens the next window and ticks the members that run groups in
// it, or ends the run.
func (c *coordinator) advance(ctx actor.Context) {
	w, due, ok := c.loop.Next()
	if !ok {
		c.finish(ctx)
		return
	}
	c.seq++
	c.window = w
	ticks := make([]*Tick, len(c.members))
	for _, g := range due {
		o := c.plan.Owner[g]
		if ticks[o] == nil {
			ticks[o] = &Tick{Seq: c.seq, From: int64(w.From), To: int64(w.To), Expect: c.expected[o]}
		}
		ticks[o].Groups = append(ticks[o].Groups, int32(g))
	}
	c.dones = c.dones[:0]
	c.ticked = time.Now()
	c.since = c.ticked
	snapshot := c.snap.due(c.ticked)
	for o, t := range ticks {
		if t != nil {
			t.SendTotals = snapshot
			c.waiting++
			ctx.Request(c.members[o], t)
		}
	}
}

func (c *coordinator) done(ctx actor.Context, d *Done) {
	if !c.running || d.Seq != c.seq || c.waiting == 0 {
		c.stop(fmt.Errorf("member %d reported window %d, the open window is %d", d.Index, d.Seq, c.seq))
		return
	}
	c.dones = append(c.dones, d)
	c.waiting--
	if c.waiting > 0 {
		return
	}
	if err := c.barrier(); err != nil {
		c.stop(err)
		return
	}
	c.advance(ctx)
}

// barrier closes the window: every group's own next wake first, then the
// wakes for what it was sent (as the actor engine's clock does), and the
// batches each member must now expect.
func (c *coordinator) barrier() error {
	wall := time.Since(c.ticked)
	var busy int64
	for _, d := range c.dones {
		if len(d.Groups) != len(d.Next) || len(d.WakeGroups) != len(d.WakeAt) {
			return fmt.Errorf("member %d's report of window %d is malformed", d.Index, d.Seq)
		}
		for k, g := range d.Groups {
			c.loop.Done(int(g), clock.Cycle(d.Next[k]))
		}
		busy = max(busy, d.BusyNs)
		c.snap.record(int(d.Index), d.Seq, d.Totals)
		c.report.SnapshotBytes += int64(len(d.Totals))
		c.report.SnapshotTime += time.Duration(d.TotalsNs)
	}
	for _, d := range c.dones {
		for k, g := range d.WakeGroups {
			if g < 0 || int(g) >= len(c.n.Groups) {
				return fmt.Errorf("member %d woke group %d, which does not exist", d.Index, g)
			}
			c.loop.Wake(int(g), clock.Cycle(d.WakeAt[k]))
		}
		for _, to := range d.SentTo {
			if to < 0 || int(to) >= len(c.members) {
				return fmt.Errorf("member %d sent a batch to member %d, which does not exist", d.Index, to)
			}
			c.expected[to]++
			c.report.Batches++
		}
		c.report.Bytes += int64(d.BatchBytes)
		c.report.Msgs += int64(d.BatchMsgs)
	}
	c.loop.Barrier(wall)
	c.report.Windows++
	c.report.Wall += wall
	c.report.Barrier += max(wall-time.Duration(busy), 0)
	c.last = c.describeWindow()
	if c.snap.complete(c.seq, c.window, c.report.Wall, time.Now()) {
		c.report.Snapshots++
		if c.report.Snapshots == 1 { // once: from here on a member fault leaves partial results
			c.o.Log.Info("first snapshot of the members' totals", "window", c.seq, "cycle", int64(c.window.To))
		}
	}
	return nil
}

func (c *coordinator) describeWindow() string {
	return fmt.Sprintf("window %d, cycles [%d, %d)", c.seq, c.window.From, c.window.To)
}

// during says what the run was doing, for an error.
func (c *coordinator) during() string {
	switch {
	case !c.running && c.ready < len(c.members):
		return "while the members built their networks"
	case c.waiting > 0:
		return "in " + c.describeWindow()
	default:
		return "while the members sent their totals"
	}
}

// finish asks every member for its totals.
func (c *coordinator) finish(ctx actor.Context) {
	c.running = false
	c.ready = len(c.members)
	c.since = time.Now()
	for i, p := range c.members {
		ctx.Request(p, &Finish{Expect: c.expected[i]})
	}
}

// fail ends the run on a member fault (failed names the member or
// members), with the partial results of the latest complete snapshot.
func (c *coordinator) fail(failed string, err error) {
	if !c.over {
		c.partialRes, c.partialErr = c.partial(failed, err)
	}
	c.stop(err)
}

func (c *coordinator) stop(err error) {
	if !c.over {
		c.over = true
		c.end <- err
	}
}

// results measures the run from the members' totals and held messages.
func (c *coordinator) results() (*sim.Results, error) {
	sum, base := baseTotals(c.n)
	var held []messages.Msg
	var terms fabric.ConservationTerms
	for i, f := range c.finals {
		t, ct, err := decodeTotals(f.Totals)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if err := mergeTotals(&sum, &t, &base); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if i == 0 {
			terms = ct
		} else if err := terms.Add(&ct); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		if held, err = decodeMsgs(held, f.Held, int(f.HeldCount)); err != nil {
			return nil, fmt.Errorf("member %d's held messages: %w", i, err)
		}
	}
	o := c.loop.Outcome("distributed")
	o.InFlight = held
	return sim.MeasureTotals(c.n, o, sum, terms.Check()), nil
}

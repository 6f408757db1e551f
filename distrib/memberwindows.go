package distrib

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

func (m *memberActor) setup(ctx actor.Context, s *Setup) error {
	if m.p != nil {
		return errors.New("a second setup")
	}
	// From here on heartbeats go both ways, while the network is built.
	m.index.Store(s.Index)
	m.heard.Store(time.Now().UnixNano())
	m.phase.Store(running)
	var cfg fabric.Config
	if err := json.Unmarshal(s.Config, &cfg); err != nil {
		return fmt.Errorf("setup: the config: %w", err)
	}
	n, err := sim.Build(cfg)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if len(s.Owner) != len(n.Groups) || int(s.Index) >= len(s.Peers) || s.Index < 0 {
		return fmt.Errorf("setup: %d owners for %d groups, member %d of %d", len(s.Owner), len(n.Groups), s.Index, len(s.Peers))
	}
	for j, a := range s.Peers {
		p := actor.NewPID(a, memberName)
		m.peers = append(m.peers, p)
		if j != int(s.Index) {
			ctx.Watch(p) // a batch to a member whose connection ended may be lost
		}
	}
	if m.o.Observe != nil {
		owned := make([]bool, len(s.Owner))
		for g, o := range s.Owner {
			owned[g] = o == s.Index
		}
		m.obs = m.o.Observe(n, MemberPart{Index: int(s.Index), RunID: s.RunId, Owned: owned})
	}
	m.p = newPart(n, int(s.Index), s.Owner, len(s.Peers), m.obs)
	ctx.Watch(m.coord)
	m.o.Log.Info("member set up", "index", s.Index, "members", len(s.Peers))
	ctx.Request(m.coord, &Ready{Index: s.Index})
	return nil
}

func (m *memberActor) takeBatch(ctx actor.Context, b *Batch) error {
	if m.p == nil || b.From < 0 || int(b.From) >= len(m.peers) || int(b.From) == m.p.index {
		m.o.Log.Warn("dropped a batch from an unknown member", "from", b.From, "sender", ctx.Sender())
		return nil
	}
	if s := ctx.Sender(); s == nil || !s.Equal(m.peers[b.From]) {
		m.o.Log.Warn("dropped a batch whose sender is not the member it names", "from", b.From, "sender", s)
		return nil
	}
	m.batches = append(m.batches, b)
	return m.runReady(ctx)
}

// runReady runs the waiting tick or finish once every batch it expects
// has arrived.
func (m *memberActor) runReady(ctx actor.Context) error {
	if m.p == nil {
		return nil
	}
	if t := m.tick; t != nil && m.before(t.Seq) >= t.Expect {
		m.tick = nil
		return m.runTick(ctx, t)
	}
	if f := m.finish; f != nil && m.before(^uint64(0)) >= f.Expect {
		m.finish = nil
		return m.final(ctx)
	}
	return nil
}

// before counts the batches received from windows before seq: a faster
// member's batch of the window seq itself may already be here, and must
// not stand in for a slower member's of an earlier window.
func (m *memberActor) before(seq uint64) uint64 {
	n := m.taken
	for _, b := range m.batches {
		if b.Seq < seq {
			n++
		}
	}
	return n
}

// takeBatches files the batches sent in windows before seq, in the order
// of their windows and senders.
func (m *memberActor) takeBatches(seq uint64) error {
	slices.SortFunc(m.batches, func(a, b *Batch) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.From, b.From))
	})
	k := 0
	var msgs []messages.Msg
	for ; k < len(m.batches) && m.batches[k].Seq < seq; k++ {
		b := m.batches[k]
		var err error
		if msgs, err = decodeMsgs(msgs[:0], b.Msgs, int(b.Count)); err != nil {
			return fmt.Errorf("member %d's batch of window %d: %w", b.From, b.Seq, err)
		}
		if err := m.p.take(msgs); err != nil {
			return fmt.Errorf("member %d's batch of window %d: %w", b.From, b.Seq, err)
		}
	}
	m.taken += uint64(k)
	m.batches = append(m.batches[:0], m.batches[k:]...)
	return nil
}

func (m *memberActor) runTick(ctx actor.Context, t *Tick) error {
	began := time.Now()
	if err := m.takeBatches(t.Seq); err != nil {
		return err
	}
	p := m.p
	d := &Done{Index: int32(p.index), Seq: t.Seq}
	due := make([]int, 0, len(t.Groups))
	for _, g := range t.Groups {
		if g < 0 || int(g) >= len(p.owner) || int(p.owner[g]) != p.index {
			return fmt.Errorf("window %d: told to run group %d, which is not this member's", t.Seq, g)
		}
		due = append(due, int(g))
	}
	r, err := p.window(clock.Window{From: clock.Cycle(t.From), To: clock.Cycle(t.To)}, due)
	if err != nil {
		return fmt.Errorf("window %d: %w", t.Seq, err)
	}
	for _, x := range r.Ran {
		d.Groups, d.Next = append(d.Groups, int32(x.Group)), append(d.Next, int64(x.At))
	}
	for _, x := range r.Wakes {
		d.WakeGroups, d.WakeAt = append(d.WakeGroups, int32(x.Group)), append(d.WakeAt, int64(x.At))
	}
	for to, msgs := range p.batch {
		if len(msgs) == 0 {
			continue
		}
		m.enc = appendMsgs(m.enc[:0], msgs)
		b := &Batch{From: int32(p.index), Seq: t.Seq, Msgs: append([]byte(nil), m.enc...), Count: int32(len(msgs))}
		ctx.Request(m.peers[to], b)
		d.SentTo = append(d.SentTo, int32(to))
		d.BatchBytes += uint64(len(b.Msgs))
		d.BatchMsgs += uint64(len(msgs))
		p.batch[to] = msgs[:0]
	}
	d.BusyNs = time.Since(began).Nanoseconds()
	if t.SendTotals {
		if err := m.snapshot(d); err != nil {
			return fmt.Errorf("window %d: %w", t.Seq, err)
		}
	}
	ctx.Request(m.coord, d)
	return nil
}

// snapshot puts the member's totals after the window into its report, for
// the partial results a coordinator writes if another member fails later.
// The member's engine has finished the window and waits for the next, so
// its network is still. The conservation terms are left out: partial
// results do not check conservation (the messages in transit are in no
// member's totals).
func (m *memberActor) snapshot(d *Done) error {
	began := time.Now()
	tot, err := encodeTotals(m.p.n.Totals(), fabric.ConservationTerms{})
	if err != nil {
		return fmt.Errorf("the totals for a snapshot: %w", err)
	}
	d.Totals, d.TotalsNs = tot, time.Since(began).Nanoseconds()
	return nil
}

// final takes every batch left and sends this member's part of the
// results.
func (m *memberActor) final(ctx actor.Context) error {
	if err := m.takeBatches(^uint64(0)); err != nil {
		return err
	}
	held, err := m.p.close()
	if err != nil {
		return err
	}
	tot, err := encodeTotals(m.p.n.Totals(), m.p.n.ConservationTerms(held, m.p.runs))
	if err != nil {
		return err
	}
	ctx.Request(m.coord, &Final{Index: int32(m.p.index), Totals: tot, Held: appendMsgs(nil, held), HeldCount: int32(len(held))})
	m.finished = true
	// The coordinator ends its process once it has every member's totals,
	// which this member sees as its end; RunMember's timeout is for a
	// coordinator that does not.
	m.phase.Store(finished)
	return nil
}

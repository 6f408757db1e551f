package fabric

import (
	"cmp"
	"slices"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// The islip allocator (AllocIslip): iSLIP's request, grant and accept
// phases (McKeown, "The iSLIP scheduling algorithm for input-queued
// switches", 1999) between the switch's sources and destinations, each
// phase a message of latency a = floor(AT / (2·iterations + 1)).
//
// A source starts a round for one transfer window of its read port, W =
// max(now + AT, read port free): it requests, for W, the ready head of
// each of its queues (VLs, central lanes) bound for a destination no
// earlier queue in its round-robin order has requested (iSLIP's virtual
// output queues are the heads of the VL FIFOs here). A destination grants,
// for each of its write ports, one request whose packet fits and whose
// window the write port can take, round-robin over its sources from a
// pointer; it books the write port and the space and refuses the rest.
// The source accepts one grant, round-robin over its queues from its own
// pointer, and declines the others. Both pointers move one past the
// matched partner only when the match is made in the first iteration
// (iSLIP's rule that keeps the arbiters desynchronised). A source with no
// grant tries again, with what is ready then, while another round still
// ends by W (iteration k's accept reaches the destination at t0 + (2k+1)a
// <= t0 + AT); then it gives up the window and starts over. A destination
// queues the packet when the accept arrives, by W; a decline gives back
// the space and, when nothing was booked after it, the write port.
//
// At zero load the first round matches and the transfer starts at now + AT,
// as under the other allocators.

// islipPhase is a, the latency of each islip message, for arbitration time
// at and iterations rounds (Validate keeps it at least 1).
func islipPhase(at int64, iterations int) int64 {
	return at / int64(2*max(iterations, 1)+1)
}

// islipRound is a source's round of requests for one transfer window.
type islipRound struct {
	// Whole-run counts: iterations sent (each a set of requests), rounds
	// ended by an accept, windows given up, grants declined.
	Iterations, Matches, Lost, Declined int64

	on      bool
	iter    int32       // 1 for the first iteration
	window  clock.Cycle // W: every request of the round starts its transfer then
	reqs    []islipReq
	waiting int // answers still to come
}

// islipReq is one request of a round.
type islipReq struct {
	q, tag   int32
	id       uint64 // the packet
	src, dst messages.CompID
	slot     int32
	granted  bool
	tailOut  clock.Cycle
	answered bool
}

// islipSend addresses and sends a message about entry e of the source (the
// component fills Src, Dst and Slot, and for a request the VL the
// destination sees).
type islipSend func(e *entry, m *messages.Msg)

// nextIslip runs the input arbiter of an islip source at now: it accepts a
// grant of a round whose answers are all in, retries, or starts a round. It
// returns when it must look again if no message arrives first.
func (s *source) nextIslip(now clock.Cycle, p *params, send islipSend, out *Outbox) clock.Cycle {
	r := &s.isl
	if r.on {
		if r.waiting > 0 {
			return clock.Never // the answers come together
		}
		switch {
		case s.acceptIslip(now, p, out):
			r.on = false
		case r.iter < p.islipIters && now+3*p.phase <= r.window && s.requestIslip(now, p, r.iter+1, r.window, send):
			return clock.Never
		default:
			r.on = false // the window is lost
			r.Lost++
		}
	}
	at := p.requestLatency + p.grantLatency
	if s.readFree > now+at {
		return s.readFree - at
	}
	if s.requestIslip(now, p, 1, clock.Max(now+at, s.readFree), send) {
		return clock.Never
	}
	return clock.Max(now+1, s.nextReady())
}

// requestIslip sends iteration iter's requests for window: one for the
// ready head of each queue, in round-robin order from the accept pointer.
// It reports whether it sent any.
//
// Heads bound for the same destination are each requested: the
// destination grants at most one of a source's requests, one whose packet
// fits. (Requesting only the first of them would let a head whose VL is
// full downstream keep the source's other VLs from that destination for
// as long as the VL stays full: the VLs would no longer be independent,
// and the dateline argument of docs/model.md needs them to be.)
func (s *source) requestIslip(now clock.Cycle, p *params, iter int32, window clock.Cycle, send islipSend) bool {
	r := &s.isl
	r.reqs = r.reqs[:0]
	n := len(s.q)
	for k := 0; k < n; k++ {
		q := (s.vaNext + k) % n
		if s.q[q].Len() == 0 || s.due(s.q[q].Front()) > now {
			continue
		}
		e := s.q[q].Front()
		id := s.nextID
		s.nextID++
		pk := e.Pkt
		pk.SC, pk.VL = e.NextSC, e.NextVL
		m := messages.Msg{Kind: messages.KindRequest, At: now + p.phase, VL: int32(e.NextVL), Out: e.Out, Ready: window, Deadline: window,
			TailAvail: e.TailAvail, Tag: id, Queue: int32(q), Count: iter, Pkt: pk}
		send(e, &m)
		r.reqs = append(r.reqs, islipReq{q: int32(q), tag: id, id: e.Pkt.ID, src: m.Src, dst: m.Dst, slot: m.Slot})
	}
	if len(r.reqs) == 0 {
		return false
	}
	r.on, r.iter, r.window, r.waiting = true, iter, window, len(r.reqs)
	r.Iterations++
	return true
}

// answeredIslip records the grant or refusal g of a request of the round.
func (s *source) answeredIslip(g *messages.Msg) {
	r := &s.isl
	for i := range r.reqs {
		if x := &r.reqs[i]; x.tag == g.Tag && !x.answered {
			x.answered, x.granted, x.tailOut = true, g.Kind == messages.KindGrant, g.TailOut
			r.waiting--
			return
		}
	}
	panic("islip: an answer to no request of the round")
}

// acceptIslip accepts the round's grant whose queue comes first from the
// accept pointer, declines the other grants, and reports whether it
// accepted one. The accepted packet leaves its queue; its space is
// released when its tail has left.
func (s *source) acceptIslip(now clock.Cycle, p *params, out *Outbox) bool {
	r := &s.isl
	best, n := -1, len(s.q)
	for i := range r.reqs {
		x := &r.reqs[i]
		if x.granted && (best < 0 || (int(x.q)-s.vaNext+n)%n < (int(r.reqs[best].q)-s.vaNext+n)%n) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	r.Matches++
	for i := range r.reqs {
		x := &r.reqs[i]
		if !x.granted {
			continue
		}
		kind := messages.KindDecline
		if i != best {
			r.Declined++
		} else {
			kind = messages.KindAccept
			e := s.q[x.q].Pop()
			s.mark(int(x.q))
			if e.Pkt.ID != x.id {
				panic("islip: the accepted packet is not its queue's head")
			}
			s.readFree = clock.Max(s.readFree, x.tailOut+1)
			s.rel.Insert(release{At: x.tailOut + 1, VL: x.q, Credits: e.Pkt.Credits, ID: e.Pkt.ID})
			if r.iter == 1 {
				s.vaNext = (int(x.q) + 1) % n
			}
		}
		out.Send(messages.Msg{Kind: kind, At: now + p.phase, Src: x.src, Dst: x.dst, Slot: x.slot, Tag: x.tag, Count: r.iter})
	}
	return true
}

// islipOffer is a grant a destination has sent and whose accept or
// decline has not arrived: the write port and the space are booked.
type islipOffer struct {
	slot, tag int32
	vl        int32
	e         entry // queued on accept
	prevWrite clock.Cycle
	tailOut   clock.Cycle // the transfer's last cycle at the source
}

// islipDest is the grant side of one write port (an output buffer, a
// central buffer): its pointer, booked write port and open offers.
type islipDest struct {
	offers []islipOffer
}

// islipRequests holds the requests that reached a destination arbiter and
// are answered in the cycle they arrive.
type islipRequests struct {
	reqs  []messages.Msg
	taken []bool
}

func (d *islipRequests) add(m *messages.Msg) { d.reqs = append(d.reqs, *m) }

// take returns the requests of this cycle sorted by slot (the order of
// arrival within a cycle is not part of the model), with a cleared flag per
// request, and empties the list.
func (d *islipRequests) take() ([]messages.Msg, []bool) {
	rs := d.reqs
	slices.SortFunc(rs, func(a, b messages.Msg) int { return cmp.Or(cmp.Compare(a.Slot, b.Slot), cmp.Compare(a.Tag, b.Tag)) })
	d.reqs = d.reqs[:0]
	if cap(d.taken) < len(rs) {
		d.taken = make([]bool, len(rs))
	}
	d.taken = d.taken[:len(rs)]
	clear(d.taken)
	return rs, d.taken
}

// refuseRest refuses the requests of rs not taken.
func refuseRest(p *params, rs []messages.Msg, taken []bool, now clock.Cycle, from messages.CompID, out *Outbox) {
	for i := range rs {
		if !taken[i] {
			out.Send(messages.Msg{Kind: messages.KindNack, At: now + p.phase, Dst: rs[i].Src, Src: from, Slot: rs[i].Slot, VL: rs[i].VL, Tag: rs[i].Tag})
		}
	}
}

// pickIslip returns the index in rs (sorted by slot, then in the order the
// source sent them) of the first request, round-robin over the slots slots
// numbered by key from next, that fits: not taken, not from slot skip
// (-1: none), its window at or after writeFree, its packet fitting sp; -1
// if none.
func pickIslip(rs []messages.Msg, taken []bool, next, slots int, skip int32, writeFree clock.Cycle, sp *Space, key func(*messages.Msg) int) int {
	best, bestKey := -1, 0
	for i := range rs {
		m := &rs[i]
		if taken[i] || m.Slot == skip || m.Ready < writeFree || !sp.Fits(int(m.VL), m.Pkt.Credits) {
			continue
		}
		if k := (key(m) - next + slots) % slots; best < 0 || k < bestKey {
			best, bestKey = i, k
		}
	}
	return best
}

// offer books write port and space for request m, whose transfer starts at
// its window, and returns the grant; speed and x are the crossbar's, extra
// the cycles the packet's header spends past the crossbar before it is
// ready (sb_out into an output buffer).
func (d *islipDest) offer(p *params, m *messages.Msg, now clock.Cycle, speed int32, x, extra clock.Cycle, sp *Space, writeFree *clock.Cycle, from messages.CompID) messages.Msg {
	start := m.Ready
	tailOut := transfer(start, m.Pkt.Flits, speed, m.TailAvail)
	e := entry{Pkt: m.Pkt, Ready: start + x + extra, TailAvail: tailOut + x + extra, Out: m.Out, NextSC: m.Pkt.SC, NextVL: m.Pkt.VL}
	sp.Take(int(m.VL), m.Pkt.Credits)
	d.offers = append(d.offers, islipOffer{slot: m.Slot, tag: m.Tag, vl: m.VL, e: e, prevWrite: *writeFree, tailOut: tailOut})
	*writeFree = tailOut + 1
	return messages.Msg{Kind: messages.KindGrant, At: now + p.phase, Dst: m.Src, Src: from, Slot: m.Slot, VL: m.VL,
		Tag: m.Tag, Start: start, TailOut: tailOut}
}

// settle applies accept or decline m to its offer, if this write port made
// it: an accepted offer is returned to be queued; a declined one gives back
// its space, and its write port time when nothing was booked after it.
func (d *islipDest) settle(m *messages.Msg, sp *Space, writeFree *clock.Cycle) (o islipOffer, mine, accepted bool) {
	for i := range d.offers {
		if d.offers[i].slot != m.Slot || d.offers[i].tag != m.Tag {
			continue
		}
		o = d.offers[i]
		d.offers = append(d.offers[:i], d.offers[i+1:]...)
		if m.Kind == messages.KindAccept {
			return o, true, true
		}
		sp.Free(int(o.vl), o.e.Pkt.Credits)
		if *writeFree == o.tailOut+1 {
			*writeFree = o.prevWrite
		}
		return o, true, false
	}
	return o, false, false
}

// booked adds the credits of the open offers to used (conservation).
func (d *islipDest) booked(used []int64) {
	for _, o := range d.offers {
		used[o.vl] += int64(o.e.Pkt.Credits)
	}
}

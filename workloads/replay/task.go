package replay

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/workloads"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// evKind is what happened at a task that records may wait on.
type evKind uint8

const (
	evSent      evKind = iota + 1 // the task sent message id (its last flit left)
	evReceived                    // the task received message id (its last flit arrived)
	evPartEnded                   // the task's part of collective id ended
)

type event struct {
	kind evKind
	id   int64
}

type happened struct {
	task *task
	ev   event
	at   clock.Cycle
}

// waitsOn is the event record k waits on (not for an independent record).
func waitsOn(k *record) event {
	switch k.dep {
	case vef.AfterSend:
		return event{evSent, k.depID}
	case vef.AfterReceive:
		return event{evReceived, k.depID}
	}
	return event{evPartEnded, k.depID}
}

// host is the source of one NIC: the tasks mapped on it (several when the
// trace has more tasks than the network NICs). Its NIC is its only caller:
// a host is single-threaded, like the NIC; it shares only the trace
// reader (Replay.take) and two counters.
type host struct {
	r       *Replay
	nic     int
	tasks   []*task
	out     minHeap[outMsg]       // messages issued, not yet taken by the NIC (earlierOut)
	queue   []happened            // events to handle, of any of its tasks
	early   map[int64]clock.Cycle // collective messages that came before their round, by number
	sending map[uint64]*task      // point-to-point messages taken by the NIC and not yet sent, by sequence

	received, flits int64
	latency         *hdrhistogram.Histogram
}

// task is one task of the trace.
type task struct {
	h       *host
	id      int
	left    int64       // events to go: sends, receipts, collective parts
	done    bool        // left reached 0 (counted in Replay.remaining)
	end     clock.Cycle // its last event so far
	waiting map[event][]record
	parts   []*part // collective parts begun, not ended
	buf     []record
}

// part is the task's part in one collective: its rounds (collective.Spec.Part),
// the current one and when it began, and when its send left and its
// receive came (clock.Never: not yet).
type part struct {
	c              *coll
	rank           int
	rounds         []collective.Round
	i              int
	begun          bool
	start, endAt   clock.Cycle
	sentAt, recvAt clock.Cycle
	sendSeq        uint64
	recvNum        int64
}

func newHost(r *Replay, nic int) *host {
	return &host{r: r, nic: nic, out: minHeap[outMsg]{less: earlierOut}, early: map[int64]clock.Cycle{}, sending: map[uint64]*task{}}
}

func newTask(h *host, id int) *task {
	return &task{h: h, id: id, left: h.r.plan.events[id], waiting: map[event][]record{}}
}

// start takes the host's tasks' independent records (all read before the
// run), and everything else read for them so far. A task without events
// has ended before the run.
func (h *host) start() {
	for _, t := range h.tasks {
		t.integrate(nil, -1)
	}
	h.drain()
	for _, t := range h.tasks {
		t.endIfDone()
	}
}

// endIfDone counts the task ended once it has no event to go.
func (t *task) endIfDone() {
	if t.left == 0 && !t.done {
		t.done = true
		t.h.r.remaining.Add(-1)
	}
}

// Next implements workloads.Source.
func (h *host) Next() clock.Cycle {
	if len(h.out.items) == 0 {
		return clock.Never
	}
	return h.out.items[0].at
}

// Pop implements workloads.Source.
func (h *host) Pop(now clock.Cycle) (workloads.Message, bool) {
	if len(h.out.items) == 0 || h.out.items[0].at > now {
		return workloads.Message{}, false
	}
	o := heap.Pop(&h.out).(outMsg)
	h.flits += int64(o.flits)
	if o.seq&collBit == 0 {
		h.sending[o.seq] = o.task
	}
	return workloads.Message{ID: workloads.NewMessageID(h.nic, o.seq), At: o.at, SL: h.r.opt.SL, Dst: o.dst, Flits: o.flits, Causal: true}, true
}

// Sent implements workloads.Sender.
func (h *host) Sent(msg workloads.MessageID, at clock.Cycle) {
	seq := msg.Seq()
	if seq&traceBit == 0 {
		return
	}
	if seq&collBit == 0 {
		t := h.sending[seq]
		delete(h.sending, seq)
		h.queue = append(h.queue, happened{t, event{evSent, int64(seq & idMask)}, at})
		h.drain()
		return
	}
	for _, t := range h.tasks {
		for _, p := range t.parts {
			if p.begun && p.sendSeq == seq && p.sentAt == clock.Never {
				p.sentAt = at
				t.advance(p)
				h.drain()
				return
			}
		}
	}
}

// Delivered implements workloads.Source.
func (h *host) Delivered(msg workloads.MessageID, gen, at clock.Cycle) {
	seq := msg.Seq()
	if seq&traceBit == 0 {
		return
	}
	h.r.pending.Add(-1)
	h.received++
	if h.latency == nil {
		h.latency = newLatency()
	}
	_ = h.latency.RecordValue(int64(at - gen))
	if seq&collBit == 0 {
		id := int64(seq & idMask)
		h.queue = append(h.queue, happened{h.r.tasks[h.r.plan.msgDst[id]], event{evReceived, id}, at})
	} else {
		h.arrive(int64(seq&idMask), at)
	}
	h.drain()
}

// arrive hands collective message k, arrived in cycle at, to the part
// whose current round waits for it, or keeps it until its round begins.
func (h *host) arrive(k int64, at clock.Cycle) {
	for _, t := range h.tasks {
		for _, p := range t.parts {
			if p.begun && p.recvNum == k && p.recvAt == clock.Never {
				p.recvAt = at
				t.advance(p)
				return
			}
		}
	}
	h.early[k] = at
}

// drain handles the queued events in order: each one's waiting records
// are issued, after the records that wait on it have been read.
func (h *host) drain() {
	for len(h.queue) > 0 {
		e := h.queue[0]
		h.queue = h.queue[1:]
		t := e.task
		t.left--
		t.end = max(t.end, e.at)
		last := int64(-1)
		switch e.ev.kind {
		case evSent, evReceived:
			last = int64(h.r.plan.msgLast[e.ev.id]) - 1
		case evPartEnded:
			last = int64(h.r.plan.collLast[e.ev.id]) - 1
		}
		t.integrate(&e, last)
		for _, k := range t.waiting[e.ev] {
			t.issue(&k, e.at+1+h.r.opt.CyclesOf(k.time))
		}
		delete(t.waiting, e.ev)
		t.endIfDone()
	}
	h.queue = h.queue[:0]
}

// integrate takes the task's records read so far, reading on to position
// upTo first, and files each: an independent record is issued at its
// time, one that waits on cur (the event being handled, nil for none)
// after its delay, any other waits for its event.
func (t *task) integrate(cur *happened, upTo int64) {
	recs, err := t.h.r.take(t.id, upTo, nil, t.buf[:0])
	if err != nil {
		return // Status reports the replay stalled; Replay.err says why
	}
	t.buf = recs
	for i := range recs {
		t.file(&recs[i], cur)
	}
	clear(recs)
}

func (t *task) file(k *record, cur *happened) {
	if k.dep == vef.Independent {
		t.issue(k, t.h.r.opt.CyclesOf(k.time))
		return
	}
	ev := waitsOn(k)
	if cur != nil && cur.task == t && ev == cur.ev {
		t.issue(k, cur.at+1+t.h.r.opt.CyclesOf(k.time))
		return
	}
	t.waiting[ev] = append(t.waiting[ev], *k)
}

// local tells whether task dst is on this task's NIC: a message to it
// does not enter the network.
func (t *task) local(dst int) bool { return t.h.r.opt.Mapping[dst] == t.h.nic }

// issue sends message record k, or begins part record k, in cycle at.
func (t *task) issue(k *record, at clock.Cycle) {
	h := t.h
	if k.coll == nil {
		if t.local(k.dst) { // sent and received at once
			h.queue = append(h.queue, happened{t, event{evSent, k.msg}, at}, happened{h.r.tasks[k.dst], event{evReceived, k.msg}, at})
			return
		}
		t.send(at, traceBit|uint64(k.msg), k.dst, k.bytes)
		return
	}
	c := k.coll
	more, err := h.r.take(t.id, -1, c, nil) // the lowering needs every part
	if err != nil {
		return
	}
	for i := range more {
		t.file(&more[i], nil)
	}
	p := &part{c: c, rank: k.rank, start: at, endAt: at}
	p.rounds = c.spec.Part(k.rank, nil)
	t.parts = append(t.parts, p)
	t.advance(p)
}

// send issues a message of bytes bytes to task dst in cycle at.
func (t *task) send(at clock.Cycle, seq uint64, dst int, bytes int64) {
	bpf := int64(t.h.r.opt.BytesPerFlit)
	flits := max(1, (bytes+bpf-1)/bpf)
	heap.Push(&t.h.out, outMsg{at: at, seq: seq, dst: t.h.r.opt.Mapping[dst], flits: int(flits), task: t})
	t.h.r.pending.Add(1)
}

// advance runs part p's rounds as far as they can go: a round begins the
// cycle after the previous one ended, sends its message then, and ends
// when its send has left and its receive has come. The part ends with its
// last round (at once when it has none). A message to a task on the same
// NIC leaves and arrives when it is sent.
func (t *task) advance(p *part) {
	for {
		if p.i == len(p.rounds) {
			t.endPart(p)
			return
		}
		rd := &p.rounds[p.i]
		if !p.begun {
			p.begun, p.sentAt, p.recvAt, p.sendSeq, p.recvNum = true, p.start, clock.Never, 0, -1
			size := p.c.spec.Size
			if s := rd.Send; s != nil {
				num := p.c.base + s.Index(size)
				if to := p.c.comm[s.To]; t.local(to) {
					t.h.arrive(num, p.start) // its receive is not armed yet: a message to this part waits in early
				} else {
					p.sendSeq = traceBit | collBit | uint64(num)
					p.sentAt = clock.Never
					t.send(p.start, p.sendSeq, to, s.Bytes)
				}
			}
			p.recvAt = p.start
			if v := rd.Recv; v != nil {
				p.recvNum = p.c.base + v.Index(size)
				if at, ok := t.h.early[p.recvNum]; ok {
					p.recvAt = at
					delete(t.h.early, p.recvNum)
				} else {
					p.recvAt = clock.Never
				}
			}
		}
		if p.sentAt == clock.Never || p.recvAt == clock.Never {
			return
		}
		p.endAt = max(p.start, p.sentAt, p.recvAt)
		p.i++
		p.start, p.begun = p.endAt+1, false
	}
}

func (t *task) endPart(p *part) {
	for i, q := range t.parts {
		if q == p {
			t.parts = append(t.parts[:i], t.parts[i+1:]...)
			break
		}
	}
	t.h.queue = append(t.h.queue, happened{t, event{evPartEnded, p.c.gid}, p.endAt})
}

// describe says what the task waits for, in at most n lines.
func (t *task) describe(n int) []string {
	var lines []string
	for _, p := range t.parts {
		if len(lines) == n {
			return lines
		}
		rd := p.rounds[p.i]
		what := "its send to leave"
		if p.recvAt == clock.Never {
			what = fmt.Sprintf("a message from task %d", p.c.comm[rd.Recv.From])
		}
		lines = append(lines, fmt.Sprintf("task %d: in its part of G%d (%s), round %d, waits for %s", t.id, p.c.gid, p.c.op, rd.Round, what))
	}
	var recs []record
	for _, ks := range t.waiting {
		recs = append(recs, ks...)
	}
	r := t.h.r
	r.mu.Lock()
	recs = append(recs, r.inbox[t.id]...) // read for it, not yet taken: they wait too
	r.mu.Unlock()
	slices.SortFunc(recs, func(a, b record) int { return cmp.Compare(a.pos, b.pos) })
	for _, k := range recs[:min(len(recs), n-len(lines))] {
		lines = append(lines, fmt.Sprintf("task %d: the record at line %d waits for %s", t.id, k.line, waitsOn(&k)))
	}
	return lines
}

func (e event) String() string {
	switch e.kind {
	case evSent:
		return fmt.Sprintf("the send of message %d", e.id)
	case evReceived:
		return fmt.Sprintf("the receipt of message %d", e.id)
	}
	return fmt.Sprintf("the end of its part of G%d", e.id)
}

// blocking describes what the unfinished tasks wait for, in at most n
// lines. Called between windows.
func (r *Replay) blocking(n int) []string {
	var lines []string
	if r.err != nil {
		lines = append(lines, "reading the trace failed: "+r.err.Error())
	}
	for _, t := range r.tasks {
		if !t.done {
			lines = append(lines, t.describe(n-len(lines))...)
		}
		if len(lines) >= n {
			break
		}
	}
	return lines
}

// outMsg is a message issued and not yet taken by the NIC.
type outMsg struct {
	at    clock.Cycle
	seq   uint64
	dst   int // NIC
	flits int
	task  *task // that sent it
}

// minHeap is a container/heap of T ordered by less.
type minHeap[T any] struct {
	items []T
	less  func(a, b *T) bool
}

func (h *minHeap[T]) Len() int           { return len(h.items) }
func (h *minHeap[T]) Less(i, j int) bool { return h.less(&h.items[i], &h.items[j]) }
func (h *minHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *minHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *minHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// earlierOut orders messages by cycle, then by sequence number.
func earlierOut(a, b *outMsg) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

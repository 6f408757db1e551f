package mpirec

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/workloads/vef"
)

// rankHeap orders the ranks by the wall clock of their next record.
type rankHeap struct {
	m     *merger
	ranks []int
	head  []int32
}

func (h *rankHeap) Len() int { return len(h.ranks) }
func (h *rankHeap) key(r int) int64 {
	return h.m.ranks[r].events[h.head[r]].wall
}
func (h *rankHeap) Less(a, b int) bool {
	ra, rb := h.ranks[a], h.ranks[b]
	if ka, kb := h.key(ra), h.key(rb); ka != kb {
		return ka < kb
	}
	return ra < rb
}
func (h *rankHeap) Swap(a, b int) { h.ranks[a], h.ranks[b] = h.ranks[b], h.ranks[a] }
func (h *rankHeap) Push(x any)    { h.ranks = append(h.ranks, x.(int)) }
func (h *rankHeap) Pop() any {
	r := h.ranks[len(h.ranks)-1]
	h.ranks = h.ranks[:len(h.ranks)-1]
	return r
}

// recordWriter is the state of write: the VEF writer, the ranks queued by
// their next kept record, the ranks parked on a message not yet written,
// and the collectives with parts ready.
type recordWriter struct {
	m       *merger
	vw      *vef.Writer
	h       *rankHeap
	parked  map[ref][]int
	pending []*instance // collectives with parts ready, not all
	nextMsg int64
	nextGID int64
}

// write merges the ranks' kept records into w (the package doc's
// "Order").
func (m *merger) write(w io.Writer) error {
	hd := vef.Header{Tasks: len(m.ranks), P2PMessages: m.rep.Messages, Collectives: m.rep.Collectives,
		CollectiveParts: m.rep.Parts, OnlySend: m.rep.OnReceive == 0}
	for i, c := range m.vcomms {
		hd.Communicators = append(hd.Communicators, vef.Communicator{ID: i, Tasks: c})
	}
	vw, err := vef.NewWriter(w, hd)
	if err != nil {
		return err
	}
	o := &recordWriter{m: m, vw: vw, h: &rankHeap{m: m, head: make([]int32, len(m.ranks))}, parked: map[ref][]int{}}
	for r := range m.ranks {
		o.advance(r, m.lo[r])
	}
	for {
		if o.h.Len() == 0 {
			if len(o.pending) == 0 {
				break
			}
			if err := o.splitFirst(); err != nil {
				return err
			}
			continue
		}
		if err := o.next(heap.Pop(o.h).(int)); err != nil {
			return err
		}
	}
	if len(o.parked) > 0 {
		return m.stuck(o.parked, o.h)
	}
	return vw.Close()
}

// advance moves rank r's head to its next kept record and queues it.
func (o *recordWriter) advance(r int, from int32) {
	m, h := o.m, o.h
	i := from
	for i < m.hi[r] && !m.kept(r, i) {
		i++
	}
	h.head[r] = i
	if i < m.hi[r] {
		heap.Push(h, r)
	}
}

// next writes, or parks or holds, the record at rank r's head, the rank
// just taken off the queue.
func (o *recordWriter) next(r int) error {
	m := o.m
	i := o.h.head[r]
	e := &m.ranks[r].events[i]
	_, wait, ok := m.dep(r, i)
	if !ok {
		o.parked[wait] = append(o.parked[wait], r)
		return nil
	}
	if e.kind == 'S' {
		return o.emitMessage(r, i)
	}
	in := m.insts[m.instOf[r][i]]
	if in.split {
		return o.emitPart(in, r)
	}
	in.ready = append(in.ready, r)
	if len(in.ready) == 1 {
		o.pending = append(o.pending, in)
	}
	if len(in.ready) == len(in.members) {
		o.pending = slices.DeleteFunc(o.pending, func(x *instance) bool { return x == in })
		return o.emitReady(in)
	}
	return nil
}

// splitFirst breaks a wait: the ranks wait on each other through the
// pending collectives, so it writes the one whose parts came first part
// by part.
func (o *recordWriter) splitFirst() error {
	first := slices.MinFunc(o.pending, func(a, b *instance) int { return o.m.compareReady(a, b, o.h) })
	o.pending = slices.DeleteFunc(o.pending, func(x *instance) bool { return x == first })
	first.split = true
	return o.emitReady(first)
}

// emitMessage writes the message sent by event i of rank r and queues the
// ranks parked on it.
func (o *recordWriter) emitMessage(r int, i int32) error {
	m := o.m
	e := &m.ranks[r].events[i]
	d, _, _ := m.dep(r, i)
	m.ids[r][i] = o.nextMsg
	if err := o.vw.Write(vef.Record{Kind: vef.KindMessage, Message: vef.Message{ID: o.nextMsg, Src: r, Dst: int(e.peer), Bytes: e.bytes, Dep: d}}); err != nil {
		return m.writeError(r, i, err)
	}
	o.nextMsg++
	o.advance(r, i+1)
	me := ref{int32(r), i}
	for _, q := range o.parked[me] {
		heap.Push(o.h, q)
	}
	delete(o.parked, me)
	return nil
}

// emitPart writes rank r's part in collective in, the record at its head.
func (o *recordWriter) emitPart(in *instance, r int) error {
	m := o.m
	i := o.h.head[r]
	e := &m.ranks[r].events[i]
	if in.gid < 0 {
		in.gid = o.nextGID
		o.nextGID++
	}
	d, _, _ := m.dep(r, i)
	m.ids[r][i] = in.gid
	if err := o.vw.Write(vef.Record{Kind: vef.KindCollective, Part: vef.Part{GID: in.gid, Comm: in.vcomm, Op: in.op, Task: r,
		SendBytes: e.bytes, RecvBytes: e.recv, Dep: d}}); err != nil {
		return m.writeError(r, i, err)
	}
	o.advance(r, i+1)
	return nil
}

// emitReady writes the ready parts of collective in, in member order.
func (o *recordWriter) emitReady(in *instance) error {
	slices.SortFunc(in.ready, func(a, b int) int {
		return cmp.Compare(slices.Index(in.members, a), slices.Index(in.members, b))
	})
	ready := in.ready
	in.ready = nil
	for _, r := range ready {
		if err := o.emitPart(in, r); err != nil {
			return err
		}
	}
	return nil
}

// compareReady orders collectives by the wall clock of their first ready
// part, then its rank.
func (m *merger) compareReady(a, b *instance, h *rankHeap) int {
	first := func(in *instance) (int64, int) {
		var w int64 = math.MaxInt64
		rk := math.MaxInt
		for _, r := range in.ready {
			if k := h.key(r); k < w || (k == w && r < rk) {
				w, rk = k, r
			}
		}
		return w, rk
	}
	wa, ra := first(a)
	wb, rb := first(b)
	if c := cmp.Compare(wa, wb); c != 0 {
		return c
	}
	return cmp.Compare(ra, rb)
}

func (m *merger) writeError(r int, i int32, err error) error {
	rf := m.ranks[r]
	return fmt.Errorf("%s:%d: rank %d's record: %w", rf.path, rf.events[i].line, r, err)
}

// stuck explains records that can never be written: each waits on a
// message that waits, through its rank, on the first.
func (m *merger) stuck(parked map[ref][]int, h *rankHeap) error {
	keys := make([]ref, 0, len(parked))
	for k := range parked {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b ref) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.ev, b.ev)
	})
	var lines []string
	for _, k := range keys {
		for _, r := range parked[k] {
			rf := m.ranks[r]
			lines = append(lines, fmt.Sprintf("rank %d's record (%s:%d) waits on the message at %s:%d, not written",
				r, rf.path, rf.events[h.head[r]].line, m.ranks[k.rank].path, m.ranks[k.rank].events[k.ev].line))
		}
	}
	if len(lines) > 5 {
		lines = append(lines[:5], fmt.Sprintf("and %d more", len(lines)-5))
	}
	return errors.New("the ranks' records wait on each other, so no order writes them: " + strings.Join(lines, "; "))
}

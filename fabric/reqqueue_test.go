package fabric

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// req is a request of source queue q, number tag, taking effect at at.
func req(q, tag int32, at clock.Cycle) *messages.Msg {
	return &messages.Msg{Kind: messages.KindRequest, Queue: q, Tag: tag, At: at}
}

// TestReqQueueFirst: candidates are taken round-robin over the slots from
// next, in arrival order within a slot, and only the oldest request of
// each source queue is a candidate (a queue's packets are granted in
// order).
func TestReqQueueFirst(t *testing.T) {
	r := newReqQueue(3)
	r.add(0, req(0, 0, 10))
	r.add(0, req(0, 1, 11))
	r.add(0, req(1, 2, 12))
	r.add(2, req(0, 5, 10))
	all := func(int, *messages.Msg) bool { return true }
	notTag := func(tag int32) func(int, *messages.Msg) bool {
		return func(_ int, m *messages.Msg) bool { return m.Tag != tag }
	}
	for _, tc := range []struct {
		name      string
		next      int
		ok        func(int, *messages.Msg) bool
		slot, idx int
	}{
		{"from slot 0", 0, all, 0, 0},
		{"from slot 1: slot 1 is empty", 1, all, 2, 0},
		{"from slot 2", 2, all, 2, 0},
		// Tag 0 is not acceptable; tag 1 is behind it in queue 0, so the
		// next candidate is queue 1's tag 2.
		{"oldest of its queue only", 0, notTag(0), 0, 2},
		{"none", 0, func(int, *messages.Msg) bool { return false }, -1, -1},
	} {
		if s, i := r.first(tc.next, tc.ok); s != tc.slot || i != tc.idx {
			t.Errorf("%s: slot %d index %d, want %d, %d", tc.name, s, i, tc.slot, tc.idx)
		}
	}
	if m := r.take(0, 2); m.Tag != 2 || r.count != 3 {
		t.Errorf("took tag %d, %d left; want 2, 3", m.Tag, r.count)
	}
	if m, ok := r.cancel(2, 5); !ok || m.Tag != 5 || r.count != 2 {
		t.Errorf("cancel of tag 5: %t, tag %d, %d left", ok, m.Tag, r.count)
	}
	if _, ok := r.cancel(2, 5); ok {
		t.Errorf("a second cancel of tag 5 found it")
	}
	var seen []int32
	r.sweep(func(_ int, m *messages.Msg) bool { seen = append(seen, m.Tag); return m.Tag == 0 })
	if len(seen) != 2 || r.count != 1 || r.bySlot[0][0].msg.Tag != 1 {
		t.Errorf("sweep saw %v, left %d (first %d); want [0 1], 1 (tag 1)", seen, r.count, r.bySlot[0][0].msg.Tag)
	}
}

// TestReqQueueBehindRefusal: a refusal of queue 0's request 3 (slot 1) at
// 200 reaches its source at 200 + μ = 208. A later request of that queue
// sent before 208 (effect before 208 + λ = 216) is behind the refused
// packet and must be refused too; one sent from 208 on is not, nor are
// older requests or other queues and slots.
func TestReqQueueBehindRefusal(t *testing.T) {
	p := benchParams(t, nil)
	r := newReqQueue(4)
	var out Outbox
	r.refuse(p, 1, req(0, 3, 190), 200, benchSelf, &out)
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != messages.KindNack || out.Msgs[0].At != 208 || out.Msgs[0].Tag != 3 {
		t.Fatalf("refusal sent %+v, want one refusal of tag 3 at 208", out.Msgs)
	}
	for _, tc := range []struct {
		name   string
		slot   int
		m      *messages.Msg
		behind bool
	}{
		{"sent at 207", 1, req(0, 4, 215), true},
		{"sent at 208", 1, req(0, 4, 216), false},
		{"older request", 1, req(0, 2, 215), false},
		{"other queue", 1, req(1, 4, 215), false},
		{"other slot", 2, req(0, 4, 215), false},
	} {
		if got := r.behindRefusal(p, tc.slot, tc.m); got != tc.behind {
			t.Errorf("%s: behind the refusal %t, want %t", tc.name, got, tc.behind)
		}
	}
	// Refusing a request that is behind keeps the first refusal on record.
	r.refuse(p, 1, req(0, 4, 215), 210, benchSelf, &out)
	if x := r.refusalOf(1, 0); x == nil || x.at != 200 || x.tag != 3 {
		t.Errorf("recorded refusal %+v, want tag 3 at 200", x)
	}
}

// TestBookedStart: a request with a booked start (Deadline) expires when
// its grant would come after the deadline or the write port is taken past
// the start; without one it never expires and starts when the grant
// arrives (now + μ) or at Ready, whichever is later.
func TestBookedStart(t *testing.T) {
	p := benchParams(t, nil)
	booked := &messages.Msg{Ready: 214, Deadline: 206}
	for _, tc := range []struct {
		name      string
		m         *messages.Msg
		now, wf   clock.Cycle
		expired   bool
		startedAt clock.Cycle
	}{
		{"in time", booked, 206, 214, false, 214},
		{"decided too late", booked, 207, 0, true, 215},
		{"write port busy past the start", booked, 200, 215, true, 214},
		{"not booked", &messages.Msg{Ready: 0}, 300, 400, false, 308},
	} {
		if got := expired(p, tc.m, tc.now, tc.wf); got != tc.expired {
			t.Errorf("%s: expired %t, want %t", tc.name, got, tc.expired)
		}
		if got := startOf(p, tc.m, tc.now); got != tc.startedAt {
			t.Errorf("%s: starts at %d, want %d", tc.name, got, tc.startedAt)
		}
	}
}

// TestAllocatorNames: the registered allocators, and the error for an
// unknown one listing them.
func TestAllocatorNames(t *testing.T) {
	if got := strings.Join(AllocatorNames(), ","); got != "islip,pipelined,serial" {
		t.Errorf("allocators %s", got)
	}
	if a, err := lookupAllocator(AllocPipelined); err != nil || !a.pipelined || a.islip {
		t.Errorf("pipelined: %+v, %v", a, err)
	}
	if a, err := lookupAllocator(AllocIslip); err != nil || a.pipelined || !a.islip {
		t.Errorf("islip: %+v, %v", a, err)
	}
	_, err := lookupAllocator("wavefront")
	if err == nil || !strings.Contains(err.Error(), "islip, pipelined, serial") {
		t.Errorf("unknown allocator: %v", err)
	}
}

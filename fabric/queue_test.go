package fabric

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

func seqs(q *fifo) []uint32 {
	var s []uint32
	for i := 0; i < q.Len(); i++ {
		s = append(s, q.At(i).Seq)
	}
	return s
}

// TestFifo: push, pop and push-front keep order across the ring's growth;
// InsertBySeq puts a refused packet back among the refused ones at the
// front, in order of arrival.
func TestFifo(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  func(q *fifo)
		want []uint32
	}{
		{"push past growth", func(q *fifo) {
			for i := uint32(0); i < 9; i++ {
				q.Push(entry{Seq: i})
			}
		}, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"wrap around", func(q *fifo) {
			for i := uint32(0); i < 4; i++ {
				q.Push(entry{Seq: i})
			}
			q.Pop()
			q.Pop()
			q.Push(entry{Seq: 4})
			q.Push(entry{Seq: 5})
			q.Push(entry{Seq: 6}) // grows while wrapped
		}, []uint32{2, 3, 4, 5, 6}},
		{"push front", func(q *fifo) {
			q.Push(entry{Seq: 5})
			q.PushFront(entry{Seq: 4})
			q.PushFront(entry{Seq: 3})
		}, []uint32{3, 4, 5}},
		// Packets 3 and 5 were requested; 5 is refused first, then 3: 3
		// goes back in front of 5, both in front of the later 7.
		{"insert by seq", func(q *fifo) {
			q.Push(entry{Seq: 7})
			q.InsertBySeq(entry{Seq: 5})
			q.InsertBySeq(entry{Seq: 3})
		}, []uint32{3, 5, 7}},
		// Refused in arrival order, the later one goes behind the earlier.
		{"insert by seq, later refused last", func(q *fifo) {
			q.Push(entry{Seq: 7})
			q.InsertBySeq(entry{Seq: 3})
			q.InsertBySeq(entry{Seq: 5})
		}, []uint32{3, 5, 7}},
	} {
		var q fifo
		tc.ops(&q)
		if got := seqs(&q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if q.Len() > 0 && q.Front().Seq != tc.want[0] {
			t.Errorf("%s: front %d, want %d", tc.name, q.Front().Seq, tc.want[0])
		}
	}
}

// TestReleases: Due hands out the releases at or before a cycle, in order;
// Insert keeps a pipelined source's releases in order of their cycles.
func TestReleases(t *testing.T) {
	var r releases
	for _, at := range []clock.Cycle{10, 30, 20, 40, 5, 35} {
		r.Insert(release{At: at, Credits: int32(at)})
	}
	var got []clock.Cycle
	for _, now := range []clock.Cycle{4, 10, 34, 100} {
		for x, ok := r.Due(now); ok; x, ok = r.Due(now) {
			got = append(got, x.At)
		}
		if r.Len() > 0 && r.At(0).At <= now {
			t.Errorf("at %d: release at %d left behind", now, r.At(0).At)
		}
	}
	if want := []clock.Cycle{5, 10, 20, 30, 35, 40}; !slices.Equal(got, want) {
		t.Errorf("released at %v, want %v", got, want)
	}
	for i := 0; i < 9; i++ { // past one growth, with the ring's head moved
		r.Push(release{At: clock.Cycle(i)})
	}
	if r.Len() != 9 || r.At(8).At != 8 {
		t.Errorf("%d releases, last at %d; want 9, 8", r.Len(), r.At(8).At)
	}
}

// TestTimers: the heap gives timers by cycle, then by unit, so a
// component evaluates its units in a fixed order within a cycle.
func TestTimers(t *testing.T) {
	var h timerHeap
	if h.Top() != clock.Never {
		t.Errorf("empty heap's top is %d", h.Top())
	}
	for _, x := range []timer{{7, 2}, {3, 1}, {7, 0}, {3, 0}, {9, 1}, {1, 5}, {7, 1}} {
		h.Push(x)
	}
	var got []timer
	for len(h) > 0 {
		got = append(got, h.Pop())
	}
	want := []timer{{1, 5}, {3, 0}, {3, 1}, {7, 0}, {7, 1}, {7, 2}, {9, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("popped %v, want %v", got, want)
	}
}

// TestInbox: messages come out by effect cycle, then by sender, then in
// the order one sender sent them.
func TestInbox(t *testing.T) {
	var b inbox
	for i, m := range []messages.Msg{
		{At: 5, Src: 3}, {At: 5, Src: 1, Tag: 1}, {At: 2, Src: 9}, {At: 5, Src: 1, Tag: 2}, {At: 5, Src: 1, Tag: 3}, {At: 8, Src: 0},
	} {
		m.Count = int32(i)
		b.Push(&m)
	}
	if len(b.Pending()) != 6 || b.Top() != 2 {
		t.Fatalf("%d pending, top %d; want 6, 2", len(b.Pending()), b.Top())
	}
	var got []int32
	for b.Top() != clock.Never {
		got = append(got, b.Pop().Count)
	}
	if want := []int32{2, 1, 3, 4, 0, 5}; !slices.Equal(got, want) {
		t.Errorf("popped messages %v, want %v", got, want)
	}
}

// TestCoreTimers: the core evaluates the same units at the same cycles,
// in the same order, as a core keeping every timer in one heap (the
// reference below), for components with a timer wheel (up to 64 units)
// and without, advanced in windows of several lengths, with evaluations
// that set timers of any unit at their own cycle, the next ones, far ahead
// (past the wheel) and a few cycles back.
func TestCoreTimers(t *testing.T) {
	for _, units := range []int{1, 3, 12, 64, 65, 200} {
		for _, window := range []clock.Cycle{1, 8, 100} {
			c := newCore(0, units)
			ref := refCore{lastEval: make([]clock.Cycle, units), pending: make([]clock.Cycle, units)}
			for u := range ref.lastEval {
				ref.lastEval[u], ref.pending[u] = -1, clock.Never
			}
			var got, want []timer
			h := &timerTestHandler{c: &c, units: units, log: &got}
			sets := func(now clock.Cycle, u int32, at func(clock.Cycle, int32)) {
				rng := rand.New(rand.NewPCG(uint64(now), uint64(u)))
				if now > 1500 {
					return
				}
				at(now+1+clock.Cycle(rng.IntN(20)), int32(rng.IntN(units))) // keeps the run going
				for k := rng.IntN(4); k > 0; k-- {
					var d clock.Cycle
					switch rng.IntN(8) {
					case 0:
						d = 0
					case 1:
						d = -clock.Cycle(rng.IntN(4))
					case 2:
						d = 60 + clock.Cycle(rng.IntN(200))
					default:
						d = 1 + clock.Cycle(rng.IntN(20))
					}
					at(now+d, int32(rng.IntN(units)))
				}
			}
			h.sets = sets
			for u := 0; u < units; u += 2 {
				c.at(clock.Cycle(u), int32(u))
				ref.at(clock.Cycle(u), int32(u))
			}
			for to := window; to < 2000; to += window {
				c.run(h, to, &Outbox{})
				ref.run(to, func(now clock.Cycle, u int32) {
					want = append(want, timer{now, u})
					sets(now, u, ref.at)
				})
				if c.Next() != ref.tm.Top() {
					t.Fatalf("units %d, window %d, to %d: next %d, want %d", units, window, to, c.Next(), ref.tm.Top())
				}
			}
			if len(want) < 500 || !slices.Equal(got, want) {
				t.Fatalf("units %d, window %d: %d evaluations, %d wanted, first difference at %d", units, window, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []timer) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// refCore is the core's timers as one heap.
type refCore struct {
	tm                timerHeap
	lastEval, pending []clock.Cycle
}

func (r *refCore) at(t clock.Cycle, unit int32) {
	if t <= r.lastEval[unit] {
		return
	}
	if t < r.pending[unit] {
		r.pending[unit] = t
		r.tm.Push(timer{At: t, Unit: unit})
	}
}

func (r *refCore) run(to clock.Cycle, eval func(clock.Cycle, int32)) {
	for {
		t := r.tm.Top()
		if t >= to {
			return
		}
		for r.tm.Top() == t {
			u := r.tm.Pop().Unit
			if r.lastEval[u] != t {
				r.lastEval[u], r.pending[u] = t, clock.Never
				eval(t, u)
			}
		}
	}
}

type timerTestHandler struct {
	c     *core
	units int
	log   *[]timer
	sets  func(clock.Cycle, int32, func(clock.Cycle, int32))
}

func (h *timerTestHandler) apply(*messages.Msg, *Outbox) { panic("no message") }

func (h *timerTestHandler) eval(u int32, now clock.Cycle, _ *Outbox) {
	*h.log = append(*h.log, timer{now, u})
	h.sets(now, u, h.c.at)
}

// TestInboxReusesSlots: pushes and pops interleaved give every message
// back whole (its Slot too, which links the free slots) in the order of
// a sorted reference, and the store holds no more messages than the inbox
// held at once, plus the one a pop gave out last.
func TestInboxReusesSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b inbox
	var ref []messages.Msg // sorted by (At, Src, Tag)
	seq := int32(0)
	most := 0
	for step := 0; step < 20000; step++ {
		if rng.IntN(2) == 0 || len(ref) == 0 {
			m := messages.Msg{At: clock.Cycle(rng.IntN(50)), Src: messages.CompID(rng.IntN(4)), Tag: seq, Slot: int32(rng.IntN(1000)), Count: seq * 3}
			seq++
			b.Push(&m)
			i, _ := slices.BinarySearchFunc(ref, m, func(a, x messages.Msg) int {
				if a.At != x.At {
					return int(a.At - x.At)
				}
				if a.Src != x.Src {
					return int(a.Src - x.Src)
				}
				return int(a.Tag - x.Tag)
			})
			ref = slices.Insert(ref, i, m)
			most = max(most, len(ref))
			continue
		}
		got := *b.Pop()
		if got != ref[0] {
			t.Fatalf("step %d: popped %+v, want %+v", step, got, ref[0])
		}
		ref = ref[1:]
	}
	if len(b.st.msgs) > most+1 {
		t.Errorf("%d message slots for at most %d held at once", len(b.st.msgs), most)
	}
}

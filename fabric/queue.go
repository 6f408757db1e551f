package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// entry is a packet resident in a buffer, with the cycles at which its
// header may leave (Ready) and its tail is available (TailAvail), and where
// routing sends it.
type entry struct {
	Pkt       messages.Packet
	Ready     clock.Cycle
	TailAvail clock.Cycle
	Out       int32 // output port chosen by the routing unit
	NextSC    messages.SC
	NextVL    messages.VL
	Lane      uint16 // input buffer: the central buffer lane it takes if it crosses (class of Out · VLs + NextVL)
	Seq       uint32 // order of arrival in its buffer (a refused packet goes back in this order)
}

// fifo is a growable ring of entries: one per VL per buffer.
type fifo struct {
	buf        []entry
	head, size int
}

func (q *fifo) Len() int { return q.size }

func (q *fifo) Front() *entry { return &q.buf[q.head] }

func (q *fifo) Push(e entry) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.size)%len(q.buf)] = e
	q.size++
}

// PushFront puts e back at the front (a refused request's packet).
func (q *fifo) PushFront(e entry) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1 + len(q.buf)) % len(q.buf)
	q.buf[q.head] = e
	q.size++
}

func (q *fifo) Pop() entry {
	e := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return e
}

// InsertBySeq puts e back among the refused packets at the front, in order
// of Seq (every packet behind them arrived later).
func (q *fifo) InsertBySeq(e entry) {
	q.PushFront(e)
	for i := 0; i+1 < q.size && q.At(i).Seq > q.At(i+1).Seq; i++ {
		*q.At(i), *q.At(i + 1) = *q.At(i + 1), *q.At(i)
	}
}

// At returns the i-th entry from the front.
func (q *fifo) At(i int) *entry { return &q.buf[(q.head+i)%len(q.buf)] }

func (q *fifo) grow() {
	n := max(4, 2*len(q.buf))
	nb := make([]entry, n)
	for i := 0; i < q.size; i++ {
		nb[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = nb, 0
}

// release is buffer space that a departing packet gives back when its tail
// has left: Credits of VL at cycle At. Releases of one buffer come in
// departure order, so they form a FIFO.
type release struct {
	At      clock.Cycle
	VL      int32
	Credits int32
	ID      uint64 // the departing packet (a preempted packet's release moves)
}

type releases struct {
	buf        []release
	head, size int
}

func (r *releases) Push(x release) {
	if r.size == len(r.buf) {
		n := max(4, 2*len(r.buf))
		nb := make([]release, n)
		for i := 0; i < r.size; i++ {
			nb[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = x
	r.size++
}

// Insert adds x in order of At (a pipelined source's grants may arrive out
// of the order of their transfers).
func (r *releases) Insert(x release) {
	r.Push(x)
	for i := r.size - 1; i > 0; i-- {
		a, b := &r.buf[(r.head+i-1)%len(r.buf)], &r.buf[(r.head+i)%len(r.buf)]
		if a.At <= b.At {
			break
		}
		*a, *b = *b, *a
	}
}

// Due pops the first release if it is due at or before now.
func (r *releases) Due(now clock.Cycle) (release, bool) {
	if r.size == 0 || r.buf[r.head].At > now {
		return release{}, false
	}
	x := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return x, true
}

func (r *releases) Len() int { return r.size }

func (r *releases) At(i int) release { return r.buf[(r.head+i)%len(r.buf)] }

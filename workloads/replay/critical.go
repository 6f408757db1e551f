package replay

import (
	"container/heap"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/workloads"
)

// CriticalPath replays the trace on an ideal network and returns what it
// measured: a message's last flit leaves flits − 1 cycles after the
// message is issued, whatever else its NIC sends, and it arrives latency
// cycles after that. Its execution time is the trace's critical path of
// delays and serialization: a lower bound of its execution time on any
// network where no message arrives sooner than latency cycles after its
// last flit left (on opasim's networks, the link latency plus the fewest
// cycles a header takes through a switch, twice the link latency
// included). It stops at limit cycles.
func CriticalPath(open Open, opt Options, latency, limit clock.Cycle) (Results, error) {
	r, err := New(open, opt)
	if err != nil {
		return Results{}, err
	}
	defer r.Close()
	arrivals := minHeap[arrival]{less: earlierArrival}
	for now := clock.Cycle(0); now < limit; {
		if st, _ := r.Status(); st != workloads.Running {
			break
		}
		for _, h := range r.byNIC {
			if h == nil || h.Next() > now {
				continue
			}
			for m, ok := h.Pop(now); ok; m, ok = h.Pop(now) {
				tail := now + clock.Cycle(m.Flits) - 1
				h.Sent(m.ID, tail)
				heap.Push(&arrivals, arrival{at: tail + latency, nic: m.Dst, id: m.ID, gen: m.At})
			}
		}
		for len(arrivals.items) > 0 && arrivals.items[0].at == now {
			a := heap.Pop(&arrivals).(arrival)
			r.byNIC[a.nic].Delivered(a.id, a.gen, now)
		}
		next := clock.Never
		for _, h := range r.byNIC {
			if h != nil {
				next = min(next, h.Next())
			}
		}
		if len(arrivals.items) > 0 {
			next = min(next, arrivals.items[0].at)
		}
		now = max(next, now+1)
	}
	return r.Results(), nil
}

type arrival struct {
	at, gen clock.Cycle
	nic     int
	id      workloads.MessageID
}

// earlierArrival orders arrivals by cycle, then by message ID.
func earlierArrival(a, b *arrival) bool { return a.at < b.at || a.at == b.at && a.id < b.id }

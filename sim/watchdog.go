package sim

import (
	"fmt"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
)

// watchdog decides when a run is blocked. It stops a run in two cases:
//   - a global standstill: nothing moved anywhere for limit cycles while
//     packets were inside;
//   - a partial deadlock: a cycle of switch buffer queues (VLs of input and
//     output buffers, lanes of central buffers) whose head packets have not
//     left for limit cycles, each head waiting for room in the next queue
//     of the cycle, while the rest of the network may still be moving.
//     A head that waits long behind congestion (a critically loaded
//     destination NIC) is not a deadlock: its chain of waits ends at a NIC,
//     which always drains, so it closes no cycle.
//
// The window loop calls check between windows (every checkEvery windows),
// when no component is running.
type watchdog struct {
	limit     clock.Cycle
	last      int64
	lastMoved clock.Cycle
	heads     []uint64      // per switch queue: the head packet seen by the last scan (0: empty)
	since     []clock.Cycle // and the scan that first saw it there
	scan      []uint64
	report    []string // what was stuck when check stopped the run
	partial   bool     // the run was stopped for a partial deadlock
}

// standstill records the total moves at cycle now and reports whether the
// limit has passed since the last move.
func (w *watchdog) standstill(now clock.Cycle, moves int64) bool {
	if moves != w.last {
		w.last, w.lastMoved = moves, now
		return false
	}
	return w.limit > 0 && now-w.lastMoved >= w.limit
}

// check reports whether the run must stop at cycle now: a global standstill
// (moves is the network's total, inside whether packets are inside), or a
// cycle of queues whose heads have not moved for limit cycles. report then
// says what was stuck.
func (w *watchdog) check(n *fabric.Network, now clock.Cycle, moves int64, inside bool) bool {
	if w.limit <= 0 {
		return false
	}
	if w.standstill(now, moves) && inside {
		w.report = n.Stuck(20)
		return true
	}
	w.scan = n.QueueHeads(w.scan[:0])
	for len(w.heads) < len(w.scan) {
		w.heads, w.since = append(w.heads, 0), append(w.since, 0)
	}
	var old []int32 // queues whose head has not moved for limit cycles
	for k, id := range w.scan {
		if id != w.heads[k] {
			w.heads[k], w.since[k] = id, now
		} else if id != 0 && now-w.since[k] >= w.limit {
			old = append(old, int32(k))
		}
	}
	if len(old) == 0 {
		return false
	}
	cycle := n.WaitCycle(old)
	if cycle == nil {
		return false
	}
	w.report = append(w.report[:0], fmt.Sprintf("a cycle of %d buffer queues, each head waiting for room in the next:", len(cycle)))
	cycle = cycle[:min(len(cycle), 20)]
	for i, d := range n.DescribeQueues(cycle) {
		w.report = append(w.report, fmt.Sprintf("%s; the head has not left for %d cycles", d, now-w.since[cycle[i]]))
	}
	w.partial = true
	return true
}

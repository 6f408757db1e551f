package distrib

import (
	"fmt"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/sim"
)

// DefaultSnapshotEvery is how much wall time may pass between snapshots of
// the members' totals: a member fault loses about this much of the run's
// progress from the partial results, and a snapshot costs each member
// 10-20 ms (its totals read and encoded, 7-14 KB, on tree-8ary-2 and
// tree-8ary-3), so once a second it is 1-2 % of the run's wall time
// (docs/distributed.md, Faults).
const DefaultSnapshotEvery = time.Second

// partialNote says what partial results hold, in the results JSON.
const partialNote = "the members' totals at the end of the window named: every component's counters and statistics as they stood then; " +
	"not included: what the run did after that window, and the messages then in transit between components (not yet taken), " +
	"so conservation is not checked and undelivered_packets counts those packets as undelivered"

// snapshots keeps each member's latest totals and the latest complete
// snapshot: totals of every member that describe the state at the end of
// the same window. A member's state changes only in the windows it is
// ticked in, so its totals from window s still describe it at the end of
// any later window before it next runs; a complete snapshot is one where
// no member has run since its latest totals. The coordinator asks every
// member it ticks for its totals from the first window after every
// interval until a snapshot is complete.
type snapshots struct {
	every  time.Duration
	since  time.Time // the last complete snapshot (or the run's start)
	want   bool      // a snapshot is due: ticks ask for totals
	ran    []uint64  // per member, the last window it completed
	at     []uint64  // per member, the window its latest totals are from (0: none)
	totals [][]byte  // per member, its latest totals (encodeTotals; nil: none)

	// The latest complete snapshot (taken false: none yet).
	taken  bool
	seq    uint64
	window clock.Window
	wall   time.Duration // the run's wall time to its end
	parts  [][]byte      // per member (nil: it never ran; its part is the network as built)
}

func newSnapshots(members int, every time.Duration, now time.Time) snapshots {
	return snapshots{every: every, since: now, ran: make([]uint64, members), at: make([]uint64, members), totals: make([][]byte, members)}
}

// due reports whether the window about to open should ask for totals.
func (s *snapshots) due(now time.Time) bool {
	if !s.want && now.Sub(s.since) >= s.every {
		s.want = true
	}
	return s.want
}

// record notes member i's report of window seq, with its totals if it
// sent them.
func (s *snapshots) record(i int, seq uint64, totals []byte) {
	s.ran[i] = seq
	if totals != nil {
		s.at[i], s.totals[i] = seq, totals
	}
}

// complete takes a snapshot at the end of window seq (w) if every
// member's latest totals describe it: none has run since it sent them.
func (s *snapshots) complete(seq uint64, w clock.Window, wall time.Duration, now time.Time) bool {
	if !s.want {
		return false
	}
	for i := range s.ran {
		if s.at[i] < s.ran[i] {
			return false
		}
	}
	s.want, s.since, s.taken, s.seq, s.window, s.wall = false, now, true, seq, w, wall
	s.parts = append(s.parts[:0], s.totals...)
	return true
}

// partial makes the results of the latest complete snapshot, for a run a
// member fault (err, naming failed) ended; nil when there is none.
func (c *coordinator) partial(failed string, fault error) (*sim.Results, error) {
	s := &c.snap
	if !s.taken {
		return nil, nil
	}
	sum, base := baseTotals(c.n)
	for i, b := range s.parts {
		if b == nil {
			continue
		}
		t, _, err := decodeTotals(b)
		if err != nil {
			return nil, fmt.Errorf("member %d's totals of window %d: %w", i, s.seq, err)
		}
		if err := mergeTotals(&sum, &t, &base); err != nil {
			return nil, fmt.Errorf("member %d's totals of window %d: %w", i, s.seq, err)
		}
	}
	o := sim.Outcome{Reached: s.window.To, Interrupted: true, Wall: s.wall, Engine: "distributed"}
	res := sim.MeasureTotals(c.n, o, sum, []string{"not checked: partial results of a run a member fault ended (see partial)"})
	res.Partial = &sim.PartialResult{Failed: failed, Reason: fault.Error(), Window: s.seq, Cycle: int64(s.window.To), Note: partialNote}
	return res, nil
}

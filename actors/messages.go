package actors

import (
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
)

// start makes the clock begin the run.
type start struct{}

// tick tells a partition to simulate window w with groups [lo, hi): to
// take the messages the partitions sent those groups in the previous window
// (in[p] is what partition p sent), then to run those of them that are due.
// The clock reuses one tick per partition.
type tick struct {
	w      clock.Window
	lo, hi int
	due    []int // every partition's due groups, in index order; read only
	in     []outgoing
}

// outgoing is what a partition's groups sent other partitions' groups in
// one window: msgs[g] for group g, for each g in groups.
type outgoing struct {
	msgs   [][]messages.Msg
	groups []int
}

// wake asks the clock to wake group g at cycle at.
type wake struct {
	g  int
	at clock.Cycle
}

// ran is what a partition reports of one group it ran.
type ran struct {
	g           int
	next        clock.Cycle
	moves       int64 // fabric.Network.Moves: for the watchdog
	undelivered int64 // fabric.Network.Undelivered
	busy        time.Duration
}

// done tells the clock a partition finished its window: each group's next
// wake, counts and wall time, the earliest cycle each group of any
// partition must wake for the messages sent to it, and the messages
// themselves, which the clock hands to every partition with its next tick.
// A partition reuses one done, and writes out into the other of two
// buffers in the next window.
type done struct {
	part  int
	ran   []ran
	wakes []wake
	out   outgoing
}

// exchange is where a group's cross-group messages go while it runs: for
// a group of the same partition (partOf[g] == part), its inbox; for
// another partition's, out; and per destination group the earliest cycle
// of what it was sent (wakeAt, clock.Never when nothing; touched lists the
// groups whose entry is set).
type exchange struct {
	part    int
	partOf  []int
	inbox   [][]messages.Msg
	out     *outgoing
	wakeAt  []clock.Cycle
	touched []int
}

// turn asks a group actor to take its messages and simulate window w. The
// group runs inline in its partition's turn (synchronized dispatcher) and
// answers in the same message: next, moves and undelivered; its messages
// for other groups go to x.
type turn struct {
	w           clock.Window
	in          []messages.Msg
	x           *exchange
	next        clock.Cycle
	moves       int64
	undelivered int64
	ok          bool
}

// step asks a component actor to take its messages and advance to cycle
// to. The component answers in the same message (it runs on the
// synchronized dispatcher, inline in its group's turn): ran, next and out.
type step struct {
	to   clock.Cycle
	in   []messages.Msg
	out  fabric.Outbox
	next clock.Cycle
	ran  bool
}

// flush asks a partition, after the last window, for the messages groups
// [lo, hi) hold (with in, the messages sent to them in the last window).
type flush struct {
	lo, hi int
	in     []outgoing
	reply  chan<- []messages.Msg
}

// held asks a group (inline) for the messages its components have not
// taken.
type held struct{ msgs []messages.Msg }

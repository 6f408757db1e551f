package actors

import (
	"sync/atomic"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
)

// start makes the clock begin the run.
type start struct{}

// tick tells a partition to simulate window w: to run groups from the
// window's work, its own share first, then what other partitions have not
// started yet. in[p] is what partition p's groups sent in the previous
// window; each group takes its own messages from it when it runs (every
// tick shares the clock's in). The clock reuses one tick per partition.
type tick struct {
	w    clock.Window
	work *work
	in   []outgoing
	// timed asks for the groups' wall times (busy): in every window for
	// an observer, else in one window of timedEvery when the balancer
	// needs them (reading the clock twice per group in every window is
	// about half a percent of a 3D-torus run: 660,000 group turns in
	// 12,000 cycles at 112 ns a pair of reads).
	timed bool
}

// work is the groups due in one window, in index order, cut into one share
// per partition (share q runs from where cursor[q] starts to end[q]). A
// partition takes the groups of a share one at a time by advancing its
// cursor, so every group runs exactly once whichever partition takes it.
type work struct {
	due    []int
	end    []int
	cursor []cursor
}

// cursor is the next index a share gives out, alone on its cache line.
type cursor struct {
	next atomic.Int64
	_    [56]byte
}

// take returns the next group of share q, or false when it is exhausted.
func (w *work) take(q int) (int, bool) {
	i := int(w.cursor[q].next.Add(1) - 1)
	if i >= w.end[q] {
		return 0, false
	}
	return w.due[i], true
}

// outgoing is what the groups one partition ran sent other groups in one
// window: msgs[g] for group g, for each g in groups.
type outgoing struct {
	msgs   [][]messages.Msg
	groups []int
}

// wake asks the clock to wake group g at cycle at.
type wake struct {
	g  int
	at clock.Cycle
}

// ran is what a partition reports of one group it ran: busy is its wall
// time if the tick asked for it, else 0.
type ran struct {
	g    int
	next clock.Cycle
	busy time.Duration
}

// done tells the clock a partition finished its window: the next wake and
// wall time of each group it ran, the earliest cycle each group
// must wake for the messages sent to it, and the messages themselves,
// which the clock hands to every partition with the next tick. A partition
// reuses one done, and writes out into the other of two buffers in the
// next window.
type done struct {
	part  int
	ran   []ran
	wakes []wake
	out   outgoing
}

// exchange is where the messages a group sends other groups go while it
// runs: out, and per destination group the earliest cycle of what it was
// sent (wakeAt, clock.Never when nothing; touched lists the groups whose
// entry is set).
type exchange struct {
	out     *outgoing
	wakeAt  []clock.Cycle
	touched []int
	deliver deliver // reused for every message handed to an idle group
	// direct and exchanged count the messages to other groups by the way
	// they went (handed over at once, or left here).
	direct, exchanged int64
	// step is the message that steps a component, one for every
	// component the partition steps (each handles it before its send
	// returns): its outbox, which they all fill in turn, stays in the
	// cache, as the sequential engine's one outbox does.
	step step
}

// deliver hands an idle group a message for one of its components, which
// it files before its mailbox returns (the message is not kept) unless it
// has messages in the exchange it has not taken yet: then it refuses it
// (took false), and the sender puts it in the exchange behind them. A
// message from another member (remote) is always taken: its source's
// messages all come that way, in order, so none of the exchange's is of
// its source.
type deliver struct {
	m      *messages.Msg
	remote bool
	took   bool
}

// turn asks a group actor to take its messages (in[p].msgs[g]) and
// simulate window w. The group runs inline in its partition's turn
// (synchronized dispatcher) and answers in the same message: next; its
// messages for other groups go to x.
type turn struct {
	w    clock.Window
	in   []outgoing
	x    *exchange
	next clock.Cycle
	ok   bool
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

// held asks a group (inline) for the messages its components have not
// taken.
type held struct{ msgs []messages.Msg }

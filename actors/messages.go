package actors

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/messages"
)

// tick tells a group to simulate a window.
type tick struct{ w clock.Window }

// wake asks the clock to wake group g at cycle at.
type wake struct {
	g  int
	at clock.Cycle
}

// done tells the clock a group finished its window.
type done struct {
	g           int
	next        clock.Cycle
	wakes       []wake
	moves       int64 // fabric.Network.Moves: for the watchdog
	undelivered int64 // fabric.Network.Undelivered
}

// batch carries the messages one group's components sent to another
// group's components during a window.
type batch struct {
	from int
	msgs []messages.Msg
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

// flush asks a group, after the last window, for the messages it holds.
type flush struct{ reply chan<- []messages.Msg }

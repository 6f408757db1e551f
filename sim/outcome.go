package sim

import (
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Outcome is what an engine hands back after driving a network.
type Outcome struct {
	Reached         clock.Cycle    // every component has been advanced to here
	Interrupted     bool           // stopped early by the context or the watchdog
	InFlight        []messages.Msg // messages the engine still held
	Wall            time.Duration
	Engine          string
	Partitions      int      // the actor engine's partitions (0 for the sequential engine)
	Blocked         bool     // stopped by the watchdog: nothing, or some buffer's head, moved for watchdog_cycles
	PartialDeadlock bool     // what stopped it was a buffer head that did not move while others did
	Stuck           []string // what was blocked
	Stalled         bool     // the trace replay could not go on (fabric.Network.Workload)
	StallDetail     []string // what its tasks waited on
}

// Progress is called by engines now and then with the cycle reached.
type Progress func(reached clock.Cycle)

// Hooks let a caller watch a run: Progress now and then, Observer at every
// window. Both may be nil.
type Hooks struct {
	Progress Progress
	Observer Observer
}

// Observer watches a run while it goes on (live metrics). Engines call it
// at window boundaries; it must be cheap, and it must not keep references
// into the model.
type Observer interface {
	// GroupDone is called on the goroutine that ran group g, right after it
	// finished window w (busy is the wall time it took; 0 for the
	// sequential engine). During this call only, the observer may read the
	// group's state with fabric.Network.Snapshot(g, ...).
	GroupDone(g int, w clock.Window, busy time.Duration)
	// WindowDone is called once every group of window w is done; wait is
	// the barrier wait: the wall time from the first group's report to the
	// last one's (0 for the sequential engine).
	WindowDone(w clock.Window, wait time.Duration)
}

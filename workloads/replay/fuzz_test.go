package replay

import (
	"testing"

	"github.com/opasim/opasim/clock"
)

// FuzzReplay: any text either is refused by New or replays on the ideal
// network to an end or a stall, never a panic or a hang; a finished
// replay has every task's end at most the execution time.
func FuzzReplay(f *testing.F) {
	f.Add(example, uint8(4))
	f.Add(example, uint8(2))
	f.Add("VEF 2 1 1 1 2 FALSE\nC0 0 1\nG0 0 2 1 8 8 0 0 -1\n0 1 0 8 3 0 G0\nG0 0 2 0 8 8 2 0 0\n", uint8(2))
	f.Add("VEF 3 0 2 1 3 TRUE\nC0 2 0 1\nC1 2 0\nG0 0 3 0 1 0 0 0 -1\nG0 0 3 1 2 6 0 0 -1\nG0 0 3 2 3 0 0 0 -1\n", uint8(1))
	f.Add("VEF 2 1 1 1 2 FALSE\nC0 0 1\nG0 0 7 0 16 1 0 0 -1\n0 0 1 8 3 5 G0\nG0 0 7 1 16 1 1 0 0\n", uint8(3))
	f.Fuzz(func(t *testing.T, text string, nics uint8) {
		n := int(nics%8) + 1
		res, err := CriticalPath(openText(text), Options{NICs: n, BytesPerFlit: 8, CyclesOf: func(ns int64) clock.Cycle {
			return clock.Cycle(min(ns, 1<<30) / 64) // keep fuzzed delays short
		}}, 20, 1<<40)
		if err != nil {
			return
		}
		if !res.Finished {
			return // stalled: CriticalPath runs until the replay is no longer running
		}
		for task, end := range res.TaskEnds {
			if end < 0 || end > int64(res.ExecutionCycle) {
				t.Fatalf("task %d ended at %d; execution %d", task, end, res.ExecutionCycle)
			}
		}
	})
}

package trace

import (
	"fmt"
	"strings"

	"github.com/opasim/opasim/flow/dynamic"
)

// findCycle returns the flows of one dependency cycle, each waiting for
// the next and the last for the first, or nil if the dependencies form
// none. Only the fix-ups of collectives' ends point forward, so a list
// whose dependencies all point backward is checked in one pass; otherwise
// Kahn's algorithm runs in O(flows + dependencies) and 16 bytes a flow.
func findCycle(flows []dynamic.Flow) []int32 {
	if forward, valid := pointsForward(flows); !valid || !forward {
		return nil // an invalid list is not one dynamic.RunWith takes; it says why
	}
	left := unordered(flows)
	if left == nil {
		return nil
	}
	return cycleAmong(flows, left)
}

// pointsForward reports whether a flow of flows depends on itself or on
// a later flow (forward), and whether every dependency is a flow of the
// list (valid; forward is false when it is not).
func pointsForward(flows []dynamic.Flow) (forward, valid bool) {
	n := len(flows)
	for i, f := range flows {
		for _, d := range f.Deps {
			if d < 0 || d >= n {
				return false, false
			}
			forward = forward || d >= i
		}
	}
	return forward, true
}

// unordered orders flows by their dependencies (Kahn's algorithm) and
// returns, per flow, its dependencies left unordered, or nil if every
// flow was ordered. The dependencies must be flows of the list.
func unordered(flows []dynamic.Flow) []int32 {
	n := len(flows)
	start := make([]int32, n+1) // the flows waiting for flow v: after[start[v]:start[v+1]]
	for _, f := range flows {
		for _, d := range f.Deps {
			start[d+1]++
		}
	}
	for v := range n {
		start[v+1] += start[v]
	}
	after := make([]int32, start[n])
	next := make([]int32, n)
	copy(next, start[:n])
	left := make([]int32, n) // dependencies not yet ordered
	var queue []int32
	for i, f := range flows {
		for _, d := range f.Deps {
			after[next[d]] = int32(i)
			next[d]++
		}
		if left[i] = int32(len(f.Deps)); left[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		v := queue[k]
		for _, j := range after[start[v]:start[v+1]] {
			if left[j]--; left[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	return left
}

// cycleAmong returns a cycle among the flows with dependencies left
// unordered (left[v] > 0, as unordered returns). Every flow left waits
// for a flow left: following such waits from one of them comes back to a
// flow already met.
func cycleAmong(flows []dynamic.Flow, left []int32) []int32 {
	v := int32(-1)
	for i, l := range left {
		if l > 0 {
			v = int32(i)
			break
		}
	}
	at := map[int32]int{}
	var path []int32
	for {
		if k, ok := at[v]; ok {
			return path[k:]
		}
		at[v] = len(path)
		path = append(path, v)
		for _, d := range flows[v].Deps {
			if left[d] > 0 {
				v = int32(d)
				break
			}
		}
	}
}

// why describes the flows of a plan by the records they come from, for
// the error a dependency cycle gives.
type why struct {
	p        *Plan
	lines    []int32 // per flow added while reading, its record's line
	src, dst []int32 // per message, its tasks
	colls    []*coll
	msgOf    map[int32]int
}

// maxCycleShown is the most steps of a cycle an error names.
const maxCycleShown = 12

// cycleError says that the flows of cycle wait on each other for ever,
// naming the tasks, collectives and lines, as the cycle-level replay's
// stall report does.
func (w *why) cycleError(cycle []int32) error {
	var b strings.Builder
	shown := min(len(cycle), maxCycleShown)
	for k := range shown {
		if k > 0 {
			b.WriteString(", which waits for ")
		}
		b.WriteString(w.describe(cycle[k]))
	}
	if shown < len(cycle) {
		fmt.Fprintf(&b, ", which waits for … (%d steps in all) … %s", len(cycle), w.describe(cycle[0]))
	} else {
		fmt.Fprintf(&b, ", which waits for %s again", w.describe(cycle[0]))
	}
	return fmt.Errorf("the records wait on each other for ever (a dependency cycle, so the replay could never end): %s", b.String())
}

// describe says what flow f stands for.
func (w *why) describe(f int32) string {
	for _, c := range w.colls {
		if f >= c.first && f < c.last {
			return w.round(c, f)
		}
	}
	if w.msgOf == nil {
		w.msgOf = make(map[int32]int, len(w.p.Msg))
		for id, i := range w.p.Msg {
			w.msgOf[i] = id
		}
	}
	line := int32(0)
	if int(f) < len(w.lines) {
		line = w.lines[f]
	}
	if id, ok := w.msgOf[f]; ok {
		return fmt.Sprintf("task %d's message %d to task %d (line %d)", w.src[id], id, w.dst[id], line)
	}
	for _, c := range w.colls {
		for rank, s := range c.start {
			if s == f {
				return fmt.Sprintf("the start of task %d's part of G%d (%v, line %d)", c.comm[rank], c.gid, c.spec.Op, line)
			}
		}
	}
	return fmt.Sprintf("the record at line %d", line)
}

// round describes flow f of collective c's rounds: a rank's send in a
// round or the end of its round, numbered as LowerCollective numbers
// them.
func (w *why) round(c *coll, f int32) string {
	next := c.first
	for r, task := range c.comm {
		for _, rd := range c.spec.Part(r, nil) {
			if t := rd.Send; t != nil {
				if next == f {
					return fmt.Sprintf("task %d's send to task %d in round %d of its part of G%d (%v)", task, c.comm[t.To], rd.Round, c.gid, c.spec.Op)
				}
				next++
			}
			if next == f {
				from := ""
				if t := rd.Recv; t != nil {
					from = fmt.Sprintf(", with a message from task %d", c.comm[t.From])
				}
				return fmt.Sprintf("the end of round %d of task %d's part of G%d (%v%s)", rd.Round, task, c.gid, c.spec.Op, from)
			}
			next++
		}
	}
	return fmt.Sprintf("a round of G%d (%v)", c.gid, c.spec.Op)
}

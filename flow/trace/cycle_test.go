package trace

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
)

// TestCycleNamesRecords: a trace whose tasks wait on each other for ever
// (task 0's part of an allreduce waits for task 1's message, which task 1
// sends only after its own part ended, which needs task 0's send) is
// refused, the cycle named by task, collective, round and line in the
// order of the waits.
func TestCycleNamesRecords(t *testing.T) {
	text := "VEF 2 1 1 1 2 FALSE\nC0 0 1\n" +
		"G0 0 2 1 8 8 0 0 -1\n" +
		"0 1 0 8 3 0 G0\n" +
		"G0 0 2 0 8 8 2 0 0\n"
	_, err := Build(reader(t, text), 2, Options{CPUFactor: 1})
	if err == nil {
		t.Fatal("a trace that can never end was accepted")
	}
	want := "task 1's message 0 to task 0 (line 4), which waits for the end of round 0 of task 1's part of G0 (allreduce, with a message from task 0), " +
		"which waits for task 0's send to task 1 in round 0 of its part of G0 (allreduce), which waits for the start of task 0's part of G0 (allreduce, line 5), " +
		"which waits for task 1's message 0 to task 0 (line 4) again"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q\nlacks %q", err, want)
	}
}

// TestFindCycle: findCycle returns a cycle whose every flow waits for the
// next, and nothing for lists without one, backward or forward.
func TestFindCycle(t *testing.T) {
	deps := func(d ...int) dynamic.Flow { return dynamic.Flow{Deps: d} }
	for _, c := range []struct {
		name  string
		flows []dynamic.Flow
		want  []int32
	}{
		{"backward", []dynamic.Flow{deps(), deps(0), deps(0, 1)}, nil},
		{"forward, acyclic", []dynamic.Flow{deps(2), deps(0), deps()}, nil},
		{"self", []dynamic.Flow{deps(), deps(1)}, []int32{1}},
		{"three behind a tail", []dynamic.Flow{deps(1), deps(2), deps(3), deps(1), deps()}, []int32{1, 2, 3}},
		{"out of range", []dynamic.Flow{deps(5)}, nil},
	} {
		got := findCycle(c.flows)
		if len(got) != len(c.want) {
			t.Errorf("%s: cycle %v, want %v", c.name, got, c.want)
			continue
		}
		for k := range got {
			if got[k] != c.want[k] {
				t.Errorf("%s: cycle %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

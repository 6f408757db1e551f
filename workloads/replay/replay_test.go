package replay

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/workloads"
	"github.com/opasim/opasim/workloads/vef"
)

// example is the 4-task example of VEF.md.
const example = vef.Example

// cyclesOf is 8-byte flits at 12.5 GB/s: 0.64 ns a cycle, rounded up.
func cyclesOf(ns int64) clock.Cycle { return clock.Cycle((ns*25 + 15) / 16) }

func openText(text string) Open {
	return func() (*vef.Reader, error) { return vef.NewReader(strings.NewReader(text)) }
}

func newReplay(t *testing.T, text string, nics int) *Replay {
	t.Helper()
	r, err := New(openText(text), Options{NICs: nics, BytesPerFlit: 8, CyclesOf: cyclesOf})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sentMsg is a message as the ideal network saw it.
type sentMsg struct {
	src  int // NIC
	msg  workloads.Message
	tail clock.Cycle // its last flit left
}

// ideal runs r's tasks on an ideal network: each NIC sends one flit a
// cycle, its messages in the order they were generated, and a message
// arrives whole latency cycles after its last flit left. It calls the
// sources the way a NIC does (Pop when due, Sent when the last flit
// leaves, Delivered when it arrives) and returns the messages in the
// order they were generated.
func ideal(t *testing.T, r *Replay, nics int, latency clock.Cycle, limit clock.Cycle) []sentMsg {
	t.Helper()
	linkFree := make([]clock.Cycle, nics)
	type arrival struct {
		at   clock.Cycle
		nic  int
		msg  workloads.Message
		from int
	}
	var arrivals []arrival
	var log []sentMsg
	for now := clock.Cycle(0); now < limit; now++ {
		if st, _ := r.Status(); st != workloads.Running {
			break
		}
		for nic := 0; nic < nics; nic++ {
			src := r.Source(nic)
			if src == nil {
				continue
			}
			for {
				m, ok := src.Pop(now)
				if !ok {
					break
				}
				if m.At != now {
					t.Fatalf("NIC %d popped a message of cycle %d in cycle %d", nic, m.At, now)
				}
				start := max(now, linkFree[nic])
				tail := start + clock.Cycle(m.Flits) - 1
				linkFree[nic] = tail + 1
				log = append(log, sentMsg{src: nic, msg: m, tail: tail})
				src.(workloads.Sender).Sent(m.ID, tail)
				arrivals = append(arrivals, arrival{at: tail + latency, nic: m.Dst, msg: m, from: nic})
			}
		}
		slices.SortStableFunc(arrivals, func(a, b arrival) int { return int(a.at - b.at) })
		for len(arrivals) > 0 && arrivals[0].at == now {
			a := arrivals[0]
			arrivals = arrivals[1:]
			r.Source(a.nic).Delivered(a.msg.ID, a.msg.At, now)
		}
	}
	return log
}

// TestExampleTiming replays VEF.md's example on an ideal network (a
// message arrives 100 cycles after its last flit left) and checks every
// message's generation cycle and every task's end against a hand
// computation. The rules: a record waiting on an event in cycle e is
// issued in e + 1 + ⌈delay/0.64 ns⌉; 500 ns is 782 cycles, 100 ns 157,
// 200 ns 313. The allreduce of 8 bytes (1 flit) runs by recursive
// doubling: round 0 pairs 0-1 and 2-3, round 1 pairs 0-2 and 1-3; a round
// begins the cycle after the previous one ended, and ends when its send
// has left and its receive has come.
//
//	msg0 0→1 128 flits: generated 0, tail 127, arrives 227
//	msg1 1→2 256 flits: 227+1+782 = 1010, tail 1265, arrives 1365
//	msg2 2→3 512 flits: 1365+1+157 = 1523, tail 2034, arrives 2134
//	G0 parts begin: task 0 at 127+1 = 128 (after its send of msg0), task 1
//	at 1266, task 2 at 2035, task 3 at 2134+1 = 2135 (after its receipt)
//	round 0: 0→1 at 128 (arrives 228), 1→0 at 1266 (arrives 1366): task 0
//	  ends it at 1366, task 1 at 1266; 2→3 at 2035 (arrives 2135), 3→2 at
//	  2135 (arrives 2235): task 3 ends it at 2135, task 2 at 2235
//	round 1: 1→3 at 1267 (arrives 1367), 0→2 at 1367 (arrives 1467),
//	  3→1 at 2136 (arrives 2236), 2→0 at 2236 (arrives 2336): the parts end
//	  at 2336 (task 0), 2236 (1), 2236 (2), 2136 (3)
//	msg3 3→0 64 flits: 2136+1+313 = 2450, tail 2513, arrives 2613
//
// Task ends (the last of its events): 0 at 2613, 1 at 2236, 2 at 2236,
// 3 at 2513; the execution time is 2613.
func TestExampleTiming(t *testing.T) {
	r := newReplay(t, example, 4)
	log := ideal(t, r, 4, 100, 10_000)
	type gen struct {
		at       clock.Cycle
		src, dst int
		flits    int
	}
	want := []gen{
		{0, 0, 1, 128}, {128, 0, 1, 1}, {1010, 1, 2, 256}, {1266, 1, 0, 1}, {1267, 1, 3, 1}, {1367, 0, 2, 1},
		{1523, 2, 3, 512}, {2035, 2, 3, 1}, {2135, 3, 2, 1}, {2136, 3, 1, 1}, {2236, 2, 0, 1}, {2450, 3, 0, 64},
	}
	var got []gen
	for _, s := range log {
		got = append(got, gen{s.msg.At, s.src, s.msg.Dst, s.msg.Flits})
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages (cycle, from, to, flits):\n got %v\nwant %v", got, want)
	}
	res := r.Results()
	if !res.Finished || res.ExecutionCycle != 2613 || !slices.Equal(res.TaskEnds, []int64{2613, 2236, 2236, 2513}) {
		t.Errorf("finished %v, execution %d, task ends %v; want true, 2613, [2613 2236 2236 2513]", res.Finished, res.ExecutionCycle, res.TaskEnds)
	}
	if res.Messages != 12 || res.Records != 8 || res.Flits != 128+256+512+64+8 {
		t.Errorf("%d messages, %d records, %d flits; want 12, 8, %d", res.Messages, res.Records, res.Flits, 128+256+512+64+8)
	}
	if st, _ := r.Status(); st != workloads.Finished {
		t.Errorf("status %v after the end, want finished", st)
	}
}

// TestMessageIDs: a trace message's sequence has bit 39 set (synthetic
// sources never reach it), with bit 38 for a collective's messages, and
// IDs are unique.
func TestMessageIDs(t *testing.T) {
	r := newReplay(t, example, 4)
	seen := map[workloads.MessageID]bool{}
	for _, s := range ideal(t, r, 4, 100, 10_000) {
		seq := s.msg.ID.Seq()
		if seq&traceBit == 0 || (s.msg.Flits == 1) != (seq&collBit != 0) || s.msg.ID.Src() != s.src || seen[s.msg.ID] {
			t.Errorf("message %+v: sequence %#x from NIC %d (seen before: %v)", s.msg, seq, s.msg.ID.Src(), seen[s.msg.ID])
		}
		if !s.msg.Causal {
			t.Errorf("message %+v is not causal: a full application queue would drop it", s.msg)
		}
		seen[s.msg.ID] = true
	}
}

// TestMapping: tasks go to the NICs the mapping gives, and messages to
// the NICs of their destination tasks.
func TestMapping(t *testing.T) {
	r, err := New(openText(example), Options{NICs: 10, Mapping: []int{7, 2, 9, 0}, BytesPerFlit: 8, CyclesOf: cyclesOf})
	if err != nil {
		t.Fatal(err)
	}
	for nic := 0; nic < 10; nic++ {
		if (r.Source(nic) != nil) != slices.Contains([]int{7, 2, 9, 0}, nic) {
			t.Errorf("NIC %d has a source: %v", nic, r.Source(nic) != nil)
		}
	}
	log := ideal(t, r, 10, 100, 10_000)
	if log[0].src != 7 || log[0].msg.Dst != 2 || log[len(log)-1].src != 0 || log[len(log)-1].msg.Dst != 7 {
		t.Errorf("first message %d→%d, last %d→%d; want 7→2 and 0→7", log[0].src, log[0].msg.Dst, log[len(log)-1].src, log[len(log)-1].msg.Dst)
	}
	if !r.Results().Finished {
		t.Error("the mapped replay did not finish")
	}
}

// TestRefused: what replay cannot run is refused before anything runs,
// naming the line and the field.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		nics       int
		mapping    []int
		want       string
	}{
		{"receive of a message to another task", "VEF 3 2 1 0 0 FALSE\nC0 0 1 2\n0 0 1 8 0 0 -1\n1 2 0 8 2 0 0\n", 3, nil,
			"line 4: dep_id \"0\": expected a message task 2 receives (message 0 is task 1's"},
		{"send of a message another task sends", "VEF 3 2 1 0 0 FALSE\nC0 0 1 2\n0 0 1 8 0 0 -1\n1 2 0 8 1 0 0\n", 3, nil,
			"line 4: dep_id \"0\": expected a message task 2 sends (message 0 is task 0's"},
		{"mapping off the network", example, 4, []int{0, 1, 2, 4}, "task 3 on NIC 4: must be a NIC in [0, 4)"},
		{"a short mapping", example, 4, []int{0, 1, 2}, "the mapping places 3 tasks; the trace has 4"},
		{"a bad trace", "VEF 2 1 1 0 0 FALSE\nC0 0 1\n0 0 5 8 0 0 -1\n", 2, nil, "line 3: dst \"5\""},
	} {
		_, err := New(openText(tc.text), Options{NICs: tc.nics, Mapping: tc.mapping, BytesPerFlit: 8, CyclesOf: cyclesOf})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestStall: a trace whose tasks wait on each other for ever (task 0's
// part of an allreduce waits for task 1's message, which task 1 sends
// only after its own part ended, which needs task 0's contribution) is
// reported stalled, naming the blocking records.
func TestStall(t *testing.T) {
	text := "VEF 2 1 1 1 2 FALSE\nC0 0 1\n" +
		"G0 0 2 1 8 8 0 0 -1\n" +
		"0 1 0 8 3 0 G0\n" +
		"G0 0 2 0 8 8 2 0 0\n"
	r := newReplay(t, text, 2)
	ideal(t, r, 2, 100, 5_000)
	st, detail := r.Status()
	if st != workloads.Stalled {
		t.Fatalf("status %v, want stalled", st)
	}
	joined := strings.Join(detail, "\n")
	for _, want := range []string{"task 0: the record at line 5 waits for the receipt of message 0",
		"task 1: in its part of G0 (allreduce), round 0, waits for a message from task 0"} {
		if !strings.Contains(joined, want) {
			t.Errorf("stall report %q lacks %q", joined, want)
		}
	}
	if res := r.Results(); res.Finished || res.TaskEnds[0] != -1 || res.TaskEnds[1] != -1 {
		t.Errorf("a stalled replay reports finished %v, task ends %v", res.Finished, res.TaskEnds)
	}
}

// TestReadAhead: a replay reads the trace as far as its tasks need, not
// the whole of it: on a long chain of messages, each waiting on the
// receipt of the one before, the records read ahead of the replay stay
// few, and every record has been read by the end.
func TestReadAhead(t *testing.T) {
	const n = 2000
	var b bytes.Buffer
	fmt.Fprintf(&b, "VEF 2 %d 1 0 0 FALSE\nC0 0 1\n0 0 1 8 0 0 -1\n", n)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "%d %d %d 8 2 10 %d\n", i, i%2, (i+1)%2, i-1)
	}
	r := newReplay(t, b.String(), 2)
	most := 0
	for now := clock.Cycle(0); now < 200*n; now++ {
		if st, _ := r.Status(); st != workloads.Running {
			break
		}
		for nic := 0; nic < 2; nic++ {
			for m, ok := r.Source(nic).Pop(now); ok; m, ok = r.Source(nic).Pop(now) {
				r.Source(nic).(workloads.Sender).Sent(m.ID, now)
				r.Source(m.Dst).Delivered(m.ID, now, now+50)
			}
		}
		r.mu.Lock()
		most = max(most, len(r.inbox[0])+len(r.inbox[1]))
		r.mu.Unlock()
	}
	res := r.Results()
	if !res.Finished || res.Records != n || res.Messages != n {
		t.Fatalf("finished %v, %d records, %d messages; want true, %d, %d", res.Finished, res.Records, res.Messages, n, n)
	}
	if most > 2 {
		t.Errorf("up to %d records waited in the inboxes; a chain needs at most 2", most)
	}
	// Each message takes 50 cycles in the network; the next is issued
	// 1 + ⌈10/0.64⌉ = 1 + 16 cycles after it arrives.
	if want := clock.Cycle(n-1)*(50+1+16) + 50; res.ExecutionCycle != want {
		t.Errorf("execution %d cycles, want %d", res.ExecutionCycle, want)
	}
}

// TestTasksSharingNICs replays VEF.md's example with two tasks a NIC
// (tasks 0 and 1 on NIC 0, 2 and 3 on NIC 1): messages between tasks of a
// NIC leave and arrive when they are sent, without the network. By hand
// (the rules of TestExampleTiming, latency 100):
//
//	msg0 0→1 local: sent and received in 0
//	msg1 1→2 256 flits: 0+1+782 = 783, tail 1038, arrives 1138
//	msg2 2→3 local: 1138+1+157 = 1296
//	G0 parts begin: task 0 at 1, task 1 at 1039, task 2 and 3 at 1297
//	round 0 (local pairs): task 0's round ends when task 1's message comes,
//	  1039; task 1's at 1039; tasks 2 and 3 end theirs at 1297
//	round 1 (over the network): NIC 0 sends 0→2 then 1→3 at 1040 (tails
//	  1040, 1041; they arrive 1140, 1141, before their rounds: kept); NIC 1
//	  sends 2→0 then 3→1 at 1298 (tails 1298, 1299; arrive 1398, 1399):
//	  the parts end at 1398 (task 0), 1399 (1), 1298 (2), 1299 (3)
//	msg3 3→0 64 flits: 1299+1+313 = 1613, tail 1676, arrives 1776
//
// Task ends: 1776, 1399, 1298, 1676; six messages cross the network.
func TestTasksSharingNICs(t *testing.T) {
	r, err := New(openText(example), Options{NICs: 2, BytesPerFlit: 8, CyclesOf: cyclesOf})
	if err != nil {
		t.Fatal(err)
	}
	log := ideal(t, r, 2, 100, 10_000)
	type gen struct {
		at       clock.Cycle
		src, dst int
	}
	want := []gen{{783, 0, 1}, {1040, 0, 1}, {1040, 0, 1}, {1298, 1, 0}, {1298, 1, 0}, {1613, 1, 0}}
	var got []gen
	for _, s := range log {
		got = append(got, gen{s.msg.At, s.src, s.msg.Dst})
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages (cycle, from NIC, to NIC):\n got %v\nwant %v", got, want)
	}
	res := r.Results()
	if !res.Finished || res.ExecutionCycle != 1776 || !slices.Equal(res.TaskEnds, []int64{1776, 1399, 1298, 1676}) || res.Messages != 6 {
		t.Errorf("finished %v, execution %d, task ends %v, %d messages; want true, 1776, [1776 1399 1298 1676], 6",
			res.Finished, res.ExecutionCycle, res.TaskEnds, res.Messages)
	}
	if m := Linear(4, 2); !slices.Equal(m, []int{0, 0, 1, 1}) {
		t.Errorf("Linear(4, 2) = %v, want [0 0 1 1]", m)
	}
	if m := Linear(5, 2); !slices.Equal(m, []int{0, 0, 0, 1, 1}) {
		t.Errorf("Linear(5, 2) = %v, want [0 0 0 1 1]", m)
	}
}

// TestIdleTask: a task with no record and no message ends before the run,
// at cycle 0; the others end as their messages go.
func TestIdleTask(t *testing.T) {
	r := newReplay(t, "VEF 3 1 1 0 0 FALSE\nC0 0 1 2\n0 0 1 8 0 0 -1\n", 3)
	ideal(t, r, 3, 100, 1000)
	res := r.Results()
	if !res.Finished || !slices.Equal(res.TaskEnds, []int64{0, 100, 0}) {
		t.Errorf("finished %v, task ends %v; want true, [0 100 0]", res.Finished, res.TaskEnds)
	}
}

package apps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/internal/testlong"
)

func treeRouter(t testing.TB, k, n int) *route.DModK {
	t.Helper()
	tr, err := graph.NewTree(k, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return route.NewDModK(tr)
}

func runFCFS(t testing.TB, r route.Router, cfg FCFSConfig) *Report {
	t.Helper()
	rep, err := RunFCFS(r, cfg, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func appTable(apps []App) string {
	var b strings.Builder
	for i, a := range apps {
		fmt.Fprintf(&b, "%d:%d@%g[%g,%g] ", i, a.First, a.Arrival, a.Start, a.Finish)
	}
	return strings.TrimSpace(b.String())
}

// TestFCFSTwoTasks: a 2-ary 2-tree (servers 0, 1 on one leaf, 2, 3 on
// the other), applications of 2 tasks arriving every 0.5, flows of size
// 1. An application's two flows (a→b, b→a) each have their server links
// to themselves: rate 1, runtime 1. App 0 runs on servers 0-1 over
// [0, 1], app 1 on 2-3 over [0.5, 1.5]. App 2 arrives at 1, when app 0
// completes: the completion comes first, so it starts at once on 0-1
// and runs over [1, 2]. Makespan 2, no waiting.
func TestFCFSTwoTasks(t *testing.T) {
	rep := runFCFS(t, treeRouter(t, 2, 2), FCFSConfig{Apps: 3, Tasks: 2, FlowSize: 1, Interval: 0.5})
	if got, want := appTable(rep.Apps), "0:0@0[0,1] 1:2@0.5[0.5,1.5] 2:0@1[1,2]"; got != want {
		t.Errorf("apps %s, want %s", got, want)
	}
	if rep.Makespan != 2 || rep.Flows != 6 || rep.Stats.Completed != 6 {
		t.Errorf("makespan %v flows %d stats %+v", rep.Makespan, rep.Flows, rep.Stats)
	}
}

// TestFCFSQueue: the same tree, applications of 3 tasks (servers 0, 1,
// 2), so one runs at a time. Their six flows: server 0's, 1's and 2's
// up links carry two each (a task's two flows), as do the links down to
// servers 0, 1 and 2; so every flow has a link shared by two and runs at
// 1/2 (d-mod-k sends 0→2 and 1→2 over the same leaf up link and top
// switch, two flows again). Runtime 2 for size 1. App 0 runs over [0, 2];
// app 1, arrived at 0.5, waits 1.5 and runs over [2, 4]; app 2, arrived
// at 1, waits 3 and runs over [4, 6]. Makespan 6.
func TestFCFSQueue(t *testing.T) {
	rep := runFCFS(t, treeRouter(t, 2, 2), FCFSConfig{Apps: 3, Tasks: 3, FlowSize: 1, Interval: 0.5})
	if got, want := appTable(rep.Apps), "0:0@0[0,2] 1:0@0.5[2,4] 2:0@1[4,6]"; got != want {
		t.Errorf("apps %s, want %s", got, want)
	}
	waits := []float64{0, 1.5, 3}
	for i, a := range rep.Apps {
		if a.Wait() != waits[i] || a.Runtime() != 2 {
			t.Errorf("app %d: wait %v runtime %v, want %v 2", i, a.Wait(), a.Runtime(), waits[i])
		}
	}
	// Events at 0, 0.5, 1 (arrivals), 2, 4 and 6 (completions).
	if rep.Makespan != 6 || rep.Stats.Batches != 6 {
		t.Errorf("makespan %v batches %d, want 6 6", rep.Makespan, rep.Stats.Batches)
	}
}

// TestFCFSOneTask: applications of one task have no flows and complete
// when they start; with more applications than servers, they still never
// wait.
func TestFCFSOneTask(t *testing.T) {
	rep := runFCFS(t, treeRouter(t, 2, 1), FCFSConfig{Apps: 5, Tasks: 1, FlowSize: 1, Interval: 1})
	if got, want := appTable(rep.Apps), "0:0@0[0,0] 1:0@1[1,1] 2:0@2[2,2] 3:0@3[3,3] 4:0@4[4,4]"; got != want {
		t.Errorf("apps %s, want %s", got, want)
	}
}

// TestTake: the lowest-numbered free servers are taken, across words of
// the free set.
func TestTake(t *testing.T) {
	w, err := NewFCFS(200, FCFSConfig{Tasks: 4})
	if err != nil {
		t.Fatal(err)
	}
	w.free = []uint64{1<<3 | 1<<63, 0, 1<<0 | 1<<5 | 1<<9, 0}
	w.nfree = 5
	if got := fmt.Sprint(w.take()); got != "[3 63 128 133]" || w.nfree != 1 || w.free[2] != 1<<9 {
		t.Errorf("took %s, %d left, word 2 %b", got, w.nfree, w.free[2])
	}
}

// TestFCFSReference: the reference workload's shape on the 16-ary
// 3-tree, 70 applications. An application of 64 tasks lands on an
// aligned block of 64 servers (four leaves of one level-1 subtree): its
// flows have the block's links to themselves, each server link carries
// 63 of them and the leaf links 48, so all 4,032 flows run at 1/63 and
// complete together after 8192 × 63 = 516,096. 64 applications fit at
// once; application i (arriving at 7i) starts at 7(i mod 64) +
// 516,096 × floor(i / 64), on block i mod 64.
func TestFCFSReference(t *testing.T) {
	apps := 70
	if testlong.Reduced(t) {
		apps = 66
	}
	rep := runFCFS(t, treeRouter(t, 16, 3), FCFSConfig{Apps: apps, Tasks: 64, FlowSize: 8192, Interval: 7})
	const run = 8192 * 63
	for i, a := range rep.Apps {
		start := float64(7*(i%64) + run*(i/64))
		if a.Start != start || a.Finish != start+run || a.First != int32(64*(i%64)) {
			t.Errorf("app %d: first server %d [%v, %v], want %d [%v, %v]", i, a.First, a.Start, a.Finish, 64*(i%64), start, start+run)
		}
	}
	if want := float64(7*((apps-1)%64) + run*((apps-1)/64+1)); rep.Makespan != want {
		t.Errorf("makespan %v, want %v", rep.Makespan, want)
	}
	if rep.Stats.Completed != int64(apps*4032) || rep.Stats.MaxActive != 64*4032 {
		t.Errorf("stats %+v", rep.Stats)
	}
}

func TestFCFSErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  FCFSConfig
		want string
	}{
		{FCFSConfig{Apps: -1, Tasks: 1}, "fcfs apps (--apps): -1 is not allowed"},
		{FCFSConfig{Apps: 1, Tasks: 5}, "fcfs tasks (--tasks): 5 is not allowed: must be in [1, 4]"},
		{FCFSConfig{Apps: 1, Tasks: 0}, "fcfs tasks (--tasks): 0 is not allowed"},
		{FCFSConfig{Apps: 1, Tasks: 2, FlowSize: -1}, "fcfs flow size (--flow-size): -1 is not allowed"},
		{FCFSConfig{Apps: 1, Tasks: 2, Interval: -2}, "fcfs interval (--interval): -2 is not allowed"},
	} {
		if _, err := NewFCFS(4, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

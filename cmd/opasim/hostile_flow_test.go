package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestHostileFlowInput: bad input to the flow-level commands is refused
// with exit status 2, no panic, within 5 s, naming the key or flag, the
// value and what is allowed.
func TestHostileFlowInput(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	study, err := os.ReadFile("../../docs/examples/storage-study.yaml")
	if err != nil {
		t.Fatal(err)
	}
	studyFile := write("study.yaml", string(study))
	edit := func(name, old, new string) string {
		t.Helper()
		if !strings.Contains(string(study), old) {
			t.Fatalf("%s: the storage study has no %q", name, old)
		}
		return write(name, strings.Replace(string(study), old, new, 1))
	}
	shortRow := edit("row.yaml", "- [0,   1,   0,   0,   0,    0]     # init", "- [0, 1, 0, 0, 0]")
	hugeWrite := edit("write.yaml", "write_size: 50", "write_size: 1e308")
	// Task 0's part of an allreduce waits for task 1's message, which task
	// 1 sends only after its own part ended, which needs task 0's send.
	stall := write("stall.vef", "VEF 2 1 1 1 2 FALSE\nC0 0 1\nG0 0 2 1 8 8 0 0 -1\n0 1 0 8 3 0 G0\nG0 0 2 0 8 8 2 0 0\n")
	capacity0 := write("capacity.yaml", "topology: {preset: tree-8ary-2, capacity: 0}\n")
	// Two million servers and a switch: 2,000,001 nodes at 88 B each (2
	// workers) is 168 MiB, past a budget of 64 MiB, refused at line 2.
	wide := write("wide.txt", "servers 2000000\nswitches 1\n")
	wideCfg := write("wide.yaml", "topology: {kind: file, file: "+wide+"}\n")
	// 40,000 cables of 10 switches: the links pass 2^16 at line 32,770,
	// 65,536 links at 100 B, 6.3 MiB, past a budget of 1 MiB.
	var cables strings.Builder
	cables.WriteString("servers 2\nswitches 10\n")
	for i := range 40000 {
		fmt.Fprintf(&cables, "cable %d %d\n", 2+i%10, 2+(i+1)%10)
	}
	dense := write("dense.txt", cables.String())
	denseCfg := write("dense.yaml", "topology: {kind: file, file: "+dense+"}\nmemory_budget_mb: 1\n")
	// 5,000 jobs: at 3,000 B each, 4,096 of them pass a budget of 1 MiB.
	var jobs strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&jobs, "%d 2 10\n", i)
	}
	stream := write("stream.txt", jobs.String())
	// A header that announces a billion messages.
	billion := write("billion.vef", "VEF 2 1000000000 1 0 0 FALSE\nC0 0 1\n0 0 1 8 0 0 -1\n")
	phases := write("phases.yaml", strings.Replace(string(study), "max_phases: 30", "max_phases: 1000000000", 1))
	// Counted from their parameters, refused before they are built
	// (flow/spec TestBigRefusedBeforeBuilding works out the figures).
	torus := write("torus.yaml", "topology: {kind: torus, dims: [400, 400, 400], servers_per_switch: 1}\n")
	tree5 := write("tree5.yaml", "topology: {kind: tree, k: 32, n: 5}\n")
	dragonfly := write("dragonfly.yaml", "topology: {kind: dragonfly, a: 4000000000, h: 4000000000, p: 1, arrangement: absolute}\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"a Markov row of 5 entries", []string{"flow", "dynamic", "--config", shortRow},
			[]string{"apps[0].markov.matrix[0] (line 23)", "5 elements is not allowed", "exactly 6"}},
		{"a Markov write size of 1e308", []string{"flow", "dynamic", "--config", hugeWrite},
			[]string{"apps[0].markov.write_size", "1e+308", "[0, 1e+300]"}},
		{"an application's compute time of 1e308", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--app", "nbody", "--compute", "1e308"},
			[]string{"compute", "1e+308", "[0, 1e+300]"}},
		{"ba with one share for two classes", []string{"flow", "dynamic", "--config", studyFile, "--policy", "ba", "--shares", "0.5"},
			[]string{"dynamic.shares (--shares)", "[0.5]", "2 classes", "give 2 shares"}},
		{"ba shares summing past 1", []string{"flow", "dynamic", "--config", studyFile, "--policy", "ba", "--shares", "0.6,0.6"},
			[]string{"dynamic.shares (--shares)", "[0.6 0.6]", "at most 1"}},
		{"a negative share", []string{"flow", "dynamic", "--config", studyFile, "--policy", "ba", "--shares", "0.5,-0.5"},
			[]string{"dynamic.shares[1] (--shares)", "-0.5", "[0, 1]"}},
		{"shares without ba", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--shares", "0.5"},
			[]string{"dynamic.shares (--shares)", "[0.5]", "policy np", "only policy ba"}},
		{"a trace that can never end", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--trace", stall},
			[]string{"trace.file", "wait on each other for ever", "task 1's message 0 to task 0 (line 4)",
				"task 0's send to task 1 in round 0 of its part of G0 (allreduce)", "the start of task 0's part of G0 (allreduce, line 5)"}},
		{"capacity 0 by flag", []string{"flow", "static", "--preset", "tree-8ary-2", "--capacity", "0"},
			[]string{"topology.capacity (--capacity)", ": 0 is not allowed", "(0, 1e300]"}},
		{"capacity 0 in the config", []string{"flow", "static", "--config", capacity0},
			[]string{"topology.capacity (--capacity)", ": 0 is not allowed", "(0, 1e300]"}},
		{"capacity 0 in the config beside a preset flag", []string{"flow", "dynamic", "--config", capacity0, "--preset", "tree-8ary-3"},
			[]string{"topology.capacity (--capacity)", ": 0 is not allowed"}},
		{"negative capacity", []string{"flow", "static", "--preset", "tree-8ary-2", "--capacity", "-1"},
			[]string{"topology.capacity (--capacity)", "-1", "(0, 1e300]"}},
		{"jobs at capacity 0", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--capacity", "0", "--out", dir},
			[]string{"topology.capacity (--capacity)", ": 0 is not allowed"}},

		// Estimates before work, against the memory budget.
		{"a billion FCFS applications", []string{"flow", "fcfs", "--apps", "1000000000", "--memory-budget-mb", "1024"},
			[]string{"--apps 1000000000", "64 B an application", "about 59.8 GiB", "more than the budget of 1.0 GiB", "--memory-budget-mb"}},
		{"a hundred million FCFS applications", []string{"flow", "fcfs", "--apps", "100000000", "--memory-budget-mb", "1024"},
			[]string{"--apps 100000000", "about 6.1 GiB", "budget of 1.0 GiB"}},
		{"FCFS applications beyond int32", []string{"flow", "fcfs", "--apps", "3000000000", "--memory-budget-mb", "1073741824"},
			[]string{"fcfs apps (--apps)", "3000000000", "[0, 2147483647]"}},
		{"a negative budget", []string{"flow", "fcfs", "--memory-budget-mb", "-1"},
			[]string{"--memory-budget-mb", "-1", "[0, 1073741824] MiB"}},
		{"a hundred million jobs", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--jobs", "100000000", "--memory-budget-mb", "1024", "--out", dir},
			[]string{"--jobs 100000000", "3000 B a job", "about 279.4 GiB", "budget of 1.0 GiB"}},
		{"a job stream past the budget", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--stream", stream, "--memory-budget-mb", "1", "--out", dir},
			[]string{"stream.txt:4097", "--stream", "4096 jobs so far", "budget of 1 MiB"}},
		{"negative jobs", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--jobs", "-1", "--out", dir},
			[]string{"generator jobs (--jobs)", "-1", "[0, 2147483648]"}},
		{"a rate of 0", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--rate", "0", "--out", dir},
			[]string{"generator rate (--rate)", "0", "positive and finite"}},
		{"an overestimate below 1", []string{"flow", "jobs", "--preset", "tree-8ary-2", "--overestimate", "0.5", "--out", dir},
			[]string{"generator overestimate (--overestimate)", "0.5", "[1, 1e6]"}},
		{"FCFS interval NaN", []string{"flow", "fcfs", "--interval", "NaN"},
			[]string{"fcfs interval (--interval)", "NaN", "[0, 1e300]"}},
		{"a graph file of two million servers", []string{"flow", "static", "--config", wideCfg, "--workers", "2", "--memory-budget-mb", "64"},
			[]string{"topology.file", "wide.txt:2", "2000001 nodes", "about 168 MiB", "budget of 64 MiB"}},
		{"a graph file's links past the budget", []string{"flow", "static", "--config", denseCfg, "--workers", "2"},
			[]string{"topology.file", "dense.txt:32770", "65536 links", "budget of 1 MiB", "memory_budget_mb: 1"}},
		{"the static engine past the budget", []string{"flow", "static", "--preset", "tree-32ary-4", "--workers", "2", "--memory-budget-mb", "256"},
			[]string{"static engine on 1048576 servers", "--workers", "budget of 256 MiB"}},
		{"a dynamic all-to-all past the budget", []string{"flow", "dynamic", "--preset", "tree-16ary-3", "--memory-budget-mb", "512"},
			[]string{"pattern all-to-all (--pattern) on 4096 servers", "more than", "flows", "budget of 512 MiB"}},
		{"an application past the budget", []string{"flow", "dynamic", "--preset", "tree-16ary-3", "--app", "nbody", "--iterations", "1000", "--memory-budget-mb", "1024"},
			[]string{"app nbody (--app) of 4096 tasks", "1000 iterations (--iterations)", "16773120000 flows", "about 9.8 TiB"}},
		{"a trace announcing a billion messages", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--trace", billion, "--memory-budget-mb", "1024"},
			[]string{"trace.file", "billion.vef", "1000000000 messages", "about 596.0 GiB", "budget of 1.0 GiB"}},
		{"a 400x400x400 torus", []string{"flow", "static", "--config", torus, "--workers", "2", "--memory-budget-mb", "24064"},
			[]string{"topology {kind: torus, dims: [400, 400, 400], servers_per_switch: 1}, counted before building", "512000000 links with 2 workers (--workers)", "about 42.9 GiB", "budget of 23.5 GiB"}},
		{"a 32-ary 5-tree", []string{"flow", "dynamic", "--config", tree5, "--memory-budget-mb", "2000"},
			[]string{"topology {kind: tree, k: 32, n: 5}, counted before building", "the dynamic engine on 33554432 servers", "about 15.5 GiB", "budget of 2.0 GiB"}},
		{"a dragonfly past any graph", []string{"flow", "static", "--config", dragonfly},
			[]string{"a: 4000000000, h: 4000000000, p: 1", "more than 4.6e18 servers", "a graph holds at most 2147483646 nodes"}},
		{"a billion Markov phases", []string{"flow", "dynamic", "--config", phases},
			[]string{"apps[0].markov.max_phases", "1000000000", "[0, 16777216]"}},
		{"a scale study past the budget", []string{"flow", "scale", "--max-servers", "1000000", "--memory-budget-mb", "100", "--out", t.TempDir()},
			[]string{"--max-servers 1000000", "family torus-3d", "dims: [64, 64, 64]", "counted before building", "budget of 100 MiB"}},
		{"a scale study's negative budget", []string{"flow", "scale", "--memory-budget-mb", "-1", "--out", t.TempDir()},
			[]string{"--memory-budget-mb", "-1", "[0, 1073741824]"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

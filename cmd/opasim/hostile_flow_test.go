package main

import (
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
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

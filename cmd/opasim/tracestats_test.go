package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceStats measures the recorder's ground-truth trace against
// figures worked out by hand: 4 messages of 1000 bytes and 4 of 2000;
// rank 0 sends 1000 + 2000 bytes, 800 twice as the broadcast's root
// (binomial: to ranks 1 and 2), 8 twice in the allreduce (recursive
// doubling) and 64 in its all-to-all: 4680; rank 1 3000 + 800 (to 3) +
// 16 + 64 = 3880; ranks 2 and 3 3000 + 16 + 64 = 3080; no computation.
func TestTraceStats(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stats.json")
	stdout, stderr, code := opasim(t, "trace", "stats", "--json", out, filepath.Join("..", "..", "workloads", "mpirec", "testdata", "pattern.vef"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"4 tasks, 8 messages, 12000 bytes; collectives: 1 broadcast, 1 allreduce, 1 barrier, 2 alltoall",
		"p10 1000, p50 2000, p90 2000, p99 2000, max 2000; half the bytes in messages under 2000",
		"sent a task (bytes): min 3080, mean 3680, max 4680", "computation a task: mean 0.000 ms, max 0.000 ms"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var s []traceStats
	b, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s[0].SentMean != 3680 || s[0].CriticalPathNS <= 0 {
		t.Errorf("json: %+v", s)
	}
	if _, stderr, code := opasim(t, "trace", "stats"); code != 2 || !strings.Contains(stderr, "trace stats takes one or more trace files") {
		t.Errorf("no trace: exit %d, %s", code, stderr)
	}
}

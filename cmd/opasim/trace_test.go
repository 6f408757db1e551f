package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/workloads/vef"
)

// readTrace reads a whole trace file (plain or gzip) with the vef reader
// and returns its header and the number of records.
func readTrace(t *testing.T, path string) (vef.Header, int) {
	t.Helper()
	rd, err := vef.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rd.Close()
	n := 0
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return rd.Header(), n
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		n++
	}
}

// TestTraceGen: a ring of 4 tasks and 2 iterations (8 messages) written
// plain, gzip-compressed (.gz) and to stdout gives the same trace, which
// the vef reader reads back; the summary on stderr gives the counts.
func TestTraceGen(t *testing.T) {
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "ring.vef"), filepath.Join(dir, "ring.vef.gz")
	args := []string{"trace", "gen", "ring", "--tasks", "4", "--iterations", "2", "--bytes", "100"}
	stdout, stderr, code := opasim(t, append(args, "--out", plain)...)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	if want := "trace gen ring: 4 tasks, 8 messages, 0 collectives (0 parts); "; !strings.HasPrefix(stderr, want) ||
		!strings.Contains(stderr, "bytes written to "+plain) {
		t.Errorf("summary %q, want it to start %q and name the file", stderr, want)
	}
	h, n := readTrace(t, plain)
	if h.Tasks != 4 || h.P2PMessages != 8 || n != 8 || h.Collectives != 0 {
		t.Errorf("plain trace: header %+v, %d records; want 4 tasks, 8 messages", h, n)
	}
	if _, stderr, code = opasim(t, append(args, "--out", gz)...); code != 0 || !strings.Contains(stderr, "(gzip of ") {
		t.Fatalf(".gz: exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(gz); len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("%s is not gzip-compressed", gz)
	}
	if h2, n2 := readTrace(t, gz); h2.P2PMessages != 8 || n2 != 8 {
		t.Errorf(".gz trace: header %+v, %d records", h2, n2)
	}
	stdout, stderr, code = opasim(t, args...)
	want, _ := os.ReadFile(plain)
	if code != 0 || !bytes.Equal([]byte(stdout), want) || !strings.Contains(stderr, "written to stdout") {
		t.Errorf("to stdout: exit %d, %q; the file holds %q (stderr %q)", code, stdout, want, stderr)
	}
}

// TestTraceGenBadInput: bad kinds, numbers, arguments and paths are
// refused with exit status 2 and a message naming the flag, the value and
// what is allowed; nothing is written.
func TestTraceGenBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.vef")
	gen := func(args ...string) []string { return append([]string{"trace", "gen"}, args...) }
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"an unknown kind", gen("lulesh", "--out", out), []string{"KIND", "lulesh", "alltoall, hpl, randomaccess, ring, stencil3d"}},
		{"no kind", gen(), []string{"trace gen takes a kind", "stencil3d", "got 0 arguments"}},
		{"two kinds", gen("ring", "hpl"), []string{"got 2 arguments"}},
		{"one task", gen("ring", "--tasks", "1"), []string{"--tasks", "1", "[2, 1048576]"}},
		{"tasks not a number", gen("ring", "--tasks", "many"), []string{"--tasks", "many"}},
		{"negative bytes", gen("hpl", "--bytes", "-8"), []string{"--bytes", "-8", "at least 0"}},
		{"no iterations", gen("alltoall", "--iterations", "0"), []string{"--iterations", "0", "at least 1"}},
		{"negative compute", gen("stencil3d", "--compute-ns", "-1"), []string{"--compute-ns", "-1", "at least 0"}},
		{"a negative seed", gen("randomaccess", "--seed", "-1"), []string{"--seed", "-1"}},
		{"updates for a ring", gen("ring", "--updates", "4"), []string{"--updates", "4", "only randomaccess"}},
		{"negative allreduce-every", gen("stencil3d", "--allreduce-every", "-1"), []string{"--allreduce-every", "-1", "at least 1"}},
		{"a trace too long", gen("randomaccess", "--tasks", "1048576", "--updates", "1048576", "--iterations", "1000"),
			[]string{"--iterations", "1000", "limit of 68719476736"}},
		{"out is a directory", gen("ring", "--out", dir), []string{"--out", "not a regular file"}},
		{"out in a missing directory", gen("ring", "--out", filepath.Join(dir, "no", "t.vef")), []string{"--out", "cannot create"}},
		{"an empty out", gen("ring", "--out", ""), []string{"--out", "empty path"}},
		{"trace alone", []string{"trace"}, []string{"needs a subcommand", "gen"}},
		{"an unknown trace subcommand", []string{"trace", "replay"}, []string{"unknown command", "replay", "gen"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused command left %s (%v)", out, err)
	}
}

// TestTraceReplayCommands: a ring of 16 tasks replayed alone and with
// background on the 8-ary 2-tree (the summary names the trace's end),
// compared (the ratio of the two execution times), and a trace study on
// it writes its table, files and plot; bad input exits 2 naming the flag.
func TestTraceReplayCommands(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.vef")
	if _, stderr, code := opasim(t, "trace", "gen", "ring", "--tasks", "16", "--iterations", "3", "--bytes", "512", "--out", ring); code != 0 {
		t.Fatal(stderr)
	}
	alone, busy := filepath.Join(dir, "alone.json"), filepath.Join(dir, "busy.json")
	run := []string{"run", "--traffic", "paper-mix", "--preset", "tree-8ary-2", "--trace", ring, "--trace-sl", "2", "--scheduler", "dtable"}
	stdout, stderr, code := opasim(t, append(run, "--load", "0", "--out", alone)...)
	if code != 0 || !strings.Contains(stdout, "ended, 16 of 16 tasks ended; 48 records, 48 messages delivered") {
		t.Fatalf("alone: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code = opasim(t, append(run, "--load", "0.3", "--out", busy)...); code != 0 {
		t.Fatal(stderr)
	}
	a, err := readTraceResult(alone)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readTraceResult(busy)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = opasim(t, "trace", "compare", busy, alone)
	want := fmt.Sprintf("execution %d cycles, baseline %d cycles: normalized execution time %.2f%%", b.ExecutionCycles, a.ExecutionCycles,
		100*float64(b.ExecutionCycles)/float64(a.ExecutionCycles))
	if code != 0 || !strings.Contains(stdout, want) || b.ExecutionCycles <= a.ExecutionCycles {
		t.Errorf("compare: exit %d, %q %s; want %q, the busy run slower", code, stdout, stderr, want)
	}
	out := filepath.Join(dir, "study")
	stdout, stderr, code = opasim(t, "trace", "sweep", "--loads", "0.1", "--out", out, ring)
	if code != 0 || strings.Count(stdout, "ring ") != 4 {
		t.Fatalf("sweep: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"traces.csv", "traces.json", "traces.png", "traces.svg", "dtable.yaml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("sweep: %v", err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "compare", alone, filepath.Join(dir, "nothing.json")}, "nothing.json"},
		{[]string{"trace", "sweep", "--out", out, "--sls", "CL,XX", ring}, `--sls "CL,XX": "XX" is not an SL`},
		{[]string{"trace", "sweep", "--out", out, "--loads", "2", ring}, "--loads"},
		{[]string{"trace", "sweep", ring}, "--out: required"},
		{[]string{"run", "--trace", filepath.Join(dir, "nothing.vef")}, "trace.file"},
		{[]string{"run", "--trace", ring, "--trace-sl", "9"}, "trace.sl: 9 is not allowed"},
		{[]string{"sweep", "--trace", ring, "--out", out}, "use opasim trace sweep"},
	} {
		if _, stderr, code := opasim(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

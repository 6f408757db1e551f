package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

// TestTraceRecordBadInput: every bad invocation of trace record exits 2
// with one message naming the flag, the value and what is allowed,
// before anything runs.
func TestTraceRecordBadInput(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--np", "4"}, "trace record needs a program to run: opasim trace record --np N [flags] -- PROGRAM [ARGS...]"},
		{[]string{"--np", "4", "hpcc"}, `trace record: "hpcc" before --: put the program and its arguments after --`},
		{[]string{"--", "hpcc"}, "--np is required: the number of MPI ranks, 1 to 4096"},
		{[]string{"--np", "0", "--", "hpcc"}, "--np: 0 is out of range: must be in [1, 4096]"},
		{[]string{"--np", "4097", "--", "hpcc"}, "--np: 4097 is out of range: must be in [1, 4096]"},
		{[]string{"--np", "4", "--compute", "gpu", "--", "hpcc"}, `--compute: "gpu": expected one of cpu, wall, none`},
		{[]string{"--np", "4", "--compute-scale", "0", "--", "hpcc"}, "--compute-scale: 0 is out of range: must be more than 0 and at most 1e+06"},
		{[]string{"--np", "4", "--to", "End", "--", "hpcc"}, "--to needs --from"},
		{[]string{"--np", "4", "--from", "a|b", "--", "hpcc"}, `--from: "a|b": the text may not hold '|' or a newline`},
		{[]string{"--np", "4", "--timeout", "-1s", "--", "hpcc"}, "--timeout: -1s: must be at least 0 (0: never)"},
		{[]string{"--np", "4", "--keep", full, "--", "hpcc"}, "--keep: " + full + " is not empty"},
		{[]string{"--np", "4", "--mark", "", "--", "hpcc"}, "--mark: expected some text, not an empty one"},
		{[]string{"--ranks", dir}, "--ranks: " + dir + " has no rank-0.vefrec: give the directory of an earlier --keep"},
		{[]string{"--ranks", dir, "--", "hpcc"}, `--ranks merges the ranks' files recorded before: it takes no program (got "hpcc")`},
		{[]string{"--ranks", dir, "--np", "4"}, "--np: --ranks merges files already recorded: no program runs"},
		{[]string{"--np", "4", "--mpirun", "/nonexistent/mpirun", "--", "hpcc"}, "--mpirun: /nonexistent/mpirun not found"},
		{[]string{"--np", "4", "--mpirun", "true", "--mpicc", "/nonexistent/mpicc", "--", "hpcc"}, "--mpicc: /nonexistent/mpicc not found"},
		{[]string{"--np", "4", "--mpirun", "true", "--mpicc", "true", "--", "/nonexistent/prog"}, "PROGRAM: /nonexistent/prog: not found or not executable"},
	} {
		_, stderr, code := opasim(t, append([]string{"trace", "record"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("trace record %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// mpiFor skips t unless mpicc and mpirun are installed, and builds the
// MPI C program src (in workloads/mpirec/testdata) into dir.
func mpiFor(t *testing.T, dir, src string) string {
	t.Helper()
	for _, tool := range []string{"mpicc", "mpirun"} {
		if _, err := exec.LookPath(tool); err != nil {
			testlong.Skipf(t, "%s not found: install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) to test trace record", tool)
		}
	}
	prog := filepath.Join(dir, strings.TrimSuffix(src, ".c"))
	if out, err := exec.Command("mpicc", "-O2", "-o", prog, filepath.Join("..", "..", "workloads", "mpirec", "testdata", src)).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %s: %v\n%s", src, err, out)
	}
	return prog
}

// TestTraceRecordPattern: the recorder's ground-truth program, recorded
// through the command (recorder built into a new cache), is the trace
// workloads/mpirec's test works out by hand, gzip-compressed as asked,
// with its report.
func TestTraceRecordPattern(t *testing.T) {
	dir := t.TempDir()
	prog := mpiFor(t, dir, "pattern.c")
	out := filepath.Join(dir, "pattern.vef.gz")
	report := filepath.Join(dir, "report.json")
	_, stderr, code := opasim(t, "trace", "record", "--np", "4", "--compute", "none", "--cache", filepath.Join(dir, "cache"),
		"--out", out, "--report", report, "--timeout", "2m", "--", prog)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"building the MPI recorder (once; kept in " + filepath.Join(dir, "cache"),
		"trace record: 4 ranks, 8 messages (12000 bytes), 5 collectives (16 parts)",
		"every MPI call the program made is in the trace"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "workloads", "mpirec", "testdata", "pattern.vef"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("recorded\n%s\nwant\n%s", got, want)
	}
	var rr recordReport
	b, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(b, &rr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rr.Ranks != 4 || rr.Messages != 8 || rr.Collectives != 5 || rr.Calls["Waitall"] != 4 || rr.TraceText != int64(len(want)) || rr.RankFileBytes == 0 {
		t.Errorf("report %+v", rr)
	}
}

// TestTraceRecordUnsupported: one-sided calls are not in the trace and
// are listed with their counts; the send beside them is; a section keeps
// what follows the marker the program printed; a program that runs past
// --timeout is stopped, and a program that records nothing is no trace.
func TestTraceRecordUnsupported(t *testing.T) {
	dir := t.TempDir()
	prog := mpiFor(t, dir, "unsupported.c")
	cache := filepath.Join(dir, "cache")
	stdout, stderr, code := opasim(t, "trace", "record", "--np", "2", "--compute", "none", "--cache", cache, "--", prog)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// (whether rank 1's barrier part follows the receipt depends on
	// whether the message was there when rank 1 asked for it)
	if !strings.HasPrefix(stdout, "VEF 2 1 1 1 2 ") || !strings.Contains(stdout, "\n0 0 1 64 0 0 -1\n") {
		t.Errorf("trace\n%s\nwant 2 tasks, 1 message (0 to 1, 64 bytes), 1 collective of 2 parts", stdout)
	}
	for _, want := range []string{"trace record: NOT in the trace (unsupported; calls summed over ranks):\n",
		"       1  Put\n", "       2  Win_allocate\n", "       4  Win_fence\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	stdout, stderr, code = opasim(t, "trace", "record", "--np", "2", "--compute", "none", "--cache", cache, "--from", "phase two", "--", prog)
	want := "VEF 2 0 1 1 2 TRUE\nC0 0 1\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n"
	if code != 0 || stdout != want || !strings.Contains(stderr, `section "phase two" to "": 1 records of the run left out, 0 dependencies moved`) {
		t.Errorf("section: exit %d, trace\n%s\nwant\n%s\nstderr %s", code, stdout, want, stderr)
	}
	_, stderr, code = opasim(t, "trace", "record", "--np", "1", "--cache", cache, "--timeout", "1s", "--", "sleep", "60")
	if code != 1 || !strings.Contains(stderr, "the program ran past --timeout 1s and was stopped; no trace written") {
		t.Errorf("--timeout: exit %d, stderr %s", code, stderr)
	}
	_, stderr, code = opasim(t, "trace", "record", "--np", "1", "--cache", cache, "--", "true")
	if code != 1 || !strings.Contains(stderr, "no rank-0.vefrec: nothing was recorded") {
		t.Errorf("a program that is not MPI: exit %d, stderr %s", code, stderr)
	}
}

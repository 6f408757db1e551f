package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Generous bounds of the signal tests, far above what they take on a busy
// machine: the wait for a command's first progress, and the wait for it
// to exit once signalled (measured by hand: well under a second).
const (
	progressBound = 3 * time.Minute
	stopBound     = 30 * time.Second
)

// syncBuffer is an output a test reads while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a command of the built binary started by a signal test.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
}

func startOpasim(t *testing.T, args ...string) *running { return startOpasimEnv(t, nil, args...) }

// startOpasimEnv starts the command with env added to the environment.
func startOpasimEnv(t *testing.T, env []string, args ...string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if env != nil {
		r.cmd.Env = append(os.Environ(), env...)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// waitFor polls until progress reports true, failing the test if the
// command exits first or progressBound passes.
func (r *running) waitFor(t *testing.T, what string, progress func() bool) {
	t.Helper()
	deadline := time.Now().Add(progressBound)
	for !progress() {
		select {
		case <-r.done:
			t.Fatalf("the command ended before %s: exit %d\n%s%s", what, r.cmd.ProcessState.ExitCode(), r.stdout.String(), r.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, progressBound)
		}
	}
}

// stop sends sig and waits for the exit: it must be 128 + sig, within
// stopBound.
func (r *running) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	select {
	case <-r.done:
		t.Fatalf("the command ended before the signal: exit %d\n%s%s", r.cmd.ProcessState.ExitCode(), r.stdout.String(), r.stderr.String())
	default:
	}
	sent := time.Now()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(stopBound):
		t.Fatalf("%v: still running %v after the signal", sig, stopBound)
	}
	t.Logf("%v: stopped %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
	if got, want := r.cmd.ProcessState.ExitCode(), 128+int(sig); got != want {
		t.Errorf("%v: exit status %d, want %d\n%s%s", sig, got, want, r.stdout.String(), r.stderr.String())
	}
}

// fileExists reports whether path exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestSweepStopsOnSignal: SIGINT after the first stored run stops a
// sweep: exit 130, the summary of the runs stored, marked interrupted.
func TestSweepStopsOnSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	r := startOpasim(t, "sweep", "--ports", "16", "--schedulers", "rr", "--loads", "0.1:0.9:0.1", "--seeds", "2",
		"--cycles", "100000", "--warmup", "1000", "--jobs", "1", "--out", out)
	r.waitFor(t, "a stored run", func() bool {
		runs, _ := os.ReadDir(filepath.Join(out, "runs"))
		return len(runs) > 0
	})
	r.stop(t, syscall.SIGINT)
	var sum struct {
		Interrupted  bool `json:"interrupted"`
		RunsExpected int  `json:"runs_expected"`
		RunsFound    int  `json:"runs_found"`
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil {
		t.Fatalf("no summary: %v", err)
	}
	runs, _ := os.ReadDir(filepath.Join(out, "runs"))
	if !sum.Interrupted || sum.RunsExpected != 18 || sum.RunsFound < 1 || sum.RunsFound >= 18 || sum.RunsFound != len(runs) {
		t.Errorf("summary %+v, %d runs stored", sum, len(runs))
	}
	if !strings.Contains(r.stderr.String(), "interrupted") {
		t.Errorf("stderr does not say interrupted: %s", r.stderr.String())
	}
}

// TestStressStopsOnSignal: SIGTERM after the first tenth of the budget
// stops a search: exit 143, the worst case of the runs done written, the
// report and worst.yaml marked interrupted.
func TestStressStopsOnSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stress")
	r := startOpasim(t, "stress", "--traffic", "paper-mix", "--ports", "8", "--budget", "100", "--cycles", "20000", "--warmup", "1000",
		"--jobs", "1", "--out", out)
	r.waitFor(t, "a tenth of the runs", func() bool { return strings.Contains(r.stderr.String(), "stress: 10 of 100 runs") })
	r.stop(t, syscall.SIGTERM)
	report, err := os.ReadFile(filepath.Join(out, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	worst, err := os.ReadFile(filepath.Join(out, "worst.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(report), "interrupted after ") || !strings.Contains(string(report), " of 100 runs") ||
		!strings.Contains(string(worst), "# interrupted after ") || !strings.Contains(r.stdout.String(), "interrupted after ") {
		t.Errorf("report %q, worst.yaml %q, stdout %q: not marked interrupted", report, worst, r.stdout.String())
	}
	if !fileExists(filepath.Join(out, "worst.json")) {
		t.Error("no worst.json")
	}
}

// TestTraceSweepStopsOnSignal: SIGINT after the first finished run of a
// trace study: exit 130, its table and traces.json with the runs that
// finished, marked interrupted.
func TestTraceSweepStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "st.vef.gz")
	if _, stderr, code := opasim(t, "trace", "gen", "stencil3d", "--tasks", "64", "--iterations", "4", "--out", trace); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "study")
	r := startOpasim(t, "trace", "sweep", "--loads", "0.05,0.1,0.2", "--jobs", "1", "--out", out, trace)
	r.waitFor(t, "a finished run", func() bool { return strings.Contains(r.stderr.String(), "execution ") })
	r.stop(t, syscall.SIGINT)
	var f struct {
		Interrupted  bool `json:"interrupted"`
		RunsExpected int  `json:"runs_expected"`
		RunsDone     int  `json:"runs_done"`
		Rows         []struct {
			Baseline        bool  `json:"baseline"`
			ExecutionCycles int64 `json:"execution_cycles"`
		} `json:"rows"`
	}
	data, err := os.ReadFile(filepath.Join(out, "traces.json"))
	if err != nil || json.Unmarshal(data, &f) != nil {
		t.Fatalf("no traces.json: %v", err)
	}
	if !f.Interrupted || f.RunsExpected != 8 || f.RunsDone < 1 || f.RunsDone >= 8 || len(f.Rows) != f.RunsDone ||
		!f.Rows[0].Baseline || f.Rows[0].ExecutionCycles <= 0 {
		t.Errorf("traces.json %+v", f)
	}
	if !strings.Contains(r.stdout.String(), "st ") || !strings.Contains(r.stderr.String(), "trace sweep: interrupted: ") {
		t.Errorf("stdout %q, stderr %q", r.stdout.String(), r.stderr.String())
	}
}

// TestTraceGenStopsOnSignal: SIGINT while a large trace is written: exit
// 130, the path left as it was (no half trace) and the temporary file
// (in TMPDIR, or beside the path) removed.
func TestTraceGenStopsOnSignal(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "big.vef.gz")
	r := startOpasimEnv(t, []string{"TMPDIR=" + tmp}, "trace", "gen", "randomaccess", "--tasks", "4096", "--updates", "1024",
		"--iterations", "1000", "--out", out)
	r.waitFor(t, "a megabyte written", func() bool {
		for _, d := range []string{dir, tmp} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if info, err := e.Info(); err == nil && info.Size() > 1<<20 {
					return true
				}
			}
		}
		return false
	})
	r.stop(t, syscall.SIGINT)
	for _, d := range []string{dir, tmp} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("left %v in %s", entries, d)
		}
	}
	if !strings.Contains(r.stderr.String(), "interrupted after ") || !strings.Contains(r.stderr.String(), "big.vef.gz left as it was") {
		t.Errorf("stderr %q", r.stderr.String())
	}
}

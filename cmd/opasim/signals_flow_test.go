package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bounds of TestFlowCommandsStop, generous for a loaded machine: the
// start line can follow a build, and stopping includes writing the
// results and figures.
const (
	flowStartWithin = 60 * time.Second
	flowStopWithin  = 15 * time.Second
	flowSettle      = 300 * time.Millisecond // work done before the signal
)

// interruptFlow starts the built binary with args, waits for its stderr
// to say the run started (the line naming Ctrl-C), lets it work for
// flowSettle, sends sig and waits for it to exit. It returns stdout,
// stderr, the exit status and the time from the signal to the exit.
func interruptFlow(t *testing.T, sig syscall.Signal, args ...string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out strings.Builder
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	errText := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(pipe)
		once := false
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "Ctrl-C stops it") {
				once = true
				close(started)
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
		errText <- b.String()
	}()
	select {
	case <-started:
	case <-time.After(flowStartWithin):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("%v: no start line within %v; stderr %q", args, flowStartWithin, <-errText)
	}
	time.Sleep(flowSettle)
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(flowStopWithin):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("%v: still running %v after %v; killed", args, flowStopWithin, sig)
	}
	took = time.Since(sent)
	return out.String(), <-errText, cmd.ProcessState.ExitCode(), took
}

// TestFlowCommandsStop: every flow command stopped by a signal while it
// works exits 128 + the signal's number within flowStopWithin, printing
// and writing what it finished, marked interrupted. Each run would take
// minutes if not stopped.
func TestFlowCommandsStop(t *testing.T) {
	dir := t.TempDir()
	readJSON := func(t *testing.T, path string, v any) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("no results: %v", err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	for _, c := range []struct {
		name   string
		sig    syscall.Signal
		args   []string
		stdout []string
		check  func(t *testing.T)
	}{
		{"static", syscall.SIGINT, []string{"flow", "static", "--preset", "torus-32x32x16", "--out", filepath.Join(dir, "static.json")},
			[]string{"INTERRUPTED: the loads cover the flows of"}, func(t *testing.T) {
				r := readFlowResults(t, filepath.Join(dir, "static.json"))
				if !r.Interrupted || r.Static == nil || r.Static.Sources >= r.Servers || r.Static.RatedSources > r.Static.Sources {
					t.Errorf("results: interrupted %t, static %+v of %d servers", r.Interrupted, r.Static, r.Servers)
				}
			}},
		{"dynamic", syscall.SIGTERM, []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--app", "nbody", "--iterations", "300", "--out", filepath.Join(dir, "dynamic.json")},
			[]string{"INTERRUPTED at time"}, func(t *testing.T) {
				r := readFlowResults(t, filepath.Join(dir, "dynamic.json"))
				if !r.Interrupted || r.Dynamic == nil {
					t.Errorf("results: interrupted %t, dynamic %+v", r.Interrupted, r.Dynamic)
				}
			}},
		{"fcfs", syscall.SIGHUP, []string{"flow", "fcfs", "--apps", "100000", "--csv", filepath.Join(dir, "fcfs.csv")},
			[]string{"INTERRUPTED at time", "of 100000 applications finished"}, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(dir, "fcfs.csv"))
				if err != nil || strings.Count(string(data), "\n") != 100001 || !strings.Contains(string(data), "+Inf") {
					t.Errorf("fcfs.csv: %d lines (want a header and 100000), unfinished ones marked +Inf: %t (%v)",
						strings.Count(string(data), "\n"), strings.Contains(string(data), "+Inf"), err)
				}
			}},
		{"jobs", syscall.SIGINT, []string{"flow", "jobs", "--preset", "tree-16ary-3", "--jobs", "6000", "--out", filepath.Join(dir, "jobs")},
			[]string{"INTERRUPTED at time", "of 6000 jobs ended"}, func(t *testing.T) {
				var r jobsReport
				readJSON(t, filepath.Join(dir, "jobs", "jobs.json"), &r)
				if !r.Interrupted || r.JobsTotal != 6000 || r.JobsEnded >= 6000 || len(r.Jobs) != r.JobsEnded {
					t.Errorf("jobs.json: interrupted %t, %d of %d jobs ended, %d rows", r.Interrupted, r.JobsEnded, r.JobsTotal, len(r.Jobs))
				}
			}},
		{"scale", syscall.SIGINT, []string{"flow", "scale", "--out", filepath.Join(dir, "scale")},
			[]string{"INTERRUPTED:", "instances measured"}, func(t *testing.T) {
				var pts []json.RawMessage
				readJSON(t, filepath.Join(dir, "scale", "scale.json"), &pts)
				if len(pts) >= 21 {
					t.Errorf("scale.json: %d points, want fewer than the 21 instances", len(pts))
				}
			}},
		{"apps", syscall.SIGINT, []string{"flow", "apps", "--out", filepath.Join(dir, "apps")},
			[]string{"INTERRUPTED:", "runs reported"}, func(t *testing.T) {
				var pts []json.RawMessage
				readJSON(t, filepath.Join(dir, "apps", "apps.json"), &pts)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, took := interruptFlow(t, c.sig, c.args...)
			t.Logf("%v stopped it in %v", c.sig, took.Round(time.Millisecond))
			if want := 128 + int(c.sig); code != want {
				t.Errorf("exit status %d, want %d; stderr %q", code, want, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout %q lacks %q", stdout, w)
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("panicked: %.500s", stderr)
			}
			c.check(t)
		})
	}
}

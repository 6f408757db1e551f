package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opasim/opasim/flow/scale"
)

// progressLine is a log line of --progress log counting cycles: the
// command, the cycle reached, the total, the percentage, the rate and the
// ETA.
var progressLine = regexp.MustCompile(`^(run|distributed run): (\d+) of (\d+) cycles \(([\d.]+)%\), (\S+) cycles/s, ETA (\S+), (\S+) elapsed$`)

// progressEnd is a log's last line: the state, the cycles simulated of the
// total.
var progressEnd = regexp.MustCompile(`^(run|distributed run): (done|interrupted): (\d+) of (\d+) cycles \(([\d.]+)%\), (\S+) cycles/s, (\S+) elapsed$`)

// logLines returns the progress lines of what in stderr (the periodic
// ones) with the cycles each gives, checking each line's figures: the
// percentage is the cycles over the total, the rate and the ETA parse.
func logLines(t *testing.T, what, stderr string, total int64) []int64 {
	t.Helper()
	var cycles []int64
	for _, l := range strings.Split(stderr, "\n") {
		m := progressLine.FindStringSubmatch(l)
		if m == nil || m[1] != what {
			continue
		}
		done, _ := strconv.ParseInt(m[2], 10, 64)
		of, _ := strconv.ParseInt(m[3], 10, 64)
		pct, _ := strconv.ParseFloat(m[4], 64)
		if of != total || done > total {
			t.Errorf("line %q: %d of %d cycles, want of %d", l, done, of, total)
		}
		if want := 100 * float64(done) / float64(total); pct < want-0.051 || pct > want+0.051 {
			t.Errorf("line %q: %.1f%%, want %.1f%%", l, pct, want)
		}
		if _, err := strconv.ParseFloat(m[5], 64); err != nil {
			t.Errorf("line %q: rate %q: %v", l, m[5], err)
		}
		if _, err := time.ParseDuration(m[6]); err != nil && m[6] != "unknown" {
			t.Errorf("line %q: ETA %q: %v", l, m[6], err)
		}
		cycles = append(cycles, done)
	}
	return cycles
}

// endLine returns the state and the cycles of what's last log line; it
// fails the test if there is none.
func endLine(t *testing.T, what, stderr string) (state string, done, total int64) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if m := progressEnd.FindStringSubmatch(l); m != nil && m[1] == what {
			done, _ = strconv.ParseInt(m[3], 10, 64)
			total, _ = strconv.ParseInt(m[4], 10, 64)
			return m[2], done, total
		}
	}
	t.Fatalf("no last progress line of %s in stderr:\n%s", what, stderr)
	return "", 0, 0
}

// TestRunProgressLogLines: `run --progress log --progress-every 1s`, its
// stderr not a terminal, logs a first line, then a line a second with the
// cycle reached, increasing, of the total; SIGINT ends it with a last line
// at the cycle the run stopped at, the cycle its summary gives. The wait
// is for lines to appear (progressBound), not a time.
func TestRunProgressLogLines(t *testing.T) {
	const total = 2_000_000_000 // far more than the test lets it simulate
	r := startOpasim(t, "run", "--engine", "sequential", "--cycles", strconv.Itoa(total), "--warmup", "1000",
		"--progress", "log", "--progress-every", "1s")
	r.waitFor(t, "three progress lines", func() bool { return len(logLines(t, "run", r.stderr.String(), total)) >= 3 })
	r.stop(t, syscall.SIGINT)
	stderr := r.stderr.String()
	if !strings.HasPrefix(stderr, "run: simulating 2000000000 cycles (engine sequential) (Ctrl-C stops it") {
		t.Errorf("first line of stderr is not the start line:\n%s", stderr)
	}
	cycles := logLines(t, "run", stderr, total)
	for i := 1; i < len(cycles); i++ {
		if cycles[i] <= cycles[i-1] {
			t.Errorf("cycles do not increase from line to line: %v", cycles)
		}
	}
	state, done, of := endLine(t, "run", stderr)
	if state != "interrupted" || of != total || done < cycles[len(cycles)-1] {
		t.Errorf("last line: %s at %d of %d cycles, after lines at %v", state, done, of, cycles)
	}
	if want := "interrupted at cycle " + strconv.FormatInt(done, 10) + ":"; !strings.Contains(r.stdout.String(), want) {
		t.Errorf("the summary does not say %q (the last line's cycle):\n%s", want, r.stdout.String())
	}
}

// TestRunProgressKeepsResults: the same run with --progress log (a line a
// second) and with --progress off has the same digest and results; the log
// has its first and its last line, at the run's cycles, and off writes
// none.
func TestRunProgressKeepsResults(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--preset", "tree-8ary-2", "--engine", "sequential", "--cycles", "60000", "--warmup", "5000", "--load", "0.6"}
	logged, off := filepath.Join(dir, "log.json"), filepath.Join(dir, "off.json")
	_, stderr, code := opasim(t, append(args, "--progress", "log", "--progress-every", "1s", "--out", logged)...)
	if code != 0 {
		t.Fatalf("--progress log: exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "run: simulating 60000 cycles (engine sequential)") {
		t.Errorf("--progress log: no start line:\n%s", stderr)
	}
	if state, done, total := endLine(t, "run", stderr); state != "done" || done != 60000 || total != 60000 {
		t.Errorf("--progress log: last line %s at %d of %d cycles, want done at 60000 of 60000", state, done, total)
	}
	_, stderrOff, code := opasim(t, append(args, "--progress=off", "--out", off)...)
	if code != 0 {
		t.Fatalf("--progress off: exit %d: %s", code, stderrOff)
	}
	if strings.Contains(stderrOff, "run: ") {
		t.Errorf("--progress off wrote progress:\n%s", stderrOff)
	}
	a, b := resultsMap(t, logged), resultsMap(t, off)
	if a["digest"] != b["digest"] || a["delivered_flits"].(float64) == 0 {
		t.Errorf("digest %v with --progress log (%v flits), %v with --progress off", a["digest"], a["delivered_flits"], b["digest"])
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("the results differ between --progress log and --progress off")
	}
}

// TestDistributedProgressLog: the coordinator of a run on 2 members logs
// the whole run's progress: a first line once both joined, lines with the
// cycle the window loop reached, increasing, and on SIGINT a last line.
func TestDistributedProgressLog(t *testing.T) {
	const total = 2_000_000_000
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--cycles", strconv.Itoa(total), "--warmup", "1000",
		"--progress", "log", "--progress-every", "1s")
	for range 2 {
		start(t, testToken, "member", "--join", addr)
	}
	coord.await(t, regexp.MustCompile(`^distributed run: the 2 members joined; simulating 2000000000 cycles`), procWait)
	for range 3 {
		coord.await(t, progressLine, procWait)
	}
	if err := coord.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := coord.wait(t, procWait); code != 128+int(syscall.SIGINT) {
		t.Errorf("coordinator exit %d, want %d: %s", code, 128+int(syscall.SIGINT), coord.errText())
	}
	stderr := coord.errText()
	cycles := logLines(t, "distributed run", stderr, total)
	if len(cycles) < 3 || !slices.IsSorted(cycles) || cycles[0] == cycles[len(cycles)-1] {
		t.Errorf("progress lines at cycles %v: want 3 or more, increasing", cycles)
	}
	if state, done, of := endLine(t, "distributed run", stderr); state != "interrupted" || of != total || done < cycles[len(cycles)-1] {
		t.Errorf("last line: %s at %d of %d cycles, after lines at %v", state, done, of, cycles)
	}
}

// TestFlowProgressLog: a flow command's log counts its units to the total
// (flow fcfs: applications), at each tenth and at the end; the old
// --progress=false still silences it, and --progress=true is auto (a log
// off a terminal).
func TestFlowProgressLog(t *testing.T) {
	args := []string{"flow", "fcfs", "--preset", "tree-8ary-2", "--apps", "20", "--tasks", "8"}
	for _, c := range []struct {
		flag string
		log  bool
	}{{"--progress=log", true}, {"--progress=true", true}, {"--progress", true}, {"--progress=false", false}, {"--progress=off", false}} {
		_, stderr, code := opasim(t, append(args, c.flag)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.flag, code, stderr)
		}
		if !c.log {
			if strings.Contains(stderr, "flow fcfs:") {
				t.Errorf("%s: progress written:\n%s", c.flag, stderr)
			}
			continue
		}
		for _, want := range []string{
			"flow fcfs: running 20 applications of 8 tasks on 64 servers (Ctrl-C stops it",
			"flow fcfs: 2 of 20 applications (10.0%), ",
			"flow fcfs: 18 of 20 applications (90.0%), ",
			"flow fcfs: done: 20 of 20 applications (100.0%), ",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.flag, want, stderr)
			}
		}
	}
}

func TestProgressArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"run", "--progress", "log", "--cycles", "9"}, []string{"run", "--progress=log", "--cycles", "9"}},
		{[]string{"run", "--progress", "--cycles", "9"}, []string{"run", "--progress", "--cycles", "9"}},
		{[]string{"run", "--progress"}, []string{"run", "--progress"}},
		{[]string{"run", "--progress=off"}, []string{"run", "--progress=off"}},
		{[]string{"run", "--", "--progress", "x"}, []string{"run", "--", "--progress", "x"}},
	} {
		if got := progressArgs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("progressArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestProgressValue(t *testing.T) {
	for in, want := range map[string]string{"auto": "auto", "bar": "bar", "log": "log", "off": "off",
		"true": "auto", "false": "off", "1": "auto", "0": "off"} {
		var p progressFlags
		if err := (progressValue{&p}).Set(in); err != nil || p.mode != want {
			t.Errorf("Set(%q): mode %q, error %v; want %q", in, p.mode, err, want)
		}
	}
	for _, in := range []string{"", "Log", "logs", "yes"} {
		var p progressFlags
		if err := (progressValue{&p}).Set(in); err == nil {
			t.Errorf("Set(%q) accepted: mode %q", in, p.mode)
		}
	}
}

// TestProgressRefused: a bad --progress or --progress-every, on every
// command that has them, is bad input naming the flag, the value and
// what is allowed.
func TestProgressRefused(t *testing.T) {
	modes := []string{"auto, bar, log, off"}
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.vef")
	if err := os.WriteFile(trace, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		args, want []string
	}{
		{"run mode", []string{"run", "--progress", "lgo"}, append([]string{"--progress", `"lgo"`}, modes...)},
		{"run mode empty", []string{"run", "--progress="}, append([]string{"--progress", `""`}, modes...)},
		{"run mode case", []string{"run", "--progress=LOG"}, append([]string{"--progress", `"LOG"`}, modes...)},
		{"run every short", []string{"run", "--progress-every", "500ms"}, []string{"--progress-every", `"500ms"`, "at least 1s"}},
		{"run every zero", []string{"run", "--progress-every", "0"}, []string{"--progress-every", `"0"`, "at least 1s"}},
		{"run every negative", []string{"run", "--progress-every=-5s"}, []string{"--progress-every", `"-5s"`, "at least 1s"}},
		{"run every unit", []string{"run", "--progress-every", "10"}, []string{"--progress-every", `"10"`, "duration"}},
		{"distributed mode", []string{"run", "--distributed", "2", "--progress", "verbose"}, append([]string{"--progress", `"verbose"`}, modes...)},
		{"sweep", []string{"sweep", "--out", dir, "--progress", "always"}, append([]string{"--progress", `"always"`}, modes...)},
		{"sweep every", []string{"sweep", "--out", dir, "--progress-every", "1ms"}, []string{"--progress-every", `"1ms"`, "at least 1s"}},
		{"stress", []string{"stress", "--progress", "bars"}, append([]string{"--progress", `"bars"`}, modes...)},
		{"trace sweep", []string{"trace", "sweep", "--out", dir, "--progress", "2", trace}, append([]string{"--progress", `"2"`}, modes...)},
		{"flow static", []string{"flow", "static", "--progress=maybe"}, append([]string{"--progress", `"maybe"`}, modes...)},
		{"flow dynamic every", []string{"flow", "dynamic", "--progress-every", "0.5s"}, []string{"--progress-every", `"0.5s"`, "at least 1s"}},
		{"flow fcfs", []string{"flow", "fcfs", "--progress", "no-thanks"}, append([]string{"--progress", `"no-thanks"`}, modes...)},
		{"flow jobs", []string{"flow", "jobs", "--progress", "loud"}, append([]string{"--progress", `"loud"`}, modes...)},
		{"flow scale", []string{"flow", "scale", "--progress", "tty"}, append([]string{"--progress", `"tty"`}, modes...)},
		{"flow apps", []string{"flow", "apps", "--out", dir, "--progress", "quiet"}, append([]string{"--progress", `"quiet"`}, modes...)},
	} {
		expectRefused(t, c.name, c.args, c.want)
	}
}

// TestAppRuns: flow apps' total is its runs: 7 topologies, 4 of them (the
// fat tree, the thin trees, the jellyfish) also with multipath routing;
// and the runs of the selection run above (stencil3d on torus-3d and the
// fat tree: 3).
func TestAppRuns(t *testing.T) {
	ts, _, err := appsStudy(scale.Study4k, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for routings, want := range map[string]int{scale.RoutingsBoth: 11 * 6, scale.RoutingsSingle: 7 * 6, scale.RoutingsMultipath: 4 * 6} {
		if got := appRuns(ts, 6, routings); got != want {
			t.Errorf("%s: %d runs, want %d", routings, got, want)
		}
	}
	ts, as, err := appsStudy(scale.Study4k, []string{"torus-3d", "fat-tree"}, []string{"stencil3d"})
	if err != nil {
		t.Fatal(err)
	}
	if got := appRuns(ts, len(as), scale.RoutingsBoth); got != 3 {
		t.Errorf("stencil3d on torus-3d and fat-tree: %d runs, want 3", got)
	}
}

// TestProgressLine: a log line's figures, worked out: 25 of 100 runs in
// 10 s is 2.5 runs/s and 75 runs left, 30 s; with no end known in
// advance, no percentage and no ETA; the last line has no ETA.
func TestProgressLine(t *testing.T) {
	p := &progress{what: "sweep", unit: "runs", start: time.Now().Add(-10 * time.Second)}
	p.total.Store(100)
	p.done.Store(25)
	if got, want := p.line(""), "sweep: 25 of 100 runs (25.0%), 2.50 runs/s, ETA 30s, 10s elapsed"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	p.done.Store(100)
	if got, want := p.line("done"), "sweep: done: 100 of 100 runs (100.0%), 10.00 runs/s, 10s elapsed"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	p = &progress{what: "run", unit: "cycles", start: time.Now().Add(-20 * time.Second)}
	p.total.Store(-1)
	p.done.Store(4_000_000)
	if got, want := p.line(""), "run: 4000000 cycles, 200000 cycles/s, 20s elapsed"; got != want {
		t.Errorf("line of a run without a known end %q, want %q", got, want)
	}
	p.done.Store(0)
	p.total.Store(1000)
	if got, want := p.line(""), "run: 0 of 1000 cycles (0.0%), 0.00 cycles/s, ETA unknown, 20s elapsed"; got != want {
		t.Errorf("line before any cycle %q, want %q", got, want)
	}
}

// TestSweepStressProgressLog: sweep and stress log the runs done of those
// to run, to a last line; a sweep resumed with every run stored has
// nothing to run and logs nothing.
func TestSweepStressProgressLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	sweepArgs := []string{"sweep", "--ports", "8", "--schedulers", "rr", "--loads", "0.5", "--seeds", "2", "--cycles", "2000", "--warmup", "500",
		"--jobs", "1", "--out", out, "--progress", "log"}
	_, stderr, code := opasim(t, sweepArgs...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sweep: running 2 runs with 1 jobs (Ctrl-C stops it", "sweep: done: 2 of 2 runs (100.0%), "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("sweep: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, stderr, code = opasim(t, sweepArgs...); code != 0 || strings.Contains(stderr, "sweep: ") {
		t.Errorf("sweep resumed, nothing to run: exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = opasim(t, "stress", "--ports", "8", "--budget", "4", "--cycles", "3000", "--warmup", "500", "--jobs", "1",
		"--out", filepath.Join(t.TempDir(), "stress"), "--progress", "log")
	if code != 0 {
		t.Fatalf("stress: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"stress: searching for the worst case of property share in 4 runs (Ctrl-C stops it",
		"stress: 1 of 4 runs (25.0%), ", "stress: done: 4 of 4 runs (100.0%), "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stress: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`(?m)^stress: done: .*, worst violation so far -?\d+\.\d\d$`).MatchString(stderr) {
		t.Errorf("stress: the last line does not give the worst violation:\n%s", stderr)
	}
}

// TestTraceSweepProgressLog: trace sweep logs its runs (a baseline and one
// load for each of the two SLs: 4) to a last line.
func TestTraceSweepProgressLog(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "st.vef.gz")
	if _, stderr, code := opasim(t, "trace", "gen", "stencil3d", "--tasks", "64", "--iterations", "2", "--out", trace); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := opasim(t, "trace", "sweep", "--loads", "0.05", "--jobs", "1", "--out", filepath.Join(dir, "study"), "--progress", "log", trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"trace sweep: running 4 runs with 1 jobs (Ctrl-C stops it", "trace sweep: done: 4 of 4 runs (100.0%), "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestFlowDynamicProgressCountsFlows: flow dynamic's log counts the flows
// completed of all it runs (the 8 phases' 2048 and the 7 barriers between
// them), and ends at all of them.
func TestFlowDynamicProgressCountsFlows(t *testing.T) {
	_, stderr, code := opasim(t, "flow", "dynamic", "--preset", "tree-8ary-2", "--pattern", "uniform", "--flows-per-server", "32",
		"--phase-flows", "256", "--progress", "log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"flow dynamic: running 2055 flows (2048, and 7 barriers between phases) (Ctrl-C stops it",
		"flow dynamic: done: 2055 of 2055 flows (100.0%), ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

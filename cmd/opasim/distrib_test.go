package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/testlong"
)

const testToken = "distrib-test-token-0123456789"

// procWait bounds the tests' waits for the processes of a distributed run
// (a line on stderr, an exit): generous, as a loaded machine is slow to
// start and run processes; only a hang reaches it.
const procWait = 3 * time.Minute

// honourSlack is what the tests allow past a timeout for a process to act
// on it: generous for a loaded machine, far below a timeout ignored.
const honourSlack = 30 * time.Second

// proc is an opasim process of a distributed run, its stderr read line by
// line as it comes.
type proc struct {
	cmd    *exec.Cmd
	stdout strings.Builder
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan string
	done   chan error
}

// start starts opasim with args and token in $OPASIM_TOKEN (none when
// empty).
func start(t *testing.T, token string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), lines: make(chan string, 1024), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "OPASIM_TOKEN="+token)
	p.cmd.Stdout = &p.stdout
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, errPipe)
		close(p.lines) // the process has ended: no line will come
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		_ = p.cmd.Process.Kill()
	})
	return p
}

// await waits for a stderr line matching re and returns its first
// submatch; it fails at once if the process ends first.
func (p *proc) await(t *testing.T, re *regexp.Regexp, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("%v ended with no line matching %s; stderr:\n%s", p.cmd.Args, re, p.errText())
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m[len(m)-1]
			}
		case <-deadline:
			t.Fatalf("no line matching %s within %s; stderr:\n%s", re, within, p.errText())
		}
	}
}

func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// wait waits for the process to end and returns its exit status.
func (p *proc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		t.Fatal(err)
	case <-time.After(within):
		t.Fatalf("%v still running after %s; stderr:\n%s", p.cmd.Args, within, p.errText())
	}
	return -1
}

var (
	listening     = regexp.MustCompile(`coordinator listening on (\S+) for`)
	firstSnapshot = regexp.MustCompile(`msg="first snapshot of the members' totals" window=\d+ cycle=(\d+)`)
)

// coordinate starts `opasim run --distributed members` with args and
// returns it with its address.
func coordinate(t *testing.T, members string, args ...string) (*proc, string) {
	t.Helper()
	c := start(t, testToken, append([]string{"run", "--distributed", members}, args...)...)
	return c, c.await(t, listening, procWait)
}

// resultsMap reads a results JSON as a map, without the fields that are
// not the simulation's outcome (the engine, its speed).
func resultsMap(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"engine", "partitions", "wall_seconds", "cycles_per_second", "flits_per_second"} {
		delete(m, k)
	}
	delete(m["config"].(map[string]any), "engine")
	return m
}

// TestDistributedEqualsOneProcess: a run across 2 and 3 member processes
// on loopback gives the results of the sequential engine in one process,
// digest and every measured figure, on a tree and a torus (the quick
// suite: the tree on 3 members, the torus on 2).
func TestDistributedEqualsOneProcess(t *testing.T) {
	reduced := testlong.Reduced(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, preset, config string
		quick                int // the members the quick suite runs it on
	}{{"tree", "tree-8ary-2", "", 3}, {"torus", "torus2d-4x4", "", 2}} {
		args := []string{"--preset", c.preset, "--cycles", "1500", "--warmup", "300", "--load", "0.7"}
		if c.config != "" {
			args = append(args, "--config", c.config)
		}
		one := filepath.Join(dir, c.name+"-1.json")
		if _, stderr, code := opasim(t, append([]string{"run", "--engine", "sequential", "--out", one}, args...)...); code != 0 {
			t.Fatalf("%s, one process: exit %d: %s", c.name, code, stderr)
		}
		want := resultsMap(t, one)
		for _, members := range []int{2, 3} {
			if reduced && members != c.quick {
				continue
			}
			out := filepath.Join(dir, c.name+"-d.json")
			coord, addr := coordinate(t, string(rune('0'+members)), append(args, "--out", out)...)
			var ms []*proc
			for i := 0; i < members; i++ {
				ms = append(ms, start(t, testToken, "member", "--join", addr))
			}
			if code := coord.wait(t, procWait); code != 0 {
				t.Fatalf("%s on %d members: coordinator exit %d: %s", c.name, members, code, coord.errText())
			}
			for i, m := range ms {
				if code := m.wait(t, procWait); code != 0 {
					t.Errorf("%s: member %d exit %d: %s", c.name, i, code, m.errText())
				}
			}
			got := resultsMap(t, out)
			if got["digest"] != want["digest"] || got["delivered_flits"].(float64) == 0 {
				t.Errorf("%s on %d members: digest %v (%v flits), one process %v (%v flits)", c.name, members,
					got["digest"], got["delivered_flits"], want["digest"], want["delivered_flits"])
			}
			for k, v := range want {
				g, _ := json.Marshal(got[k])
				w, _ := json.Marshal(v)
				if string(g) != string(w) {
					t.Errorf("%s on %d members: %s = %s, one process %s", c.name, members, k, g, w)
				}
			}
		}
	}
}

// TestDistributedMemberFaults: a member killed (SIGKILL) or stopped
// (SIGSTOP) mid-run fails the run within the timeout, the message naming
// the member and the last window every member completed, and the
// coordinator writes the partial results of its latest complete snapshot
// of the members' totals: marked partial and interrupted, conservation
// not checked, at a cycle no earlier than the first snapshot and no later
// than the last completed window's end (before the run's), and the digest
// and delivered flits of a sequential run of as many cycles (a snapshot
// is the run's state at a window's end).
func TestDistributedMemberFaults(t *testing.T) {
	dir := t.TempDir()
	// No warm-up: the one-process run of as many cycles as the partial
	// results reached (however few, on a loaded machine) must take it.
	args := []string{"--preset", "tree-8ary-2", "--load", "0.7", "--warmup", "0", "--cycles", "20000"}
	lastWindow := regexp.MustCompile(`last window every member completed: window \d+, cycles \[\d+, (\d+)\)`)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		out := filepath.Join(dir, "partial-"+strconv.Itoa(int(sig))+".json")
		coord, addr := coordinate(t, "2", append([]string{"--member-timeout", "3s", "--snapshot-every", "100ms", "--out", out}, args...)...)
		m0 := start(t, testToken, "member", "--join", addr)
		m1 := start(t, testToken, "member", "--join", addr)
		idx := m1.await(t, regexp.MustCompile(`msg="member set up" index=(\d+)`), procWait) // its place is the order of joining
		first, _ := strconv.ParseInt(coord.await(t, firstSnapshot, procWait), 10, 64)
		began := time.Now()
		if err := m1.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		code := coord.wait(t, procWait)
		took := time.Since(began)
		msg := coord.errText()
		if code != 1 {
			t.Errorf("%v: coordinator exit %d, want 1; stderr:\n%s", sig, code, msg)
		}
		last := lastWindow.FindStringSubmatch(msg)
		if !regexp.MustCompile(`member `+idx+` \(127\.0\.0\.1:\d+\)`).MatchString(msg) || last == nil {
			t.Fatalf("%v: the failure does not name the member and the last window:\n%s", sig, msg)
		}
		if sig == syscall.SIGSTOP && !strings.Contains(msg, "no word within 3s from [") {
			t.Errorf("SIGSTOP: the failure is not the timeout:\n%s", msg)
		}
		if !strings.Contains(msg, "partial results written to "+out) {
			t.Errorf("%v: the failure does not say partial results were written:\n%s", sig, msg)
		}
		if took > 3*time.Second+honourSlack {
			t.Errorf("%v: the run failed %s after the signal; the timeout is 3s", sig, took)
		}
		if code := m0.wait(t, procWait); code == 0 {
			t.Errorf("%v: the surviving member exited 0 after the coordinator failed: %s", sig, m0.errText())
		}
		lastEnd, _ := strconv.ParseInt(last[1], 10, 64)
		checkPartial(t, out, "member "+idx+" (", first, lastEnd, args)
		t.Logf("%v: failed after %s: %s", sig, took.Round(time.Millisecond), lastLine(msg))
	}
}

// checkPartial checks the partial results in out of a run whose member
// failed (named by a prefix) after the first snapshot at cycle first and
// the last window every member completed ended at lastEnd; args are the
// run's flags.
func checkPartial(t *testing.T, out, failed string, first, lastEnd int64, args []string) {
	t.Helper()
	got := resultsMap(t, out)
	p, ok := got["partial"].(map[string]any)
	if !ok || got["interrupted"] != true || got["conservation_ok"] != false || p["conservation_checked"] != false {
		t.Fatalf("%s: not marked partial and interrupted, conservation not checked: partial %v, interrupted %v, conservation_ok %v",
			out, got["partial"], got["interrupted"], got["conservation_ok"])
	}
	if f, _ := p["failed"].(string); !strings.HasPrefix(f, failed) {
		t.Errorf("%s: partial.failed %q, want %s…", out, f, failed)
	}
	cycles := int64(got["simulated_cycles"].(float64))
	if int64(p["cycle"].(float64)) != cycles || cycles <= 0 || cycles < first || cycles > lastEnd {
		t.Errorf("%s: results at cycle %d (partial.cycle %v); want from the first snapshot's %d to the last completed window's end %d",
			out, cycles, p["cycle"], first, lastEnd)
	}
	flits := got["delivered_flits"].(float64)
	one := filepath.Join(filepath.Dir(out), "one-"+filepath.Base(out))
	if _, stderr, code := opasim(t, append([]string{"run", "--engine", "sequential", "--out", one}, append(args, "--cycles", strconv.FormatInt(cycles, 10))...)...); code != 0 {
		t.Fatalf("one process: exit %d: %s", code, stderr)
	}
	// However few cycles a loaded machine let the run reach (no flit may
	// have arrived yet), the figures are those of a run of as many.
	if want := resultsMap(t, one); got["digest"] != want["digest"] || flits != want["delivered_flits"].(float64) {
		t.Errorf("%s: partial results at cycle %d: digest %v, %v flits; a sequential run of %d cycles %v, %v flits",
			out, cycles, got["digest"], flits, cycles, want["digest"], want["delivered_flits"])
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestDistributedToken: a member with a wrong token is refused (and exits
// with the reason), the coordinator logs the refusal and goes on with the
// members that have it; a member with no token does not start.
func TestDistributedToken(t *testing.T) {
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--cycles", "1000", "--warmup", "100")
	bad := start(t, "a-wrong-token-of-the-same-length", "member", "--join", addr)
	if code := bad.wait(t, procWait); code != 1 || !strings.Contains(bad.errText(), "refused the join: wrong or missing token") {
		t.Errorf("wrong token: exit %d, stderr:\n%s", code, bad.errText())
	}
	coord.await(t, regexp.MustCompile(`msg="refused a join" from=127\.0\.0\.1:\d+ reason="wrong or missing token"`), procWait)
	none := start(t, "", "member", "--join", addr) // OPASIM_TOKEN empty
	if code := none.wait(t, procWait); code != 2 || !strings.Contains(none.errText(), "needs a shared token") {
		t.Errorf("no token: exit %d, stderr: %s", code, none.errText())
	}
	m0 := start(t, testToken, "member", "--join", addr)
	m1 := start(t, testToken, "member", "--join", addr)
	if code := coord.wait(t, procWait); code != 0 {
		t.Fatalf("coordinator exit %d after the refusal: %s", code, coord.errText())
	}
	for _, m := range []*proc{m0, m1} {
		if code := m.wait(t, procWait); code != 0 {
			t.Errorf("member exit %d: %s", code, m.errText())
		}
	}
}

// TestDistributedMemberMetrics: a member with --metrics-addr serves the
// live metrics of its part of the run, each series labelled with its
// index, while the run goes on.
func TestDistributedMemberMetrics(t *testing.T) {
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--cycles", "100000000", "--load", "0.7")
	m0 := start(t, testToken, "member", "--join", addr, "--metrics-addr", "127.0.0.1:0")
	url := m0.await(t, regexp.MustCompile(`serving this member's metrics on (http://\S+)`), procWait)
	start(t, testToken, "member", "--join", addr)
	idx := m0.await(t, regexp.MustCompile(`msg="member set up" index=(\d+)`), procWait)
	series := regexp.MustCompile(`(?m)^opasim_delivered_flits_total\{member="` + idx + `",run_id="[^"]+",sl="VO"\} (\d+)$`)
	deadline := time.Now().Add(procWait)
	for {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if m := series.FindSubmatch(body); m != nil && string(m[1]) != "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivered flits with member=%q on %s within %s:\n%.2000s", idx, url, procWait, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = coord.cmd.Process.Kill()
}

// TestDistributedInterrupted: SIGINT or SIGTERM to the coordinator ends a
// run at the next window; it collects the members' parts, writes results
// marked interrupted (exit 130, 143), and they are those of a one-process
// run of as many cycles.
func TestDistributedInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { coordinatorSignalled(t, sig) })
	}
}

func coordinatorSignalled(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	out := filepath.Join(dir, "d.json")
	// No warm-up: the one-process run of as many cycles as the interrupted
	// one reached (however few, on a loaded machine) must take it.
	args := []string{"--preset", "tree-8ary-2", "--load", "0.7", "--warmup", "0"}
	coord, addr := coordinate(t, "2", append(args, "--cycles", "100000000", "--snapshot-every", "100ms", "--out", out)...)
	m0 := start(t, testToken, "member", "--join", addr)
	m1 := start(t, testToken, "member", "--join", addr)
	coord.await(t, firstSnapshot, procWait) // well into the run
	if err := coord.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if code := coord.wait(t, procWait); code != 128+int(sig) {
		t.Fatalf("coordinator exit %d, want %d: %s", code, 128+int(sig), coord.errText())
	}
	for i, m := range []*proc{m0, m1} {
		if code := m.wait(t, procWait); code != 0 {
			t.Errorf("member %d exit %d: %s", i, code, m.errText())
		}
	}
	got := resultsMap(t, out)
	cycles := int64(got["simulated_cycles"].(float64))
	if got["interrupted"] != true || cycles <= 0 {
		t.Fatalf("results: interrupted %v at cycle %d", got["interrupted"], cycles)
	}
	one := filepath.Join(dir, "1.json")
	if _, stderr, code := opasim(t, append([]string{"run", "--engine", "sequential", "--out", one, "--cycles", strconv.FormatInt(cycles, 10)}, args...)...); code != 0 {
		t.Fatalf("one process: exit %d: %s", code, stderr)
	}
	if want := resultsMap(t, one); got["digest"] != want["digest"] || got["conservation_ok"] != true {
		t.Errorf("interrupted at %d: digest %v (conservation %v), one process of %d cycles %v", cycles, got["digest"], got["conservation_ok"], cycles, want["digest"])
	}
}

// TestSnapshotEveryFlag: --snapshot-every must be positive, and needs
// --distributed.
func TestSnapshotEveryFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--distributed", "2", "--snapshot-every", "0s"}, "--snapshot-every: 0s is not allowed: must be a positive duration"},
		{[]string{"--distributed", "2", "--snapshot-every", "-1s"}, "--snapshot-every: -1s is not allowed: must be a positive duration"},
		{[]string{"--snapshot-every", "1s"}, "--snapshot-every needs --distributed"},
	} {
		_, stderr, code := opasim(t, append([]string{"run", "--preset", "tree-8ary-2", "--cycles", "100"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestDistributedFaultBeforeSnapshot: a member fault before the first
// complete snapshot writes no results file, and the error says why.
func TestDistributedFaultBeforeSnapshot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--load", "0.7", "--cycles", "100000000",
		"--snapshot-every", "1h", "--member-timeout", "3s", "--out", out)
	m0 := start(t, testToken, "member", "--join", addr)
	m1 := start(t, testToken, "member", "--join", addr)
	m1.await(t, regexp.MustCompile(`msg="member set up"`), procWait)
	time.Sleep(300 * time.Millisecond) // well into the run
	if err := m1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := coord.wait(t, procWait); code != 1 || !strings.Contains(coord.errText(), "no results written (no complete snapshot") {
		t.Errorf("coordinator exit %d, want 1 and no results for want of a snapshot; stderr:\n%s", code, coord.errText())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: a results file was written with no snapshot (stat: %v)", out, err)
	}
	m0.wait(t, procWait)
}

// TestMemberMetricsFlags: a member's --metrics-detail takes switch or
// port, and needs --metrics-addr; both are refused before the join.
func TestMemberMetricsFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-addr", "127.0.0.1:0", "--metrics-detail", "vl"}, `--metrics-detail: "vl" is not allowed: must be one of: switch, port`},
		{[]string{"--metrics-detail", "port"}, "--metrics-detail, --metrics-switches and --metrics-max-series need --metrics-addr"},
	} {
		_, stderr, code := opasim(t, append([]string{"member", "--join", "127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

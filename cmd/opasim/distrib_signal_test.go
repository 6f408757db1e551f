package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/testlong"
)

var (
	memberSetUp  = regexp.MustCompile(`msg="member set up" index=(\d+)`)
	memberJoined = regexp.MustCompile(`msg="joined; waiting for the other members" index=(\d+)`)
)

// TestMemberSignalled: a member stopped by SIGINT mid-run leaves cleanly
// (exit 130): it tells the coordinator, which fails the run naming it and
// the signal, and writes the partial results of its latest snapshot,
// marked partial and interrupted (exit 1); the other member ends with it.
func TestMemberSignalled(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--load", "0.7", "--cycles", "100000000",
		"--snapshot-every", "100ms", "--out", out)
	m0 := start(t, testToken, "member", "--join", addr)
	m1 := start(t, testToken, "member", "--join", addr)
	idx := m1.await(t, memberSetUp, procWait)
	coord.await(t, firstSnapshot, procWait)
	if err := m1.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := m1.wait(t, procWait); code != 130 || !strings.Contains(m1.errText(), "member stopped: stopped by interrupt") {
		t.Errorf("the signalled member: exit %d, want 130 and why; stderr:\n%s", code, m1.errText())
	}
	code := coord.wait(t, procWait)
	msg := coord.errText()
	if code != 1 || !regexp.MustCompile(`member `+idx+` \(127\.0\.0\.1:\d+\) left the run \(stopped by interrupt\) in window \d+`).MatchString(msg) ||
		!strings.Contains(msg, "partial results written to "+out) {
		t.Errorf("coordinator: exit %d, want 1 naming member %s, the signal and the partial results; stderr:\n%s", code, idx, msg)
	}
	if code := m0.wait(t, procWait); code == 0 {
		t.Errorf("the other member exited 0 from a failed run: %s", m0.errText())
	}
	got := resultsMap(t, out)
	p, ok := got["partial"].(map[string]any)
	if !ok || got["interrupted"] != true || !strings.HasPrefix(p["failed"].(string), "member "+idx+" (") ||
		!strings.Contains(p["reason"].(string), "stopped by interrupt") {
		t.Errorf("%s: partial %v, interrupted %v; want member %s failed, stopped by interrupt", out, got["partial"], got["interrupted"], idx)
	}
}

// TestMemberSignalledInLobby: a member stopped by SIGTERM while it waits
// for the others leaves (exit 143) and frees its place, as does one
// killed (SIGKILL) there: two more members join and the run completes.
func TestMemberSignalledInLobby(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		log  string
	}{
		{syscall.SIGTERM, 143, `msg="member left before the run began" index=0 .*reason="stopped by terminated"`},
		{syscall.SIGKILL, -1, `msg="member gone before the run began" index=0`},
	} {
		coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--cycles", "1000", "--warmup", "100")
		early := start(t, testToken, "member", "--join", addr)
		early.await(t, memberJoined, procWait)
		if err := early.cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		if code := early.wait(t, procWait); code != c.code {
			t.Errorf("%v: the member's exit %d, want %d; stderr:\n%s", c.sig, code, c.code, early.errText())
		}
		coord.await(t, regexp.MustCompile(c.log), procWait)
		m0 := start(t, testToken, "member", "--join", addr)
		m1 := start(t, testToken, "member", "--join", addr)
		if code := coord.wait(t, procWait); code != 0 {
			t.Fatalf("%v: coordinator exit %d after a member left the lobby: %s", c.sig, code, coord.errText())
		}
		for _, m := range []*proc{m0, m1} {
			if code := m.wait(t, procWait); code != 0 {
				t.Errorf("%v: member exit %d: %s", c.sig, code, m.errText())
			}
		}
	}
}

// TestCoordinatorSignalledInLobby: a coordinator stopped by SIGINT before
// every member joined exits 130 at once, saying there was no run, writes
// no results, and tells the member in the lobby, which exits 1 saying so.
func TestCoordinatorSignalledInLobby(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	coord, addr := coordinate(t, "2", "--preset", "tree-8ary-2", "--cycles", "1000", "--warmup", "100", "--out", out)
	m := start(t, testToken, "member", "--join", addr)
	m.await(t, memberJoined, procWait)
	if err := coord.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := coord.wait(t, procWait); code != 130 || !strings.Contains(coord.errText(), "no run: context canceled; stopped with 1 of 2 members joined; no results") {
		t.Errorf("coordinator: exit %d, want 130 and no run; stderr:\n%s", code, coord.errText())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: results written with no run (stat: %v)", out, err)
	}
	if code := m.wait(t, procWait); code != 1 || !strings.Contains(m.errText(), "stopped the run before it began") {
		t.Errorf("member: exit %d, want 1 and why; stderr:\n%s", code, m.errText())
	}
}

// TestMemberJoinTimeout: a member whose coordinator does not answer exits 1
// after its --timeout, not before and not much after, saying so.
func TestMemberJoinTimeout(t *testing.T) {
	memberTimesOut(t, 2*time.Second)
}

// TestMemberJoinTimeoutLong: as TestMemberJoinTimeout, with a timeout
// past the remote layer's connection retries (about 10 s), which used to
// hold the member.
func TestMemberJoinTimeoutLong(t *testing.T) {
	testlong.Skip(t, "a member waits out a 12 s timeout")
	memberTimesOut(t, 12*time.Second)
}

func memberTimesOut(t *testing.T, timeout time.Duration) {
	began := time.Now()
	m := start(t, testToken, "member", "--join", "127.0.0.1:1", "--timeout", timeout.String())
	code := m.wait(t, timeout+honourSlack)
	took := time.Since(began)
	if code != 1 || !strings.Contains(m.errText(), "no answer from the coordinator at 127.0.0.1:1 within "+timeout.String()) {
		t.Errorf("exit %d, want 1 and the timeout; stderr:\n%s", code, m.errText())
	}
	if took < timeout {
		t.Errorf("exited after %s, before its timeout %s", took, timeout)
	}
	t.Logf("timeout %s: exited after %s", timeout, took.Round(time.Millisecond))
}

package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/opasim/opasim/flow/spec"
)

func config(preset, pattern string, workers int) spec.Config {
	c := spec.Default()
	c.Topology = spec.Topology{Preset: preset}
	c.Pattern.Name = pattern
	c.Workers = workers
	return c
}

func budget(t *testing.T, mb int64) spec.Budget {
	t.Helper()
	b, err := spec.NewBudget(mb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shown records the stages a run shows and how they end.
type shown struct {
	mu     sync.Mutex
	starts []string
	ends   []string
	last   [2]int64
}

func (s *shown) show(what, unit string, total int64, _ bool, format string, a ...any) Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, what+" "+unit)
	return s
}
func (s *shown) Set(done, total int64) { s.mu.Lock(); s.last = [2]int64{done, total}; s.mu.Unlock() }
func (s *shown) Finish(state string)   { s.mu.Lock(); s.ends = append(s.ends, state); s.mu.Unlock() }

// TestStaticByHand: all-to-all on the 8-ary 2-tree routed at once. Each
// of the 64 servers sends to the 63 others (4,032 flows); a server's own
// link carries its 63, and no switch link more (a leaf's 8 servers send
// 8 × 56 flows up over its 8 up links), so the highest load is 63.
func TestStaticByHand(t *testing.T) {
	var s shown
	r, err := Run(context.Background(), Static, config("tree-8ary-2", "all-to-all", 2), budget(t, 0), s.show)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Static
	if r.Servers != 64 || st.Flows != 4032 || st.Unrouted != 0 || st.MaxLoad != 63 {
		t.Errorf("%d servers, %d flows (%d unrouted), max load %v; want 64, 4032 (0), 63", r.Servers, st.Flows, st.Unrouted, st.MaxLoad)
	}
	if len(s.starts) != 1 || s.starts[0] != "flow static chunks" || len(s.ends) != 1 || s.ends[0] != "done" || s.last[0] != s.last[1] || s.last[0] == 0 {
		t.Errorf("shown %v, ended %v, last %v; want one stage of chunks, done, all of them", s.starts, s.ends, s.last)
	}
}

// TestDigestsRepeat: the same config gives the same digest, and the static
// engine's does not depend on its workers.
func TestDigestsRepeat(t *testing.T) {
	digest := func(engine string, workers int) string {
		r, err := Run(context.Background(), engine, config("tree-8ary-2", "uniform", workers), budget(t, 0), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Digest
	}
	if a, b := digest(Static, 1), digest(Static, 4); a != b || a == "" {
		t.Errorf("static digests %q with 1 worker, %q with 4", a, b)
	}
	if a, b := digest(Dynamic, 1), digest(Dynamic, 1); a != b || a == "" {
		t.Errorf("dynamic digests %q then %q", a, b)
	}
}

// TestInputErrors: what the input gets wrong is an InputError naming it.
func TestInputErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		engine string
		cfg    spec.Config
		mb     int64
		want   string
	}{
		{"an unknown pattern", Dynamic, config("tree-8ary-2", "no-such-pattern", 1), 0, "no-such-pattern"},
		{"over the budget", Dynamic, config("tree-16ary-3", "all-to-all", 1), 1, "MiB"},
		{"an unknown preset", Static, config("no-such-net", "uniform", 1), 0, "no-such-net"},
	} {
		_, err := Run(context.Background(), c.engine, c.cfg, budget(t, c.mb), nil)
		var ie InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InputError mentioning %q", c.name, err, c.want)
		}
	}
}

// TestCancelledRun: a run whose context is cancelled ends without error,
// its results saying interrupted.
func TestCancelledRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, Dynamic, config("tree-8ary-2", "uniform", 1), budget(t, 0), nil)
	if err != nil || r == nil || !r.Interrupted {
		t.Fatalf("results %+v, error %v; want interrupted, no error", r, err)
	}
}

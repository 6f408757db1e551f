package apps

import (
	"math"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/internal/testlong"
)

// logged records every Done of the workload it wraps.
type logged struct {
	dynamic.Workload
	done []dynamic.Done
}

func (w *logged) FlowDone(e *dynamic.Engine, d dynamic.Done) error {
	w.done = append(w.done, d)
	return w.Workload.FlowDone(e, d)
}

func runLogged(t *testing.T, cfg UniformConfig, opt dynamic.Options) []dynamic.Done {
	t.Helper()
	u, err := NewUniform(4096, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := dynamic.New(treeRouter(t, 16, 3), opt)
	if err != nil {
		t.Fatal(err)
	}
	w := &logged{Workload: u}
	if _, err := e.Run(w); err != nil {
		t.Fatal(err)
	}
	return w.done
}

// TestUniformReplayAgrees: closed-loop uniform traffic on the 16-ary
// 3-tree (16,384 concurrent flows), 300 completions. Two runs give the
// same completions bit for bit; the solver's replay and the whole-component
// re-solve give the same completions in the same order (source server
// and start time) with completion times equal to 1e-9 relative; and no
// flow completes sooner than its size at the full link rate allows.
func TestUniformReplayAgrees(t *testing.T) {
	testlong.Skip(t, "300 events with 16,384 flows, re-solved whole")
	cfg := UniformConfig{PerServer: 4, Completions: 300, MinSize: 0.5, MaxSize: 1.5, Seed: 7}
	a := runLogged(t, cfg, dynamic.Options{})
	b := runLogged(t, cfg, dynamic.Options{})
	c := runLogged(t, cfg, dynamic.Options{ComponentSolve: true})
	if len(a) != 300 || len(b) != len(a) || len(c) != len(a) {
		t.Fatalf("%d, %d, %d completions", len(a), len(b), len(c))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("completion %d differs between two runs: %+v, %+v", i, a[i], b[i])
		}
		if a[i].Tag != c[i].Tag || math.Abs(a[i].Start-c[i].Start) > 1e-9*a[i].Start || math.Abs(a[i].Finish-c[i].Finish) > 1e-9*a[i].Finish {
			t.Fatalf("completion %d: replay %+v, component re-solve %+v", i, a[i], c[i])
		}
		if a[i].Finish-a[i].Start < 0.5*(1-1e-12) {
			t.Fatalf("completion %d: %+v faster than the link rate allows", i, a[i])
		}
	}
}

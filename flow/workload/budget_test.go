package workload

import (
	"testing"

	"github.com/opasim/opasim/flow/static"
)

// TestMaxFlows: the bound an application's flows are estimated by is
// their number for every kind but the collectives, and at least it
// there; a limit caps the work and the answer.
func TestMaxFlows(t *testing.T) {
	for _, kind := range AppKinds() {
		for _, tasks := range []int{8, 27, 64} {
			a := App{Kind: kind, Tasks: tasks, Iterations: 3, Size: 8, Seed: 1}
			if kind == Bench {
				a.Pattern = "all-to-all"
			}
			if _, _, err := a.check(); err != nil {
				continue // a grid kind on tasks that are not its square or cube
			}
			flows, err := a.Flows()
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.MaxFlows(1 << 40)
			if err != nil {
				t.Fatal(err)
			}
			collective := kind == Allreduce || kind == Broadcast || kind == Alltoall
			if got < int64(len(flows)) || (!collective && got != int64(len(flows))) {
				t.Errorf("%s on %d tasks: bound %d for %d flows", kind, tasks, got, len(flows))
			}
			if capped, _ := a.MaxFlows(10); len(flows) > 10 && capped <= 10 {
				t.Errorf("%s on %d tasks: bound %d under a limit of 10 for %d flows", kind, tasks, capped, len(flows))
			}
		}
	}
	huge := App{Kind: NBody, Tasks: 1 << 24, Iterations: 1 << 20}
	if got, _ := huge.MaxFlows(1 << 30); got <= 1<<30 {
		t.Errorf("nbody of 2^24 tasks and 2^20 iterations: bound %d, want above the limit", got)
	}
}

// TestCountFlows: counting stops past the limit; below it the count is
// the pattern's, n(n-1) for all-to-all.
func TestCountFlows(t *testing.T) {
	p, _ := static.AllToAll(100)
	if got := static.CountFlows(p, 1<<20); got != 9900 {
		t.Errorf("all-to-all of 100: %d flows, want 9900", got)
	}
	if got := static.CountFlows(p, 1000); got <= 1000 || got > 1000+99 {
		t.Errorf("all-to-all of 100 counted to 1000: %d, want just past 1000 (a source's 99 at most)", got)
	}
}

// TestMarkovMaxFlows: a walk that never leaves comm and write until
// max_phases forces the end has every phase but init and end at its
// most flows (all-to-all among 8 tasks: 56; a write: 8), so its flows
// stay within the bound: (max_phases + 2) phases of 56 flows and a
// barrier each.
func TestMarkovMaxFlows(t *testing.T) {
	m := Markov{Tasks: 8, CommSize: 1, WriteSize: 1, MaxPhases: 50, Storage: []int32{9}, Comm: Spec{Name: "all-to-all"}}
	m.Matrix[PhaseInit][PhaseComm] = 1
	m.Matrix[PhaseComm][PhaseWrite] = 1
	m.Matrix[PhaseWrite][PhaseComm] = 0.999
	m.Matrix[PhaseWrite][PhaseEnd] = 0.001
	for _, ph := range []int{PhaseComp, PhaseRead, PhaseEnd} {
		m.Matrix[ph][PhaseEnd] = 1
	}
	bound := m.MaxFlows(1 << 40)
	if bound != 52*57 {
		t.Errorf("bound %d, want 52 phases of 57 flows, %d", bound, 52*57)
	}
	for seed := range uint64(20) {
		m.Seed = seed
		flows, walk, err := m.Flows(10)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(flows)) > bound {
			t.Errorf("seed %d: %d flows in %d phases, over the bound %d", seed, len(flows), len(walk), bound)
		}
	}
}

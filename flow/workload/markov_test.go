package workload

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
)

// TestMarkovByHand: a chain that goes init → comp → comm → write → end,
// on a star (flows meet only at their ends): no computation time, a
// shift-1 exchange of size 10 (10), then 4 writes of 5 into one storage
// server sharing its link (20): 30.
func TestMarkovByHand(t *testing.T) {
	m := Markov{Tasks: 4, CompMean: 0, Comm: Spec{Name: "shift"}, CommSize: 10, Storage: []int32{4}, WriteSize: 5, Seed: 1}
	m.Matrix[PhaseInit][PhaseComp] = 1
	m.Matrix[PhaseComp][PhaseComm] = 1
	m.Matrix[PhaseComm][PhaseWrite] = 1
	m.Matrix[PhaseWrite][PhaseEnd] = 1
	m.Matrix[PhaseRead][PhaseEnd] = 1
	m.Matrix[PhaseEnd][PhaseEnd] = 1
	flows, walk, err := m.Flows(5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(walk, []int{PhaseInit, PhaseComp, PhaseComm, PhaseWrite, PhaseEnd}) {
		t.Fatalf("walk %v", walk)
	}
	res, err := dynamic.Run(star(t, 5), flows)
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan != 30 || res.Unfinished != 0 {
		t.Errorf("makespan %v (%d unfinished), want 30", res.Makespan, res.Unfinished)
	}
}

// TestMarkovWalks: from comp, back to comp with probability 1/2, else to
// end: the number of comp phases is geometric of mean 2 (2,000 seeds:
// within 0.1), and computation times are exponential of the mean (so the
// makespan of a walk of c comp phases averages c·mean).
func TestMarkovWalks(t *testing.T) {
	m := Markov{Tasks: 2, CompMean: 3}
	m.Matrix[PhaseInit][PhaseComp] = 1
	m.Matrix[PhaseComp][PhaseComp] = 0.5
	m.Matrix[PhaseComp][PhaseEnd] = 0.5
	for _, ph := range []int{PhaseComm, PhaseRead, PhaseWrite, PhaseEnd} {
		m.Matrix[ph][PhaseEnd] = 1
	}
	comps, total := 0, 0.0
	for seed := uint64(0); seed < 2000; seed++ {
		m.Seed = seed
		flows, walk, err := m.Flows(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, ph := range walk {
			if ph == PhaseComp {
				comps++
			}
		}
		res, _ := dynamic.Run(star(t, 2), flows)
		total += res.Makespan
	}
	if mean := float64(comps) / 2000; math.Abs(mean-2) > 0.1 {
		t.Errorf("comp phases %v a walk, want about 2", mean)
	}
	if mean := total / 2000; math.Abs(mean-6) > 0.5 {
		t.Errorf("makespan %v on average, want about 2 × 3", mean)
	}
}

func TestMarkovRefused(t *testing.T) {
	m := Markov{Tasks: 4}
	m.Matrix[PhaseInit][PhaseComp] = 0.7
	m.Matrix[PhaseComp][PhaseRead] = 1
	m.Matrix[PhaseRead][PhaseComp] = 1
	m.Matrix[PhaseEnd][PhaseEnd] = 0.5
	err := m.Check(3)
	for _, want := range []string{
		"markov tasks: 4 is not allowed: must be in [2, 3]",
		"markov matrix row init: sums to 0.7, must sum to 1",
		"markov matrix[end][end]: 0.5 is not allowed",
		"end cannot be reached from init",
		"markov storage: [] is not allowed",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v; want %q", err, want)
		}
	}
}

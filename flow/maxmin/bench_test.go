package maxmin

import (
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// allToAllSolver loads a solver with the d-mod-k paths of all-to-all
// traffic on a k-ary n-tree.
func allToAllSolver(b *testing.B, k, n int) (*Solver, [][]int32) {
	tr, err := graph.NewTree(k, n, 1)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(tr.Capacities())
	if err != nil {
		b.Fatal(err)
	}
	r := route.NewDModK(tr)
	var paths [][]int32
	for src := int32(0); src < int32(tr.NumServers()); src++ {
		for dst := int32(0); dst < int32(tr.NumServers()); dst++ {
			if src != dst {
				p := r.AppendPath(nil, src, dst)
				paths = append(paths, p)
				if _, err := s.AddFlow(p, NoCap); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return s, paths
}

// BenchmarkSolveAll: max-min rates from scratch for all-to-all on a
// 16-ary 2-tree (65,280 flows of 2 or 4 links over 1,024 links).
func BenchmarkSolveAll(b *testing.B) {
	s, paths := allToAllSolver(b, 16, 2)
	for b.Loop() {
		s.SolveAll()
	}
	b.ReportMetric(float64(len(paths)), "flows")
}

// BenchmarkIncrementalConnected: remove one flow, add it back, solve, on
// the same system: every flow is in one connected component, so each
// solve re-solves them all.
func BenchmarkIncrementalConnected(b *testing.B) {
	s, paths := allToAllSolver(b, 16, 2)
	s.Solve()
	i := 0
	for b.Loop() {
		id := FlowID(i % len(paths))
		s.RemoveFlow(id)
		s.AddFlow(paths[id], NoCap)
		s.Solve()
		i += 7919
	}
}

// BenchmarkIncrementalSparse: 16,384 flows of one shift permutation on a
// 64x256 torus (each flow alone in its component): remove one flow, add
// it back, solve — a selective update touches three links.
func BenchmarkIncrementalSparse(b *testing.B) {
	tor, err := graph.NewTorus([]int{64, 256}, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(tor.Capacities())
	if err != nil {
		b.Fatal(err)
	}
	r := route.NewDOR(tor)
	n := int32(tor.NumServers())
	var paths [][]int32
	for src := int32(0); src < n; src++ {
		p := r.AppendPath(nil, src, (src+1)%n)
		paths = append(paths, p)
		s.AddFlow(p, NoCap)
	}
	s.Solve()
	i := 0
	for b.Loop() {
		id := FlowID(i % len(paths))
		s.RemoveFlow(id)
		s.AddFlow(paths[id], NoCap)
		s.Solve()
		i += 7919
	}
}

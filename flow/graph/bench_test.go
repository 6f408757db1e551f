package graph

import "testing"

// BenchmarkNewTree1M builds a 1,048,576-server 32-ary 4-tree.
func BenchmarkNewTree1M(b *testing.B) {
	for b.Loop() {
		t, err := NewTree(32, 4, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(t.MemoryBytes())/1e6, "MB")
	}
}

// BenchmarkNewTorus1M builds a 1,048,576-server 64x64x64 torus with 4
// servers per switch.
func BenchmarkNewTorus1M(b *testing.B) {
	for b.Loop() {
		t, err := NewTorus([]int{64, 64, 64}, 4, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(t.MemoryBytes())/1e6, "MB")
	}
}

// BenchmarkDistances runs the breadth-first search from one server of a
// 16-ary 3-tree (4,096 servers, 24,576 links).
func BenchmarkDistances(b *testing.B) {
	t, err := NewTree(16, 3, 1)
	if err != nil {
		b.Fatal(err)
	}
	dist := make([]int32, t.NumNodes())
	var q []int32
	s := int32(0)
	for b.Loop() {
		q = t.Distances(s, dist, q)
		s = (s + 97) % int32(t.NumServers())
	}
}

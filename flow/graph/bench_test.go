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

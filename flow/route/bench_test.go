package route

import "testing"

// BenchmarkDModKAllToAll routes every pair of a 16-ary 3-tree once.
func BenchmarkDModKAllToAll(b *testing.B) {
	tr := mustTree(b, 16, 3)
	r := NewDModK(tr)
	n := int32(tr.NumServers())
	var buf []int32
	links := 0
	for b.Loop() {
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				if d != s {
					buf = r.AppendPath(buf[:0], s, d)
					links += len(buf)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*(n-1)), "ns/flow")
}

// BenchmarkDORAllToAll routes every pair of a 16x16x8 torus once.
func BenchmarkDORAllToAll(b *testing.B) {
	tor := mustTorus(b, []int{16, 16, 8}, 1)
	r := NewDOR(tor)
	n := int32(tor.NumServers())
	var buf []int32
	links := 0
	for b.Loop() {
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				if d != s {
					buf = r.AppendPath(buf[:0], s, d)
					links += len(buf)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*(n-1)), "ns/flow")
	b.ReportMetric(float64(links)/float64(b.N)/float64(n*(n-1)), "links/flow")
}

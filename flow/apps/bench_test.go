package apps

import (
	"fmt"
	"testing"
)

// BenchmarkFCFS: the reference workload on a 4,096-server 16-ary 3-tree
// with d-mod-k routing: applications of 64 tasks, all-to-all with flows
// of size 8192, one arriving every 7 time units; 200 applications
// (806,400 flows) and 1,000 (4,032,000 flows).
func BenchmarkFCFS(b *testing.B) {
	r := treeRouter(b, 16, 3)
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("apps=%d", n), func(b *testing.B) {
			var rep *Report
			for b.Loop() {
				rep = runFCFS(b, r, FCFSConfig{Apps: n, Tasks: 64, FlowSize: 8192, Interval: 7})
			}
			s := Summarize(rep.Apps)
			b.ReportMetric(float64(rep.Flows), "flows")
			b.ReportMetric(rep.Makespan, "makespan")
			b.ReportMetric(s.MeanWait, "mean-wait")
			b.ReportMetric(s.MaxWait, "max-wait")
			b.ReportMetric(s.MeanRuntime, "mean-runtime")
			b.ReportMetric(float64(rep.Stats.Batches), "batches")
			b.ReportMetric(float64(rep.Stats.MaxActive), "max-active")
		})
	}
}

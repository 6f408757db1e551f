package apps

import (
	"fmt"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
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

// BenchmarkGiantComponent: closed-loop uniform traffic on the 4,096-server
// 16-ary 3-tree, d-mod-k: every server keeps 4 flows running (16,384 at
// all times, sizes uniform in [0.5, 1.5]); the flows share links
// into one connected component, so every completion re-solves it. The
// run stops after 1,000 completions (about 1,000 batches): ns/batch is the
// cost of one event.
func BenchmarkGiantComponent(b *testing.B) {
	r := treeRouter(b, 16, 3)
	var st dynamic.Stats
	for b.Loop() {
		var err error
		if st, err = RunUniform(r, UniformConfig{PerServer: 4, Completions: 1000, MinSize: 0.5, MaxSize: 1.5, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(st.Batches), "ns/batch")
	b.ReportMetric(float64(st.Batches), "batches")
	b.ReportMetric(float64(st.Resolved)/float64(st.Batches), "resolved/batch")
	b.ReportMetric(float64(st.Changed)/float64(st.Batches), "changed/batch")
	b.ReportMetric(float64(st.MaxActive), "max-active")
	b.ReportMetric(st.Makespan, "last-completion")
}

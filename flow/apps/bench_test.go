package apps

import (
	"fmt"
	"testing"
	"time"

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
			cpu := cpuSeconds()
			for b.Loop() {
				rep = runFCFS(b, r, FCFSConfig{Apps: n, Tasks: 64, FlowSize: 8192, Interval: 7})
			}
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
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

// timed wraps a workload and notes the wall and CPU time of its first
// and last flow completions.
type timed struct {
	dynamic.Workload
	n                   int
	wall0, wall1        time.Time
	cpu0, cpu1          float64
	batch0, batches     int
	changed0, resolved0 int64
	e                   *dynamic.Engine
}

func (w *timed) FlowDone(e *dynamic.Engine, d dynamic.Done) error {
	w.n++
	if w.n == 1 {
		w.wall0, w.cpu0 = time.Now(), cpuSeconds()
	}
	w.wall1, w.cpu1 = time.Now(), cpuSeconds()
	return w.Workload.FlowDone(e, d)
}

// BenchmarkGiantComponent: closed-loop uniform traffic on the 4,096-server
// 16-ary 3-tree, d-mod-k: every server keeps 4 flows running (16,384 at
// all times, sizes uniform in [0.5, 1.5]); they share links into one
// connected component. ns/event and cpu-ns/event are the steady-state
// cost of one event (a completion and the flow replacing it: every
// completion time is distinct), timed from the first completion to the
// last (the 16,384 initial flows and their first solve are left out).
// solve=replay is the engine's default; solve=component re-solves the
// whole touched component at each event (SimGrid's selective update).
func BenchmarkGiantComponent(b *testing.B) {
	r := treeRouter(b, 16, 3)
	for _, c := range []struct {
		mode   string
		events int64
	}{{"replay", 3000}, {"component", 300}} {
		b.Run("solve="+c.mode, func(b *testing.B) {
			var st dynamic.Stats
			var w *timed
			for b.Loop() {
				u, err := NewUniform(r.Graph().NumServers(), UniformConfig{PerServer: 4, Completions: c.events, MinSize: 0.5, MaxSize: 1.5, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				e, err := dynamic.New(r, dynamic.Options{ComponentSolve: c.mode == "component"})
				if err != nil {
					b.Fatal(err)
				}
				w = &timed{Workload: u}
				if st, err = e.Run(w); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(w.n - 1)
			b.ReportMetric(float64(w.wall1.Sub(w.wall0).Nanoseconds())/n, "ns/event")
			b.ReportMetric((w.cpu1-w.cpu0)*1e9/n, "cpu-ns/event")
			b.ReportMetric(float64(st.Batches), "batches")
			b.ReportMetric(float64(st.Resolved)/float64(st.Batches), "resolved/batch")
			b.ReportMetric(float64(st.Changed)/float64(st.Batches), "changed/batch")
			b.ReportMetric(float64(st.MaxActive), "max-active")
		})
	}
}

package dynamic

import (
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

func benchDynamic(b *testing.B, r route.Router, flows []Flow) {
	b.Helper()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Run(r, flows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(flows)), "flows")
	b.ReportMetric(float64(res.Batches), "batches")
	b.ReportMetric(float64(res.Resolved), "resolved")
	b.ReportMetric(res.Makespan, "makespan")
}

// lcg is a small deterministic generator for workloads.
type lcg uint64

func (x *lcg) float() float64 {
	*x = *x*6364136223846793005 + 1442695040888963407
	return float64(*x>>11) / (1 << 53)
}

// BenchmarkUniformTree: 8-ary 3-tree (512 servers), d-mod-k, 4 flows per
// server to uniform random destinations, sizes uniform in [0.5, 1.5],
// start times uniform in [0, 10): 2,048 flows.
func BenchmarkUniformTree(b *testing.B) {
	tr, err := graph.NewTree(8, 3, 1)
	if err != nil {
		b.Fatal(err)
	}
	x := lcg(1)
	n := tr.NumServers()
	var flows []Flow
	for s := range n {
		for range 4 {
			d := int(x.float() * float64(n-1))
			if d >= s {
				d++
			}
			flows = append(flows, Flow{Src: int32(s), Dst: int32(d), Size: 0.5 + x.float(), Start: 10 * x.float()})
		}
	}
	benchDynamic(b, route.NewDModK(tr), flows)
}

// BenchmarkPhasedAllToAll: 4-ary 3-tree (64 servers), d-mod-k, all-to-all
// in 63 shift phases (phase p: server s sends to s+p; each flow waits for
// the previous phase's flow from the same server), sizes uniform in
// [0.5, 1.5]: 4,032 flows.
func BenchmarkPhasedAllToAll(b *testing.B) {
	tr, err := graph.NewTree(4, 3, 1)
	if err != nil {
		b.Fatal(err)
	}
	x := lcg(2)
	n := tr.NumServers()
	var flows []Flow
	for p := 1; p < n; p++ {
		for s := range n {
			f := Flow{Src: int32(s), Dst: int32((s + p) % n), Size: 0.5 + x.float()}
			if p > 1 {
				f.Deps = []int{len(flows) - n}
			}
			flows = append(flows, f)
		}
	}
	benchDynamic(b, route.NewDModK(tr), flows)
}

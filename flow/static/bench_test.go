package static

import (
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/topology"
)

func benchRun(b *testing.B, r route.Router, p Pattern, workers int) {
	b.Helper()
	var res *Result
	cpu0 := cpuSeconds()
	for b.Loop() {
		var err error
		if res, err = Run(r, p, Options{Workers: workers}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(res.Flows), "flows")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Flows), "ns/flow")
	b.ReportMetric(res.MaxLoad, "maxload")
	b.ReportMetric(res.NonRestricted, "nonrestricted")
	b.ReportMetric(res.Restricted, "restricted")
}

func benchTree(b *testing.B, k, n, workers int) {
	tr, err := graph.NewTree(k, n, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := AllToAll(tr.NumServers())
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, route.NewDModK(tr), p, workers)
}

func benchTorus(b *testing.B, dims []int, workers int) {
	if testing.Short() {
		b.Skip("a 32x32x16 torus all-to-all takes tens of seconds")
	}
	tor, err := graph.NewTorus(dims, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := AllToAll(tor.NumServers())
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, route.NewDOR(tor), p, workers)
}

// BenchmarkTreeAllToAll: 16-ary 3-tree (4,096 servers), d-mod-k,
// all-to-all: 16,773,120 flows.
func BenchmarkTreeAllToAll(b *testing.B)         { benchTree(b, 16, 3, 1) }
func BenchmarkTreeAllToAllWorkers2(b *testing.B) { benchTree(b, 16, 3, 2) }

// BenchmarkTorusAllToAll: 32x32x16 torus, one server per switch (16,384
// servers), DOR, all-to-all: 268,419,072 flows.
func BenchmarkTorusAllToAll(b *testing.B)         { benchTorus(b, []int{32, 32, 16}, 1) }
func BenchmarkTorusAllToAllWorkers2(b *testing.B) { benchTorus(b, []int{32, 32, 16}, 2) }

// BenchmarkSmallTorusAllToAll: 16x16x8 torus (2,048 servers), DOR,
// all-to-all: 4,192,256 flows.
func BenchmarkSmallTorusAllToAll(b *testing.B) { benchTorus(b, []int{16, 16, 8}, 1) }

// BenchmarkTreeECMPAllToAll: 8-ary 3-tree (512 servers), ECMP over all
// shortest paths (up to 64 per flow), all-to-all: 261,632 flows.
func BenchmarkTreeECMPAllToAll(b *testing.B) {
	tr, err := graph.NewTree(8, 3, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := AllToAll(tr.NumServers())
	if err != nil {
		b.Fatal(err)
	}
	e, err := route.NewECMP(tr.Graph, 0)
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, e, p, 1)
}

// benchCold runs p with a router made afresh (empty path cache) each time.
func benchCold(b *testing.B, mk func() route.Router, p Pattern) {
	b.Helper()
	var res *Result
	var st route.CacheStats
	cpu0 := cpuSeconds()
	for b.Loop() {
		r := mk()
		var err error
		if res, err = Run(r, p, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
		st = r.(interface{ Cache() *route.PathCache }).Cache().Stats()
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(res.Flows), "flows")
	b.ReportMetric(float64(res.Paths)/float64(res.Flows), "paths/flow")
	b.ReportMetric(float64(st.Entries), "pairs")
	b.ReportMetric(float64(st.Bytes)/1e6, "cacheMB")
	b.ReportMetric(res.MaxLoad, "maxload")
}

// BenchmarkTreeKSPAllToAll: 8-ary 3-tree (512 servers, 64 leaves), KSP-8,
// all-to-all (261,632 flows, 4,096 leaf pairs), from an empty cache.
func BenchmarkTreeKSPAllToAll(b *testing.B) {
	tr, err := graph.NewTree(8, 3, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := AllToAll(tr.NumServers())
	benchCold(b, func() route.Router {
		r, err := route.NewKSP(tr.Graph, 8, nil)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}, p)
}

// BenchmarkTorusAllPathAllToAll: 8x8 torus with 4 servers per switch (256
// servers), AllPath-2 bounded to 32 paths, all-to-all (65,280 flows, 4,096
// switch pairs), from an empty cache.
func BenchmarkTorusAllPathAllToAll(b *testing.B) {
	tor, err := graph.NewTorus([]int{8, 8}, 4, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := AllToAll(tor.NumServers())
	benchCold(b, func() route.Router {
		r, err := route.NewAllPath(tor.Graph, 2, 32, nil)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}, p)
}

// BenchmarkDCellKSPAllToAll: DCell_2 of 3-port switches (156 servers of 3
// ports, each its own end node), KSP-4, all-to-all (24,180 flows and as
// many pairs), from an empty cache.
func BenchmarkDCellKSPAllToAll(b *testing.B) {
	d, err := topology.NewDCell(3, 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := AllToAll(d.NumServers())
	benchCold(b, func() route.Router {
		r, err := route.NewKSP(d.Graph, 4, nil)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}, p)
}

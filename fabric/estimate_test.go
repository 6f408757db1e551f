package fabric

import (
	"runtime"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/internal/testlong"
)

// TestEstimateBytes: the estimate of what Build allocates is within a
// factor of two of the heap a built network really takes, on networks
// where each of its terms dominates (a wide switch: the radix² request
// slots; tori and trees: ports and latency histograms).
func TestEstimateBytes(t *testing.T) {
	testlong.Skip(t, "builds networks of up to 200 MB")
	torus := func(d []int) func(*Config) {
		return func(c *Config) {
			c.Topology = TopologyConfig{Kind: "torus", Dims: d, NICsPerSwitch: 8, Trunk: 2}
			c.Switch.CentralBufferFlits = 8192
		}
	}
	tree := func(k, n int) func(*Config) {
		return func(c *Config) { c.Topology = TopologyConfig{Kind: "tree", K: k, N: n} }
	}
	for name, f := range map[string]func(*Config){
		"single 64":   func(c *Config) { c.Topology.Ports = 64 },
		"single 1024": func(c *Config) { c.Topology.Ports = 1024 },
		"torus 8x8":   torus([]int{8, 8}),
		"torus 4x4":   torus([]int{4, 4}),
		"tree 8 3":    tree(8, 3),
		"tree 24 2":   tree(24, 2),
		"tree 4 4":    tree(4, 4),
	} {
		cfg := Default()
		f(&cfg)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := Build(cfg, sched.Default())
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(n)
		built, run := estimate(cfg)
		ratio := float64(built) / float64(heap)
		t.Logf("%-12s heap %7.1f MB, estimate %7.1f MB (x%.2f), run adds up to %.1f MB", name, float64(heap)/1e6, float64(built)/1e6, ratio, float64(run)/1e6)
		if ratio < 0.5 || ratio > 2 {
			t.Errorf("%s: estimated %d bytes, built %d: off by more than a factor of 2", name, built, heap)
		}
	}
}

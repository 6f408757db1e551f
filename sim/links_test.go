package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/workloads"
)

// linkCase is a network under a deterministic pattern at a constant bit
// rate, below saturation, so that every link carries exactly what the
// routes crossing it send: load × its channel load (topo.ChannelLoads).
func linkCase(t *testing.T, preset, pattern string) (fabric.Config, *topo.ChannelLoad) {
	t.Helper()
	cfg := fabric.Default()
	cfg.Topology = fabric.TopologyConfig{Preset: preset}
	cfg.Traffic.Pattern, cfg.Traffic.Process = pattern, "cbr"
	cfg.Cycles, cfg.Warmup, cfg.Engine = 12000, 2000, "sequential"
	spec := cfg.TopologySpec()
	tp, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := topo.DefaultRegistry().NewWith(spec.Routing, tp, cfg.SCTables(), spec.Options)
	if err != nil {
		t.Fatal(err)
	}
	p, err := workloads.NewPattern(pattern, workloads.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dst := make([]int, tp.NumNICs())
	for src := range dst {
		dst[src] = p(src, len(dst), rng)
	}
	l, err := topo.ChannelLoads(tp, r, topo.PermutationDemand(dst), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Traffic.Load = math.Min(0.4, 0.4/l.Stats().Max)
	return cfg, l
}

// TestLinkUtilizationMatchesChannelLoad: each link's measured utilization
// is the offered load times its channel load, computed independently by
// routing every flow (topo.ChannelLoads), on a torus and a tree, within
// what the window's edges and the packets in flight at them allow.
func TestLinkUtilizationMatchesChannelLoad(t *testing.T) {
	for _, c := range []struct{ preset, pattern string }{
		{"torus2d-4x4", "transpose"}, {"torus2d-4x4", "bit_complement"}, {"tree-8ary-2", "shuffle"}, {"tree-8ary-2", "bit_reversal"},
	} {
		t.Run(c.preset+"/"+c.pattern, func(t *testing.T) {
			cfg, l := linkCase(t, c.preset, c.pattern)
			r, err := Simulate(context.Background(), cfg, map[string]Engine{"sequential": Sequential{}}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Links == nil {
				t.Fatal("no link results")
			}
			// A link's flits in the window are off by at most the packets
			// crossing each of its flows' window edges.
			tol := 4 * float64(cfg.Traffic.MessageFlits) / float64(r.MeasuredCycles)
			worst, busy := 0.0, 0
			for _, u := range r.Links.Links {
				want := cfg.Traffic.Load * l.In[max(u.NIC, 0)]
				if u.NIC < 0 {
					want = cfg.Traffic.Load * l.Out[u.Switch][u.Port]
				}
				if want > 0 {
					busy++
				}
				if d := math.Abs(u.Utilization - want); d > tol*math.Max(1, want/cfg.Traffic.Load) {
					t.Errorf("%s → %s (%s): utilization %.4f, want %.4f", u.From, u.To, u.Class, u.Utilization, want)
				} else {
					worst = max(worst, d)
				}
				var sum float64
				for _, v := range u.PerVL {
					sum += v
				}
				if math.Abs(sum-u.Utilization) > 1e-9 {
					t.Errorf("%s: VLs sum to %.6f, the link %.6f", u.From, sum, u.Utilization)
				}
			}
			if busy == 0 {
				t.Fatal("no link has a route: the case tests nothing")
			}
			t.Logf("%d links, %d with routes, load %.3f, worst difference %.5f (tolerance %.5f)", len(r.Links.Links), busy, cfg.Traffic.Load, worst, tol)
		})
	}
}

// TestLinkClassesSummarize: each class's count, mean, min and max are
// those of its links, and every wired link appears once.
func TestLinkClassesSummarize(t *testing.T) {
	cfg, _ := linkCase(t, "torus2d-4x4", "transpose")
	r, err := Simulate(context.Background(), cfg, map[string]Engine{"sequential": Sequential{}}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wired := 0
	for _, l := range n.Links() {
		if l.Wired() {
			wired++
		}
	}
	if len(r.Links.Links) != wired {
		t.Fatalf("%d links in the results, the network has %d", len(r.Links.Links), wired)
	}
	for _, c := range r.Links.Classes {
		var k int
		var sum, lo, hi = 0.0, math.Inf(1), math.Inf(-1)
		for _, u := range r.Links.Links {
			if u.Class == c.Class {
				k, sum, lo, hi = k+1, sum+u.Utilization, min(lo, u.Utilization), max(hi, u.Utilization)
			}
		}
		got := fmt.Sprintf("%d %.9f %.9f %.9f", c.Links, c.Mean, c.Min, c.Max)
		if want := fmt.Sprintf("%d %.9f %.9f %.9f", k, sum/float64(k), lo, hi); got != want {
			t.Errorf("class %s: %s, its links give %s", c.Class, got, want)
		}
	}
}

package route_test

import (
	"math/rand/v2"
	"testing"

	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/topology"
)

// BenchmarkECMPJellyfishRandomSources routes single-path (BFS) flows
// between random servers, sources in no order, on the 64k study's
// jellyfish (4,096 switches of 32 ports, 16 to switches: 65,536
// servers), one flow an op. cold starts from a new router, so it counts
// the searches of the roots first met; warm from one that has routed a
// flow from every switch.
func BenchmarkECMPJellyfishRandomSources(b *testing.B) {
	jf, err := topology.NewJellyfish(4096, 32, 16, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	n := int32(jf.NumServers())
	rng := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int32, 1<<16)
	for i := range pairs {
		s := rng.Int32N(n)
		d := (s + 1 + rng.Int32N(n-1)) % n
		pairs[i] = [2]int32{s, d}
	}
	links := 0
	fn := func(path []int32, _ float64) { links += len(path) }
	run := func(b *testing.B, r route.Router) {
		i := 0
		for b.Loop() {
			p := pairs[i%len(pairs)]
			if err := r.Route(p[0], p[1], fn); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("cold", func(b *testing.B) {
		r, err := route.NewECMP(jf.Graph, 1)
		if err != nil {
			b.Fatal(err)
		}
		run(b, r)
	})
	b.Run("warm", func(b *testing.B) {
		r, err := route.NewECMP(jf.Graph, 1)
		if err != nil {
			b.Fatal(err)
		}
		for s := int32(0); s < n; s += n / 4096 {
			if err := r.Route(s, (s+1)%n, fn); err != nil {
				b.Fatal(err)
			}
		}
		run(b, r)
	})
}

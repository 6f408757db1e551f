package collective

import "testing"

// BenchmarkPart is one rank's Part of a 512-rank collective, the ranks
// taken in turn, with a reused buf: what a replay pays per rank and
// collective.
func BenchmarkPart(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec Spec
	}{
		{"alltoall", alltoallSpec(blocks(512), 0)},
		{"alltoall_vector", alltoallSpec(blocks(512), 1)},
		{"allreduce_recursive_doubling", allreduceSpec(512, 1<<20, RecursiveDoubling)},
		{"allreduce_recursive_doubling_500", allreduceSpec(500, 1<<20, RecursiveDoubling)},
		{"allreduce_ring", allreduceSpec(512, 1<<20, Ring)},
		{"allreduce_reduce_broadcast", allreduceSpec(512, 1<<20, ReduceBroadcast)},
		{"gather_binomial", gatherSpec(blocks(512), 0, Binomial)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var buf []Round
			rank := 0
			for b.Loop() {
				buf = bc.spec.Part(rank, buf)
				rank = (rank + 1) % bc.spec.Size
			}
		})
	}
}

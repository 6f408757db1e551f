package tracegen

import (
	"math/rand/v2"

	"github.com/opasim/opasim/workloads/vef"
)

// randomaccess: in iteration i, update j of task t is message
// i·N·U + j·N + t, so the first update of every task comes first and
// iteration 0's first updates, the independent records, open the file.
// Update j > 0 follows the task's update j-1 (dep 1, C later); update 0
// follows the barrier G(i-1), and each task's part of barrier G(i)
// follows its update U-1 of iteration i.

// pcgStream is the PCG's second seed word, fixed so that Seed alone
// chooses the draws.
const pcgStream = 0x7261_6e64_6163_6373 // "randaccs"

func randomAccessCounts(p Params) vef.Header {
	n, it, u := int64(p.Tasks), int64(p.Iterations), int64(p.updates())
	return counts(p.Tasks, mul(n, u, it), it-1, mul(n, it-1), true)
}

func writeRandomAccess(e emitter, p Params) error {
	rng := rand.New(rand.NewPCG(p.Seed, pcgStream))
	n, u := int64(p.Tasks), int64(p.updates())
	for i := int64(0); i < int64(p.Iterations); i++ {
		base := i * n * u
		for j := int64(0); j < u; j++ {
			for t := int64(0); t < n; t++ {
				id := base + j*n + t
				var dep vef.Dep
				switch {
				case j > 0:
					dep = afterSend(id-n, p.ComputeNS)
				case i > 0:
					dep = afterCollective(i-1, 0)
				default:
					dep = at(0)
				}
				dst, size := updateTo(rng, int(t), p.Tasks, p.Bytes)
				if err := e.send(id, int(t), dst, size, dep); err != nil {
					return err
				}
			}
		}
		if i == int64(p.Iterations)-1 {
			break
		}
		for t := int64(0); t < n; t++ {
			if err := e.part(i, 0, vef.Barrier, int(t), 0, 0, afterSend(base+(u-1)*n+t, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}

// updateTo draws the destination of an update from task src, any of the
// n-1 other tasks, then its size: a multiple of 8 in [8, bytes], or bytes
// when that is below 8.
func updateTo(rng *rand.Rand, src, n int, bytes int64) (int, int64) {
	dst := rng.IntN(n - 1)
	if dst >= src {
		dst++
	}
	if bytes < 8 {
		return dst, bytes
	}
	return dst, 8 * (1 + rng.Int64N(bytes/8))
}

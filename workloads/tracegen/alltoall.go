package tracegen

import "github.com/opasim/opasim/workloads/vef"

// alltoall: iteration i is collective G(i) on C0, every task sending B
// bytes to every task (recv_bytes 0); a task joins G(i) C after its part
// of G(i-1) ends.

func alltoallCounts(p Params) vef.Header {
	n, it := int64(p.Tasks), int64(p.Iterations)
	return counts(p.Tasks, 0, it, mul(n, it), true)
}

func writeAlltoall(e emitter, p Params) error {
	for g := int64(0); g < int64(p.Iterations); g++ {
		dep := at(0)
		if g > 0 {
			dep = afterCollective(g-1, p.ComputeNS)
		}
		for t := 0; t < p.Tasks; t++ {
			if err := e.part(g, 0, vef.Alltoall, t, p.Bytes, 0, dep); err != nil {
				return err
			}
		}
	}
	return nil
}

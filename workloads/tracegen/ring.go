package tracegen

import "github.com/opasim/opasim/workloads/vef"

// ring: in iteration i task t sends message i·N + t to (t+1) mod N, C
// after receiving message (i-1)·N + (t-1) mod N, which came to it from
// its predecessor in iteration i-1.

func ringCounts(p Params) vef.Header {
	n := int64(p.Tasks)
	return counts(p.Tasks, mul(n, int64(p.Iterations)), 0, 0, p.Iterations == 1)
}

func writeRing(e emitter, p Params) error {
	n := int64(p.Tasks)
	for i := int64(0); i < int64(p.Iterations); i++ {
		for t := int64(0); t < n; t++ {
			dep := at(0)
			if i > 0 {
				dep = afterReceive((i-1)*n+(t+n-1)%n, p.ComputeNS)
			}
			if err := e.send(i*n+t, int(t), int((t+1)%n), p.Bytes, dep); err != nil {
				return err
			}
		}
	}
	return nil
}

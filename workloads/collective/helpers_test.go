package collective

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/opasim/opasim/workloads/vef"
)

// The specs below are shaped as VEF.md's op table has a trace's parts.

func broadcastSpec(p, root int, x int64, alg string) Spec {
	s := Spec{Op: vef.Broadcast, Algorithm: alg, Size: p, Root: root, SendBytes: make([]int64, p), RecvBytes: make([]int64, p)}
	for i := range p {
		if i == root {
			s.SendBytes[i] = x
		} else {
			s.RecvBytes[i] = x
		}
	}
	return s
}

func reduceSpec(p, root int, x int64, alg string) Spec {
	s := broadcastSpec(p, root, x, alg)
	s.Op, s.SendBytes, s.RecvBytes = vef.Reduce, s.RecvBytes, s.SendBytes
	return s
}

func allreduceSpec(p int, x int64, alg string) Spec {
	s := Spec{Op: vef.Allreduce, Algorithm: alg, Size: p, SendBytes: make([]int64, p), RecvBytes: make([]int64, p)}
	for i := range p {
		s.SendBytes[i], s.RecvBytes[i] = x, x
	}
	return s
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

func gatherSpec(xs []int64, root int, alg string) Spec {
	p := len(xs)
	s := Spec{Op: vef.Gather, Algorithm: alg, Size: p, Root: root, SendBytes: append([]int64(nil), xs...), RecvBytes: make([]int64, p)}
	s.RecvBytes[root] = sum(xs)
	return s
}

func scatterSpec(xs []int64, root int, alg string) Spec {
	s := gatherSpec(xs, root, alg)
	s.Op, s.SendBytes, s.RecvBytes = vef.Scatter, s.RecvBytes, s.SendBytes
	return s
}

func allgatherSpec(xs []int64, alg string) Spec {
	p := len(xs)
	s := Spec{Op: vef.Allgather, Algorithm: alg, Size: p, SendBytes: append([]int64(nil), xs...), RecvBytes: make([]int64, p)}
	for i := range p {
		s.RecvBytes[i] = sum(xs)
	}
	return s
}

func barrierSpec(p int) Spec {
	return Spec{Op: vef.Barrier, Size: p, SendBytes: make([]int64, p), RecvBytes: make([]int64, p)}
}

func alltoallSpec(sends []int64, flag int64) Spec {
	p := len(sends)
	s := Spec{Op: vef.Alltoall, Size: p, SendBytes: append([]int64(nil), sends...), RecvBytes: make([]int64, p)}
	for i := range p {
		s.RecvBytes[i] = flag
	}
	return s
}

// blocks are per-rank sizes with zeros and repeats among them: 0 .. 6.
func blocks(p int) []int64 {
	xs := make([]int64, p)
	for i := range xs {
		xs[i] = int64(i * 5 % 7)
	}
	return xs
}

// makeSpec is a spec of op for the broad tests; variant picks the
// alltoall flag.
func makeSpec(op vef.Op, alg string, p, root int, variant int64) Spec {
	switch op {
	case vef.Broadcast:
		return broadcastSpec(p, root, 100, alg)
	case vef.Reduce:
		return reduceSpec(p, root, 100, alg)
	case vef.Allreduce:
		return allreduceSpec(p, 1000, alg)
	case vef.Gather:
		return gatherSpec(blocks(p), root, alg)
	case vef.Scatter:
		return scatterSpec(blocks(p), root, alg)
	case vef.Allgather:
		return allgatherSpec(blocks(p), alg)
	case vef.Barrier:
		return barrierSpec(p)
	}
	s := alltoallSpec(blocks(p), variant)
	for i := range s.SendBytes {
		s.SendBytes[i] *= 37
	}
	return s
}

func byRoundFrom(a, b Transfer) int {
	return cmp.Or(cmp.Compare(a.Round, b.Round), cmp.Compare(a.From, b.From))
}

type key struct{ round, rank int }

// lower asks every rank for its part and checks that the parts agree: each
// rank's rounds in order, each with a send from it or a receive to it in
// that round; every send received by its destination in the same round,
// the same transfer, and every receive sent; indices unique and below
// Rounds()*Size; every round from 0 to Rounds()-1 used. It returns the
// transfers, by round then sender.
func lower(t *testing.T, s *Spec) []Transfer {
	t.Helper()
	if err := s.Check(); err != nil {
		t.Fatalf("Check() = %v", err)
	}
	rounds := s.Rounds()
	sends, recvs := map[key]Transfer{}, map[key]Transfer{}
	var buf []Round
	for rank := range s.Size {
		buf = s.Part(rank, buf)
		if err := checkPart(s, rank, rounds, buf, sends, recvs); err != nil {
			t.Fatalf("%s %q P=%d root %d, rank %d: %v", s.Op, s.Algorithm, s.Size, s.Root, rank, err)
		}
	}
	var all []Transfer
	used := make([]bool, rounds)
	index := map[int64]bool{}
	for k, snd := range sends {
		if rcv, ok := recvs[key{k.round, snd.To}]; !ok || rcv != snd {
			t.Fatalf("%s %q P=%d: send %+v received as %+v (found %v)", s.Op, s.Algorithm, s.Size, snd, rcv, ok)
		}
		i := snd.Index(s.Size)
		if index[i] || i < 0 || i >= int64(rounds)*int64(s.Size) {
			t.Fatalf("%s %q P=%d: index %d of %+v repeated or outside [0, %d)", s.Op, s.Algorithm, s.Size, i, snd, rounds*s.Size)
		}
		index[i] = true
		used[snd.Round] = true
		all = append(all, snd)
	}
	for k, rcv := range recvs {
		if snd, ok := sends[key{k.round, rcv.From}]; !ok || snd != rcv {
			t.Fatalf("%s %q P=%d: receive %+v sent as %+v (found %v)", s.Op, s.Algorithm, s.Size, rcv, snd, ok)
		}
	}
	for r, u := range used {
		if !u {
			t.Fatalf("%s %q P=%d: round %d of %d has no transfer", s.Op, s.Algorithm, s.Size, r, rounds)
		}
	}
	slices.SortFunc(all, byRoundFrom)
	return all
}

func checkPart(s *Spec, rank, rounds int, part []Round, sends, recvs map[key]Transfer) error {
	last := -1
	for _, r := range part {
		if r.Round <= last || r.Round >= rounds {
			return fmt.Errorf("round %d after round %d, of %d", r.Round, last, rounds)
		}
		last = r.Round
		if r.Send == nil && r.Recv == nil {
			return fmt.Errorf("round %d has neither send nor receive", r.Round)
		}
		if t := r.Send; t != nil {
			if t.From != rank || t.Round != r.Round || !inRange(s, t) {
				return fmt.Errorf("round %d: send %+v", r.Round, *t)
			}
			sends[key{t.Round, rank}] = *t
		}
		if t := r.Recv; t != nil {
			if t.To != rank || t.Round != r.Round || !inRange(s, t) {
				return fmt.Errorf("round %d: receive %+v", r.Round, *t)
			}
			recvs[key{t.Round, rank}] = *t
		}
	}
	return nil
}

func inRange(s *Spec, t *Transfer) bool {
	return t.From >= 0 && t.From < s.Size && t.To >= 0 && t.To < s.Size && t.From != t.To && t.Bytes >= 0
}

// set is a set of ranks.
type set []uint64

func newSet(p int) set       { return make(set, (p+63)/64) }
func (s set) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s set) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s set) clone() set     { return append(set(nil), s...) }
func (s set) union(o set) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s set) subsetOf(o set) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (s set) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// sumOver is the sum of xs over the ranks of s.
func (s set) sumOver(xs []int64) int64 {
	var t int64
	for i, x := range xs {
		if s.has(i) {
			t += x
		}
	}
	return t
}

package collective

import "math/bits"

// Allreduce (Thakur, Rabenseifner, Gropp 2005, their allreduce): recursive
// doubling with the ranks above a power of two folded in before and out
// after, the ring (a reduce-scatter then an allgather), and a binomial
// reduce followed by a binomial broadcast. X = SendBytes[0]: every part
// of an allreduce has the same size.

// fold splits P into p', the largest power of two at most P, and the
// ranks above it.
func fold(p int) (pow, extra int) {
	pow = 1 << (bits.Len(uint(p)) - 1)
	return pow, p - pow
}

func doublingRounds(s *Spec) int {
	pow, extra := fold(s.Size)
	r := bits.Len(uint(pow)) - 1
	if extra > 0 {
		r += 2
	}
	return r
}

// allreduceDoubling: a rank r >= p' sends its data to r-p' in round 0 and
// gets the result back in the last round; a rank r < p' receives from
// r+p' first (if that rank exists), exchanges with r XOR 2^m in the
// log2 p' rounds in between, and sends the result to r+p'. With P a power
// of two only the exchanges are left, from round 0.
func allreduceDoubling(s *Spec, rank int) []Transfer {
	x := s.SendBytes[0]
	pow, extra := fold(s.Size)
	if rank >= pow {
		last := doublingRounds(s) - 1
		return []Transfer{
			{Round: 0, From: rank, To: rank - pow, Bytes: x},
			{Round: last, From: rank - pow, To: rank, Bytes: x},
		}
	}
	first := 0
	if extra > 0 {
		first = 1
	}
	ts := make([]Transfer, 0, 2*doublingRounds(s))
	folded := rank < extra
	if folded {
		ts = append(ts, Transfer{Round: 0, From: rank + pow, To: rank, Bytes: x})
	}
	round := first
	for m := 1; m < pow; m <<= 1 {
		peer := rank ^ m
		ts = append(ts,
			Transfer{Round: round, From: rank, To: peer, Bytes: x},
			Transfer{Round: round, From: peer, To: rank, Bytes: x})
		round++
	}
	if folded {
		ts = append(ts, Transfer{Round: round, From: rank, To: rank + pow, Bytes: x})
	}
	return ts
}

func allreduceRingRounds(s *Spec) int { return 2 * (s.Size - 1) }

// allreduceRing: in each of the 2(P-1) rounds rank i sends a chunk of
// ⌈X/P⌉ bytes to i+1 and receives one from i-1. In the reduce-scatter
// (rounds k < P-1) the chunk sent is chunk (i-k) mod P, with what rank i
// has added to it; in the allgather (round P-1+k) it is the finished
// chunk (i+1-k) mod P.
func allreduceRing(s *Spec, rank int) []Transfer {
	p := s.Size
	chunk := ceilDiv(s.SendBytes[0], p)
	next, prev := (rank+1)%p, (rank+p-1)%p
	ts := make([]Transfer, 0, 2*allreduceRingRounds(s))
	for k := range allreduceRingRounds(s) {
		ts = append(ts,
			Transfer{Round: k, From: rank, To: next, Bytes: chunk},
			Transfer{Round: k, From: prev, To: rank, Bytes: chunk})
	}
	return ts
}

func reduceBroadcastRounds(s *Spec) int { return 2 * ceilLog2(s.Size) }

// allreduceReduceBroadcast: the binomial reduce to rank 0 in rounds
// 0 .. L-1, then the binomial broadcast from rank 0 in rounds L .. 2L-1.
func allreduceReduceBroadcast(s *Spec, rank int) []Transfer {
	x := constant(s.SendBytes[0])
	up := tree{p: s.Size}.up(rank, x)
	down := tree{p: s.Size, first: ceilLog2(s.Size)}.down(rank, x)
	return append(up, down...)
}

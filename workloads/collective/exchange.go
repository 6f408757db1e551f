package collective

// The collectives every rank takes part in each round: the ring allgather
// and the pairwise all-to-all (Thakur, Rabenseifner, Gropp 2005) and the
// dissemination barrier (Hensgen, Finkel, Manber 1988).

// allgatherRing: in round k (0 .. P-2) rank i sends to i+1 the block of
// rank (i-k) mod P, which it holds from round k-1 (its own in round 0),
// and receives from i-1 the block of rank (i-1-k) mod P.
func allgatherRing(s *Spec, rank int) []Transfer {
	p := s.Size
	next, prev := (rank+1)%p, (rank+p-1)%p
	ts := make([]Transfer, 0, 2*(p-1))
	for k := range p - 1 {
		ts = append(ts,
			Transfer{Round: k, From: rank, To: next, Bytes: s.SendBytes[(rank-k+p)%p]},
			Transfer{Round: k, From: prev, To: rank, Bytes: s.SendBytes[(rank-1-k+2*p)%p]})
	}
	return ts
}

// barrierDissemination: in round k rank i sends to (i+2^k) mod P and
// receives from (i-2^k) mod P, 0 bytes, for ⌈log2 P⌉ rounds; after round
// k a rank has heard, directly or not, from the 2^(k+1)-1 ranks before it.
func barrierDissemination(s *Spec, rank int) []Transfer {
	p := s.Size
	rounds := ceilLog2(p)
	ts := make([]Transfer, 0, 2*rounds)
	for k := range rounds {
		d := 1 << k
		ts = append(ts,
			Transfer{Round: k, From: rank, To: (rank + d) % p},
			Transfer{Round: k, From: (rank - d + p) % p, To: rank})
	}
	return ts
}

// alltoallPairwise: in round k-1 (k = 1 .. P-1) rank i sends to (i+k) mod
// P and receives from (i-k) mod P. A rank sends SendBytes[i] to every
// peer, or ⌈SendBytes[i]/P⌉ when its flag (RecvBytes[i]) is 1.
func alltoallPairwise(s *Spec, rank int) []Transfer {
	p := s.Size
	out := s.perPeer(rank)
	ts := make([]Transfer, 0, 2*(p-1))
	for k := 1; k < p; k++ {
		to, from := (rank+k)%p, (rank-k+p)%p
		ts = append(ts,
			Transfer{Round: k - 1, From: rank, To: to, Bytes: out},
			Transfer{Round: k - 1, From: from, To: rank, Bytes: s.perPeer(from)})
	}
	return ts
}

// perPeer is what rank i of an alltoall sends to each other rank.
func (s *Spec) perPeer(i int) int64 {
	if s.RecvBytes[i] == 1 {
		return ceilDiv(s.SendBytes[i], s.Size)
	}
	return s.SendBytes[i]
}

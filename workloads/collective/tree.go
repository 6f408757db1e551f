package collective

import "math/bits"

// The rooted collectives (broadcast, reduce, gather, scatter) on a
// binomial tree (Thakur, Rabenseifner, Gropp 2005, their binomial
// broadcast, reduce, gather and scatter) or a flat one. Ranks are taken relative to the
// root: v = (rank-root+P) mod P, so the root is 0.

// ceilLog2 is ⌈log2 p⌉ for p >= 1.
func ceilLog2(p int) int { return bits.Len(uint(p - 1)) }

// log2Rounds is ⌈log2 P⌉: the binomial trees and the dissemination
// barrier.
func log2Rounds(s *Spec) int { return ceilLog2(s.Size) }

// othersRounds is P-1, a round for each other rank: the flat trees, the
// ring allgather and the pairwise all-to-all.
func othersRounds(s *Spec) int { return s.Size - 1 }

// tree is a rooted collective's frame: the size, the root, and the round
// its first round is numbered with (reduce_broadcast runs two trees one
// after the other).
type tree struct {
	p, root, first int
}

func (t tree) rel(rank int) int { return (rank - t.root + t.p) % t.p }
func (t tree) abs(v int) int    { return (v + t.root) % t.p }

// down lists rank's transfers in the binomial tree that spreads from the
// root: in round k, relative ranks v < 2^k send to v+2^k if it is below
// P. A rank v > 0 first receives, in the round of its highest bit; every
// rank then sends in each later round with a receiver. bytes(w) is the
// size of the message to relative rank w.
func (t tree) down(rank int, bytes func(w int) int64) []Transfer {
	rounds := ceilLog2(t.p)
	ts := make([]Transfer, 0, rounds)
	v, k := t.rel(rank), 0
	if v > 0 {
		k = bits.Len(uint(v)) - 1
		ts = append(ts, Transfer{Round: t.first + k, From: t.abs(v - 1<<k), To: rank, Bytes: bytes(v)})
		k++
	}
	for ; k < rounds && v+1<<k < t.p; k++ {
		w := v + 1<<k
		ts = append(ts, Transfer{Round: t.first + k, From: rank, To: t.abs(w), Bytes: bytes(w)})
	}
	return ts
}

// up lists rank's transfers in the binomial tree that gathers to the
// root: in round j, relative ranks v with v mod 2^(j+1) = 2^j send to
// v-2^j. So a rank receives from v+2^j (if it is below P) in each round j
// below its lowest set bit, then sends once, in the round of that bit.
// bytes(w) is the size of the message relative rank w sends.
func (t tree) up(rank int, bytes func(w int) int64) []Transfer {
	rounds := ceilLog2(t.p)
	ts := make([]Transfer, 0, rounds)
	v := t.rel(rank)
	for j := 0; j < rounds; j++ {
		if v&(1<<j) != 0 {
			return append(ts, Transfer{Round: t.first + j, From: rank, To: t.abs(v - 1<<j), Bytes: bytes(v)})
		}
		if w := v + 1<<j; w < t.p {
			ts = append(ts, Transfer{Round: t.first + j, From: t.abs(w), To: rank, Bytes: bytes(w)})
		}
	}
	return ts
}

// flatDown: the root sends to relative rank k+1 in round k.
func (t tree) flatDown(rank int, bytes func(w int) int64) []Transfer {
	if v := t.rel(rank); v > 0 {
		return []Transfer{{Round: v - 1, From: t.root, To: rank, Bytes: bytes(v)}}
	}
	ts := make([]Transfer, t.p-1)
	for k := range ts {
		ts[k] = Transfer{Round: k, From: rank, To: t.abs(k + 1), Bytes: bytes(k + 1)}
	}
	return ts
}

// flatUp: relative rank k+1 sends to the root in round k.
func (t tree) flatUp(rank int, bytes func(w int) int64) []Transfer {
	if v := t.rel(rank); v > 0 {
		return []Transfer{{Round: v - 1, From: rank, To: t.root, Bytes: bytes(v)}}
	}
	ts := make([]Transfer, t.p-1)
	for k := range ts {
		ts[k] = Transfer{Round: k, From: t.abs(k + 1), To: rank, Bytes: bytes(k + 1)}
	}
	return ts
}

// sum adds the blocks of relative ranks from, from+step, … below end.
func (t tree) sum(x []int64, from, end, step int) int64 {
	var total int64
	for w := from; w < end; w += step {
		total = addSat(total, x[t.abs(w)])
	}
	return total
}

// upSubtree is the sum of the blocks of relative rank w's subtree in the
// gathering tree: w .. w+2^j-1 below P, 2^j w's lowest set bit.
func (t tree) upSubtree(x []int64, w int) int64 {
	return t.sum(x, w, min(w+w&-w, t.p), 1)
}

// downSubtree is the sum of the blocks of relative rank w's subtree in the
// spreading tree: w, w+2^(k+1), w+2·2^(k+1), … below P, 2^k w's highest
// bit (w > 0).
func (t tree) downSubtree(x []int64, w int) int64 {
	return t.sum(x, w, t.p, 2<<(bits.Len(uint(w))-1))
}

// block is the size of relative rank w's own block.
func (t tree) block(x []int64) func(w int) int64 {
	return func(w int) int64 { return x[t.abs(w)] }
}

// constant is a size every message has.
func constant(x int64) func(int) int64 { return func(int) int64 { return x } }

func rootedTree(s *Spec) tree { return tree{p: s.Size, root: s.Root} }

func broadcastBinomial(s *Spec, rank int) []Transfer {
	return rootedTree(s).down(rank, constant(s.SendBytes[s.Root]))
}

func broadcastFlat(s *Spec, rank int) []Transfer {
	return rootedTree(s).flatDown(rank, constant(s.SendBytes[s.Root]))
}

func reduceBinomial(s *Spec, rank int) []Transfer {
	return rootedTree(s).up(rank, constant(s.RecvBytes[s.Root]))
}

func reduceFlat(s *Spec, rank int) []Transfer {
	return rootedTree(s).flatUp(rank, constant(s.RecvBytes[s.Root]))
}

func gatherBinomial(s *Spec, rank int) []Transfer {
	t := rootedTree(s)
	return t.up(rank, func(w int) int64 { return t.upSubtree(s.SendBytes, w) })
}

func gatherFlat(s *Spec, rank int) []Transfer {
	t := rootedTree(s)
	return t.flatUp(rank, t.block(s.SendBytes))
}

func scatterBinomial(s *Spec, rank int) []Transfer {
	t := rootedTree(s)
	return t.down(rank, func(w int) int64 { return t.downSubtree(s.RecvBytes, w) })
}

func scatterFlat(s *Spec, rank int) []Transfer {
	t := rootedTree(s)
	return t.flatDown(rank, t.block(s.RecvBytes))
}

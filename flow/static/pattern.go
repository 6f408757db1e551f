package static

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Pattern is a traffic pattern (seed 001 section 3.3.1): a set of flows,
// each from one server to another, never to itself.
type Pattern interface {
	// Name describes the pattern ("all-to-all", "shift-1", ...).
	Name() string
	// Servers returns the number of servers the pattern is defined on.
	Servers() int
	// Flows calls fn for every flow whose source is in [lo, hi)
	// (0 <= lo <= hi <= Servers()), sources in increasing order. It may be
	// called concurrently for disjoint ranges, and gives the same flows
	// whatever the ranges.
	Flows(lo, hi int32, fn func(src, dst int32))
}

func checkServers(name string, n int) error {
	if n < 2 {
		return fmt.Errorf("%s servers: %d is not allowed: must be at least 2", name, n)
	}
	if n > 1<<31-1 {
		return fmt.Errorf("%s servers: %d is not allowed: must be at most %d", name, n, 1<<31-1)
	}
	return nil
}

type allToAll struct{ n int32 }

// AllToAll returns the pattern in which every one of n servers sends a
// flow to every other: n(n-1) flows.
func AllToAll(n int) (Pattern, error) {
	if err := checkServers("all-to-all", n); err != nil {
		return nil, err
	}
	return allToAll{int32(n)}, nil
}

func (p allToAll) Name() string { return "all-to-all" }
func (p allToAll) Servers() int { return int(p.n) }
func (p allToAll) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		for d := int32(0); d < p.n; d++ {
			if d != s {
				fn(s, d)
			}
		}
	}
}

type uniform struct {
	n, per int32
	seed   uint64
}

// Uniform returns the pattern in which every one of n servers sends
// flowsPerServer flows, each to a destination drawn uniformly from the
// other n-1 servers (independently: a destination may repeat). Server s
// draws from its own generator, seeded from seed and s, so the flows do
// not depend on how sources are split between goroutines.
func Uniform(n, flowsPerServer int, seed uint64) (Pattern, error) {
	if err := checkServers("uniform", n); err != nil {
		return nil, err
	}
	if flowsPerServer < 1 || flowsPerServer > 1<<20 {
		return nil, fmt.Errorf("uniform flows per server: %d is not allowed: must be in [1, %d]", flowsPerServer, 1<<20)
	}
	return uniform{int32(n), int32(flowsPerServer), seed}, nil
}

func (p uniform) Name() string { return fmt.Sprintf("uniform-%d-seed%d", p.per, p.seed) }
func (p uniform) Servers() int { return int(p.n) }
func (p uniform) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		rng := splitmix{mix64(p.seed ^ mix64(uint64(s)))}
		for range p.per {
			d := int32(rng.below(uint64(p.n - 1)))
			if d >= s {
				d++
			}
			fn(s, d)
		}
	}
}

type shift struct{ n, k int32 }

// Shift returns the permutation in which server s sends one flow to
// server (s+k) mod n; k mod n must not be 0.
func Shift(n, k int) (Pattern, error) {
	if err := checkServers("shift", n); err != nil {
		return nil, err
	}
	k %= n
	if k < 0 {
		k += n
	}
	if k == 0 {
		return nil, fmt.Errorf("shift k: %d is not allowed: must not be a multiple of the %d servers (every flow would stay on its server)", k, n)
	}
	return shift{int32(n), int32(k)}, nil
}

func (p shift) Name() string { return fmt.Sprintf("shift-%d", p.k) }
func (p shift) Servers() int { return int(p.n) }
func (p shift) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		d := s + p.k
		if d >= p.n {
			d -= p.n
		}
		fn(s, d)
	}
}

type bitComplement struct{ n int32 }

// BitComplement returns the permutation in which server s sends one flow
// to the server whose number has every bit of s inverted (n-1-s); n must
// be a power of two.
func BitComplement(n int) (Pattern, error) {
	if err := checkServers("bit-complement", n); err != nil {
		return nil, err
	}
	if n&(n-1) != 0 {
		return nil, fmt.Errorf("bit-complement servers: %d is not allowed: must be a power of two", n)
	}
	return bitComplement{int32(n)}, nil
}

func (p bitComplement) Name() string { return "bit-complement" }
func (p bitComplement) Servers() int { return int(p.n) }
func (p bitComplement) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		fn(s, p.n-1-s)
	}
}

type permutation struct {
	dst  []int32
	seed uint64
}

// RandomPermutation returns a random permutation in which server s sends
// one flow to server π(s): π is drawn by Sattolo's algorithm from seed, so
// it is a single cycle through all n servers and no server sends to
// itself. 4 bytes per server.
func RandomPermutation(n int, seed uint64) (Pattern, error) {
	if err := checkServers("permutation", n); err != nil {
		return nil, err
	}
	dst := make([]int32, n)
	for i := range dst {
		dst[i] = int32(i)
	}
	rng := splitmix{seed}
	for i := n - 1; i > 0; i-- {
		j := rng.below(uint64(i)) // j < i: Sattolo
		dst[i], dst[j] = dst[j], dst[i]
	}
	return &permutation{dst, seed}, nil
}

func (p *permutation) Name() string { return fmt.Sprintf("permutation-seed%d", p.seed) }
func (p *permutation) Servers() int { return len(p.dst) }
func (p *permutation) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		fn(s, p.dst[s])
	}
}

// Pair is one flow of a List pattern.
type Pair struct{ Src, Dst int32 }

type list struct {
	n     int32
	pairs []Pair // sorted by source, stable
}

// List returns the pattern of the given flows on n servers. Flows from
// the same source keep their order. 8 bytes per flow.
func List(n int, pairs []Pair) (Pattern, error) {
	if err := checkServers("list", n); err != nil {
		return nil, err
	}
	for i, p := range pairs {
		if p.Src < 0 || int(p.Src) >= n {
			return nil, fmt.Errorf("list flow %d src: %d is not allowed: must be in [0, %d)", i, p.Src, n)
		}
		if p.Dst < 0 || int(p.Dst) >= n {
			return nil, fmt.Errorf("list flow %d dst: %d is not allowed: must be in [0, %d)", i, p.Dst, n)
		}
		if p.Src == p.Dst {
			return nil, fmt.Errorf("list flow %d dst: %d is not allowed: must differ from src", i, p.Dst)
		}
	}
	sorted := slices.Clone(pairs)
	slices.SortStableFunc(sorted, func(a, b Pair) int { return cmp.Compare(a.Src, b.Src) })
	return &list{int32(n), sorted}, nil
}

func (p *list) Name() string { return fmt.Sprintf("list-%d", len(p.pairs)) }
func (p *list) Servers() int { return int(p.n) }
func (p *list) Flows(lo, hi int32, fn func(src, dst int32)) {
	i, _ := slices.BinarySearchFunc(p.pairs, lo, func(a Pair, s int32) int { return cmp.Compare(a.Src, s) })
	for ; i < len(p.pairs) && p.pairs[i].Src < hi; i++ {
		fn(p.pairs[i].Src, p.pairs[i].Dst)
	}
}

// splitmix is the SplitMix64 generator (Steele, Lea and Flood 2014):
// small, fast, and seedable per source.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// mix64 is SplitMix64's output function, a bijective hash: streams seeded
// with mix64 of different values start far apart.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform integer in [0, n), n > 0 (Lemire's
// multiply-shift with rejection).
func (r *splitmix) below(n uint64) uint64 {
	for {
		x := r.next()
		hi, lo := bits.Mul64(x, n)
		if lo >= n || lo >= -n%n {
			return hi
		}
	}
}

// CountFlows counts p's flows, source by source, and stops once the count
// passes limit (it then returns a number above limit, not the total): an
// estimate of what a pattern would take, bounded by what would be too
// much. It costs O(min(flows, limit) + servers) time and no memory.
func CountFlows(p Pattern, limit int64) int64 {
	n := int64(0)
	for s := int32(0); s < int32(p.Servers()) && n <= limit; s++ {
		p.Flows(s, s+1, func(int32, int32) { n++ })
	}
	return n
}

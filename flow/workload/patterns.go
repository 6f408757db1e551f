// Package workload holds the flow engine's traffic (seed 001 section
// 3.3): the synthetic patterns beyond those of package static, a registry
// of every pattern by name, and causality-enhanced phases for the dynamic
// engine.
//
// Random patterns draw each source's choices from its own generator,
// seeded by the pattern's seed and the source's number, so a pattern gives
// the same flows whatever ranges of sources the static engine asks for, in
// whatever order or concurrency.
package workload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/opasim/opasim/flow/static"
)

// rngFor is source src's generator for a pattern seeded seed.
func rngFor(seed uint64, src int32, salt uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^salt, uint64(src)*0x9e3779b97f4a7c15+1))
}

func checkServers(name string, n int) error {
	if n < 2 || n > math.MaxInt32 {
		return fmt.Errorf("%s servers: %d is not allowed: must be in [2, %d]", name, n, math.MaxInt32)
	}
	return nil
}

// other draws a destination other than src uniformly from [0, n).
func other(r *rand.Rand, n, src int32) int32 {
	d := r.Int32N(n - 1)
	if d >= src {
		d++
	}
	return d
}

type hotSpot struct {
	n, per, hot int32
	p           float64
	seed        uint64
	region      int32 // servers in the hot region (1: a hot spot)
}

// HotSpot: every server sends per flows; each goes, with probability p, to
// the hot server (drawn at random from the seed), else to a server drawn
// uniformly (never to itself). The hot server's own flows are uniform.
func HotSpot(n, per int, p float64, seed uint64) (static.Pattern, error) {
	return hotRegion("hot spot", n, per, 1, p, seed)
}

// HotRegion: like HotSpot, the hot destination drawn uniformly from a
// region of region consecutive servers starting at a random server
// (wrapping), never the source itself.
func HotRegion(n, per, region int, p float64, seed uint64) (static.Pattern, error) {
	return hotRegion("hot region", n, per, region, p, seed)
}

func hotRegion(name string, n, per, region int, p float64, seed uint64) (static.Pattern, error) {
	if err := checkServers(name, n); err != nil {
		return nil, err
	}
	if per < 1 {
		return nil, fmt.Errorf("%s flows per server: %d is not allowed: must be at least 1", name, per)
	}
	if region < 1 || region >= n {
		return nil, fmt.Errorf("%s region: %d is not allowed: must be in [1, %d]", name, region, n-1)
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("%s probability: %v is not allowed: must be in [0, 1]", name, p)
	}
	hot := rand.New(rand.NewPCG(seed, 0x686f74)).Int32N(int32(n))
	return hotSpot{n: int32(n), per: int32(per), hot: hot, p: p, seed: seed, region: int32(region)}, nil
}

func (h hotSpot) Name() string {
	if h.region == 1 {
		return fmt.Sprintf("hot-spot-%d-p%g-seed%d", h.hot, h.p, h.seed)
	}
	return fmt.Sprintf("hot-region-%d+%d-p%g-seed%d", h.hot, h.region, h.p, h.seed)
}
func (h hotSpot) Servers() int { return int(h.n) }

// Hot returns the first server of the hot region.
func (h hotSpot) Hot() int32 { return h.hot }

func (h hotSpot) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		r := rngFor(h.seed, s, 0x68)
		for i := int32(0); i < h.per; i++ {
			d := int32(-1)
			if r.Float64() < h.p {
				d = (h.hot + r.Int32N(h.region)) % h.n
			}
			if d < 0 || d == s {
				d = other(r, h.n, s)
			}
			fn(s, d)
		}
	}
}

type local struct {
	n, per int32
	mean   float64
	seed   uint64
}

// Local: every server sends per flows to servers near it in numbering
// (servers numbered along the topology: a switch's servers, then its
// neighbour's...): the offset |d − s| along the ring of servers is drawn
// from a geometric distribution of the given mean (at least 1), its sign
// at random, so that most flows stay close.
func Local(n, per int, mean float64, seed uint64) (static.Pattern, error) {
	if err := checkServers("local", n); err != nil {
		return nil, err
	}
	if per < 1 {
		return nil, fmt.Errorf("local flows per server: %d is not allowed: must be at least 1", per)
	}
	if !(mean >= 1) || math.IsInf(mean, 0) {
		return nil, fmt.Errorf("local mean distance: %v is not allowed: must be at least 1 and finite", mean)
	}
	return local{int32(n), int32(per), mean, seed}, nil
}

func (l local) Name() string { return fmt.Sprintf("local-mean%g-seed%d", l.mean, l.seed) }
func (l local) Servers() int { return int(l.n) }
func (l local) Flows(lo, hi int32, fn func(src, dst int32)) {
	q := 1 / l.mean // success probability of the geometric on {1, 2, ...}
	for s := lo; s < hi; s++ {
		r := rngFor(l.seed, s, 0x6c)
		for i := int32(0); i < l.per; i++ {
			off := int64(1)
			if q < 1 {
				off = 1 + int64(math.Floor(math.Log(1-r.Float64())/math.Log(1-q)))
			}
			off %= int64(l.n)
			if off == 0 {
				off = 1
			}
			if r.IntN(2) == 1 {
				off = int64(l.n) - off
			}
			fn(s, int32((int64(s)+off)%int64(l.n)))
		}
	}
}

// Bit permutations on n = 2^b servers (seed 001 section 3.3.1): server s,
// its bits s_{b−1}..s_0, sends one flow to perm(s); servers that perm
// maps to themselves send nothing.
const (
	PerfectShuffle = "perfect-shuffle" // rotate the bits left by one
	BitReversal    = "bit-reversal"    // reverse the bits
	BitTranspose   = "bit-transpose"   // swap the upper and lower halves of the bits (b even)
	Butterfly      = "butterfly"       // swap the highest and the lowest bit
)

type bitPerm struct {
	n    int32
	b    int
	kind string
}

// BitPermutation returns the bit permutation kind on n servers, a power
// of two (and of four for bit-transpose).
func BitPermutation(kind string, n int) (static.Pattern, error) {
	if err := checkServers(kind, n); err != nil {
		return nil, err
	}
	if n&(n-1) != 0 {
		return nil, fmt.Errorf("%s servers: %d is not allowed: must be a power of two", kind, n)
	}
	b := bits.TrailingZeros(uint(n))
	switch kind {
	case PerfectShuffle, BitReversal, Butterfly:
	case BitTranspose:
		if b%2 != 0 {
			return nil, fmt.Errorf("%s servers: %d is not allowed: must be a power of four", kind, n)
		}
	default:
		return nil, fmt.Errorf("bit permutation: %q is not allowed: must be one of %s, %s, %s, %s", kind, PerfectShuffle, BitReversal, BitTranspose, Butterfly)
	}
	return bitPerm{int32(n), b, kind}, nil
}

func (p bitPerm) Name() string { return p.kind }
func (p bitPerm) Servers() int { return int(p.n) }

// Dst is the server s sends to.
func (p bitPerm) Dst(s int32) int32 {
	u, b := uint32(s), p.b
	mask := uint32(p.n - 1)
	switch p.kind {
	case PerfectShuffle:
		return int32((u<<1 | u>>(b-1)) & mask)
	case BitReversal:
		return int32(bits.Reverse32(u) >> (32 - b))
	case BitTranspose:
		h := b / 2
		return int32((u>>h | u<<h) & mask)
	default: // butterfly
		hi, lo := u>>(b-1)&1, u&1
		return int32(u&^(1<<(b-1)|1) | lo<<(b-1) | hi)
	}
}

func (p bitPerm) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		if d := p.Dst(s); d != s {
			fn(s, d)
		}
	}
}

// groups is a random partition of the servers: perm lists them in a
// random order, and group i is perm[i·size : (i+1)·size].
type groups struct {
	n, size int32
	perm    []int32 // position -> server
	pos     []int32 // server -> position
	seed    uint64
	name    string
}

func newGroups(name string, n, size int, seed uint64) (*groups, error) {
	if err := checkServers(name, n); err != nil {
		return nil, err
	}
	if size < 2 || size > n {
		return nil, fmt.Errorf("%s group size: %d is not allowed: must be in [2, %d]", name, size, n)
	}
	g := &groups{n: int32(n), size: int32(size), perm: make([]int32, n), pos: make([]int32, n), seed: seed, name: name}
	for i := range g.perm {
		g.perm[i] = int32(i)
	}
	r := rand.New(rand.NewPCG(seed, 0x6772))
	r.Shuffle(n, func(i, j int) { g.perm[i], g.perm[j] = g.perm[j], g.perm[i] })
	for i, s := range g.perm {
		g.pos[s] = int32(i)
	}
	return g, nil
}

func (g *groups) Servers() int { return int(g.n) }

// Bisection: the servers are split at random into two halves (the second
// one larger by one when n is odd) and every server sends a flow to every
// server of the other half: 2·⌊n/2⌋·⌈n/2⌉ flows. 8 bytes per server.
func Bisection(n int, seed uint64) (static.Pattern, error) {
	g, err := newGroups("bisection", n, max(2, n/2), seed)
	if err != nil {
		return nil, err
	}
	return bisection{g}, nil
}

type bisection struct{ *groups }

func (b bisection) Name() string { return fmt.Sprintf("bisection-seed%d", b.seed) }
func (b bisection) Flows(lo, hi int32, fn func(src, dst int32)) {
	half := b.n / 2
	for s := lo; s < hi; s++ {
		from, to := half, b.n // s in the first half sends to the second
		if b.pos[s] >= half {
			from, to = 0, half
		}
		for i := from; i < to; i++ {
			fn(s, b.perm[i])
		}
	}
}

// ManyAllToAll: the servers are split at random into ⌈n/size⌉ groups of at
// most size servers (the last may be smaller), and every server sends a
// flow to every other server of its group.
func ManyAllToAll(n, size int, seed uint64) (static.Pattern, error) {
	g, err := newGroups("many-all-to-all", n, size, seed)
	if err != nil {
		return nil, err
	}
	return manyAllToAll{g}, nil
}

type manyAllToAll struct{ *groups }

func (m manyAllToAll) Name() string { return fmt.Sprintf("many-all-to-all-%d-seed%d", m.size, m.seed) }
func (m manyAllToAll) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		first := m.pos[s] / m.size * m.size
		for i := first; i < min(first+m.size, m.n); i++ {
			if d := m.perm[i]; d != s {
				fn(s, d)
			}
		}
	}
}

// AllToOne: a root drawn at random from the seed; every other server sends
// it one flow.
func AllToOne(n int, seed uint64) (static.Pattern, error) {
	if err := checkServers("all-to-one", n); err != nil {
		return nil, err
	}
	return allToOne{int32(n), rand.New(rand.NewPCG(seed, 0x726f6f74)).Int32N(int32(n)), seed}, nil
}

type allToOne struct {
	n, root int32
	seed    uint64
}

func (a allToOne) Name() string { return fmt.Sprintf("all-to-one-%d", a.root) }
func (a allToOne) Servers() int { return int(a.n) }

// Root returns the root server.
func (a allToOne) Root() int32 { return a.root }
func (a allToOne) Flows(lo, hi int32, fn func(src, dst int32)) {
	for s := lo; s < hi; s++ {
		if s != a.root {
			fn(s, a.root)
		}
	}
}

package workloads

import (
	"math/bits"
	"math/rand/v2"

	"github.com/opasim/opasim/registry"
)

// Pattern picks the destination NIC of a message sent by src among n NICs.
type Pattern func(src, n int, rng *rand.Rand) int

// Options are the pattern parameters.
type Options struct {
	HotSpot        int // hot_spot: the hot NIC
	HotSpotPercent int // hot_spot: percentage of messages sent to it
}

// patterns are the known patterns, each a factory taking the options.
var patterns = newPatterns()

func newPatterns() *registry.Registry[func(o Options) Pattern] {
	r := registry.New[func(o Options) Pattern]("pattern")
	for name, f := range map[string]func(o Options) Pattern{
		"uniform":        func(Options) Pattern { return uniform },
		"neighbour":      func(Options) Pattern { return neighbour },
		"bit_reversal":   func(Options) Pattern { return permutation(bitReverse) },
		"bit_complement": func(Options) Pattern { return permutation(bitComplement) },
		"transpose":      func(Options) Pattern { return permutation(transpose) },
		"shuffle":        func(Options) Pattern { return permutation(shuffle) },
		"hot_spot":       hotSpot,
	} {
		registry.Must(r.Register(name, f))
	}
	return r
}

// PatternNames lists the known patterns, sorted.
func PatternNames() []string { return patterns.Names() }

// NewPattern returns the pattern called name.
func NewPattern(name string, o Options) (Pattern, error) {
	f, err := patterns.Get(name)
	if err != nil {
		return nil, err
	}
	return f(o), nil
}

// uniform: any other NIC with equal probability.
func uniform(src, n int, rng *rand.Rand) int {
	d := rng.IntN(n - 1)
	if d >= src {
		d++
	}
	return d
}

// neighbour: (x+1) mod n, the contention-free pattern of seed 002 Fig. 5.
func neighbour(src, n int, _ *rand.Rand) int { return (src + 1) % n }

// permutation turns a bit permutation on b = ceil(log2 n) bits into a
// pattern; a result outside [0, n) is folded back with mod n.
func permutation(f func(x, b int) int) Pattern {
	return func(src, n int, _ *rand.Rand) int {
		b := bits.Len(uint(n - 1))
		return f(src, b) % n
	}
}

func bitReverse(x, b int) int { return int(bits.Reverse64(uint64(x)) >> (64 - b)) }

func bitComplement(x, b int) int { return ^x & (1<<b - 1) }

// transpose swaps the high and low halves of the address bits (b odd: the
// high half has the extra bit and the halves rotate).
func transpose(x, b int) int {
	lo := b / 2
	return (x>>lo | x<<(b-lo)) & (1<<b - 1)
}

// shuffle rotates the address bits left by one (perfect shuffle).
func shuffle(x, b int) int {
	if b == 0 {
		return x
	}
	return (x<<1 | x>>(b-1)) & (1<<b - 1)
}

func hotSpot(o Options) Pattern {
	return func(src, n int, rng *rand.Rand) int {
		if src != o.HotSpot && rng.IntN(100) < o.HotSpotPercent {
			return o.HotSpot
		}
		return uniform(src, n, rng)
	}
}

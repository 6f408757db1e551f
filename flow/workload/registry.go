package workload

import (
	"fmt"

	"github.com/opasim/opasim/flow/static"
	"github.com/opasim/opasim/registry"
)

// Spec names a pattern and its parameters; each pattern reads the fields
// its doc in Patterns() names and ignores the others.
type Spec struct {
	Name           string  `yaml:"name" json:"name"`
	FlowsPerServer int     `yaml:"flows_per_server" json:"flows_per_server"` // uniform, hot-spot, hot-region, local (default 1)
	Probability    float64 `yaml:"probability" json:"probability"`           // hot-spot, hot-region: share of flows to the hot servers
	Region         int     `yaml:"region" json:"region"`                     // hot-region: servers in the region
	Mean           float64 `yaml:"mean" json:"mean"`                         // local: mean ring distance
	GroupSize      int     `yaml:"group_size" json:"group_size"`             // many-all-to-all
	Shift          int     `yaml:"shift" json:"shift"`                       // shift: offset (default 1)
}

type builder struct {
	about string
	build func(s Spec, n int, seed uint64) (static.Pattern, error)
}

func perServer(s Spec) int {
	if s.FlowsPerServer == 0 {
		return 1
	}
	return s.FlowsPerServer
}

var patterns = func() *registry.Registry[builder] {
	r := registry.New[builder]("pattern")
	add := func(name, about string, b func(s Spec, n int, seed uint64) (static.Pattern, error)) {
		registry.Must(r.Register(name, builder{about, b}))
	}
	add("all-to-all", "every server sends a flow to every other", func(_ Spec, n int, _ uint64) (static.Pattern, error) { return static.AllToAll(n) })
	add("uniform", "flows_per_server flows a server, to random servers", func(s Spec, n int, seed uint64) (static.Pattern, error) {
		return static.Uniform(n, perServer(s), seed)
	})
	add("shift", "server s sends to s + shift (mod n)", func(s Spec, n int, _ uint64) (static.Pattern, error) {
		k := s.Shift
		if k == 0 {
			k = 1
		}
		return static.Shift(n, k)
	})
	add("bit-complement", "server s sends to n − 1 − s", func(_ Spec, n int, _ uint64) (static.Pattern, error) { return static.BitComplement(n) })
	add("permutation", "a random permutation, one cycle", func(_ Spec, n int, seed uint64) (static.Pattern, error) {
		return static.RandomPermutation(n, seed)
	})
	add("hot-spot", "flows_per_server flows a server, to one hot server with probability probability", func(s Spec, n int, seed uint64) (static.Pattern, error) {
		return HotSpot(n, perServer(s), s.Probability, seed)
	})
	add("hot-region", "as hot-spot, to a region of region servers", func(s Spec, n int, seed uint64) (static.Pattern, error) {
		return HotRegion(n, perServer(s), s.Region, s.Probability, seed)
	})
	add("local", "flows_per_server flows a server, ring distance geometric of mean mean", func(s Spec, n int, seed uint64) (static.Pattern, error) {
		return Local(n, perServer(s), s.Mean, seed)
	})
	for _, k := range []string{PerfectShuffle, BitReversal, BitTranspose, Butterfly} {
		add(k, "bit permutation (n a power of two)", func(_ Spec, n int, _ uint64) (static.Pattern, error) { return BitPermutation(k, n) })
	}
	add("bisection", "random halves, every server to every server of the other half", func(_ Spec, n int, seed uint64) (static.Pattern, error) {
		return Bisection(n, seed)
	})
	add("all-to-one", "every server to one random root", func(_ Spec, n int, seed uint64) (static.Pattern, error) { return AllToOne(n, seed) })
	add("many-all-to-all", "random groups of group_size servers, all-to-all within each", func(s Spec, n int, seed uint64) (static.Pattern, error) {
		return ManyAllToAll(n, s.GroupSize, seed)
	})
	return r
}()

// Patterns lists the pattern names, sorted.
func Patterns() []string { return patterns.Names() }

// About describes pattern name and the Spec fields it reads.
func About(name string) string {
	b, err := patterns.Get(name)
	if err != nil {
		return ""
	}
	return b.about
}

// Build makes the pattern s names on n servers from seed.
func Build(s Spec, n int, seed uint64) (static.Pattern, error) {
	b, err := patterns.Get(s.Name)
	if err != nil {
		return nil, fmt.Errorf("pattern: %w", err)
	}
	p, err := b.build(s, n, seed)
	if err != nil {
		return nil, fmt.Errorf("pattern: %w", err) // its errors name the field, the pattern's own
	}
	return p, nil
}

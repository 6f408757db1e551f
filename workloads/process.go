package workloads

import (
	"math"
	"math/rand/v2"

	"github.com/opasim/opasim/clock"
)

// NewRNG derives an independent generator for one component from the run's
// seed and the component's stable number (splitmix64 on both).
func NewRNG(seed uint64, stream uint64) *rand.Rand {
	a := splitmix(seed ^ 0x9e3779b97f4a7c15)
	b := splitmix(a ^ splitmix(stream+0x632be59bd9b4e019))
	return rand.New(rand.NewPCG(a, b))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Sizes draws message sizes in flits: all Short, or Short with probability
// ShortPercent and Long otherwise (seed 002's short/long mix).
type Sizes struct {
	Short, Long  int
	ShortPercent int
}

// Mean is the expected message size in flits.
func (s Sizes) Mean() float64 {
	p := float64(s.ShortPercent) / 100
	return p*float64(s.Short) + (1-p)*float64(s.Long)
}

// Draw returns one message size.
func (s Sizes) Draw(rng *rand.Rand) int {
	if s.ShortPercent >= 100 || (s.ShortPercent > 0 && rng.IntN(100) < s.ShortPercent) {
		return s.Short
	}
	return s.Long
}

// Process decides when a NIC generates the messages of one SL.
type Process interface {
	// First returns the first generation cycle; Next the one after now.
	First(rng *rand.Rand) clock.Cycle
	Next(now clock.Cycle, rng *rand.Rand) clock.Cycle
}

// NewProcess returns a Bernoulli or CBR process generating rate messages
// per cycle (rate = load share / mean message size). A zero rate never
// generates.
func NewProcess(kind string, rate float64) Process {
	if rate <= 0 {
		return never{}
	}
	if kind == "cbr" {
		return &cbr{period: 1 / rate}
	}
	return bernoulli{p: math.Min(rate, 1)}
}

type never struct{}

func (never) First(*rand.Rand) clock.Cycle             { return clock.Never }
func (never) Next(clock.Cycle, *rand.Rand) clock.Cycle { return clock.Never }

// bernoulli generates a message in each cycle with probability p: the gaps
// are geometric, so it is sampled once per message, not once per cycle.
type bernoulli struct{ p float64 }

func (b bernoulli) gap(rng *rand.Rand) clock.Cycle {
	if b.p >= 1 {
		return 1
	}
	u := 1 - rng.Float64() // (0, 1]
	return 1 + clock.Cycle(math.Floor(math.Log(u)/math.Log1p(-b.p)))
}

func (b bernoulli) First(rng *rand.Rand) clock.Cycle { return b.gap(rng) - 1 }

func (b bernoulli) Next(now clock.Cycle, rng *rand.Rand) clock.Cycle { return now + b.gap(rng) }

// cbr generates one message every period cycles (fractional periods are
// carried), starting at a random phase so NICs do not all fire together.
type cbr struct {
	period float64
	t      float64
}

func (c *cbr) First(rng *rand.Rand) clock.Cycle {
	c.t = rng.Float64() * c.period
	return clock.Cycle(c.t)
}

func (c *cbr) Next(clock.Cycle, *rand.Rand) clock.Cycle {
	c.t += c.period
	return clock.Cycle(c.t)
}

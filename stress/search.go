package stress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// RunFunc runs one config to its end and measures it.
type RunFunc func(ctx context.Context, cfg fabric.Config) (*sim.Results, error)

// Search is one adversarial search: Budget runs in all, the first Random
// of them (at least Jobs, at most Budget) at random points of Space, the
// rest CMA-ES generations started from the worst random point, with its
// seed. Jobs runs go at once; the report does not depend on Jobs.
type Search struct {
	Space    *Space
	Property Property
	Budget   int
	Random   int
	Jobs     int
	Seed     uint64
	Simulate RunFunc
	// Progress, if set, is told of every run: how many are done of the
	// budget, and the worst violation so far. Calls are serialized.
	Progress func(done, budget int, worst float64)
}

// Candidate is one evaluated point.
type Candidate struct {
	Point     []float64
	Config    fabric.Config
	Violation float64
	Detail    string
	Results   *sim.Results
}

// Report is what a search found.
type Report struct {
	Worst     Candidate
	Runs      int
	Broken    int // runs whose violation is above 0
	Random    int // runs of the random phase
	Evolution int // runs of the CMA-ES phase
	// Interrupted: the search was stopped (its context ended) before it
	// spent its budget; the report is of the Runs that finished.
	Interrupted bool
}

// Run searches until the budget is spent or ctx ends (then it reports what
// it has, with ctx's error).
func (s *Search) Run(ctx context.Context) (*Report, error) {
	if s.Budget < 1 {
		return nil, fmt.Errorf("--budget: %d is not allowed: must be at least 1 run", s.Budget)
	}
	if s.Jobs < 1 {
		return nil, fmt.Errorf("--jobs: %d is not allowed: must be at least 1", s.Jobs)
	}
	random := min(s.Budget, max(s.Random, 1))
	e := &evaluator{s: s, ctx: ctx, cache: map[string]*Candidate{}}
	rng := rand.New(rand.NewPCG(s.Seed, 0x5ca1ab1e))
	pts := make([][]float64, random)
	seeds := make([]uint64, random)
	for i := range pts {
		pts[i] = make([]float64, s.Space.Dims())
		for d := range pts[i] {
			pts[i][d] = rng.Float64()
		}
		seeds[i] = rng.Uint64()>>1 + 1
	}
	report := func(err error) (*Report, error) {
		r := e.report(random)
		r.Interrupted = ctx.Err() != nil
		return r, err
	}
	if err := e.batch(pts, seeds); err != nil {
		return report(err)
	}
	if left := s.Budget - random; left > 0 && ctx.Err() == nil {
		best := e.worst()
		if err := e.evolve(best, left, rng.Uint64()); err != nil && !errors.Is(err, errBudget) {
			return report(err)
		}
	}
	return report(ctx.Err())
}

var errBudget = errors.New("budget spent")

// evaluator runs candidates and keeps every result.
type evaluator struct {
	s     *Search
	ctx   context.Context
	mu    sync.Mutex
	all   []*Candidate
	cache map[string]*Candidate // by point and seed
	runs  int
	err   error
}

// batch evaluates points pts with seeds, Jobs at a time, and records them
// in the order given.
func (e *evaluator) batch(pts [][]float64, seeds []uint64) error {
	out := make([]*Candidate, len(pts))
	sem := make(chan struct{}, e.s.Jobs)
	var wg sync.WaitGroup
	for i := range pts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = e.eval(pts[i], seeds[i])
		}()
	}
	wg.Wait()
	return e.err
}

// eval runs point x with seed (once: a point seen before gives its first
// result) and records it.
func (e *evaluator) eval(x []float64, seed uint64) *Candidate {
	key := fmt.Sprint(seed, x)
	e.mu.Lock()
	if c, ok := e.cache[key]; ok {
		e.mu.Unlock()
		return c
	}
	e.mu.Unlock()
	cfg := e.s.Space.Config(x, seed)
	c := &Candidate{Point: slices.Clone(x), Config: cfg, Violation: math.Inf(-1)}
	if e.ctx.Err() == nil {
		r, err := e.s.Simulate(e.ctx, cfg)
		if err != nil {
			e.mu.Lock()
			if e.err == nil && e.ctx.Err() == nil {
				e.err = fmt.Errorf("run of %s: %w", e.s.Space.Describe(cfg), err)
			}
			e.mu.Unlock()
		} else if !r.Interrupted {
			c.Results = r
			c.Violation, c.Detail = e.s.Property.Violation(r)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cache[key] = c
	if c.Results != nil {
		e.all = append(e.all, c)
		e.runs++
		if e.s.Progress != nil {
			e.s.Progress(e.runs, e.s.Budget, e.worstLocked().Violation)
		}
	}
	return c
}

// evolve runs CMA-ES (gonum's CmaEsChol, whose samples depend only on its
// seed) from the worst candidate so far, with its seed, for whole
// generations within left runs: the points it evaluates, and so the
// report, do not depend on the order in which concurrent runs end.
func (e *evaluator) evolve(from *Candidate, left int, seed uint64) error {
	method := &optimize.CmaEsChol{InitStepSize: 0.25, Src: rand.NewPCG(seed, 0xc3a5)}
	// Generations of at least CMA-ES's default population, as many as fit,
	// sharing out the whole budget.
	pop := 4 + int(math.Floor(3*math.Log(float64(len(from.Point)))))
	gens := max(1, left/pop)
	if method.Population = left / gens; method.Population < 2 {
		return nil // no generation fits
	}
	problem := optimize.Problem{Func: func(x []float64) float64 {
		c := e.eval(x, from.Config.Seed)
		if c.Results == nil {
			return math.Inf(1)
		}
		return -c.Violation
	}}
	settings := &optimize.Settings{MajorIterations: gens, Concurrent: e.s.Jobs, Converger: optimize.NeverTerminate{}}
	_, err := optimize.Minimize(problem, from.Point, settings, method)
	if e.err != nil {
		return e.err
	}
	if e.ctx.Err() != nil {
		return e.ctx.Err()
	}
	return err
}

// worst is the candidate with the largest violation; ties go to the one
// first in a fixed order of points, so that the answer does not depend on
// the order runs ended.
func (e *evaluator) worst() *Candidate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.worstLocked()
}

func (e *evaluator) worstLocked() *Candidate {
	var w *Candidate
	for _, c := range e.all {
		if w == nil || c.Violation > w.Violation || c.Violation == w.Violation && less(c, w) {
			w = c
		}
	}
	return w
}

// less orders candidates by seed, then point, coordinate by coordinate.
func less(a, b *Candidate) bool {
	if a.Config.Seed != b.Config.Seed {
		return a.Config.Seed < b.Config.Seed
	}
	return slices.Compare(a.Point, b.Point) < 0
}

func (e *evaluator) report(random int) *Report {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &Report{Runs: e.runs, Random: min(random, e.runs), Evolution: max(0, e.runs-random)}
	for _, c := range e.all {
		if c.Violation > 0 {
			r.Broken++
		}
	}
	if w := e.worstLocked(); w != nil {
		r.Worst = *w
	}
	return r
}

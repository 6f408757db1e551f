package jobs

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/opasim/opasim/flow/internal/textfile"
	"github.com/opasim/opasim/flow/workload"
)

// The job stream file: one job a line, '#' starts a comment:
//
//	ARRIVAL SIZE RUNTIME [ESTIMATE [APP]]
//
// ARRIVAL, RUNTIME and ESTIMATE are times (non-negative, finite; an
// ESTIMATE of 0 is the runtime); SIZE is a number of servers (at least 1).
// APP is the job's application on the network when it is not the run's:
// a kind (workload.AppKinds), optionally followed by ,iterations=N
// ,size=S ,compute=C ,pattern=NAME, which replace the run's values for
// this job (see JobApp). Arrivals need not be sorted.

// MaxStreamLine is the longest line ReadStream accepts.
const MaxStreamLine = 1024

// ReadStream reads a job stream; name prefixes the errors, which give the
// line.
func ReadStream(r io.Reader, name string) ([]Job, error) {
	return ReadStreamWith(r, name, nil, nil)
}

// ErrStopped is what ReadStreamWith returns when its stop said to stop.
var ErrStopped = textfile.ErrStopped

// ReadStreamWith is ReadStream that asks limit (nil: nothing) with the
// jobs read every time their number reaches a power of two (from 2^12),
// an error it returns ending the read at that line (for a memory
// budget), and asks stop (nil: never) every few thousand lines, ending
// the read with ErrStopped once it says to.
func ReadStreamWith(r io.Reader, name string, limit func(jobs int64) error, stop func() bool) ([]Job, error) {
	var jobs []Job
	next := 1 << 12
	err := textfile.FieldsUntil(r, name, MaxStreamLine, stop, func(line int, f []string) error {
		if limit != nil && len(jobs) >= next {
			next *= 2
			if err := limit(int64(len(jobs))); err != nil {
				return fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		if len(f) < 3 || len(f) > 5 {
			return fmt.Errorf("%s:%d: %d fields: a job is ARRIVAL SIZE RUNTIME [ESTIMATE [APP]]", name, line, len(f))
		}
		j := Job{}
		if len(f) == 5 {
			if _, err := JobApp(f[4], workload.App{}); err != nil {
				return fmt.Errorf("%s:%d: %w", name, line, err)
			}
			j.App = f[4]
		}
		times := []struct {
			field string
			to    *float64
			text  string
		}{{"arrival", &j.Arrival, f[0]}, {"runtime", &j.Runtime, f[2]}}
		if len(f) >= 4 {
			times = append(times, struct {
				field string
				to    *float64
				text  string
			}{"estimate", &j.Estimate, f[3]})
		}
		for _, x := range times {
			v, err := strconv.ParseFloat(x.text, 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("%s:%d: %s %q is not allowed: must be a number at least 0 and finite", name, line, x.field, x.text)
			}
			*x.to = v
		}
		size, err := strconv.Atoi(f[1])
		if err != nil || size < 1 {
			return fmt.Errorf("%s:%d: size %q is not allowed: must be an integer at least 1", name, line, f[1])
		}
		j.Size = size
		jobs = append(jobs, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// JobApp is the application a job's APP field names: base (the run's
// application) with the kind spec names and the values it gives. spec is
// KIND[,iterations=N][,size=S][,compute=C][,pattern=NAME]: KIND one of
// workload.AppKinds, N in [1, 2^20], S and C at least 0 and finite, NAME
// a pattern (workload.Patterns; a bench's), each key at most once. The tasks and seed stay base's (the job sets them).
func JobApp(spec string, base workload.App) (workload.App, error) {
	parts := strings.Split(spec, ",")
	if !slices.Contains(workload.AppKinds(), parts[0]) {
		return base, fmt.Errorf("application %q: kind %q is not allowed: must be one of %s", spec, parts[0], strings.Join(workload.AppKinds(), ", "))
	}
	app := base
	app.Kind = parts[0]
	seen := map[string]bool{}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || seen[k] {
			return base, fmt.Errorf("application %q: %q is not allowed: must be iterations=N, size=S, compute=C or pattern=NAME, each at most once", spec, kv)
		}
		seen[k] = true
		switch k {
		case "iterations":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1<<20 {
				return base, fmt.Errorf("application %q: iterations %q is not allowed: must be an integer in [1, %d]", spec, v, 1<<20)
			}
			app.Iterations = n
		case "size", "compute":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x >= 0) || x > workload.MaxMarkovValue {
				return base, fmt.Errorf("application %q: %s %q is not allowed: must be a number in [0, %g]", spec, k, v, workload.MaxMarkovValue)
			}
			if k == "size" {
				app.Size = x
			} else {
				app.Compute = x
			}
		case "pattern":
			if !slices.Contains(workload.Patterns(), v) {
				return base, fmt.Errorf("application %q: pattern %q is not allowed: must be one of %s", spec, v, strings.Join(workload.Patterns(), ", "))
			}
			app.Pattern = v
		default:
			return base, fmt.Errorf("application %q: key %q is not allowed: must be iterations, size, compute or pattern", spec, k)
		}
	}
	if app.Kind != workload.Bench && !seen["pattern"] {
		app.Pattern = "" // the run's bench pattern is not this kind's
	}
	return app, nil
}

// MaxGeneratedJobs bounds Generator.Jobs (a memory budget bounds it
// further).
const MaxGeneratedJobs = 1 << 31

// Generator draws a job stream: Poisson arrivals at Rate jobs per time
// unit, sizes uniform among the powers of two from MinSize to MaxSize,
// runtimes exponential of mean MeanRuntime, and user estimates Overestimate
// times the runtime (at least 1: users ask for more than they use).
type Generator struct {
	Jobs             int
	Rate             float64
	MinSize, MaxSize int
	MeanRuntime      float64
	Overestimate     float64
	Seed             uint64
}

// Generate draws the stream.
func (g Generator) Generate() ([]Job, error) {
	switch {
	case g.Jobs < 0 || g.Jobs > MaxGeneratedJobs:
		return nil, fmt.Errorf("generator jobs (--jobs): %d is not allowed: must be in [0, %d]", g.Jobs, MaxGeneratedJobs)
	case !(g.Rate > 0) || math.IsInf(g.Rate, 0):
		return nil, fmt.Errorf("generator rate (--rate): %v is not allowed: must be positive and finite", g.Rate)
	case g.MinSize < 1 || g.MaxSize < g.MinSize || g.MaxSize > math.MaxInt32:
		return nil, fmt.Errorf("generator sizes: [%d, %d] is not allowed: must have 1 <= min <= max <= %d (--min-size, --max-size)", g.MinSize, g.MaxSize, math.MaxInt32)
	case !(g.MeanRuntime > 0) || g.MeanRuntime > 1e300:
		return nil, fmt.Errorf("generator mean runtime (--mean-runtime): %v is not allowed: must be in (0, 1e300]", g.MeanRuntime)
	case !(g.Overestimate >= 1) || g.Overestimate > 1e6:
		return nil, fmt.Errorf("generator overestimate (--overestimate): %v is not allowed: must be in [1, 1e6]", g.Overestimate)
	}
	var sizes []int
	for s := 1; s <= g.MaxSize; s *= 2 {
		if s >= g.MinSize {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		sizes = []int{g.MinSize}
	}
	rng := rand.New(rand.NewPCG(g.Seed, 0x73747265616d))
	jobs := make([]Job, g.Jobs)
	t := 0.0
	for i := range jobs {
		t += rng.ExpFloat64() / g.Rate
		rt := rng.ExpFloat64() * g.MeanRuntime
		jobs[i] = Job{Arrival: t, Size: sizes[rng.IntN(len(sizes))], Runtime: rt, Estimate: rt * g.Overestimate}
	}
	return jobs, nil
}

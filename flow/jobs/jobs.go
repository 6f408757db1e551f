// Package jobs is the batch system of the flow engine's system model (seed
// 001 section 3.4): a stream of jobs, each asking for a number of servers
// for a time the user estimates, a job-selection policy (FCFS, SJF,
// aggressive (EASY) and conservative backfilling), a resource-allocation
// policy (consecutive, random, locality-aware) and a task mapping
// (consecutive, random). It decides when each job starts and on which
// servers; how long a job runs is its given runtime (Simulate), or its
// application's execution on the network shared with the other jobs
// (RunNetwork, on the dynamic engine).
//
// Deterministic: events in time order, ties broken by job order; the
// random policies draw from a seeded generator.
package jobs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Job is one request to the batch system.
type Job struct {
	Arrival  float64 // when it is submitted, >= 0
	Size     int     // servers, in [1, the system's servers]
	Runtime  float64 // how long it runs once started, >= 0
	Estimate float64 // the user's estimate of the runtime (0: the runtime); backfilling plans with it
	// App is the job's application on the network (RunNetwork) when it is
	// not the run's: the stream's APP field (JobApp); "" for the run's.
	App string
}

// Job-selection policies.
const (
	FCFS         = "fcfs"         // first come, first served: the head waits, so does everything behind it
	SJF          = "sjf"          // shortest (estimate) job first, no backfilling
	Aggressive   = "easy"         // EASY backfilling: a later job may start if it does not delay the head's reservation
	Conservative = "conservative" // every waiting job has a reservation; a job starts only if it delays none
)

// Allocation policies.
const (
	Consecutive = "consecutive" // the lowest-numbered free servers
	Random      = "random"      // free servers drawn at random (seeded)
	Locality    = "locality"    // the shortest contiguous run of free servers that fits (best fit); else the free servers in the narrowest window of the numbering
)

// Policies and Allocations list the names.
func Policies() []string    { return []string{Aggressive, Conservative, FCFS, SJF} }
func Allocations() []string { return []string{Consecutive, Locality, Random} }

// Config is the batch system.
type Config struct {
	Servers    int
	Policy     string
	Allocation string
	Seed       uint64 // the random allocation's
}

// Placement is what the system decided for a job.
type Placement struct {
	Start, End float64
	Servers    []int32 // the job's servers; task i runs on Servers[i] (Map reorders them)
}

// Wait is the time between a job's arrival and its start.
func (p Placement) Wait(j Job) float64 { return p.Start - j.Arrival }

// Result is a whole stream's outcome.
type Result struct {
	Jobs        []Placement
	Makespan    float64 // the last end
	MeanWait    float64
	MeanTotal   float64 // mean of end − arrival
	Utilization float64 // busy server-time over servers × makespan
	Throughput  float64 // jobs ended per unit time: jobs over the makespan
	// Busy is the number of busy servers over time: Busy[i] servers from
	// Times[i] until Times[i+1] (or the makespan).
	Times []float64
	Busy  []int
	// Reserved is, per job, the start backfilling first promised it (EASY:
	// when it became the head of the queue; conservative: when it was
	// first planned), +Inf if it never waited for one. With runtimes no
	// longer than estimates, no job starts after it.
	Reserved []float64
}

func (c Config) check(jobs []Job) error {
	if c.Servers < 1 {
		return fmt.Errorf("jobs servers: %d is not allowed: must be at least 1", c.Servers)
	}
	if !slices.Contains(Policies(), c.Policy) {
		return fmt.Errorf("jobs policy: %q is not allowed: must be one of %s", c.Policy, strings.Join(Policies(), ", "))
	}
	if !slices.Contains(Allocations(), c.Allocation) {
		return fmt.Errorf("jobs allocation: %q is not allowed: must be one of %s", c.Allocation, strings.Join(Allocations(), ", "))
	}
	for i, j := range jobs {
		switch {
		case !(j.Arrival >= 0) || math.IsInf(j.Arrival, 0):
			return fmt.Errorf("job %d arrival: %v is not allowed: must be at least 0 and finite", i, j.Arrival)
		case j.Size < 1 || j.Size > c.Servers:
			return fmt.Errorf("job %d size: %d is not allowed: must be in [1, %d] (the servers)", i, j.Size, c.Servers)
		case !(j.Runtime >= 0) || math.IsInf(j.Runtime, 0):
			return fmt.Errorf("job %d runtime: %v is not allowed: must be at least 0 and finite", i, j.Runtime)
		case !(j.Estimate >= 0) || math.IsInf(j.Estimate, 0):
			return fmt.Errorf("job %d estimate: %v is not allowed: must be at least 0 and finite", i, j.Estimate)
		}
	}
	return nil
}

func estimate(j Job) float64 {
	if j.Estimate == 0 {
		return j.Runtime
	}
	return j.Estimate
}

// Simulate runs the stream with each job taking its Runtime.
func Simulate(c Config, jobs []Job) (*Result, error) {
	s, err := NewScheduler(c, jobs)
	if err != nil {
		return nil, err
	}
	for {
		started, t, ok := s.Next()
		if !ok {
			break
		}
		for _, i := range started {
			s.Finish(i, t+jobs[i].Runtime)
		}
	}
	return s.Result(), nil
}

// allocate takes n free servers by the allocation policy.
func (s *Scheduler) allocate(n int) []int32 {
	out := make([]int32, 0, n)
	switch s.c.Allocation {
	case Consecutive:
		for v := 0; v < len(s.free) && len(out) < n; v++ {
			if s.free[v] {
				out = append(out, int32(v))
			}
		}
	case Random:
		var cand []int32
		for v, f := range s.free {
			if f {
				cand = append(cand, int32(v))
			}
		}
		for k := 0; k < n; k++ {
			x := k + s.rng.IntN(len(cand)-k)
			cand[k], cand[x] = cand[x], cand[k]
		}
		out = append(out, cand[:n]...)
		slices.Sort(out)
	case Locality:
		out = s.contiguous(n)
	}
	for _, v := range out {
		s.free[v] = false
	}
	s.nFree -= n
	return out
}

// contiguous is the shortest run of free servers at least n long (the
// first of the shortest); without one, the n free servers in the
// narrowest window of the numbering (the first of the narrowest).
func (s *Scheduler) contiguous(n int) []int32 {
	best, bestLen := -1, math.MaxInt
	for v := 0; v < len(s.free); {
		if !s.free[v] {
			v++
			continue
		}
		w := v
		for w < len(s.free) && s.free[w] {
			w++
		}
		if w-v >= n && w-v < bestLen {
			best, bestLen = v, w-v
		}
		v = w
	}
	out := make([]int32, 0, n)
	if best >= 0 {
		for v := best; v < best+n; v++ {
			out = append(out, int32(v))
		}
		return out
	}
	var freeList []int32
	for v, f := range s.free {
		if f {
			freeList = append(freeList, int32(v))
		}
	}
	k := 0
	for i := 1; i+n <= len(freeList); i++ {
		if freeList[i+n-1]-freeList[i] < freeList[k+n-1]-freeList[k] {
			k = i
		}
	}
	return append(out, freeList[k:k+n]...)
}

// Ended reports whether the job placed so has ended: it was given
// servers and its end is known.
func (p Placement) Ended() bool { return p.Servers != nil && !math.IsInf(p.End, 1) }

// Map places a job's tasks on its servers: consecutive (task i on the
// i-th lowest server) or random (a seeded shuffle).
func Map(servers []int32, mapping string, seed uint64) ([]int32, error) {
	out := slices.Clone(servers)
	switch mapping {
	case Consecutive:
	case Random:
		rng := rand.New(rand.NewPCG(seed, 0x6d6170))
		rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	default:
		return nil, fmt.Errorf("jobs mapping: %q is not allowed: must be one of %s, %s", mapping, Consecutive, Random)
	}
	return out, nil
}

package jobs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Scheduler is the batch system driven step by step, for callers that
// learn a job's end only by running it (the network's execution of its
// application): Next returns the jobs that start at the next decision
// time; the caller reports each end with Finish before asking again.
type Scheduler struct {
	c        Config
	jobs     []Job
	order    []int // job indices by arrival (stable)
	arrived  int   // jobs of order submitted so far
	queue    []int // waiting, in submission order
	running  []int
	endAt    []float64 // per job: its end once Finish told it (+Inf before)
	place    []Placement
	reserved []float64
	planned  []float64 // conservative: each waiting job's current reservation (+Inf: none yet)
	free     []bool    // per server
	nFree    int
	now      float64
	rng      *rand.Rand
	pending  []int // started at the last Next and not yet finished by the caller
	times    []float64
	busy     []int
	finished int
}

// NewScheduler checks c and jobs and returns a scheduler at time 0.
func NewScheduler(c Config, jobs []Job) (*Scheduler, error) {
	if err := c.check(jobs); err != nil {
		return nil, err
	}
	s := &Scheduler{c: c, jobs: jobs, endAt: make([]float64, len(jobs)), place: make([]Placement, len(jobs)), reserved: make([]float64, len(jobs)), planned: make([]float64, len(jobs)),
		free: make([]bool, c.Servers), nFree: c.Servers, rng: rand.New(rand.NewPCG(c.Seed, 0x6a6f6273))}
	for i := range s.free {
		s.free[i] = true
	}
	s.order = make([]int, len(jobs))
	for i := range s.order {
		s.order[i] = i
		s.endAt[i], s.reserved[i], s.planned[i] = math.Inf(1), math.Inf(1), math.Inf(1)
	}
	sort.SliceStable(s.order, func(a, b int) bool { return jobs[s.order[a]].Arrival < jobs[s.order[b]].Arrival })
	return s, nil
}

// Finish reports that job i, started by Next, ends at t (not before its
// start).
func (s *Scheduler) Finish(i int, t float64) {
	if t < s.place[i].Start {
		t = s.place[i].Start
	}
	s.endAt[i] = t
	s.pending = slices.DeleteFunc(s.pending, func(x int) bool { return x == i })
}

// Next advances to the next decision time (an arrival or an end), frees
// the servers of the jobs ending then, takes the arrivals, and starts the
// jobs the policy allows. It returns them (possibly none) and the time;
// ok is false when every job has ended. Every job Next started must be
// given its end with Finish before Next is called again.
func (s *Scheduler) Next() (started []int, now float64, ok bool) {
	if len(s.pending) > 0 {
		panic("jobs: Next before the ends of the jobs it started were given")
	}
	for {
		t := s.NextArrival()
		for _, i := range s.running {
			t = min(t, s.endAt[i])
		}
		if math.IsInf(t, 1) {
			return nil, s.now, false
		}
		started = s.advance(t)
		if len(started) > 0 || s.finished == len(s.jobs) {
			s.pending = append(s.pending[:0], started...)
			return started, t, s.finished < len(s.jobs) || len(started) > 0
		}
	}
}

// NextArrival is when the next job not yet submitted arrives, +Inf when
// every job has.
func (s *Scheduler) NextArrival() float64 {
	if s.arrived < len(s.order) {
		return s.jobs[s.order[s.arrived]].Arrival
	}
	return math.Inf(1)
}

// Done tells whether every job has ended.
func (s *Scheduler) Done() bool { return s.finished == len(s.jobs) }

// Step is the batch system driven by a caller that learns ends as they
// happen (the network's execution of the jobs' applications): it moves to
// time t (not before the last decision), frees the servers of the jobs
// whose ends Finish gave at or before t, takes the arrivals at or before
// t and starts the jobs the policy allows, which it returns. Unlike Next,
// jobs may be running with their ends not yet known; the caller calls
// Step at every end (after Finish) and at every arrival (NextArrival).
func (s *Scheduler) Step(t float64) ([]int, error) {
	if !(t >= s.now) || math.IsInf(t, 1) {
		return nil, fmt.Errorf("jobs step: time %v is not allowed: must be finite and at least the last decision's, %v", t, s.now)
	}
	started := s.advance(t)
	s.pending = s.pending[:0]
	return started, nil
}

// Placement is what the scheduler decided for job i so far (its end is
// +Inf while it runs).
func (s *Scheduler) Placement(i int) Placement { return s.place[i] }

// settle marks the running jobs that ended by time t ended, freeing
// their servers, and decides nothing: for a run stopped at t.
func (s *Scheduler) settle(t float64) {
	s.running = slices.DeleteFunc(s.running, func(i int) bool {
		if s.endAt[i] > t {
			return false
		}
		s.place[i].End = s.endAt[i]
		s.finished++
		return true
	})
}

// advance moves to time t: frees the servers of the jobs ending by then,
// takes the arrivals, and starts the jobs the policy allows.
func (s *Scheduler) advance(t float64) []int {
	s.now = t
	s.running = slices.DeleteFunc(s.running, func(i int) bool {
		if s.endAt[i] > t {
			return false
		}
		s.place[i].End = s.endAt[i]
		for _, v := range s.place[i].Servers {
			s.free[v] = true
		}
		s.nFree += len(s.place[i].Servers)
		s.finished++
		return true
	})
	for s.arrived < len(s.order) && s.jobs[s.order[s.arrived]].Arrival <= t {
		s.queue = append(s.queue, s.order[s.arrived])
		s.arrived++
	}
	started := s.decide()
	s.record()
	return started
}

// record notes the busy servers from now on.
func (s *Scheduler) record() {
	busy := s.c.Servers - s.nFree
	if n := len(s.times); n > 0 && s.times[n-1] == s.now {
		s.busy[n-1] = busy
		return
	}
	if n := len(s.busy); n > 0 && s.busy[n-1] == busy {
		return
	}
	s.times, s.busy = append(s.times, s.now), append(s.busy, busy)
}

// Result summarizes what the scheduler decided once every job ended.
//
// Before every job has ended (a run interrupted), the figures cover the
// jobs that ended (Ended); the others' placements are a job running
// (End +Inf) or one not started (no servers).
func (s *Scheduler) Result() *Result {
	r := &Result{Jobs: s.place, Times: s.times, Busy: s.busy, Reserved: s.reserved}
	work := 0.0
	n := 0
	for i, p := range s.place {
		if !p.Ended() {
			continue
		}
		j := s.jobs[i]
		r.Makespan = max(r.Makespan, p.End)
		r.MeanWait += p.Wait(j)
		r.MeanTotal += p.End - j.Arrival
		work += (p.End - p.Start) * float64(j.Size)
		n++
	}
	if n > 0 {
		r.MeanWait /= float64(n)
		r.MeanTotal /= float64(n)
	}
	if r.Makespan > 0 {
		r.Utilization = work / (float64(s.c.Servers) * r.Makespan)
		r.Throughput = float64(n) / r.Makespan
	}
	return r
}

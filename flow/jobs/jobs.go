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
	"sort"
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

// decide starts the waiting jobs the policy allows now.
func (s *Scheduler) decide() []int {
	var started []int
	switch s.c.Policy {
	case FCFS, SJF:
		if s.c.Policy == SJF {
			sort.SliceStable(s.queue, func(a, b int) bool { return estimate(s.jobs[s.queue[a]]) < estimate(s.jobs[s.queue[b]]) })
		}
		k := 0
		for k < len(s.queue) && s.jobs[s.queue[k]].Size <= s.nFree {
			started = s.start(s.queue[k], started)
			k++
		}
		s.queue = s.queue[k:]
	case Aggressive:
		started = s.decideEASY(started)
	case Conservative:
		started = s.decideConservative(started)
	}
	return started
}

// start starts waiting job i now and returns started with i appended.
func (s *Scheduler) start(i int, started []int) []int {
	s.place[i] = Placement{Start: s.now, End: math.Inf(1), Servers: s.allocate(s.jobs[i].Size)}
	s.running = append(s.running, i)
	return append(started, i)
}

// decideEASY is decide under aggressive (EASY) backfilling: the jobs at
// the head of the queue that fit, then the head job's reservation, then
// the jobs behind that fit and do not delay it. It returns started with
// the jobs it starts appended.
func (s *Scheduler) decideEASY(started []int) []int {
	for len(s.queue) > 0 && s.jobs[s.queue[0]].Size <= s.nFree {
		started = s.start(s.queue[0], started)
		s.queue = s.queue[1:]
	}
	if len(s.queue) == 0 {
		return started
	}
	shadow, extra := s.reservation(s.jobs[s.queue[0]].Size)
	if math.IsInf(s.reserved[s.queue[0]], 1) {
		s.reserved[s.queue[0]] = shadow
	}
	rest := s.queue[:1]
	for _, i := range s.queue[1:] {
		j := s.jobs[i]
		if j.Size <= s.nFree && (s.now+estimate(j) <= shadow || j.Size <= extra) {
			if s.now+estimate(j) > shadow {
				extra -= j.Size
			}
			started = s.start(i, started)
			continue
		}
		rest = append(rest, i)
	}
	s.queue = rest
	return started
}

// decideConservative is decide under conservative backfilling: every
// waiting job gets a reservation, and those whose reservation is now
// start. It returns started with the jobs it starts appended.
func (s *Scheduler) decideConservative(started []int) []int {
	// Re-plan in the order of the current reservations (jobs never
	// planned last, in submission order): a job re-planned after only
	// jobs that started no later can always have its old slot back
	// (their slots only move earlier, so they use less of it), so no
	// reservation is ever pushed later (Mu'alem and Feitelson's
	// compression).
	p := s.profile()
	sort.SliceStable(s.queue, func(a, b int) bool { return s.planned[s.queue[a]] < s.planned[s.queue[b]] })
	var rest []int
	for _, i := range s.queue {
		j := s.jobs[i]
		at := p.earliest(s.now, estimate(j), j.Size)
		p.reserve(at, at+estimate(j), j.Size)
		if at > s.now && math.IsInf(s.reserved[i], 1) {
			s.reserved[i] = at
		}
		s.planned[i] = at
		if at == s.now {
			started = s.start(i, started)
			if estimate(j) == 0 {
				// Its plan reserved nothing (an empty interval); started,
				// it is already past its estimate, whose servers a plan
				// does not count on getting back (profile).
				p.reserve(s.now, math.Inf(1), j.Size)
			}
			continue
		}
		rest = append(rest, i)
	}
	s.queue = rest
	return started
}

// expectedEnd is when a running job is expected to end, as backfilling
// plans: its start plus its estimate (the scheduler does not know the
// runtime), or now for a job already past its estimate.
func (s *Scheduler) expectedEnd(i int) float64 {
	return max(s.now, s.place[i].Start+estimate(s.jobs[i]))
}

// reservation is EASY's: the head job of size n can start at shadow, the
// earliest time enough servers are free by the running jobs' expected
// ends; extra is how many servers are free then beyond n (a backfilled job
// that runs past shadow may use at most these).
func (s *Scheduler) reservation(n int) (shadow float64, extra int) {
	ends := slices.Clone(s.running)
	sort.SliceStable(ends, func(a, b int) bool { return s.expectedEnd(ends[a]) < s.expectedEnd(ends[b]) })
	free := s.nFree
	for _, i := range ends {
		free += s.jobs[i].Size
		if free >= n {
			return max(s.now, s.expectedEnd(i)), free - n
		}
	}
	return math.Inf(1), 0 // cannot happen: sizes are at most the servers
}

// profile is the number of free servers over time by the running jobs'
// expected ends.
func (s *Scheduler) profile() *profile {
	p := &profile{t: []float64{s.now}, free: []int{s.nFree}}
	for _, i := range s.running {
		// A job's servers come back at its expected end; a job past its
		// estimate (a runtime the user underestimated, or the network's
		// execution) may end at any time: not counted on (+Inf), the plan
		// being made again at its end.
		if end := s.place[i].Start + estimate(s.jobs[i]); end > s.now {
			p.reserve(end, math.Inf(1), -s.jobs[i].Size)
		}
	}
	return p
}

// profile is a step function: free[k] servers from t[k] until t[k+1].
type profile struct {
	t    []float64
	free []int
}

// split makes x a step boundary and returns its index.
func (p *profile) split(x float64) int {
	k := sort.SearchFloat64s(p.t, x)
	if k < len(p.t) && p.t[k] == x {
		return k
	}
	p.t = slices.Insert(p.t, k, x)
	p.free = slices.Insert(p.free, k, p.free[k-1])
	return k
}

// reserve takes n servers from a until b.
func (p *profile) reserve(a, b float64, n int) {
	if b <= a {
		return
	}
	lo := p.split(a)
	hi := len(p.t)
	if !math.IsInf(b, 1) {
		hi = p.split(b)
	}
	for k := lo; k < hi; k++ {
		p.free[k] -= n
	}
}

// earliest is the first step start at or after now from which n servers
// stay free for d.
func (p *profile) earliest(now, d float64, n int) float64 {
	for k := range p.t {
		if p.t[k] < now || p.free[k] < n {
			continue
		}
		ok := true
		for m := k + 1; m < len(p.t) && p.t[m] < p.t[k]+d; m++ {
			if p.free[m] < n {
				ok = false
				break
			}
		}
		if ok {
			return p.t[k]
		}
	}
	return math.Inf(1)
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

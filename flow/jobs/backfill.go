package jobs

import (
	"math"
	"slices"
	"sort"
)

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

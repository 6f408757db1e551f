package jobs

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// stream is the hand-computed case: 4 servers; estimates are the
// runtimes.
var stream = []Job{
	{Arrival: 0, Size: 3, Runtime: 10},
	{Arrival: 1, Size: 2, Runtime: 5},
	{Arrival: 2, Size: 4, Runtime: 5},
	{Arrival: 3, Size: 1, Runtime: 14},
	{Arrival: 4, Size: 1, Runtime: 4},
}

// TestPoliciesByHand: the starts and makespans worked out by hand.
//
//   - FCFS: J1 waits for J0 (10–15); J2 needs all 4 (15–20); J3 and J4
//     behind it (20–34, 20–24). Makespan 34.
//   - SJF: at 4 the queue by estimate is J4, J1, J2, J3: J4 fits on the
//     free server (4–8); J1 at 10, J2 at 15, J3 at 20. Makespan 34.
//   - EASY: J1 is the head with a reservation at 10 and 2 spare servers;
//     J3 (one server, past 10) backfills at 3 (3–17); at 10 J1 starts and
//     J2 becomes the head, reserved at 17 with none spare; J4 (ends 14 <=
//     17) backfills at 10; J2 runs 17–22. Makespan 22.
//   - Conservative: J1 reserved at 10, J2 at 15, J3 at 20 (it would run
//     into J2's reservation earlier); J4 fits before 10 without delaying
//     anyone (4–8). Makespan 34.
func TestPoliciesByHand(t *testing.T) {
	for _, c := range []struct {
		policy   string
		starts   []float64
		makespan float64
	}{
		{FCFS, []float64{0, 10, 15, 20, 20}, 34},
		{SJF, []float64{0, 10, 15, 20, 4}, 34},
		{Aggressive, []float64{0, 10, 17, 3, 10}, 22},
		{Conservative, []float64{0, 10, 15, 20, 4}, 34},
	} {
		r, err := Simulate(Config{Servers: 4, Policy: c.policy, Allocation: Consecutive}, stream)
		if err != nil {
			t.Fatal(err)
		}
		var starts []float64
		for _, p := range r.Jobs {
			starts = append(starts, p.Start)
		}
		if !slices.Equal(starts, c.starts) || r.Makespan != c.makespan {
			t.Errorf("%s: starts %v, makespan %v; want %v, %v", c.policy, starts, r.Makespan, c.starts, c.makespan)
		}
		for i, p := range r.Jobs {
			if p.End != p.Start+stream[i].Runtime || len(p.Servers) != stream[i].Size {
				t.Errorf("%s: job %d %+v", c.policy, i, p)
			}
		}
	}
	r, _ := Simulate(Config{Servers: 4, Policy: Aggressive, Allocation: Consecutive}, stream)
	// Busy servers: 3 from 0, 4 from 3, 3 from 10 (J0 ended: J1, J3, J4 hold
	// 2+1+1 = 4)...: the utilization is the work over 4 × 22.
	work := 3*10.0 + 2*5 + 4*5 + 14 + 4
	if math.Abs(r.Utilization-work/(4*22)) > 1e-12 {
		t.Errorf("utilization %v, want %v", r.Utilization, work/(4*22))
	}
	if r.Reserved[1] != 10 || r.Reserved[2] != 17 {
		t.Errorf("EASY reservations %v, want J1 at 10 and J2 at 17", r.Reserved)
	}
}

// TestBackfillingKeepsReservations: on random streams whose runtimes do
// not exceed their estimates, no job starts after the start backfilling
// first promised it (the head's under EASY, everyone's under
// conservative), and every job runs on distinct free servers.
func TestBackfillingKeepsReservations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		servers := 2 + rng.IntN(30)
		jobs := make([]Job, 5+rng.IntN(40))
		at := 0.0
		for i := range jobs {
			at += float64(rng.IntN(5))
			rt := float64(1 + rng.IntN(20))
			jobs[i] = Job{Arrival: at, Size: 1 + rng.IntN(servers), Runtime: rt, Estimate: rt + float64(rng.IntN(10))}
		}
		for _, policy := range []string{Aggressive, Conservative} {
			for _, alloc := range Allocations() {
				r, err := Simulate(Config{Servers: servers, Policy: policy, Allocation: alloc, Seed: uint64(round)}, jobs)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range r.Jobs {
					if p.Start > r.Reserved[i]+1e-9 {
						t.Fatalf("round %d %s: job %d promised %v, started %v", round, policy, i, r.Reserved[i], p.Start)
					}
					if p.Start < jobs[i].Arrival {
						t.Fatalf("round %d %s: job %d started before it arrived", round, policy, i)
					}
				}
				checkNoOverlap(t, r, jobs, servers)
			}
		}
	}
}

// checkNoOverlap fails if two jobs hold one server at once.
func checkNoOverlap(t *testing.T, r *Result, jobs []Job, servers int) {
	t.Helper()
	busy := make([][][2]float64, servers)
	for i, p := range r.Jobs {
		seen := map[int32]bool{}
		for _, v := range p.Servers {
			if seen[v] || v < 0 || int(v) >= servers {
				t.Fatalf("job %d servers %v", i, p.Servers)
			}
			seen[v] = true
			for _, x := range busy[v] {
				if p.Start < x[1] && x[0] < p.End {
					t.Fatalf("server %d: job %d (%v–%v) overlaps %v", v, i, p.Start, p.End, x)
				}
			}
			busy[v] = append(busy[v], [2]float64{p.Start, p.End})
		}
	}
}

// TestAllocation: consecutive takes the lowest free servers; locality the
// shortest free run that fits; random a seeded draw.
func TestAllocation(t *testing.T) {
	s, _ := NewScheduler(Config{Servers: 10, Policy: FCFS, Allocation: Locality}, nil)
	for _, v := range []int{0, 1, 4, 8} { // free runs: 2–3 (2), 5–7 (3), 9 (1)
		s.free[v] = false
	}
	s.nFree = 6
	if got := s.allocate(2); !slices.Equal(got, []int32{2, 3}) {
		t.Errorf("locality, 2 servers: %v, want the run 2–3", got)
	}
	if got := s.allocate(3); !slices.Equal(got, []int32{5, 6, 7}) {
		t.Errorf("locality, 3 servers: %v, want 5–7", got)
	}
	s.free[2], s.free[3], s.free[7], s.nFree = true, true, true, 4 // free: 2, 3, 7, 9
	if got := s.allocate(3); !slices.Equal(got, []int32{2, 3, 7}) {
		t.Errorf("locality without a run: %v, want the narrowest window 2, 3, 7", got)
	}
	c, _ := NewScheduler(Config{Servers: 6, Policy: FCFS, Allocation: Consecutive}, nil)
	c.free[1] = false
	c.nFree = 5
	if got := c.allocate(3); !slices.Equal(got, []int32{0, 2, 3}) {
		t.Errorf("consecutive: %v", got)
	}
	a, _ := Simulate(Config{Servers: 64, Policy: FCFS, Allocation: Random, Seed: 1}, []Job{{Size: 8, Runtime: 1}})
	b, _ := Simulate(Config{Servers: 64, Policy: FCFS, Allocation: Random, Seed: 2}, []Job{{Size: 8, Runtime: 1}})
	if slices.Equal(a.Jobs[0].Servers, b.Jobs[0].Servers) {
		t.Error("random allocation ignores the seed")
	}
	m, _ := Map([]int32{4, 5, 6, 7}, Random, 3)
	n, _ := Map([]int32{4, 5, 6, 7}, Random, 3)
	if !slices.Equal(m, n) || slices.Equal(m, []int32{4, 5, 6, 7}) {
		t.Errorf("random mapping %v, again %v", m, n)
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		jobs []Job
		want string
	}{
		{Config{Servers: 0, Policy: FCFS, Allocation: Consecutive}, nil, "jobs servers: 0"},
		{Config{Servers: 4, Policy: "lottery", Allocation: Consecutive}, nil, `jobs policy: "lottery" is not allowed`},
		{Config{Servers: 4, Policy: FCFS, Allocation: "best"}, nil, `jobs allocation: "best" is not allowed`},
		{Config{Servers: 4, Policy: FCFS, Allocation: Consecutive}, []Job{{Size: 5, Runtime: 1}}, "job 0 size: 5 is not allowed: must be in [1, 4]"},
		{Config{Servers: 4, Policy: FCFS, Allocation: Consecutive}, []Job{{Size: 1, Runtime: -1}}, "job 0 runtime: -1"},
		{Config{Servers: 4, Policy: FCFS, Allocation: Consecutive}, []Job{{Arrival: math.NaN(), Size: 1}}, "job 0 arrival: NaN"},
	} {
		if _, err := Simulate(c.cfg, c.jobs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if _, err := Map(nil, "snake", 1); err == nil || !strings.Contains(err.Error(), `jobs mapping: "snake" is not allowed`) {
		t.Errorf("mapping: %v", err)
	}
}

func TestReadStream(t *testing.T) {
	jobs, err := ReadStream(strings.NewReader("# a stream\n0 2 10\n1.5 4 5 8  # with an estimate\n\n"), "s.jobs")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[1] != (Job{Arrival: 1.5, Size: 4, Runtime: 5, Estimate: 8}) {
		t.Fatalf("%+v", jobs)
	}
	jobs, err = ReadStream(strings.NewReader("0 2 10 0 mapreduce\n1 4 5 8 stencil2d,iterations=3,size=2.5,compute=1\n2 4 1 0 bench,pattern=shift,iterations=2\n"), "s.jobs")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 || jobs[0].App != "mapreduce" || jobs[2].App != "bench,pattern=shift,iterations=2" || jobs[1] != (Job{Arrival: 1, Size: 4, Runtime: 5, Estimate: 8, App: "stencil2d,iterations=3,size=2.5,compute=1"}) {
		t.Fatalf("%+v", jobs)
	}
	for _, c := range []struct{ src, want string }{
		{"0 2\n", "s.jobs:1: 2 fields"},
		{"0 2 1 0 nbody x\n", "s.jobs:1: 6 fields"},
		{"0 2 1 0 lifo\n", `s.jobs:1: application "lifo": kind "lifo" is not allowed: must be one of allreduce, alltoall, bench, broadcast, dcntraffic`},
		{"0 2 1 0 nbody,iterations=0\n", `iterations "0" is not allowed: must be an integer in [1, 1048576]`},
		{"0 2 1 0 nbody,size=-1\n", `size "-1" is not allowed`},
		{"0 2 1 0 nbody,compute=NaN\n", `compute "NaN" is not allowed`},
		{"0 2 1 0 nbody,size=1,size=2\n", `"size=2" is not allowed: must be iterations=N, size=S, compute=C or pattern=NAME, each at most once`},
		{"0 2 1 0 bench,pattern=ring\n", `pattern "ring" is not allowed: must be one of all-to-all`},
		{"0 2 1 0 nbody,size\n", `"size" is not allowed`},
		{"0 2 1 0 nbody,seed=3\n", `key "seed" is not allowed`},
		{"0 0 1\n", `s.jobs:1: size "0" is not allowed`},
		{"x 1 1\n", `s.jobs:1: arrival "x" is not allowed`},
		{"\n1 1 -3\n", `s.jobs:2: runtime "-3" is not allowed`},
		{"1 1 1 Inf\n", `estimate "Inf" is not allowed`},
		{strings.Repeat("1", MaxStreamLine+1), "lines are limited"},
	} {
		if _, err := ReadStream(strings.NewReader(c.src), "s.jobs"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

// TestGenerate: the mean gap between arrivals and the mean runtime come
// out near 1/rate and the mean (10,000 jobs: within 5%); sizes are powers
// of two in range; estimates are the runtime times the overestimate; the
// same seed gives the same stream.
func TestGenerate(t *testing.T) {
	g := Generator{Jobs: 10000, Rate: 0.5, MinSize: 2, MaxSize: 64, MeanRuntime: 100, Overestimate: 2, Seed: 4}
	jobs, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	rt := 0.0
	for _, j := range jobs {
		rt += j.Runtime
		if j.Size < 2 || j.Size > 64 || j.Size&(j.Size-1) != 0 || j.Estimate != 2*j.Runtime {
			t.Fatalf("%+v", j)
		}
	}
	if gap := jobs[len(jobs)-1].Arrival / float64(len(jobs)); math.Abs(gap-2) > 0.1 {
		t.Errorf("mean gap %v, want about 2", gap)
	}
	if mean := rt / float64(len(jobs)); math.Abs(mean-100) > 5 {
		t.Errorf("mean runtime %v, want about 100", mean)
	}
	again, _ := g.Generate()
	if !slices.Equal(jobs, again) {
		t.Error("the same seed gives another stream")
	}
	if _, err := (Generator{Jobs: 1, Rate: 1, MinSize: 4, MaxSize: 2, MeanRuntime: 1, Overestimate: 1}).Generate(); err == nil || !strings.Contains(err.Error(), "generator sizes: [4, 2]") {
		t.Errorf("bad sizes: %v", err)
	}
}

// TestUnderestimates: with runtimes up to three times their estimates
// (running jobs overrun what backfilling planned with, as jobs on the
// network may), every policy still gives each job exactly its size in
// servers, no server two jobs at once, and no start before an arrival.
// Conservative backfilling used to count an overrunning job's servers as
// free now and start a job on fewer servers than it asked for.
func TestUnderestimates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 300; round++ {
		servers := 2 + rng.IntN(30)
		jobs := make([]Job, 5+rng.IntN(40))
		at := 0.0
		for i := range jobs {
			at += float64(rng.IntN(5))
			est := float64(1 + rng.IntN(20))
			jobs[i] = Job{Arrival: at, Size: 1 + rng.IntN(servers), Runtime: est * (1 + 2*rng.Float64()), Estimate: est}
		}
		for _, policy := range Policies() {
			for _, alloc := range Allocations() {
				r, err := Simulate(Config{Servers: servers, Policy: policy, Allocation: alloc, Seed: uint64(round)}, jobs)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range r.Jobs {
					if len(p.Servers) != jobs[i].Size || p.Start < jobs[i].Arrival || p.End != p.Start+jobs[i].Runtime {
						t.Fatalf("round %d %s %s: job %d %+v for %+v", round, policy, alloc, i, p, jobs[i])
					}
				}
				checkNoOverlap(t, r, jobs, servers)
			}
		}
	}
}

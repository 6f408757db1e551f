package maxmin

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

type spec struct {
	path []int32
	cap  float64 // 0: NoCap
}

func capOf(c float64) float64 {
	if c == 0 {
		return NoCap
	}
	return c
}

// solveFresh builds a solver, adds the flows in order and solves.
func solveFresh(t *testing.T, caps []float64, flows []spec) (*Solver, []FlowID) {
	t.Helper()
	s, err := New(caps)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]FlowID, len(flows))
	for i, f := range flows {
		if ids[i], err = s.AddFlow(f.path, capOf(f.cap)); err != nil {
			t.Fatal(err)
		}
	}
	s.Solve()
	return s, ids
}

func expect(t *testing.T, name string, caps []float64, flows []spec, want []float64) {
	t.Helper()
	s, ids := solveFresh(t, caps, flows)
	for i, id := range ids {
		if got := s.Rate(id); math.Abs(got-want[i]) > 1e-12*math.Max(1, want[i]) {
			t.Errorf("%s: flow %d rate %v, want %v", name, i, got, want[i])
		}
	}
	checkMaxMin(t, s)
}

// checkMaxMin checks the allocation against the characterisation of
// max-min fairness, independently of the algorithm: no link is over its
// capacity, and every flow is at its cap or has a bottleneck — a
// saturated link on its path where no flow has a higher rate.
func checkMaxMin(t *testing.T, s *Solver) {
	t.Helper()
	const eps = 1e-9
	used := make([]float64, s.NumLinks())
	top := make([]float64, s.NumLinks())
	for id := range s.meta {
		for _, l := range s.Path(FlowID(id)) {
			used[l] += s.rate[id]
			top[l] = max(top[l], s.rate[id])
		}
	}
	for l, u := range used {
		if u > s.capacity[l]+eps*math.Max(1, s.capacity[l]) {
			t.Fatalf("link %d carries %v over capacity %v", l, u, s.capacity[l])
		}
	}
	for id := range s.meta {
		rate, path, c := s.rate[id], s.Path(FlowID(id)), s.Cap(FlowID(id))
		if s.meta[id].flags&fAlive == 0 || rate >= c-eps*math.Max(1, c) {
			continue
		}
		ok := false
		for _, l := range path {
			c := s.capacity[l]
			if used[l] >= c-eps*math.Max(1, c) && rate >= top[l]-eps*math.Max(1, top[l]) {
				ok = true
				break
			}
		}
		if !ok {
			t.Fatalf("flow %d (rate %v, path %v) has no bottleneck", id, rate, path)
		}
	}
}

func TestSingleLink(t *testing.T) {
	for n := 1; n <= 7; n++ {
		flows := make([]spec, n)
		want := make([]float64, n)
		for i := range flows {
			flows[i] = spec{path: []int32{0}}
			want[i] = 10.0 / float64(n)
		}
		expect(t, fmt.Sprintf("%d flows", n), []float64{10}, flows, want)
	}
}

// TestParkingLot: a long flow over L links, each shared with one short
// flow. Equal capacities C: every link has two flows, all get C/2.
// Unequal capacities: the long flow is held to half the smallest, the
// short flow on that link gets the other half, every other short flow
// the rest of its link.
func TestParkingLot(t *testing.T) {
	for _, L := range []int{1, 2, 3, 5, 10} {
		caps := make([]float64, L)
		long := spec{}
		flows := []spec{}
		want := []float64{}
		for l := range caps {
			caps[l] = 6
			long.path = append(long.path, int32(l))
			flows = append(flows, spec{path: []int32{int32(l)}})
			want = append(want, 3)
		}
		expect(t, fmt.Sprintf("parking lot L=%d", L), caps, append([]spec{long}, flows...), append([]float64{3}, want...))
	}
	// Capacities 2, 4, 6: long 1, shorts 1, 3, 5.
	long := spec{path: []int32{0, 1, 2}}
	expect(t, "parking lot 2,4,6", []float64{2, 4, 6},
		[]spec{long, {path: []int32{0}}, {path: []int32{1}}, {path: []int32{2}}}, []float64{1, 1, 3, 5})
	// The smallest link in the middle: 8, 3, 10 → long 1.5; shorts 6.5, 1.5, 8.5.
	expect(t, "parking lot 8,3,10", []float64{8, 3, 10},
		[]spec{long, {path: []int32{0}}, {path: []int32{1}}, {path: []int32{2}}}, []float64{1.5, 6.5, 1.5, 8.5})
	// Two short flows on the first link, capacities 3 and 3: link 0 has
	// three flows (1 each); on link 1 the short flow takes the other 2.
	expect(t, "parking lot two shorts", []float64{3, 3},
		[]spec{{path: []int32{0, 1}}, {path: []int32{0}}, {path: []int32{0}}, {path: []int32{1}}}, []float64{1, 1, 1, 2})
}

// TestThreeBottlenecks: link A (capacity 1) carries f0, f1; link B (3)
// carries f1, f2, f3; link C (10) carries f3, f4. A saturates first: f0,
// f1 = 1/2. B's remaining 2.5 goes to f2, f3: 1.25 each. C's remaining
// 8.75 goes to f4. Three levels: 0.5, 1.25, 8.75.
func TestThreeBottlenecks(t *testing.T) {
	expect(t, "three levels", []float64{1, 3, 10},
		[]spec{{path: []int32{0}}, {path: []int32{0, 1}}, {path: []int32{1}}, {path: []int32{1, 2}}, {path: []int32{2}}},
		[]float64{0.5, 0.5, 1.25, 1.25, 8.75})
	// Paths in other orders, and a long flow f5 over A, B and C. A
	// carries f1, f2, f5 (share 1/3), B f0, f2, f4, f5 (3/4), C f0, f3,
	// f5 (10/3): A saturates, f1 = f2 = f5 = 1/3. B's remaining 3-2/3 =
	// 7/3 goes to f0 and f4 (7/6 each, below C's (10-1/3)/2). C's
	// remaining 10-1/3-7/6 = 8.5 goes to f3.
	expect(t, "three levels and a long flow", []float64{1, 3, 10},
		[]spec{{path: []int32{2, 1}}, {path: []int32{0}}, {path: []int32{1, 0}}, {path: []int32{2}}, {path: []int32{1}}, {path: []int32{0, 1, 2}}},
		[]float64{7.0 / 6, 1.0 / 3, 1.0 / 3, 8.5, 7.0 / 6, 1.0 / 3})
}

func TestRateCap(t *testing.T) {
	// A flow capped below its fair share frees bandwidth for the others.
	expect(t, "cap 1 on a link of 10", []float64{10},
		[]spec{{path: []int32{0}, cap: 1}, {path: []int32{0}}, {path: []int32{0}}}, []float64{1, 4.5, 4.5})
	// A cap above the fair share changes nothing.
	expect(t, "cap 5 on a link of 10", []float64{10},
		[]spec{{path: []int32{0}, cap: 5}, {path: []int32{0}}, {path: []int32{0}}}, []float64{10.0 / 3, 10.0 / 3, 10.0 / 3})
	// Caps on both flows of a link, below capacity: the link is not
	// saturated.
	expect(t, "two caps", []float64{10},
		[]spec{{path: []int32{0}, cap: 2}, {path: []int32{0}, cap: 3}}, []float64{2, 3})
	// A capped flow with no links runs at its cap.
	expect(t, "no links", []float64{1}, []spec{{cap: 7}}, []float64{7})
}

func TestSpecialCases(t *testing.T) {
	// A flow listing a link twice uses it twice: 2x + x = 3.
	expect(t, "link twice", []float64{3}, []spec{{path: []int32{0, 0}}, {path: []int32{0}}}, []float64{1, 1})
	// A link of capacity 0 stops its flows; the others share as usual.
	expect(t, "capacity 0", []float64{0, 4}, []spec{{path: []int32{0, 1}}, {path: []int32{1}}}, []float64{0, 4})
}

// TestIncrementalHand: two flows share a link; removing one doubles the
// other's rate; a flow on a separate link is not in the re-solved
// component.
func TestIncrementalHand(t *testing.T) {
	s, err := New([]float64{10, 5})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.AddFlow([]int32{0}, NoCap)
	b, _ := s.AddFlow([]int32{0}, NoCap)
	c, _ := s.AddFlow([]int32{1}, NoCap)
	if got := s.Solve(); len(got) != 3 {
		t.Fatalf("first solve changed %v", got)
	}
	if s.Rate(a) != 5 || s.Rate(b) != 5 || s.Rate(c) != 5 {
		t.Fatalf("rates %v %v %v", s.Rate(a), s.Rate(b), s.Rate(c))
	}
	if err := s.RemoveFlow(a); err != nil {
		t.Fatal(err)
	}
	if got := s.Solve(); fmt.Sprint(got) != fmt.Sprint([]FlowID{b}) {
		t.Fatalf("after removing a, solve changed %v, want [b]", got)
	}
	if s.Rate(b) != 10 || s.Rate(c) != 5 || s.NumFlows() != 2 {
		t.Fatalf("rates %v %v, flows %d", s.Rate(b), s.Rate(c), s.NumFlows())
	}
	if err := s.SetCapacity(1, 2); err != nil {
		t.Fatal(err)
	}
	if got := s.Solve(); fmt.Sprint(got) != fmt.Sprint([]FlowID{c}) || s.Rate(c) != 2 {
		t.Fatalf("after capacity 2: changed %v rate %v", got, s.Rate(c))
	}
	d, _ := s.AddFlow([]int32{1, 0}, NoCap) // reuses a's id
	if d != a {
		t.Fatalf("new id %d, want the freed %d", d, a)
	}
	s.Solve()
	if s.Rate(d) != 1 || s.Rate(c) != 1 || s.Rate(b) != 9 {
		t.Fatalf("rates d %v c %v b %v, want 1 1 9", s.Rate(d), s.Rate(c), s.Rate(b))
	}
	if got := s.Solve(); len(got) != 0 {
		t.Fatalf("a solve with nothing touched changed %v", got)
	}
}

// rng is a small deterministic generator for the property test.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
func (r *rng) intn(n int) int        { return int(r.next() % uint64(n)) }
func (r *rng) float() float64        { return float64(r.next()>>11) / (1 << 53) }
func (r *rng) chance(p float64) bool { return r.float() < p }

// TestIncrementalProperty: on random instances, after random additions,
// removals and capacity changes, the incremental rates equal (to 10^-12)
// those of a solve from scratch of the same solver, are max-min fair, and
// equal (to rounding) those of a new solver given the same flows.
func TestIncrementalProperty(t *testing.T) {
	seeds := 300
	if testlong.Reduced(t) {
		seeds = 50
	}
	for seed := range seeds {
		r := &rng{uint64(seed)}
		links := 1 + r.intn(25)
		caps := make([]float64, links)
		for l := range caps {
			caps[l] = randCap(r)
		}
		s, err := New(caps)
		if err != nil {
			t.Fatal(err)
		}
		var live []FlowID
		for step := range 60 {
			for range 1 + r.intn(4) {
				switch op := r.intn(10); {
				case op < 5 || len(live) == 0:
					path := make([]int32, 1+r.intn(5))
					for k := range path {
						path[k] = int32(r.intn(links))
					}
					c := NoCap
					if r.chance(0.2) {
						c = 0.1 + 5*r.float()
					}
					id, err := s.AddFlow(path, c)
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, id)
				case op < 8:
					i := r.intn(len(live))
					if err := s.RemoveFlow(live[i]); err != nil {
						t.Fatal(err)
					}
					live = append(live[:i], live[i+1:]...)
				default:
					if err := s.SetCapacity(int32(r.intn(links)), randCap(r)); err != nil {
						t.Fatal(err)
					}
				}
			}
			s.Solve()
			inc := make([]float64, len(s.rate))
			for id := range s.rate {
				inc[id] = s.Rate(FlowID(id))
			}
			s.SolveAll()
			for _, id := range live {
				if !near(s.Rate(id), inc[id]) {
					t.Fatalf("seed %d step %d: flow %d incremental %v, from scratch %v", seed, step, id, inc[id], s.Rate(id))
				}
			}
			checkMaxMin(t, s)
			fresh, err := New(s.capacity)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range live {
				if _, err := fresh.AddFlow(s.Path(id), s.Cap(id)); err != nil {
					t.Fatal(err)
				}
			}
			fresh.Solve()
			for i, id := range live {
				if got, want := fresh.Rate(FlowID(i)), s.Rate(id); math.Abs(got-want) > 1e-9*math.Max(1, want) {
					t.Fatalf("seed %d step %d: flow %d rate %v in a new solver, %v here", seed, step, id, got, want)
				}
			}
		}
	}
}

// TestReplayProperty: on random instances with positive capacities and
// no capacity changes — so that Solve starts above level 0 and replays
// only part of the filling — after random additions (some capped) and
// removals: Solve reports exactly the flows whose rate changed, the rates
// are max-min fair and equal (to 10^-12) those of a new solver given the
// same flows, and every 8 steps a SolveAll of the same solver agrees.
func TestReplayProperty(t *testing.T) {
	seeds := 400
	if testlong.Reduced(t) {
		seeds = 60
	}
	partial := 0
	for seed := range seeds {
		r := &rng{uint64(seed) + 1000}
		links := 1 + r.intn(40)
		caps := make([]float64, links)
		for l := range caps {
			caps[l] = float64(1 + r.intn(4))
			if r.chance(0.3) {
				caps[l] = 0.5 + 4*r.float()
			}
		}
		s, err := New(caps)
		if err != nil {
			t.Fatal(err)
		}
		s.SetComponentSolve(seed%5 == 4) // the component re-solve agrees too
		var live []FlowID
		old := map[FlowID]float64{}
		for step := range 80 {
			for range 1 + r.intn(3) {
				if r.chance(0.55) || len(live) == 0 {
					path := make([]int32, 1+r.intn(6))
					for k := range path {
						path[k] = int32(r.intn(links))
					}
					c := NoCap
					if r.chance(0.1) {
						c = 0.05 + r.float()
					}
					id, err := s.AddFlow(path, c)
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, id)
					delete(old, id)
				} else {
					i := r.intn(len(live))
					if err := s.RemoveFlow(live[i]); err != nil {
						t.Fatal(err)
					}
					delete(old, live[i])
					live = append(live[:i], live[i+1:]...)
				}
			}
			changed := map[FlowID]bool{}
			for _, id := range s.Solve() {
				changed[id] = true
			}
			if n := s.Recomputed(); n > 0 && n < s.NumFlows() {
				partial++
			}
			for _, id := range live {
				prev, known := old[id]
				if got := s.Rate(id); known && (got != prev) != changed[id] {
					t.Fatalf("seed %d step %d: flow %d went %v → %v, reported changed: %v", seed, step, id, prev, got, changed[id])
				}
				old[id] = s.Rate(id)
			}
			checkMaxMin(t, s)
			fresh, err := New(caps)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range live {
				if _, err := fresh.AddFlow(s.Path(id), s.Cap(id)); err != nil {
					t.Fatal(err)
				}
			}
			fresh.Solve()
			for i, id := range live {
				if !near(fresh.Rate(FlowID(i)), s.Rate(id)) {
					t.Fatalf("seed %d step %d: flow %d incremental %v, from scratch %v", seed, step, id, s.Rate(id), fresh.Rate(FlowID(i)))
				}
			}
			if step%8 == 7 {
				// A solve from scratch of the same solver; the next
				// steps continue from its rates.
				s.SolveAll()
				for _, id := range live {
					if !near(s.Rate(id), old[id]) {
						t.Fatalf("seed %d step %d: flow %d incremental %v, SolveAll %v", seed, step, id, old[id], s.Rate(id))
					}
					old[id] = s.Rate(id)
				}
			}
		}
	}
	// Partial re-solves must have been exercised.
	if partial < seeds*8 {
		t.Errorf("%d solves recomputed some flows but not all: too few", partial)
	}
	t.Logf("%d solves recomputed some flows but not all", partial)
}

// near reports whether incremental and from-scratch rates agree to
// rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func randCap(r *rng) float64 {
	switch {
	case r.chance(0.05):
		return 0
	case r.chance(0.5):
		return float64(1 + r.intn(10))
	}
	return 10 * r.float()
}

func TestErrors(t *testing.T) {
	if _, err := New([]float64{1, -1}); err == nil || !strings.Contains(err.Error(), "maxmin link 1 capacity: -1 is not allowed") {
		t.Errorf("negative capacity: %v", err)
	}
	if _, err := New([]float64{math.Inf(1)}); err == nil || !strings.Contains(err.Error(), "must be finite") {
		t.Errorf("infinite capacity: %v", err)
	}
	s, _ := New([]float64{1, 2})
	for _, c := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := s.AddFlow([]int32{0, 2}, NoCap); return err }(), "maxmin flow path[1]: link 2 is not allowed: must be in [0, 2)"},
		{func() error { _, err := s.AddFlow(nil, NoCap); return err }(), "maxmin flow path: [] is not allowed without a rate cap"},
		{func() error { _, err := s.AddFlow([]int32{0}, 0); return err }(), "maxmin flow rate cap: 0 is not allowed"},
		{func() error { _, err := s.AddFlow([]int32{0}, math.NaN()); return err }(), "maxmin flow rate cap: NaN is not allowed"},
		{s.RemoveFlow(0), "maxmin flow: 0 is not allowed: no such flow"},
		{s.SetCapacity(5, 1), "maxmin link: 5 is not allowed"},
		{s.SetCapacity(1, math.NaN()), "maxmin link 1 capacity: NaN is not allowed"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%v, want %q", c.err, c.want)
		}
	}
	id, _ := s.AddFlow([]int32{1}, NoCap)
	s.RemoveFlow(id)
	if err := s.RemoveFlow(id); err == nil {
		t.Errorf("removing a flow twice: no error")
	}
}

// TestUserListsSwept: 1,000 flows on link 0 of 20, then 990 of them
// removed. The first Solve drops them from the list but keeps its
// capacity; the sweep, 8 links a solve, reaches link 0 again within
// ceil(20/8) = 3 solves and cuts the list to its 10 flows (rounded up to
// the allocator's size, 48 bytes: 12 entries), with the same flows in
// the same order. Then the last 10 go too: the list is released.
func TestUserListsSwept(t *testing.T) {
	s, err := New(make20(1))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]FlowID, 1000)
	for i := range ids {
		if ids[i], err = s.AddFlow([]int32{0}, NoCap); err != nil {
			t.Fatal(err)
		}
	}
	s.Solve()
	for _, id := range ids[10:] {
		if err := s.RemoveFlow(id); err != nil {
			t.Fatal(err)
		}
	}
	s.Solve()
	if len(s.users[0]) != 10 || cap(s.users[0]) < 1000 {
		t.Fatalf("after the removal's solve: len %d cap %d, want 10 and the old capacity", len(s.users[0]), cap(s.users[0]))
	}
	for range 3 {
		s.Solve()
	}
	if u := s.users[0]; len(u) != 10 || cap(u) != 12 || fmt.Sprint(u) != fmt.Sprint(ids[:10]) {
		t.Errorf("after 3 more solves: %v (cap %d), want %v (cap 12)", u, cap(u), ids[:10])
	}
	for _, id := range ids[:10] {
		if err := s.RemoveFlow(id); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		s.Solve()
	}
	if s.users[0] != nil {
		t.Errorf("with no flows left: %d entries, capacity %d; want nil", len(s.users[0]), cap(s.users[0]))
	}
}

func make20(c float64) []float64 {
	caps := make([]float64, 20)
	for i := range caps {
		caps[i] = c
	}
	return caps
}

package maxmin

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

type cspec struct {
	path  []int32
	class uint8
	cap   float64 // 0: NoCap
}

func solvePolicy(t *testing.T, p Policy, caps []float64, flows []cspec) (*Solver, []FlowID) {
	t.Helper()
	s, err := NewPolicy(caps, p)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]FlowID, len(flows))
	for i, f := range flows {
		if ids[i], err = s.AddClassFlow(f.path, capOf(f.cap), f.class); err != nil {
			t.Fatal(err)
		}
	}
	s.Solve()
	return s, ids
}

func expectPolicy(t *testing.T, name string, p Policy, caps []float64, flows []cspec, want []float64) {
	t.Helper()
	s, ids := solvePolicy(t, p, caps, flows)
	for i, id := range ids {
		if got := s.Rate(id); math.Abs(got-want[i]) > 1e-12*math.Max(1, want[i]) {
			t.Errorf("%s %v: flow %d rate %v, want %v", name, p.Kind, i, got, want[i])
		}
	}
	checkFeasible(t, s)
}

var (
	np     = Policy{}
	fp     = Policy{Kind: FP}
	ba     = func(shares ...float64) Policy { return Policy{Kind: BA, Shares: shares} }
	app    = uint8(0) // the high class (App in seed 001's Fig. 1)
	io     = uint8(1) // the low class (I/O)
	oneApp = cspec{path: []int32{0}, class: app}
	oneIO  = cspec{path: []int32{0}, class: io}
)

// TestPoliciesSingleLink: one link of capacity 1.
//
//   - An App flow and an I/O flow: NP shares 1/2 each; FP gives App the
//     link (1) and I/O nothing; BA 50/50 gives each its half; BA 75/25
//     gives 3/4 and 1/4 (both use their shares: nothing left over).
//   - Two App flows and one I/O flow: NP 1/3 each; FP 1/2, 1/2, 0; BA
//     50/50: the App class splits its half (1/4 each), I/O keeps 1/2.
//   - A class alone takes the whole link under BA: one I/O flow, shares
//     75/25: 1/4 in the first phase, then the App share nobody uses (3/4)
//     in the second: 1.
//   - Caps under BA 50/50: the I/O flow capped at 0.1 leaves 0.4 of its
//     share, which the App flow takes in the second phase: 0.9 and 0.1.
//     Under FP an App flow capped at 0.3 leaves 0.7 to I/O.
func TestPoliciesSingleLink(t *testing.T) {
	c := []float64{1}
	both := []cspec{oneApp, oneIO}
	expectPolicy(t, "app+io", np, c, both, []float64{0.5, 0.5})
	expectPolicy(t, "app+io", fp, c, both, []float64{1, 0})
	expectPolicy(t, "app+io", ba(0.5, 0.5), c, both, []float64{0.5, 0.5})
	expectPolicy(t, "app+io", ba(0.75, 0.25), c, both, []float64{0.75, 0.25})

	three := []cspec{oneApp, oneApp, oneIO}
	expectPolicy(t, "2app+io", np, c, three, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3})
	expectPolicy(t, "2app+io", fp, c, three, []float64{0.5, 0.5, 0})
	expectPolicy(t, "2app+io", ba(0.5, 0.5), c, three, []float64{0.25, 0.25, 0.5})

	expectPolicy(t, "io alone", ba(0.75, 0.25), c, []cspec{oneIO}, []float64{1})
	expectPolicy(t, "io alone", fp, c, []cspec{oneIO}, []float64{1})

	capped := []cspec{oneApp, {path: []int32{0}, class: io, cap: 0.1}}
	expectPolicy(t, "io capped", ba(0.5, 0.5), c, capped, []float64{0.9, 0.1})
	expectPolicy(t, "app capped", fp, c, []cspec{{path: []int32{0}, class: app, cap: 0.3}, oneIO}, []float64{0.3, 0.7})

	// Three classes under FP: class 0 capped at 0.3, class 1 takes the
	// remaining 0.7, class 2 gets nothing.
	expectPolicy(t, "three classes", fp, c,
		[]cspec{{path: []int32{0}, class: 0, cap: 0.3}, {path: []int32{0}, class: 1}, {path: []int32{0}, class: 2}},
		[]float64{0.3, 0.7, 0})
	// Shares summing to less than 1: the rest is spare for everyone. BA
	// 40/20: App 0.4, I/O 0.2 in the first phase, the 0.4 left split in
	// the second: 0.6 and 0.4.
	expectPolicy(t, "shares under 1", ba(0.4, 0.2), c, both, []float64{0.6, 0.4})
}

// TestPoliciesParkingLot: links 0, 1, 2 of capacities 1, 2, 3; a long
// flow over all three and a short flow on each.
//
//   - Long = I/O, shorts = App. NP: link 0 holds the long flow to 1/2, so
//     the shorts get 1/2, 3/2, 5/2. FP: the shorts take their links
//     whole (1, 2, 3), the long flow gets 0. BA 80/20: the shorts get
//     0.8, 1.6, 2.4 and the long flow 0.2 (its share of link 0) in the
//     first phase; link 0 is then full, links 1 and 2 have 0.2 and 0.4 of
//     the I/O share spare, which the shorts there take: 0.2, 0.8, 1.8,
//     2.8.
//   - Long = App, shorts = I/O, FP: the long flow takes link 0 whole (1),
//     the shorts get what is left: 0, 1, 2.
func TestPoliciesParkingLot(t *testing.T) {
	c := []float64{1, 2, 3}
	flows := func(long, short uint8) []cspec {
		return []cspec{{path: []int32{0, 1, 2}, class: long}, {path: []int32{0}, class: short},
			{path: []int32{1}, class: short}, {path: []int32{2}, class: short}}
	}
	expectPolicy(t, "long io", np, c, flows(io, app), []float64{0.5, 0.5, 1.5, 2.5})
	expectPolicy(t, "long io", fp, c, flows(io, app), []float64{0, 1, 2, 3})
	expectPolicy(t, "long io", ba(0.8, 0.2), c, flows(io, app), []float64{0.2, 0.8, 1.8, 2.8})
	expectPolicy(t, "long app", fp, c, flows(app, io), []float64{1, 0, 1, 2})
	// BA 50/50 with the long flow App: first phase, the long flow gets
	// 0.5 (link 0's App share), the shorts 0.5, 1, 1.5 (their I/O
	// shares); link 0 is full, links 1 and 2 have 0.5 and 1 of the App
	// share spare, which the shorts there take: 1.5 and 2.5.
	expectPolicy(t, "long app", ba(0.5, 0.5), c, flows(app, io), []float64{0.5, 0.5, 1.5, 2.5})
}

// checkFeasible checks that no link carries more than its capacity and
// that every flow below its cap crosses a saturated link (no capacity is
// left that it could use).
func checkFeasible(t *testing.T, s *Solver) {
	t.Helper()
	const eps = 1e-9
	used := make([]float64, s.NumLinks())
	for id := range s.meta {
		for _, l := range s.Path(FlowID(id)) {
			used[l] += s.rate[id]
		}
	}
	for l, u := range used {
		if u > s.capacity[l]+eps*math.Max(1, s.capacity[l]) {
			t.Fatalf("link %d carries %v over capacity %v", l, u, s.capacity[l])
		}
	}
	for id := range s.meta {
		rate, c := s.rate[id], s.Cap(FlowID(id))
		if s.meta[id].flags&fAlive == 0 || rate >= c-eps*math.Max(1, c) {
			continue
		}
		ok := false
		for _, l := range s.Path(FlowID(id)) {
			if used[l] >= s.capacity[l]-eps*math.Max(1, s.capacity[l]) {
				ok = true
			}
		}
		if !ok && len(s.Path(FlowID(id))) > 0 {
			t.Fatalf("flow %d (rate %v, class %d) could rise: none of its links is full", id, rate, s.meta[id].class)
		}
	}
}

// checkFP checks full priority class by class: each class's rates are
// max-min fair on the capacity the classes before it left.
func checkFP(t *testing.T, s *Solver) {
	t.Helper()
	const eps = 1e-9
	left := append([]float64(nil), s.capacity...)
	for c := 0; c < 256; c++ {
		used := make([]float64, s.NumLinks())
		top := make([]float64, s.NumLinks())
		var ids []int
		for id := range s.meta {
			if s.meta[id].flags&fAlive != 0 && int(s.meta[id].class) == c {
				ids = append(ids, id)
				for _, l := range s.Path(FlowID(id)) {
					used[l] += s.rate[id]
					top[l] = max(top[l], s.rate[id])
				}
			}
		}
		for _, id := range ids {
			rate, cp := s.rate[id], s.Cap(FlowID(id))
			if rate >= cp-eps*math.Max(1, cp) {
				continue
			}
			ok := false
			for _, l := range s.Path(FlowID(id)) {
				if used[l] >= left[l]-eps*math.Max(1, s.capacity[l]) && rate >= top[l]-eps*math.Max(1, top[l]) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("FP class %d flow %d (rate %v) has no bottleneck in what the classes before left", c, id, rate)
			}
		}
		for l := range left {
			left[l] -= used[l]
		}
	}
}

// TestPolicyProperty: random systems of two or three classes under FP
// and BA (one BA system in three with its upper links not apportioned:
// Policy.Apportioned), with random additions and removals: incremental rates equal
// bit for bit a SolveAll of the same solver (FP and BA re-solve whole
// components from scratch) and those of a new solver given the same
// flows; no link is over capacity and every flow below its cap crosses a
// full link; under FP each class is max-min fair in what the classes
// before it left.
func TestPolicyProperty(t *testing.T) {
	seeds := 150
	if testlong.Reduced(t) {
		seeds = 30
	}
	for seed := range seeds {
		r := &rng{uint64(seed) + 5000}
		links := 1 + r.intn(12)
		caps := make([]float64, links)
		for l := range caps {
			caps[l] = float64(1 + r.intn(4))
		}
		classes := 2 + r.intn(2)
		p := fp
		if seed%2 == 1 {
			p = Policy{Kind: BA}
			left := 1.0
			for c := range classes {
				x := left
				if c < classes-1 {
					x = left * (0.2 + 0.6*r.float())
				}
				if seed%4 == 3 && c == classes-1 {
					x *= 0.5 // shares summing to less than 1
				}
				p.Shares = append(p.Shares, x)
				left -= x
			}
			if seed%6 == 5 {
				p.Apportioned = int32(1 + links/2) // the other links shared in class order
			}
		}
		s, err := NewPolicy(caps, p)
		if err != nil {
			t.Fatal(err)
		}
		var live []FlowID
		for step := range 40 {
			for range 1 + r.intn(3) {
				if r.chance(0.6) || len(live) == 0 {
					path := make([]int32, 1+r.intn(4))
					for k := range path {
						path[k] = int32(r.intn(links))
					}
					c := NoCap
					if r.chance(0.15) {
						c = 0.1 + r.float()
					}
					id, err := s.AddClassFlow(path, c, uint8(r.intn(classes)))
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, id)
				} else {
					i := r.intn(len(live))
					if err := s.RemoveFlow(live[i]); err != nil {
						t.Fatal(err)
					}
					live = append(live[:i], live[i+1:]...)
				}
			}
			s.Solve()
			inc := map[FlowID]float64{}
			for _, id := range live {
				inc[id] = s.Rate(id)
			}
			checkFeasible(t, s)
			if p.Kind == FP {
				checkFP(t, s)
			}
			fresh, err := NewPolicy(caps, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range live {
				if _, err := fresh.AddClassFlow(s.Path(id), s.Cap(id), s.Class(id)); err != nil {
					t.Fatal(err)
				}
			}
			fresh.Solve()
			s.SolveAll()
			for i, id := range live {
				if s.Rate(id) != inc[id] || !near(fresh.Rate(FlowID(i)), inc[id]) {
					t.Fatalf("seed %d step %d %v: flow %d incremental %v, SolveAll %v, new solver %v", seed, step, p.Kind, id, inc[id], s.Rate(id), fresh.Rate(FlowID(i)))
				}
			}
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{Kind: 7}, "maxmin policy kind: 7 is not allowed"},
		{Policy{Kind: FP, Shares: []float64{1}}, "maxmin policy shares: [1] is not allowed: only BA takes shares"},
		{Policy{Kind: BA}, "maxmin policy shares: 0 classes is not allowed"},
		{Policy{Kind: BA, Shares: []float64{0.5, -0.1}}, "maxmin policy shares[1]: -0.1 is not allowed"},
		{Policy{Kind: BA, Shares: []float64{0.7, 0.4}}, "more than 1"},
	} {
		if _, err := NewPolicy([]float64{1}, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
	s, _ := NewPolicy([]float64{1}, ba(0.5, 0.5))
	if _, err := s.AddClassFlow([]int32{0}, NoCap, 2); err == nil || !strings.Contains(err.Error(), "maxmin flow class: 2 is not allowed: BA has classes 0 to 1") {
		t.Errorf("class out of range: %v", err)
	}
	if got := fmt.Sprint(NP, BA, FP); got != "NP BA FP" {
		t.Errorf("kinds print as %s", got)
	}
}

// TestApportioned: link 0 is a network link (capacity 1) shared by an
// App flow and an I/O flow; link 1 (capacity 1/2) a storage device only
// the I/O flow crosses. BA 50/50:
//
//   - every link apportioned: phase 1 gives App 1/2 of link 0 and I/O
//     min(1/2 of link 0, 1/2 of link 1 = 1/4) = 1/4; phase 2 shares the
//     leftovers (link 0: 1/4, link 1: 1/4) as increments: link 0's two
//     flows get 1/8 each first, so App 5/8, I/O 3/8 — App above its
//     share because the device's apportionment held I/O back;
//   - Apportioned 1 (link 1 not apportioned): I/O alone on link 1 sees
//     all of it in phase 1: I/O min(1/2, 1/2) = 1/2, App 1/2, nothing
//     left for phase 2.
//
// With a second I/O flow on link 1 only (cap 1/2 shared by the two I/O
// flows) and Apportioned 1: phase 1, I/O class on link 0: 1/2 for the
// first, on link 1 1/2 for two: both 1/4; App 1/2; phase 2 link 0 has
// 1/4 left, link 1 none: App rises to 3/4.
//
// An App flow over both links and an I/O flow on link 1 alone, with
// Apportioned 1: phase 1 serves App first on link 1, whole (1/2), and
// on link 0 its share (1/2): App 1/2, which leaves link 1 nothing for
// the I/O flow; phase 2 has nothing on link 1 to give: App 1/2, I/O 0.
func TestApportioned(t *testing.T) {
	caps := []float64{1, 0.5}
	ioDev := cspec{path: []int32{0, 1}, class: io}
	appNet := cspec{path: []int32{0}, class: app}
	p := ba(0.5, 0.5)
	expectPolicy(t, "all apportioned", p, caps, []cspec{appNet, ioDev}, []float64{5.0 / 8, 3.0 / 8})
	p.Apportioned = 1
	expectPolicy(t, "device not apportioned", p, caps, []cspec{appNet, ioDev}, []float64{0.5, 0.5})
	expectPolicy(t, "two I/O flows on the device", p, caps,
		[]cspec{appNet, ioDev, {path: []int32{1}, class: io}}, []float64{0.75, 0.25, 0.25})
	expectPolicy(t, "App first on the unapportioned link", p, caps,
		[]cspec{{path: []int32{0, 1}, class: app}, {path: []int32{1}, class: io}}, []float64{0.5, 0})
	if _, err := NewPolicy(caps, Policy{Kind: FP, Apportioned: 1}); err == nil || !strings.Contains(err.Error(), "only BA") {
		t.Errorf("FP with apportioned: %v", err)
	}
	if _, err := NewPolicy(caps, Policy{Kind: BA, Shares: []float64{1}, Apportioned: -1}); err == nil || !strings.Contains(err.Error(), "at least 0") {
		t.Errorf("apportioned -1: %v", err)
	}
}

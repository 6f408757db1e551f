package scale

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/workload"
)

// TestDCNCost measures where the application study's dcntraffic runs
// spend their time (docs/flow-study-64k.md). It is a
// measurement, not a check, and is skipped unless OPASIM_DCNCOST is set:
//
//	OPASIM_DCNCOST='topo=torus-3d servers=64k mode=arrivals stop=64000' \
//	    GOMAXPROCS=1 go test ./flow/scale -run TestDCNCost -v -timeout 0
//
// Keys: topo (a topology of the study), servers (4k or 64k), iters and
// tasks (override the application's), gap (multiplies the start times),
// quant (rounds them up to multiples of it: arrivals share batches),
// every (arrivals or batches between reports), stop (arrivals), limit
// (wall time), mode:
//
//   - arrivals: the flows, in the order of their start times, are routed
//     and added to a max-min solver, which is solved once per distinct
//     start time, as the engine does until the first flow completes
//     (every flow of the study's dcntraffic starts before any completes).
//     Per window: the wall time, the time a solve, the rates recomputed
//     and changed a solve.
//   - sample: for each count n in at (comma-separated), the first n
//     flows are added and solved at once, then the next k (default 20)
//     one at a time as in arrivals: the cost a solve once n flows are in
//     flight, without the arrivals before.
//   - structure: once the first stop flows are in (solved at once): the
//     connected components of the flow–link graph, the links used and
//     saturated, the flows a saturated link carries, and the links a
//     flow crosses.
//   - engine: the dynamic engine runs the flows; per window of batches,
//     the simulated time, the flows not yet done, the flows completed and
//     the time a batch.
func TestDCNCost(t *testing.T) {
	env := os.Getenv("OPASIM_DCNCOST")
	if env == "" {
		t.Skip("a measurement: set OPASIM_DCNCOST (see the comment)")
	}
	o := map[string]string{"servers": "64k", "mode": "arrivals", "every": "16000", "limit": "10m", "gap": "1", "quant": "0"}
	for _, kv := range strings.Fields(env) {
		k, v, _ := strings.Cut(kv, "=")
		o[k] = v
	}
	num := func(k string) float64 {
		if o[k] == "" {
			return 0
		}
		x, err := strconv.ParseFloat(o[k], 64)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return x
	}
	limit, err := time.ParseDuration(o["limit"])
	if err != nil {
		t.Fatal(err)
	}
	topos, apps, err := StudyOf(o["servers"])
	if err != nil {
		t.Fatal(err)
	}
	var app workload.App
	for _, a := range apps {
		if a.Kind == workload.DCNTraffic {
			app = a
		}
	}
	if n := int(num("tasks")); n > 0 {
		app.Tasks = n
	}
	if n := int(num("iters")); n > 0 {
		app.Iterations = n
	}
	var net *spec.Network
	for _, tp := range topos {
		if tp.Name == o["topo"] {
			cfg := spec.Config{Topology: tp.Topology, Seed: 1}
			if net, err = cfg.Build(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if net == nil {
		t.Fatalf("topo: %q is not a topology of the study", o["topo"])
	}
	flows, err := app.Flows()
	if err != nil {
		t.Fatal(err)
	}
	gap, quant := num("gap"), num("quant")
	for i := range flows {
		flows[i].Start *= gap
		if quant > 0 {
			flows[i].Start = math.Ceil(flows[i].Start/quant) * quant
		}
	}
	every, stop := int(num("every")), int(num("stop"))
	if stop <= 0 {
		stop = len(flows)
	}
	t.Logf("%s %s: %d tasks, %d flows each, %d flows, gap ×%g, quant %g", o["servers"], o["topo"], app.Tasks, app.Iterations, len(flows), gap, quant)
	switch o["mode"] {
	case "arrivals":
		arrivalCost(t, net, flows, every, stop, limit)
	case "sample":
		k := int(num("k"))
		if k <= 0 {
			k = 20
		}
		sampleCost(t, net, flows, o["at"], k)
	case "structure":
		structure(t, net, flows, stop)
	case "engine":
		engineCost(t, net, flows, every, limit)
	default:
		t.Fatalf("mode: %q is not allowed: must be arrivals, sample, structure or engine", o["mode"])
	}
}

// byStart returns the flows' indices in the order of their start times.
func byStart(flows []dynamic.Flow) []int {
	order := make([]int, len(flows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(flows[a].Start, flows[b].Start) })
	return order
}

func sampleCost(t *testing.T, net *spec.Network, flows []dynamic.Flow, at string, k int) {
	order := byStart(flows)
	t.Log("in flight  first solve s  µs/solve  recomputed/solve  changed/solve")
	for _, a := range strings.Split(at, ",") {
		n, err := strconv.Atoi(a)
		if err != nil || n <= 0 || n >= len(flows) {
			t.Fatalf("at: %q is not allowed: must be counts below %d", at, len(flows))
		}
		s, err := maxmin.New(net.Router.Graph().Capacities())
		if err != nil {
			t.Fatal(err)
		}
		add := func(i int) {
			f := flows[i]
			if err := net.Router.Route(f.Src, f.Dst, func(links []int32, _ float64) {
				if _, err := s.AddFlow(links, maxmin.NoCap); err != nil {
					t.Fatal(err)
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		for _, i := range order[:n] {
			add(i)
		}
		t0 := time.Now()
		s.Solve()
		first := time.Since(t0).Seconds()
		var rec, ch int64
		m := 0
		t0 = time.Now()
		for _, i := range order[n:min(n+k, len(order))] {
			add(i)
			s.Solve()
			rec += int64(s.Recomputed())
			ch += int64(len(s.Previous()))
			m++
		}
		t.Logf("%9d  %12.2f  %8.1f  %16.1f  %13.1f", n, first, float64(time.Since(t0).Microseconds())/float64(m), float64(rec)/float64(m), float64(ch)/float64(m))
	}
}

func structure(t *testing.T, net *spec.Network, flows []dynamic.Flow, n int) {
	s, err := maxmin.New(net.Router.Graph().Capacities())
	if err != nil {
		t.Fatal(err)
	}
	var ids []maxmin.FlowID
	var hops int64
	for _, i := range byStart(flows)[:n] {
		f := flows[i]
		if err := net.Router.Route(f.Src, f.Dst, func(links []int32, _ float64) {
			id, err := s.AddFlow(links, maxmin.NoCap)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			hops += int64(len(links))
		}); err != nil {
			t.Fatal(err)
		}
	}
	s.Solve()
	L := s.NumLinks()
	parent := make([]int32, L)
	for l := range parent {
		parent[l] = int32(l)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	load, users := make([]float64, L), make([]int64, L)
	for _, id := range ids {
		p := s.Path(id)
		for _, l := range p {
			load[l] += s.Rate(id)
			users[l]++
			if a, b := find(p[0]), find(l); a != b {
				parent[a] = b
			}
		}
	}
	size := map[int32]int{}
	big := 0
	for _, id := range ids {
		r := find(s.Path(id)[0])
		size[r]++
		big = max(big, size[r])
	}
	var used, sat, onSat int64
	for l := range L {
		if users[l] > 0 {
			used++
			if load[l] >= s.Capacity(int32(l))*(1-1e-9) {
				sat++
				onSat += users[l]
			}
		}
	}
	t.Logf("%d paths: %d components, the largest %d paths; %d links used, %d saturated, %.1f paths a saturated link; %.2f links a path",
		len(ids), len(size), big, used, sat, float64(onSat)/float64(max(sat, 1)), float64(hops)/float64(len(ids)))
}

func arrivalCost(t *testing.T, net *spec.Network, flows []dynamic.Flow, every, stop int, limit time.Duration) {
	order := byStart(flows)
	s, err := maxmin.New(net.Router.Graph().Capacities())
	if err != nil {
		t.Fatal(err)
	}
	began, win := time.Now(), time.Now()
	var rec, ch, solves, total int64
	var hops int64
	t.Log("arrivals  sim-time  wall-s  solves  µs/solve  recomputed/solve  changed/solve  links/flow")
	for k, i := range order {
		f := flows[i]
		err := net.Router.Route(f.Src, f.Dst, func(links []int32, _ float64) {
			if _, err := s.AddFlow(links, maxmin.NoCap); err != nil {
				t.Fatal(err)
			}
			hops += int64(len(links))
		})
		if err != nil {
			t.Fatal(err)
		}
		if k+1 < len(order) && flows[order[k+1]].Start == f.Start {
			continue
		}
		s.Solve()
		solves++
		total++
		rec += int64(s.Recomputed())
		ch += int64(len(s.Previous()))
		over := time.Since(began) > limit || k+1 >= stop
		if (k+1)/every != k/every || k+1 == len(order) || over {
			d := time.Since(win)
			t.Logf("%8d  %8.3f  %6.2f  %6d  %8.1f  %16.1f  %13.1f  %10.2f", k+1, f.Start, time.Since(began).Seconds(), total,
				float64(d.Microseconds())/float64(solves), float64(rec)/float64(solves), float64(ch)/float64(solves), float64(hops)/float64(k+1))
			win, rec, ch, solves = time.Now(), 0, 0, 0
		}
		if over {
			break
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// listAdder adds a flow list at time 0 and counts completions.
type listAdder struct {
	flows     []dynamic.Flow
	completed int
}

func (w *listAdder) Init(e *dynamic.Engine) error {
	for i, f := range w.flows {
		f.Tag = int64(i)
		if _, err := e.Add(f, nil); err != nil {
			return err
		}
	}
	return nil
}
func (w *listAdder) FlowDone(*dynamic.Engine, dynamic.Done) error { w.completed++; return nil }
func (w *listAdder) Wake(*dynamic.Engine) error                   { return nil }

func engineCost(t *testing.T, net *spec.Network, flows []dynamic.Flow, every int, limit time.Duration) {
	var e *dynamic.Engine
	w := &listAdder{flows: flows}
	began, win := time.Now(), time.Now()
	batches := 0
	t.Log("batches  sim-time  not-done  completed  wall-s  µs/batch")
	e, err := dynamic.New(net.Router, dynamic.Options{Interrupt: func() bool {
		batches++
		over := time.Since(began) > limit
		if batches%every == 0 || over {
			t.Logf("%7d  %8.3f  %8d  %9d  %6.2f  %8.1f", batches, e.Now(), e.Active(), w.completed, time.Since(began).Seconds(),
				float64(time.Since(win).Microseconds())/float64(every))
			win = time.Now()
		}
		return over
	}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Run(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batches %d, recomputed %d, changed %d, completed %d, makespan %v, interrupted %v, %.2f s",
		st.Batches, st.Resolved, st.Changed, st.Completed, st.Makespan, st.Interrupted, time.Since(began).Seconds())
}

package actors

import (
	"context"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/internal/agreement"
	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

func build(t *testing.T, cfg fabric.Config) *fabric.Network {
	t.Helper()
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// configs are the engine-agreement configs (internal/agreement).
func configs() map[string]fabric.Config { return agreement.Configs() }

// TestEnginesAgree: the actor engine, in every variant below, gives the
// sequential engine's digest, bit for bit, on several configs.
func TestEnginesAgree(t *testing.T) {
	cfgs := configs()
	for i, name := range slices.Sorted(maps.Keys(cfgs)) {
		cfg := cfgs[name]
		seq := build(t, cfg)
		want := sim.Measure(seq, sim.RunSequential(context.Background(), seq, sim.Hooks{}))
		if !want.ConservationOK {
			t.Fatalf("%s: sequential conservation: %v", name, want.ConservationProblems)
		}
		if v := cfg.QoS.SchedulerView; (v == fabric.ViewTable || v == fabric.ViewTableFeedback) && want.SchedulerWasted == 0 {
			t.Errorf("%s: no wasted decision: the case does not test the %s view", name, v)
		}
		for _, v := range engineVariants(t, i) {
			c := cfg
			c.Window, c.Partitions = v.window, v.parts
			prev := runtime.GOMAXPROCS(v.procs)
			n := build(t, c)
			o, err := Engine{Fixed: v.fixed, refuseEvery: v.refuse}.Run(context.Background(), n, sim.Hooks{})
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			got := sim.Measure(n, o)
			if got.Digest != want.Digest || got.DeliveredFlits != want.DeliveredFlits || !got.ConservationOK {
				t.Errorf("%s, %+v: digest %s (%d flits, conservation %v), sequential %s (%d flits)",
					name, v, got.Digest, got.DeliveredFlits, got.ConservationOK, want.Digest, want.DeliveredFlits)
			}
			if got.SchedulerDecisions != want.SchedulerDecisions || got.SchedulerWasted != want.SchedulerWasted {
				t.Errorf("%s, %+v: %d scheduler decisions, %d wasted; sequential %d, %d",
					name, v, got.SchedulerDecisions, got.SchedulerWasted, want.SchedulerDecisions, want.SchedulerWasted)
			}
			if want.Links == nil || !reflect.DeepEqual(got.Links, want.Links) {
				t.Errorf("%s, %+v: the link utilizations differ from the sequential run's (or are missing)", name, v)
			}
		}
	}
}

// variants are the ways TestEnginesAgree runs the actor engine: at
// GOMAXPROCS 1 and 2, with the largest window and with one-cycle windows,
// with one partition per worker and with more partitions than workers (0
// parts: one per GOMAXPROCS), rebalanced by measured time (which moves
// groups between partitions during the run) or fixed; and with every
// second or third message between groups refused as if its group were
// busy, so that messages from one source go both ways within a window.
var variants = []struct {
	procs, parts int
	window       int64
	fixed        bool
	refuse       int
}{
	{1, 0, 0, false, 0}, {2, 0, 0, false, 0}, {1, 0, 1, false, 0}, {2, 0, 1, false, 0},
	{2, 0, 0, true, 0}, {2, 3, 0, false, 0}, {1, 5, 1, true, 0}, {2, 64, 0, false, 0},
	{1, 0, 0, false, 2}, {2, 3, 0, false, 3},
}

// engineVariants are the variants TestEnginesAgree runs on the i-th
// config (in name order): all of them in the long suite; in the quick one,
// one each, in turn, so that every variant and every config still runs.
func engineVariants(t *testing.T, i int) []struct {
	procs, parts int
	window       int64
	fixed        bool
	refuse       int
} {
	if testlong.Reduced(t) {
		return variants[i%len(variants) : i%len(variants)+1]
	}
	return variants
}

// TestRepeatable: the same config and seed give the same digest run after
// run, and another seed gives another.
func TestRepeatable(t *testing.T) {
	cfg := configs()["uniform 0.9"]
	var digests []string
	for i := 0; i < 3; i++ {
		n := build(t, cfg)
		o, err := Run(context.Background(), n, sim.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, sim.Measure(n, o).Digest)
	}
	if digests[0] != digests[1] || digests[1] != digests[2] {
		t.Errorf("digests differ between runs: %v", digests)
	}
	cfg.Seed++
	n := build(t, cfg)
	o, _ := Run(context.Background(), n, sim.Hooks{})
	if d := sim.Measure(n, o).Digest; d == digests[0] {
		t.Errorf("seed %d gives the same digest as seed %d", cfg.Seed, cfg.Seed-1)
	}
}

// TestInterrupt: a cancelled run stops at a window boundary and its
// partial results still conserve every flit and credit.
func TestInterrupt(t *testing.T) {
	cfg := configs()["uniform 0.9"]
	cfg.Cycles = 1 << 40
	n := build(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	o, err := Run(ctx, n, sim.Hooks{Progress: func(c clock.Cycle) {
		if c > 3000 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Measure(n, o)
	if !r.Interrupted || r.SimulatedCycles < 3000 || r.SimulatedCycles > 1<<30 {
		t.Errorf("interrupted %v at cycle %d", r.Interrupted, r.SimulatedCycles)
	}
	if !r.ConservationOK {
		t.Errorf("conservation after interrupt: %v", r.ConservationProblems)
	}
}

// faulty is a component that fails at its first step at or after cycle at.
type faulty struct {
	fabric.Component
	at clock.Cycle
}

func (f faulty) Advance(to clock.Cycle, out *fabric.Outbox) clock.Cycle {
	if to > f.at {
		panic("injected fault")
	}
	return f.Component.Advance(to, out)
}

// TestFailureAborts: a component that fails mid-run aborts the run with an
// error naming the failure, at every GOMAXPROCS; nothing hangs.
func TestFailureAborts(t *testing.T) {
	for _, procs := range []int{1, 2} {
		n := build(t, configs()["uniform 0.9"])
		n.Comps[3] = faulty{Component: n.Comps[3], at: 2000}
		prev := runtime.GOMAXPROCS(procs)
		_, err := Run(context.Background(), n, sim.Hooks{})
		runtime.GOMAXPROCS(prev)
		if err == nil || !strings.Contains(err.Error(), "injected fault") || !strings.Contains(err.Error(), "c3") {
			t.Errorf("GOMAXPROCS=%d: error %v, want the injected fault and the component", procs, err)
		}
	}
}

// windowCounter counts the windows of a run.
type windowCounter struct{ windows int64 }

func (c *windowCounter) GroupDone(int, clock.Window, time.Duration) {}
func (c *windowCounter) WindowDone(clock.Window, time.Duration)     { c.windows++ }

// TestNoAllocationPerGroup: in a window, the actor engine allocates nothing
// per group or per component beyond what the model allocates (the same
// under the sequential engine): only the clock's ticks and the partitions'
// reports pass through protoactor-go's default mailboxes, which allocate a
// few objects a message. Measured as the allocations a run of 2T cycles
// makes beyond a run of T, on the 8-ary 2-tree (24 groups) at GOMAXPROCS
// 2 (two partitions): an allocation per group and window would add 24 a
// window; the bound is 4 per partition and window, plus the sequential
// engine's own growth.
func TestNoAllocationPerGroup(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	allocs := func(e sim.Engine, cycles int64) (uint64, int64) {
		cfg := fabric.Default()
		cfg.Topology.Preset = "tree-8ary-2"
		cfg.Traffic.Load, cfg.Cycles, cfg.Warmup = 0.7, cycles, 0
		n := build(t, cfg)
		wc := &windowCounter{}
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if _, err := sim.Execute(context.Background(), n, e, sim.Hooks{Observer: wc}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs, wc.windows
	}
	const cycles = 3000
	s1, _ := allocs(sim.Sequential{}, cycles)
	s2, _ := allocs(sim.Sequential{}, 2*cycles)
	a1, w1 := allocs(Engine{}, cycles)
	a2, w2 := allocs(Engine{}, 2*cycles)
	windows := w2 - w1
	extra := (int64(a2) - int64(a1)) - (int64(s2) - int64(s1))
	t.Logf("%d more windows: %d more allocations under actors, %d under sequential (%.1f a window beyond)",
		windows, int64(a2)-int64(a1), int64(s2)-int64(s1), float64(extra)/float64(windows))
	if windows <= 0 || extra > 8*windows {
		t.Errorf("the actor engine allocates %d times in %d windows beyond the model: more than 4 a partition and window", extra, windows)
	}
}

// TestDeliveryPaths: a message for another group is handed to it at once
// when it is idle. On one worker that is always (no group runs while
// another does), so nothing goes through the exchange; with refusals
// planted, both ways are taken and the digest is unchanged.
func TestDeliveryPaths(t *testing.T) {
	cfg := fabric.Default()
	cfg.Topology.Preset, cfg.Cycles, cfg.Warmup, cfg.Traffic.Load = "tree-8ary-2", 2000, 500, 0.6
	seq := build(t, cfg)
	want := sim.Measure(seq, sim.RunSequential(context.Background(), seq, sim.Hooks{}))
	for _, v := range []struct{ procs, parts, refuse int }{{1, 1, 0}, {1, 3, 0}, {2, 2, 4}} {
		var p paths
		prev := runtime.GOMAXPROCS(v.procs)
		c := cfg
		c.Partitions = v.parts
		n := build(t, c)
		o, err := Engine{refuseEvery: v.refuse, paths: &p}.Run(context.Background(), n, sim.Hooks{})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if got := sim.Measure(n, o); got.Digest != want.Digest {
			t.Errorf("%+v: digest %s, sequential %s", v, got.Digest, want.Digest)
		}
		t.Logf("%+v: %d messages direct, %d through the exchange", v, p.direct, p.exchanged)
		if p.direct == 0 {
			t.Errorf("%+v: no message handed over directly", v)
		}
		if v.procs == 1 && p.exchanged != 0 {
			t.Errorf("%+v: %d messages through the exchange on one worker, want none", v, p.exchanged)
		}
		if v.refuse > 0 && p.exchanged < (p.direct+p.exchanged)/int64(v.refuse) {
			t.Errorf("%+v: %d of %d messages through the exchange, want at least one in %d",
				v, p.exchanged, p.direct+p.exchanged, v.refuse)
		}
	}
}

// TestRouteKeepsSourceOrder: the messages one group sends another reach
// the receiving component in the order they were sent, whether each was
// handed over at once or left in the exchange (the model's inbox breaks
// ties between messages of one source and cycle by that order): within a
// window, and across windows, when the receiver has not yet taken what
// the exchange holds for it from the window before.
func TestRouteKeepsSourceOrder(t *testing.T) {
	for _, refuse := range []int{0, 1, 2, 3, 5} {
		// Two groups of one component each (components 0 and 1); group 0
		// sends component 1 four messages in each of two windows, every
		// refuse-th refused in the first; group 1 takes its turn in the
		// second window only after group 0's sends, and in the third.
		e := &engine{groupOf: []int{0, 1}, childOf: []int{0, 0}, refuse: refuse, backlog: make([]bool, 2)}
		e.children, e.wakes = make([]child, 2), []clock.Cycle{clock.Never, clock.Never}
		groups := []*groupActor{{index: 0, e: e}, {index: 1, e: e}}
		for g, ga := range groups {
			ga.children, ga.wakes = e.children[g:g+1], e.wakes[g:g+1]
			e.groups = append(e.groups, inline{mbox: &inlineMailbox{handler: ga, queue: &mailboxQueue{}}})
		}
		window := func() *exchange {
			return &exchange{out: &outgoing{msgs: make([][]messages.Msg, 2)}, wakeAt: []clock.Cycle{clock.Never, clock.Never}}
		}
		send := func(x *exchange, from, to int) {
			for k := from; k < to; k++ {
				m := messages.Msg{Kind: messages.KindCredit, At: 100, Src: 0, Dst: 1, Count: int32(k)}
				groups[0].route(&m, x)
			}
		}
		barrier := func(x *exchange) { e.backlog[1] = len(x.out.msgs[1]) > 0 } // as the clock does
		turn := func(in *exchange, w clock.Cycle) {
			groups[1].turn(&turn{w: clock.Window{From: w - 1, To: w}, in: []outgoing{*in.out}, x: window()})
		}
		x1 := window()
		send(x1, 0, 4)
		barrier(x1)
		e.refuse = 0
		x2 := window()
		send(x2, 4, 8)
		turn(x1, 2)
		barrier(x2)
		turn(x2, 3)
		var order []int32
		for _, m := range groups[1].children[0].pending {
			order = append(order, m.Count)
		}
		for k, c := range order {
			if c != int32(k) {
				t.Errorf("refusing every %d: component 1 got the messages in the order %v", refuse, order)
				break
			}
		}
		sent := x1.direct + x1.exchanged + x2.direct + x2.exchanged
		if len(order) != 8 || sent != 8 || e.wakes[1] != 100 {
			t.Errorf("refusing every %d: %d messages filed (%d sent), wake %d", refuse, len(order), sent, e.wakes[1])
		}
		if refuse > 0 && x2.exchanged != 4 {
			t.Errorf("refusing every %d: %d of the second window's messages passed the first's in the exchange", refuse, x2.direct)
		}
	}
}

// chanDriver is a member's driver in TestMembersAgree: its windows and
// reports travel on channels to the in-process coordinator.
type chanDriver struct {
	win chan MemberWindow
	rep chan MemberReport
}

func (d chanDriver) Next() (MemberWindow, bool) { w, ok := <-d.win; return w, ok }
func (d chanDriver) Report(r MemberReport)      { d.rep <- r }

// coordinate runs n over members actor engines (RunMember), each running
// a contiguous range of the groups, driven by a coordinator that holds the
// run's sim.Windows as a distributed run's does: it hands each member its
// due groups and the messages the others sent its groups, applies every
// member's Ran, then every Wake, and routes the Out messages. The members
// share n (each steps only its own groups' components) and take their
// windows one after another, so no two step at once.
func coordinate(t *testing.T, n *fabric.Network, members int, en Engine) sim.Outcome {
	t.Helper()
	owner := make([]int, len(n.Groups))
	for g := range owner {
		owner[g] = g * members / len(n.Groups)
	}
	drivers := make([]chanDriver, members)
	type result struct {
		held []messages.Msg
		err  error
	}
	results := make(chan result, members)
	for k := range drivers {
		drivers[k] = chanDriver{win: make(chan MemberWindow), rep: make(chan MemberReport)}
		owned := make([]bool, len(n.Groups))
		for g, o := range owner {
			owned[g] = o == k
		}
		go func(d chanDriver) {
			held, err := RunMember(n, owned, d, en, nil)
			results <- result{held, err}
		}(drivers[k])
	}
	loop := sim.NewWindows(context.Background(), n, sim.Hooks{})
	inbox := make([][]messages.Msg, members)
	for {
		w, due, ok := loop.Next()
		if !ok {
			break
		}
		reps := make([]MemberReport, members)
		for k, d := range drivers {
			var mine []int
			for _, g := range due {
				if owner[g] == k {
					mine = append(mine, g)
				}
			}
			d.win <- MemberWindow{W: w, Due: mine, In: inbox[k]}
			inbox[k] = nil
			reps[k] = <-d.rep
		}
		for _, r := range reps {
			for _, x := range r.Ran {
				loop.Done(x.Group, x.At)
			}
		}
		for _, r := range reps {
			for _, x := range r.Wakes {
				loop.Wake(x.Group, x.At)
			}
			for _, m := range r.Out {
				k := owner[groupOfComp(n, m.Dst)]
				inbox[k] = append(inbox[k], m)
			}
		}
		loop.Barrier(0)
	}
	o := loop.Outcome("actors")
	for _, d := range drivers {
		close(d.win)
	}
	for range drivers {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		o.InFlight = append(o.InFlight, r.held...)
	}
	for _, in := range inbox {
		o.InFlight = append(o.InFlight, in...)
	}
	return o
}

func groupOfComp(n *fabric.Network, id messages.CompID) int {
	for g, grp := range n.Groups {
		if slices.Contains(grp.Members, id) {
			return g
		}
	}
	return -1
}

// TestMembersAgree: the groups of a run spread over two and three member
// engines, driven window by window by a coordinator as a distributed run
// drives them, give the sequential engine's digest on every config of
// TestEnginesAgree (conservation checked on the whole network).
func TestMembersAgree(t *testing.T) {
	for name, cfg := range configs() {
		seq := build(t, cfg)
		want := sim.Measure(seq, sim.RunSequential(context.Background(), seq, sim.Hooks{}))
		// Every second hand-over refused: the members' groups then have
		// messages in the exchange when the others' arrive.
		runs := []struct{ members, refuse int }{{2, 0}, {3, 0}, {3, 2}}
		if testlong.Reduced(t) {
			runs = runs[2:] // the race detector's run
		}
		for _, r := range runs {
			n := build(t, cfg)
			if r.members > len(n.Groups) {
				continue
			}
			got := sim.Measure(n, coordinate(t, n, r.members, Engine{refuseEvery: r.refuse}))
			if got.Digest != want.Digest || !got.ConservationOK {
				t.Errorf("%s, %+v: digest %s (conservation %v %.200v), sequential %s",
					name, r, got.Digest, got.ConservationOK, got.ConservationProblems, want.Digest)
			}
		}
	}
}

package monitor

import (
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
)

// Metrics is the live Prometheus view of one run. It is the run's
// sim.Observer: after a window, a group copies its state (its
// fabric.Snapshot, which holds a NIC bank's cumulative per-SL counters and
// a switch's per-port figures) into a slot of its own, at most once per
// MetricsOptions.Every of wall time; between two copies GroupDone costs one
// atomic load and a few additions. It is also a prometheus.Collector:
// Collect builds constant metrics from the latest copies, so a scrape never
// touches the model.
//
// A Metrics is made for one network (NewMetrics): pass it to the engine as
// sim.Hooks.Observer and call Finish after the engine has returned.
type Metrics struct {
	reg     *prometheus.Registry // m, and the Go runtime and process collectors
	runtime *prometheus.Registry // the Go runtime and process collectors alone
	run     *runState
	d       descs
	labels  prometheus.Labels
}

// MetricsOptions tune a Metrics.
type MetricsOptions struct {
	// Every is the least wall time between two copies of a group's state
	// (default 200 ms): a scrape sees state at most that old.
	Every time.Duration
	// PortDetail adds per-port series (buffer occupancy, credit stalls and
	// grants per port); off, switches are the finest grain.
	PortDetail bool
	// PortSwitches, when not nil, are the switches whose ports get series
	// with PortDetail (PortSwitches[sw]); nil: every switch's.
	PortSwitches []bool
	// Labels are constant labels on every opasim_ series: run_id names
	// the run, and a member of a distributed run adds member (its index).
	// The Go runtime's and the process's series carry them all but run_id
	// (RuntimeLabels): they describe the process, which may serve several
	// runs (a member), and a new run must not make new series of them.
	Labels prometheus.Labels
	// Groups, when not nil, are the groups watched (Groups[g]): the
	// member of a distributed run watches those it runs. The series of the
	// others are left out, and the fabric-wide ones sum over these only,
	// so a sum over the members of any series but the run's settings and
	// clock gauges is the run's.
	Groups []bool
}

// NewMetrics makes a Metrics that watches n, and its own registry (never
// the global one) holding it and the Go runtime and process collectors;
// it copies the state of every group watched, so that a scrape before the
// run's first copy has every series. Make it once n is built and before
// the engine starts.
func NewMetrics(n *fabric.Network, o MetricsOptions) *Metrics {
	if o.Every <= 0 {
		o.Every = 200 * time.Millisecond
	}
	m := &Metrics{reg: prometheus.NewRegistry(), runtime: prometheus.NewRegistry(), run: newRunState(n, o), d: newDescs(),
		labels: o.Labels}
	rt := RuntimeLabels(o.Labels)
	prometheus.WrapRegistererWith(o.Labels, m.reg).MustRegister(m)
	prometheus.WrapRegistererWith(rt, m.reg).MustRegister(collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	prometheus.WrapRegistererWith(rt, m.runtime).MustRegister(collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for g, s := range m.run.groups { // the state before the run: a scrape before the first copy has every series
		if s.watched {
			m.run.publish(g, s)
		}
	}
	return m
}

// RuntimeLabels are the constant labels of the Go runtime and process
// series of a Metrics with labels: all of them but run_id (member stays,
// to tell a distributed run's processes apart beside Prometheus' own
// instance label).
func RuntimeLabels(labels prometheus.Labels) prometheus.Labels {
	rt := prometheus.Labels{}
	for k, v := range labels {
		if k != "run_id" {
			rt[k] = v
		}
	}
	return rt
}

// Registry is the registry that holds m; ServeMetrics serves it.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// GroupDone counts the group's step time and, when the group has not
// copied its state since the clock last moved the epoch on, copies it.
func (m *Metrics) GroupDone(g int, _ clock.Window, busy time.Duration) {
	r := m.run
	s := r.groups[g]
	s.steps.add(busy)
	if e := r.epoch.Load(); s.seen != e {
		s.seen = e
		r.publish(g, s)
	}
}

// WindowDone counts the barrier wait and the cycle reached; once per Every
// it publishes the clock's figures and moves the epoch on, which asks every
// group to copy its state after its next window.
func (m *Metrics) WindowDone(w clock.Window, wait time.Duration) {
	r := m.run
	c := &r.clk
	c.wait.add(wait)
	c.reached = w.To
	now := time.Now()
	if now.Sub(c.last) < r.every {
		return
	}
	c.last = now
	r.publishClock(now)
	r.epoch.Add(1)
}

// Finish copies the final state of every group and of the clock, reached
// being the cycle the run reached (0: the last window's end). Call it after
// the engine has returned, when no group runs any more, so that the last
// scrape sees the whole run.
func (m *Metrics) Finish(reached clock.Cycle) {
	r := m.run
	for g, s := range r.groups {
		if s.watched {
			r.publish(g, s)
		}
	}
	r.clk.reached = clock.Max(r.clk.reached, reached)
	r.publishClock(time.Now())
	r.finished.Add(1)
}

// runState is what a Metrics knows of the run it watches.
type runState struct {
	net        *fabric.Network
	every      time.Duration
	ports      bool
	portSw     []bool       // MetricsOptions.PortSwitches
	labels     []string     // labels[i] is strconv.Itoa(i), for switches, ports and VLs
	finished   atomic.Int64 // calls of Finish: a scrape's page made before the last one is stale
	gathers    atomic.Int64 // a Scraper's gathers, the one in progress included
	gatherNs   atomic.Int64 // the wall time of its last gather ended
	kinds      []string     // group kinds, in order of first appearance
	slNames    []string
	shares     []float64
	scheduler  string
	classes    []string // link classes (fabric.Network.LinkClasses)
	classLinks []int    // links of each class in the watched groups
	epoch      atomic.Int64
	groups     []*groupSlot
	clk        clockSlot
}

func newRunState(n *fabric.Network, o MetricsOptions) *runState {
	r := &runState{net: n, every: o.Every, ports: o.PortDetail, portSw: o.PortSwitches, scheduler: n.Config.QoS.Scheduler}
	most := max(n.NumSwitches(), n.Config.Switch.VLs)
	for _, radix := range n.Topology.Radix {
		most = max(most, radix)
	}
	for i := range most {
		r.labels = append(r.labels, strconv.Itoa(i))
	}
	for _, sl := range n.Config.QoS.SLs {
		r.slNames = append(r.slNames, sl.Name)
		r.shares = append(r.shares, sl.Share)
	}
	r.classes, r.classLinks = n.LinkClasses(), make([]int, len(n.LinkClasses()))
	for i, g := range n.Groups {
		watched := o.Groups == nil || (i < len(o.Groups) && o.Groups[i])
		if watched {
			for c, k := range n.GroupLinks(i) {
				r.classLinks[c] += k
			}
		}
		r.groups = append(r.groups, &groupSlot{kind: g.Kind, sw: g.Switch, watched: watched})
		if watched && !slices.Contains(r.kinds, g.Kind) {
			r.kinds = append(r.kinds, g.Kind)
		}
	}
	now := time.Now()
	r.clk.speedAt = now
	r.epoch.Store(1) // every group copies its state after its first window
	return r
}

// groupSlot is one group's corner. The fields above mu belong to whichever
// goroutine runs the group (groups run one window at a time); pub is the
// copy Collect reads, under mu. Slots are allocated one by one and padded
// so that two groups never write the same cache line.
type groupSlot struct {
	seen    int64 // the epoch of the last copy
	steps   wallHist
	kind    string
	sw      int
	watched bool // its series are exported (MetricsOptions.Groups)
	scratch fabric.Snapshot
	mu      sync.Mutex
	pub     groupCopy
	_       [64]byte
}

// groupCopy is a group's state as of its last copy. Switch groups fill the
// switch fields (and the port ones with PortDetail), NIC banks the SL ones.
type groupCopy struct {
	steps          wallHist
	occ, capacity  [fabric.Stages]int64
	occVL          [fabric.Stages][]int64
	stall          int64
	grants         []int64
	grantFlits     []int64
	ports          []fabric.PortSnapshot // PortDetail only
	classFlits     [][]int64             // per link class and VL
	decisions      int64                 // output scheduler decisions (switch ports or NICs)
	wasted         int64                 // of which wasted (table view)
	preemptions    int64                 // packets interrupted on the group's links
	holes          int64                 // link cycles held for a late flit
	idle           int64                 // link cycles the schedulers idled (qos.decision_cycles, wasted decisions)
	injFlits       []int64
	injMsgs        []int64
	delFlits       []int64
	delMsgs        []int64
	lat, netLat    [][]int64 // [sl][fabric.LatencyBounds bucket]
	latSum, netSum []int64
}

// publish copies group g's state into its slot; it runs on the group's
// goroutine (during GroupDone) or after the run.
func (r *runState) publish(g int, s *groupSlot) {
	sn := &s.scratch
	r.net.Snapshot(g, sn)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &s.pub
	p.steps = s.steps
	p.decisions, p.wasted, p.idle = sn.Decisions, sn.WastedDecisions, sn.SchedulerIdleCycles
	p.preemptions, p.holes = sn.Preemptions, sn.HoleCycles
	p.classFlits = copyRows(p.classFlits, sn.ClassFlits)
	if sn.Kind == "switch" {
		p.occ, p.capacity, p.stall = sn.Occupancy, sn.Capacity, sn.StallCycles
		for st := range p.occVL {
			p.occVL[st] = append(p.occVL[st][:0], sn.OccupancyVL[st]...)
		}
		p.grants = append(p.grants[:0], sn.GrantsBySL...)
		p.grantFlits = append(p.grantFlits[:0], sn.GrantedFlits...)
		if r.ports && r.portsOf(s.sw) {
			p.ports = copyPorts(p.ports, sn.Ports)
		}
		return
	}
	if st := sn.Stats; st != nil {
		p.injFlits = append(p.injFlits[:0], st.InjectedFlits...)
		p.injMsgs = append(p.injMsgs[:0], st.InjectedMsgs...)
		p.delFlits = append(p.delFlits[:0], st.DeliveredFlits...)
		p.delMsgs = append(p.delMsgs[:0], st.DeliveredMsgs...)
		p.latSum = append(p.latSum[:0], st.LatencyCycles...)
		p.netSum = append(p.netSum[:0], st.NetLatencyCycles...)
		p.lat = copyRows(p.lat, st.LatencyBuckets)
		p.netLat = copyRows(p.netLat, st.NetLatencyBuckets)
	}
}

// portsOf tells whether switch sw's ports get series (with PortDetail).
func (r *runState) portsOf(sw int) bool {
	return r.portSw == nil || (sw < len(r.portSw) && r.portSw[sw])
}

// label is the text of number i as a label value.
func (r *runState) label(i int) string {
	if i < len(r.labels) {
		return r.labels[i]
	}
	return strconv.Itoa(i)
}

// copyFrom makes c a copy of p (its per-port figures only when ports),
// reusing c's slices.
func (c *groupCopy) copyFrom(p *groupCopy, ports bool) {
	c.steps, c.occ, c.capacity, c.stall = p.steps, p.occ, p.capacity, p.stall
	c.decisions, c.wasted, c.preemptions, c.holes, c.idle = p.decisions, p.wasted, p.preemptions, p.holes, p.idle
	for st := range c.occVL {
		c.occVL[st] = append(c.occVL[st][:0], p.occVL[st]...)
	}
	c.grants = append(c.grants[:0], p.grants...)
	c.grantFlits = append(c.grantFlits[:0], p.grantFlits...)
	c.classFlits = copyRows(c.classFlits, p.classFlits)
	c.ports = c.ports[:0]
	if ports {
		c.ports = copyPorts(c.ports, p.ports)
	}
	c.injFlits = append(c.injFlits[:0], p.injFlits...)
	c.injMsgs = append(c.injMsgs[:0], p.injMsgs...)
	c.delFlits = append(c.delFlits[:0], p.delFlits...)
	c.delMsgs = append(c.delMsgs[:0], p.delMsgs...)
	c.latSum = append(c.latSum[:0], p.latSum...)
	c.netSum = append(c.netSum[:0], p.netSum...)
	c.lat = copyRows(c.lat, p.lat)
	c.netLat = copyRows(c.netLat, p.netLat)
}

// copyPorts copies the per-port figures of a switch's snapshot (PortDetail
// only), reusing the slices of the previous copy.
func copyPorts(dst, src []fabric.PortSnapshot) []fabric.PortSnapshot {
	if cap(dst) < len(src) {
		dst = append(dst[:cap(dst)], make([]fabric.PortSnapshot, len(src)-cap(dst))...)
	}
	dst = dst[:len(src)]
	for q := range src {
		grants := append(dst[q].GrantsBySL[:0], src[q].GrantsBySL...)
		dst[q] = src[q]
		dst[q].GrantsBySL = grants
	}
	return dst
}

// copyRows copies src into dst, reusing dst's rows (those beyond its
// length too: a scratch copy alternates between groups with rows and
// without).
func copyRows(dst, src [][]int64) [][]int64 {
	if cap(dst) < len(src) {
		dst = append(dst[:cap(dst)], make([][]int64, len(src)-cap(dst))...)
	}
	dst = dst[:len(src)]
	for i := range src {
		dst[i] = append(dst[i][:0], src[i]...)
	}
	return dst
}

// speedInterval is the least wall time over which the simulator's speed is
// measured: shorter ones make the gauge jumpy.
const speedInterval = time.Second

// clockSlot is the clock's corner: the fields above mu belong to the
// goroutine that calls WindowDone; pub is what Collect reads, under mu.
type clockSlot struct {
	wait      wallHist
	reached   clock.Cycle
	last      time.Time   // the last publication
	speedFrom clock.Cycle // the speed interval began at this cycle,
	speedAt   time.Time   // at this time
	mu        sync.Mutex
	pub       clockCopy
}

type clockCopy struct {
	wait    wallHist
	reached clock.Cycle
	speed   float64 // simulated cycles per wall second over the last interval
}

// publishClock publishes the clock's figures; the speed covers the last
// interval of at least speedInterval (until the first one ends: the time
// since the start).
func (r *runState) publishClock(now time.Time) {
	c := &r.clk
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pub.wait, c.pub.reached = c.wait, c.reached
	dt := now.Sub(c.speedAt)
	if dt <= 0 {
		return
	}
	if dt >= speedInterval || c.speedFrom == 0 {
		c.pub.speed = float64(c.reached-c.speedFrom) / dt.Seconds()
	}
	if dt >= speedInterval {
		c.speedFrom, c.speedAt = c.reached, now
	}
}

// wallHist is a histogram of wall durations (group step time, barrier
// wait) over the wallBounds buckets; its last count is above all bounds.
type wallHist struct {
	n   [wallBuckets + 1]int64
	sum time.Duration
}

// wallBuckets bounds are 1.024 µs × 4^i, i < wallBuckets: up to 67 ms.
const wallBuckets = 9

func (h *wallHist) add(d time.Duration) {
	h.n[wallBucket(d)]++
	h.sum += d
}

// wallBucket is the first bucket whose bound 2^(10+2i) ns holds d: with
// L = bits.Len(d-1), d ≤ 2^L, so i = ⌈(L-10)/2⌉.
func wallBucket(d time.Duration) int {
	if d <= 1<<10 {
		return 0
	}
	return min((bits.Len64(uint64(d-1))-9)/2, wallBuckets)
}

// wallBound is the upper bound of bucket i in seconds.
func wallBound(i int) float64 { return float64(int64(1)<<(10+2*i)) / 1e9 }

func (h *wallHist) merge(o *wallHist) {
	for i := range h.n {
		h.n[i] += o.n[i]
	}
	h.sum += o.sum
}

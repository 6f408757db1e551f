package fabric

import (
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/messages"
)

// params is the read-only view of a Config that every component shares.
type params struct {
	cfg              *Config
	vls              int
	fpc              int32
	rt, sbIn, sbOut  clock.Cycle
	xMPort, xCentral clock.Cycle
	fly              clock.Cycle
	// The two halves of the arbitration time AT (seed 002 Table 1): a
	// request takes requestLatency = floor(AT/2) to reach the arbiter (λ in
	// docs/model.md), its grant grantLatency = AT − λ to come back (μ).
	requestLatency, grantLatency clock.Cycle
	mportSpeed                   int32
	centralSpeed                 int32
	qos                          qos.Tables      // the SL/SC/VL tables (Config.SCTables)
	sc2vl                        []messages.VL   // qos.SC2VL narrowed for packets
	slSCs                        [][]messages.SC // qos.SL2SC narrowed for packets
	mtuFlits                     []int32
	warmup, end                  clock.Cycle
	stop                         clock.Cycle // no generation from here on (traffic.stop_cycle, or end)
	dropBacklog                  bool
	series                       clock.Cycle // interval of the delivered-flits series (series_cycles; 0: none)
	excl, maxVL                  int32
	inCap, outCap                int32
	centralCap                   int32
	injCap, rxCap                int32
	schedName                    string
	tableView                    bool // qos.scheduler_view table or table_feedback: schedulers see every head, eligible or not
	feedback                     bool // table_feedback: a pick that cannot send calls Miss, not Commit (sched.DecideFeedback)
	schedCfg                     sched.Config
	schedulers                   *sched.Registry
	router                       topo.Router
	topo                         *topo.Topology
	pipelined                    bool        // the pipelined allocator (alloc.go)
	lookahead                    clock.Cycle // pipelined: how far past AT a source books its read port
	depth                        int         // pipelined: most requests a source has in flight (0: no limit but the lookahead)
	anyDest                      bool        // pipelined: a queue may have requests in flight toward several destinations (switch.request_pipelining)
	islip                        bool        // the islip allocator (islip.go)
	islipIters                   int32       // islip: iterations (rounds) per transfer window
	phase                        clock.Cycle // islip: the latency of each request, grant and accept message
	classOf                      [][]uint8   // per switch and port: the class of the link leaving there (central buffer lanes)
	lanes                        int         // lanes of a central buffer: classes · VLs
	maxQueued                    int         // packets a NIC's application queues hold at most (traffic.max_queued_packets)
	// qos.preemption (preempt.go): preempt[a][b], SL a may interrupt SL b
	// (nil: no preemption); preemptable[b], some SL may; preemptMin,
	// flits an interrupted packet has sent at least.
	preempt        [][]bool
	preemptable    []bool
	preemptMin     int32
	decisionCycles int // qos.decision_cycles, at least 1 (decision.go)
}

func newParams(cfg *Config, reg *sched.Registry, tables qos.Tables, t *topo.Topology, r topo.Router) *params {
	s, l := &cfg.Switch, &cfg.Switch.Latency
	p := &params{
		cfg: cfg, vls: s.VLs, fpc: int32(s.FlitsPerCredit),
		rt: clock.Cycle(l.RT), sbIn: clock.Cycle(l.SBIn), sbOut: clock.Cycle(l.SBOut),
		xMPort: clock.Cycle(l.XMPort), xCentral: clock.Cycle(l.XCentral), fly: clock.Cycle(l.Fly),
		requestLatency: clock.Cycle(l.AT / 2), grantLatency: clock.Cycle(l.AT - l.AT/2),
		mportSpeed: int32(s.MPortSpeedup), centralSpeed: int32(s.CentralSpeedup),
		warmup: clock.Cycle(cfg.Warmup), end: clock.Cycle(cfg.Cycles), stop: clock.Cycle(cfg.Cycles),
		dropBacklog: cfg.Traffic.DropBacklog, series: clock.Cycle(cfg.SeriesCycles),
		excl: int32(cfg.credits(s.ExclusiveVLFlits)), maxVL: int32(s.MaxVLFlits / s.FlitsPerCredit),
		inCap: int32(s.InputBufferFlits / s.FlitsPerCredit), outCap: int32(s.OutputBufferFlits / s.FlitsPerCredit),
		centralCap: int32(s.CentralBufferFlits / s.FlitsPerCredit),
		injCap:     int32(cfg.NIC.InjectionBufferFlits / s.FlitsPerCredit), rxCap: int32(cfg.NIC.ReceiveBufferFlits / s.FlitsPerCredit),
		schedName: cfg.QoS.Scheduler, schedulers: reg, router: r, topo: t, qos: tables,
	}
	if cfg.Traffic.StopCycle > 0 {
		p.stop = clock.Cycle(cfg.Traffic.StopCycle)
	}
	p.maxQueued = cfg.MaxQueuedPackets()
	p.decisionCycles = max(cfg.QoS.DecisionCycles, 1)
	p.anyDest = cfg.Switch.RequestPipelining == PipelineAnyDestination
	p.sc2vl = narrow[messages.VL](tables.SC2VL)
	for i := range cfg.QoS.SLs {
		p.slSCs = append(p.slSCs, narrow[messages.SC](tables.SL2SC[i]))
		p.mtuFlits = append(p.mtuFlits, int32(cfg.MTUFlits(i)))
	}
	p.schedCfg = cfg.schedConfig(tables)
	p.preempt, p.preemptable = cfg.QoS.preemptionMatrix()
	p.preemptMin = int32(cfg.QoS.Preemption.MinFlits)
	p.tableView = cfg.QoS.SchedulerView == ViewTable || cfg.QoS.SchedulerView == ViewTableFeedback
	p.feedback = cfg.QoS.SchedulerView == ViewTableFeedback
	return p
}

// schedConfig is what the output schedulers are built from (but the
// arbitration table, Config.Table, which dtableFor gives).
func (cfg *Config) schedConfig(tables qos.Tables) sched.Config {
	q := &cfg.QoS
	sc := sched.Config{NumVLs: cfg.Switch.VLs, Tables: tables, VLArb: sched.VLArbConfig{
		High: vlarbEntries(q.VLArbHigh), Low: vlarbEntries(q.VLArbLow), HighLimit: q.VLArbHighLimit},
		Counters:     sched.Counters{Bits: q.CounterBits, Wrap: q.CounterOverflow == OverflowWrap},
		TableEntries: q.TableEntries}
	for i, sl := range q.SLs {
		sc.SLs = append(sc.SLs, sched.SL{Name: sl.Name, MTUCredits: cfg.credits(cfg.MTUFlits(i)), SBTWeight: sl.SBTWeight})
	}
	return sc
}

// vlarbEntries converts qos.vlarb_high or qos.vlarb_low to table entries.
func vlarbEntries(es []VLArbEntry) []sched.Entry {
	var out []sched.Entry
	for _, e := range es {
		out = append(out, sched.Entry{SL: e.SL, Weight: e.Weight})
	}
	return out
}

// narrow copies SCs or VLs (Validate keeps them below 32) into the bytes
// packets carry.
func narrow[T ~uint8](xs []int) []T {
	b := make([]T, len(xs))
	for i, x := range xs {
		b[i] = T(x)
	}
	return b
}

func (p *params) creditsOf(flits int32) int32 { return (flits + p.fpc - 1) / p.fpc }

// transfer returns when the tail of a packet of flits leaves a buffer that
// starts sending it at start at speed flits/cycle, given that its tail is
// available there from tailAvail on (cut-through never outruns arrival).
func transfer(start clock.Cycle, flits, speed int32, tailAvail clock.Cycle) clock.Cycle {
	return clock.Max(start+clock.Cycle((flits+speed-1)/speed)-1, tailAvail)
}

// decide makes one output scheduler decision over heads in the configured
// view: sched.DecideFeedback in table_feedback, sched.Decide otherwise.
func (p *params) decide(s sched.Scheduler, heads []sched.Head) (int, bool) {
	if p.feedback {
		return sched.DecideFeedback(s, heads)
	}
	return sched.Decide(s, heads)
}

func (p *params) newScheduler() sched.Scheduler {
	s, err := p.schedulers.New(p.schedName, p.schedCfg)
	if err != nil {
		panic(err) // Validate checked the name; a factory error here is a bug
	}
	return s
}

// shareSchedulers gives the output ports of one switch, outputs, the
// schedulers of a scheduler that builds a switch's ports together
// (sched.Registration.PerSwitch: sbt_switch's one table per switch), in
// place of the lone instances newOutputPort gave them; other schedulers
// keep one instance per port. The ports' schedulers share no mutable
// state (sched.SwitchFactory), so each port stays a component of its own.
func (p *params) shareSchedulers(outputs []*outputPort) {
	if !p.schedulers.PerSwitch(p.schedName) {
		return
	}
	s, err := p.schedulers.NewSwitch(p.schedName, p.schedCfg, len(outputs))
	if err != nil {
		panic(err) // prepare built one with the same config; a factory error here is a bug
	}
	for q, o := range outputs {
		o.sched = s[q]
	}
}

// inWindow tells whether cycle t is inside the measurement window.
func (p *params) inWindow(t clock.Cycle) bool { return t >= p.warmup && t < p.end }

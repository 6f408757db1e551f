package fabric

import (
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/workloads/vef"
)

// MaxPartitions bounds the actor engine's partitions (config key
// partitions): one per worker thread is the point of them.
const MaxPartitions = 1024

// Config is a whole run: every key has its default in Default() and is
// checked by Validate. YAML keys are snake_case; unknown keys are errors.
type Config struct {
	Seed           uint64         `yaml:"seed" json:"seed"`
	Cycles         int64          `yaml:"cycles" json:"cycles"` // total, warm-up included
	Warmup         int64          `yaml:"warmup" json:"warmup"`
	Engine         string         `yaml:"engine" json:"engine"`                     // actors | sequential
	Partitions     int            `yaml:"partitions" json:"partitions"`             // the actor engine's partitions of the groups; 0 = one per GOMAXPROCS
	Window         int64          `yaml:"window" json:"window"`                     // cycles per clock window; 0 = the largest allowed
	WatchdogCycles int64          `yaml:"watchdog_cycles" json:"watchdog_cycles"`   // stop when nothing moves this long; 0 = off
	SeriesCycles   int64          `yaml:"series_cycles" json:"series_cycles"`       // accepted throughput per interval of this many cycles; 0 = off
	MemoryBudget   int64          `yaml:"memory_budget_mb" json:"memory_budget_mb"` // refuse a network estimated to take more MiB; 0 = this machine's memory
	Topology       TopologyConfig `yaml:"topology" json:"topology"`                 //
	Switch         SwitchConfig   `yaml:"switch" json:"switch"`
	NIC            NICConfig      `yaml:"nic" json:"nic"`
	QoS            QoSConfig      `yaml:"qos" json:"qos"`
	Traffic        TrafficConfig  `yaml:"traffic" json:"traffic"`
	Trace          TraceConfig    `yaml:"trace" json:"trace,omitzero"` // an MPI trace replayed beside the synthetic traffic
}

// TraceConfig names a VEF trace to replay (docs/traces.md): its tasks'
// messages go on SL SL, each task on a NIC of the mapping; the synthetic
// traffic (traffic.*, at traffic.load, which may then be 0) runs beside it
// as background. The run ends when the trace's last task ends, or at
// cycles, whichever comes first.
type TraceConfig struct {
	File        string `yaml:"file" json:"file,omitempty"`                 // the trace, plain or gzip; "" = no trace
	SL          int    `yaml:"sl" json:"sl,omitempty"`                     // an index of qos.sls
	Mapping     string `yaml:"mapping" json:"mapping,omitempty"`           // MappingLinear (""), MappingRandom or MappingFile
	MappingFile string `yaml:"mapping_file" json:"mapping_file,omitempty"` // mapping file: the NIC of each task, in task order
	// Collectives chooses a collective's algorithm by op name (broadcast,
	// reduce, allreduce, gather, scatter, allgather, barrier, alltoall);
	// an op not named takes its default (workloads/collective).
	Collectives map[string]string `yaml:"collectives" json:"collectives,omitempty"`
	// MaxInflatedMB bounds what a gzip trace may decompress to, in MiB, in
	// [1, MaxInflatedMBLimit]; nil (absent): vef.DefaultMaxInflated, 1024.
	MaxInflatedMB *int64 `yaml:"max_inflated_mb" json:"max_inflated_mb,omitempty"`
}

// MaxInflatedMBLimit is the largest trace.max_inflated_mb: 1 TiB.
const MaxInflatedMBLimit = 1 << 20

// MaxInflated is the most bytes a gzip trace may decompress to.
func (t *TraceConfig) MaxInflated() int64 {
	if t.MaxInflatedMB == nil {
		return vef.DefaultMaxInflated
	}
	return *t.MaxInflatedMB << 20
}

// The values of trace.mapping.
const (
	MappingLinear = "linear" // task i on NIC i
	MappingRandom = "random" // the tasks on NICs drawn without repetition from the run's seed
	MappingFile   = "file"   // as trace.mapping_file lists
)

// TopologyConfig chooses the network: a preset by name, or a shape.
type TopologyConfig struct {
	Preset        string `yaml:"preset" json:"preset,omitempty"` // a name of topo.PresetNames(); overrides kind and shape
	Kind          string `yaml:"kind" json:"kind"`               // single_switch | torus | tree
	Ports         int    `yaml:"ports" json:"ports"`             // single_switch: ports (one NIC each)
	Dims          []int  `yaml:"dims" json:"dims,omitempty"`     // torus: switches per dimension
	NICsPerSwitch int    `yaml:"nics_per_switch" json:"nics_per_switch,omitempty"`
	Trunk         int    `yaml:"trunk" json:"trunk,omitempty"`     // torus: parallel links between neighbours
	K             int    `yaml:"k" json:"k,omitempty"`             // tree: arity
	N             int    `yaml:"n" json:"n,omitempty"`             // tree: levels
	Routing       string `yaml:"routing" json:"routing,omitempty"` // default: the topology's own (direct, dor, updown)
	// dor only (other routings ignore them); "" = the default
	DORTies     string `yaml:"dor_ties" json:"dor_ties,omitempty"`         // balanced | plus: direction of a packet exactly half way round a ring
	TrunkSelect string `yaml:"trunk_select" json:"trunk_select,omitempty"` // src_dst | dst_mod | hash: trunk member carrying a packet
}

// LatencyConfig holds the stage latencies of seed 002 Table 1, in cycles.
type LatencyConfig struct {
	RT       int64 `yaml:"rt" json:"rt"`               // routing
	SBIn     int64 `yaml:"sb_in" json:"sb_in"`         // store in input buffer
	SBOut    int64 `yaml:"sb_out" json:"sb_out"`       // store in output buffer
	AT       int64 `yaml:"at" json:"at"`               // arbitration (request + grant)
	XMPort   int64 `yaml:"x_mport" json:"x_mport"`     // MPort crossbar
	XCentral int64 `yaml:"x_central" json:"x_central"` // central crossbar
	Fly      int64 `yaml:"fly" json:"fly"`             // link
}

// SwitchConfig describes every switch (and the buffer rules NICs share).
type SwitchConfig struct {
	BytesPerFlit       int           `yaml:"bytes_per_flit" json:"bytes_per_flit"`
	FlitsPerCredit     int           `yaml:"flits_per_credit" json:"flits_per_credit"`
	VLs                int           `yaml:"vls" json:"vls"`
	InputBufferFlits   int           `yaml:"input_buffer_flits" json:"input_buffer_flits"`
	OutputBufferFlits  int           `yaml:"output_buffer_flits" json:"output_buffer_flits"`
	CentralBufferFlits int           `yaml:"central_buffer_flits" json:"central_buffer_flits"` // each of the 2 per MPort
	ExclusiveVLFlits   int           `yaml:"exclusive_vl_flits" json:"exclusive_vl_flits"`
	MaxVLFlits         int           `yaml:"max_vl_flits" json:"max_vl_flits"`
	MPortSpeedup       int           `yaml:"mport_speedup" json:"mport_speedup"`                     // flits/cycle on MPort crossbar links
	CentralSpeedup     int           `yaml:"central_speedup" json:"central_speedup"`                 // flits/cycle out of the central crossbar
	CentralClasses     string        `yaml:"central_classes" json:"central_classes"`                 // lanes of a central buffer: topo.CentralByDirection or topo.CentralByVL
	Allocator          string        `yaml:"allocator" json:"allocator"`                             // AllocPipelined, AllocSerial or AllocIslip
	IslipIterations    int           `yaml:"islip_iterations" json:"islip_iterations"`               // islip: request-grant-accept rounds per transfer window, 2·iterations+1 <= AT
	AllocatorDepth     int           `yaml:"allocator_depth" json:"allocator_depth"`                 // pipelined: most requests in flight per buffer; 0 = no limit but the booking lookahead
	RequestPipelining  string        `yaml:"request_pipelining" json:"request_pipelining,omitempty"` // pipelined: PipelineSameDestination ("" too) or PipelineAnyDestination; empty is left out of the JSON
	Latency            LatencyConfig `yaml:"latency" json:"latency"`
}

// NICConfig describes the NICs.
type NICConfig struct {
	InjectionBufferFlits int `yaml:"injection_buffer_flits" json:"injection_buffer_flits"`
	ReceiveBufferFlits   int `yaml:"receive_buffer_flits" json:"receive_buffer_flits"`
}

// SLConfig is one service level: its SCs, MTU and share of the offered load.
type SLConfig struct {
	Name         string  `yaml:"name" json:"name"`
	SCs          []int   `yaml:"scs" json:"scs"`
	MTUBytes     int     `yaml:"mtu_bytes" json:"mtu_bytes"`         // 0 (or absent): DefaultMTUBytes
	Share        float64 `yaml:"share" json:"share"`                 // fraction of the offered load
	SBTWeight    int     `yaml:"sbt_weight" json:"sbt_weight"`       // packets, for sbt schedulers
	Distance     int     `yaml:"distance" json:"distance"`           // dtable: maximum distance between its entries
	MessageBytes int     `yaml:"message_bytes" json:"message_bytes"` // 0: traffic's message sizes
}

// DefaultMTUBytes is the MTU of an SL that gives none.
const DefaultMTUBytes = 128

// QoSConfig holds the SL/SC/VL tables and the output scheduler.
type QoSConfig struct {
	Scheduler  string       `yaml:"scheduler" json:"scheduler"`
	SLs        []SLConfig   `yaml:"sls" json:"sls"`
	SC2VL      []int        `yaml:"sc2vl" json:"sc2vl"`
	DTable     DTableConfig `yaml:"dtable" json:"dtable"`
	DTableFile string       `yaml:"dtable_file" json:"dtable_file,omitempty"` // a table written by `opasim qos dtable --out`
	// SchedulerView is what the output schedulers see: "eligible" (only the
	// heads that can send), "table" (every VL with a packet; a pick that
	// cannot send wastes the cycle and moves the scheduler's state as a send
	// would) or "table_feedback" (as table, but the scheduler is told that
	// its pick failed: sched.Scheduler.Miss); "" is eligible.
	// docs/schedulers.md, "The table view".
	SchedulerView string `yaml:"scheduler_view" json:"scheduler_view"`
	// The vlarb scheduler's arbitration tables (entries of SL and weight in
	// credits) and the credits the high-priority table may send in a row
	// before one low-priority packet (VLArbUnlimited: no limit; 0: one
	// high-priority packet at a time). Both tables empty: SL 0 high, the
	// others low, each entry one MTU of its SL (sched.VLArbDefaultTables).
	// docs/schedulers.md, "vlarb". Empty and 0 are left out of the JSON, so
	// the configs stored before these keys existed read the same.
	VLArbHigh      []VLArbEntry `yaml:"vlarb_high" json:"vlarb_high,omitempty"`
	VLArbLow       []VLArbEntry `yaml:"vlarb_low" json:"vlarb_low,omitempty"`
	VLArbHighLimit int          `yaml:"vlarb_high_limit" json:"vlarb_high_limit,omitempty"`
	// Hardware constraints of the output schedulers (docs/schedulers.md,
	// "Hardware constraints"). DecisionCycles: cycles a decision takes (0
	// or absent: 1, a decision made and sent in the same cycle).
	// CounterBits: width of the weight and deficit counters (0: unlimited),
	// which CounterOverflow makes saturate (OverflowSaturate, "" too) or
	// wrap (OverflowWrap). TableEntries: the most entries an arbitration
	// table may have (0: no limit). All left out of the JSON at their
	// defaults, so the configs stored before these keys existed read the same.
	DecisionCycles  int    `yaml:"decision_cycles" json:"decision_cycles,omitempty"`
	CounterBits     int    `yaml:"counter_bits" json:"counter_bits,omitempty"`
	CounterOverflow string `yaml:"counter_overflow" json:"counter_overflow,omitempty"`
	TableEntries    int    `yaml:"table_entries" json:"table_entries,omitempty"`
	// Preemption: which SLs may interrupt a packet of which others on a
	// link (docs/model.md, "Packet preemption"); empty: none.
	Preemption PreemptionConfig `yaml:"preemption" json:"preemption,omitzero"`
}

// PreemptionConfig is link-level packet preemption: a packet of SL A may
// interrupt the transmission of a packet of SL B on any link (NIC or switch
// output port) when B is in Preempts[A] and at least MinFlits of the
// interrupted packet have left; the interrupted packet resumes when the
// link has no packet that may preempt it.
type PreemptionConfig struct {
	Preempts map[string][]string `yaml:"preempts" json:"preempts,omitempty"` // SL name -> the SL names it may interrupt
	MinFlits int                 `yaml:"min_flits" json:"min_flits,omitempty"`
}

// Enabled reports whether any SL may preempt another.
func (c *PreemptionConfig) Enabled() bool {
	for _, v := range c.Preempts {
		if len(v) > 0 {
			return true
		}
	}
	return false
}

// The values of qos.counter_overflow.
const (
	OverflowSaturate = "saturate"
	OverflowWrap     = "wrap"
)

// VLArbEntry is one entry of qos.vlarb_high or qos.vlarb_low.
type VLArbEntry struct {
	SL     int `yaml:"sl" json:"sl"`         // an index of qos.sls
	Weight int `yaml:"weight" json:"weight"` // credits; 0: the entry is skipped
}

// VLArbUnlimited is the qos.vlarb_high_limit of no limit.
const VLArbUnlimited = sched.VLArbUnlimited

// DTableConfig are the parameters of the DTable configuration methodology
// (seed 000 section 3.3.2) a run applies when no table file is given; with
// the SLs' distances, MTUs and shares they give the arbitration table.
type DTableConfig struct {
	Entries int `yaml:"entries" json:"entries"`
	GMTU    int `yaml:"gmtu" json:"gmtu"` // credits
	W       int `yaml:"w" json:"w"`
	K       int `yaml:"k" json:"k"`
}

// TrafficConfig describes the synthetic traffic every NIC generates.
type TrafficConfig struct {
	Pattern      string  `yaml:"pattern" json:"pattern"`
	Load         float64 `yaml:"load" json:"load"`       // flits/cycle/NIC offered
	Process      string  `yaml:"process" json:"process"` // bernoulli | cbr
	MessageFlits int     `yaml:"message_flits" json:"message_flits"`
	// Packets a NIC's application queues hold at most; a message that does
	// not fit is not queued (counted in throttled_messages): the offered
	// load is above what the network accepts. 0 = auto (see MaxQueuedPackets).
	MaxQueuedPackets    int   `yaml:"max_queued_packets" json:"max_queued_packets"`
	ShortMessageFlits   int   `yaml:"short_message_flits" json:"short_message_flits"`
	LongMessageFlits    int   `yaml:"long_message_flits" json:"long_message_flits"`
	ShortMessagePercent int   `yaml:"short_message_percent" json:"short_message_percent"`
	HotSpot             int   `yaml:"hot_spot" json:"hot_spot"`                 // hot_spot: the hot NIC
	HotSpotPercent      int   `yaml:"hot_spot_percent" json:"hot_spot_percent"` // hot_spot: share sent to it
	StopCycle           int64 `yaml:"stop_cycle" json:"stop_cycle"`             // no message is generated from this cycle on; 0 = cycles
	DropBacklog         bool  `yaml:"drop_backlog" json:"drop_backlog"`         // at stop_cycle, NICs drop what waits in their application queues
}

// Default is seed 002's single 48-port switch under uniform traffic at load
// 0.5, with the SL/SC/VL tables of seed 000 Table 7 and 16-flit packets,
// and seed 000 section 4.1's buffers (64 KiB per switch input and output
// port, two 64 KiB central buffers per MPort, 32 KiB at NICs; each VL
// guaranteed 1 KiB and allowed half a buffer), which cover a link's credit
// loop so that one stream of one SL reaches the link's rate. Seed 002's
// own small buffers are the hardware preset seed002 (ApplyHardwarePreset).
func Default() Config {
	return Config{
		Seed: 1, Cycles: 20000, Warmup: 5000, Engine: "actors", WatchdogCycles: 50000, SeriesCycles: 10000,
		Topology: TopologyConfig{Kind: "single_switch", Ports: 48, DORTies: topo.TiesBalanced, TrunkSelect: topo.TrunkSrcDst},
		Switch: SwitchConfig{
			BytesPerFlit: 8, FlitsPerCredit: 4, VLs: 8,
			InputBufferFlits: 8192, OutputBufferFlits: 8192, CentralBufferFlits: 8192,
			ExclusiveVLFlits: 128, MaxVLFlits: 4096, MPortSpeedup: 3, CentralSpeedup: 4, CentralClasses: topo.CentralByDirection,
			Allocator: AllocPipelined, IslipIterations: 1,
			Latency: LatencyConfig{RT: 32, SBIn: 50, SBOut: 50, AT: 16, XMPort: 2, XCentral: 2, Fly: 8},
		},
		NIC: NICConfig{InjectionBufferFlits: 4096, ReceiveBufferFlits: 4096},
		QoS: QoSConfig{Scheduler: "rr", SchedulerView: ViewEligible, SLs: Table7SLs(DefaultMTUBytes, 0.2, 20), SC2VL: []int{0, 1, 2, 3, 4, 5, 6, 7, 6, 7},
			DTable: DTableConfig{Entries: 128, GMTU: 16, W: 8, K: 2}},
		Traffic: TrafficConfig{Pattern: "uniform", Load: 0.5, Process: "bernoulli", MessageFlits: 16,
			ShortMessagePercent: 100, HotSpotPercent: 10},
	}
}

// Table7SLs returns the five SLs of seed 000 Table 7 (VO, VI, CL, BE, BK
// over SC0-SC9), all with the same MTU, load share and SBT weight, and the
// DTable distances of Table 9.
func Table7SLs(mtuBytes int, share float64, weight int) []SLConfig {
	names := []string{"VO", "VI", "CL", "BE", "BK"}
	distance := []int{2, 4, 8, 16, 16}
	sls := make([]SLConfig, len(names))
	for i, n := range names {
		sls[i] = SLConfig{Name: n, SCs: []int{2 * i, 2*i + 1}, MTUBytes: mtuBytes, Share: share, SBTWeight: weight,
			Distance: distance[i]}
	}
	return sls
}

// The values of switch.request_pipelining (docs/model.md, "Allocation").
const (
	// PipelineSameDestination: a queue's next head may be requested while
	// earlier requests of the queue are in flight only if it goes to the
	// same destination arbiter as they do (the first pipelined model).
	PipelineSameDestination = "same_destination"
	// PipelineAnyDestination: a queue's next head may be requested while
	// earlier requests of the queue are in flight, whatever their
	// destination arbiters; each destination grants the queue's requests
	// to it in order.
	PipelineAnyDestination = "any_destination"
)

// RequestPipelinings lists the values of switch.request_pipelining.
func RequestPipelinings() []string { return []string{PipelineSameDestination, PipelineAnyDestination} }

// The values of qos.scheduler_view.
const (
	ViewEligible      = "eligible"       // schedulers see only the heads that can send (the default)
	ViewTable         = "table"          // they see every VL with a packet; a pick that cannot send wastes the cycle
	ViewTableFeedback = "table_feedback" // as table, and a pick that cannot send is reported to the scheduler (Miss)
)

// SchedulerViews lists the values of qos.scheduler_view.
func SchedulerViews() []string { return []string{ViewEligible, ViewTable, ViewTableFeedback} }

// TopologySpec is the topology the config describes.
func (c *Config) TopologySpec() topo.Spec {
	t := &c.Topology
	options := topo.RoutingOptions{Ties: t.DORTies, TrunkSelect: t.TrunkSelect}
	if t.Preset != "" {
		if s, err := topo.LookupPreset(t.Preset); err == nil {
			if t.Routing != "" {
				s.Routing = t.Routing
			}
			s.Options = options
			return s
		}
	}
	var s topo.Spec
	switch t.Kind {
	case "torus":
		s = topo.Spec{Kind: topo.KindTorus, Routing: "dor", Dims: t.Dims, NICsPerSwitch: t.NICsPerSwitch, Trunk: t.Trunk}
	case "tree":
		s = topo.Spec{Kind: topo.KindTree, Routing: "updown", K: t.K, N: t.N}
	default:
		s = topo.Spec{Kind: topo.KindSingle, Routing: "direct", Ports: t.Ports}
	}
	if t.Routing != "" {
		s.Routing = t.Routing
	}
	s.Options = options
	return s
}

// credits converts flits to credits, rounding up.
func (c *Config) credits(flits int) int {
	return (flits + c.Switch.FlitsPerCredit - 1) / c.Switch.FlitsPerCredit
}

// MTUFlits is SL i's MTU in flits (bytes rounded up; 0 bytes is
// DefaultMTUBytes).
func (c *Config) MTUFlits(i int) int {
	b, mtu := c.Switch.BytesPerFlit, c.QoS.SLs[i].MTUBytes
	if mtu == 0 {
		mtu = DefaultMTUBytes
	}
	return (mtu + b - 1) / b
}

// MaxPacketFlits is the largest packet any SL can send.
func (c *Config) MaxPacketFlits() int {
	m := 0
	for i := range c.QoS.SLs {
		m = max(m, c.MTUFlits(i))
	}
	return m
}

// Bounds of the automatic traffic.max_queued_packets.
const (
	autoQueuedTotal = 10_000_000 // packets in all NICs' application queues together
	autoQueuedMin   = 1_000
	autoQueuedMax   = 100_000
)

// MaxQueuedPackets is traffic.max_queued_packets, or when it is 0 (auto)
// 100,000 packets per NIC, lowered so that all the NICs together queue at
// most 10,000,000 (about 1 GB), but never below 1,000.
func (c *Config) MaxQueuedPackets() int {
	if m := c.Traffic.MaxQueuedPackets; m > 0 {
		return m
	}
	_, _, nics := c.TopologySpec().Size()
	return int(min(max(autoQueuedTotal/max(nics, 1), autoQueuedMin), autoQueuedMax))
}

// NumNICs is the number of NICs of the configured topology (0 if it does
// not build).
func (c *Config) NumNICs() int {
	t, err := c.TopologySpec().Build()
	if err != nil {
		return 0
	}
	return t.NumNICs()
}

// MaxWindow is the largest clock window: the smallest latency of any
// message between components (links, requests, grants).
func (c *Config) MaxWindow() int64 {
	l := c.Switch.Latency
	w := min(l.Fly, l.AT/2, l.AT-l.AT/2)
	if c.Switch.Allocator == AllocIslip {
		w = min(w, islipPhase(l.AT, c.Switch.IslipIterations))
	}
	return max(1, w)
}

// CycleNs is the length of a cycle in nanoseconds at 12.5 GB/s per port.
func (c *Config) CycleNs() float64 { return float64(c.Switch.BytesPerFlit) / 12.5 }

// preemptionMatrix turns qos.preemption.preempts into m[a][b]: SL a may
// interrupt SL b, and can[b]: some SL may interrupt b (both nil when no SL
// may preempt). Validate has checked the names.
func (q *QoSConfig) preemptionMatrix() (m [][]bool, can []bool) {
	if !q.Preemption.Enabled() {
		return nil, nil
	}
	idx := map[string]int{}
	for i, sl := range q.SLs {
		idx[sl.Name] = i
	}
	m, can = make([][]bool, len(q.SLs)), make([]bool, len(q.SLs))
	for i := range m {
		m[i] = make([]bool, len(q.SLs))
	}
	for a, bs := range q.Preemption.Preempts {
		for _, b := range bs {
			m[idx[a]][idx[b]] = true
			can[idx[b]] = true
		}
	}
	return m, can
}

package sim

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
)

// LatencySummary describes a latency distribution.
type LatencySummary struct {
	Messages   int64   `json:"messages"`
	MeanCycles float64 `json:"mean_cycles"`
	P50Cycles  int64   `json:"p50_cycles"`
	P99Cycles  int64   `json:"p99_cycles"`
	MaxCycles  int64   `json:"max_cycles"`
	MeanNs     float64 `json:"mean_ns"`
}

// SLResult is the measurement of one service level.
type SLResult struct {
	SL                   string         `json:"sl"`
	OfferedLoad          float64        `json:"offered_load"`
	AcceptedThroughput   float64        `json:"accepted_throughput"`
	NormalizedThroughput float64        `json:"normalized_throughput"`
	Latency              LatencySummary `json:"latency"`
	NetworkLatency       LatencySummary `json:"network_latency"`
}

// SeriesPoint is the accepted throughput of one interval of series_cycles:
// flits delivered per cycle per NIC, in all and per SL (warm-up included).
type SeriesPoint struct {
	FromCycle int64     `json:"from_cycle"`
	ToCycle   int64     `json:"to_cycle"`
	Accepted  float64   `json:"accepted"`
	PerSL     []float64 `json:"per_sl"`
}

// Results is the self-describing outcome of a run (the results JSON).
type Results struct {
	Config             fabric.Config  `json:"config"`
	Seed               uint64         `json:"seed"`
	Engine             string         `json:"engine"`
	Partitions         int            `json:"partitions,omitempty"` // the actor engine's partitions (the results do not depend on them)
	Topology           string         `json:"topology"`             // the network run: preset, kind, shape, routing
	Switches           int            `json:"switches"`
	NICs               int            `json:"nics"`
	CycleNs            float64        `json:"cycle_ns"`
	SimulatedCycles    int64          `json:"simulated_cycles"`
	MeasuredCycles     int64          `json:"measured_cycles"`
	Interrupted        bool           `json:"interrupted"`
	Blocked            bool           `json:"blocked"`              // the watchdog stopped the run
	PartialDeadlock    bool           `json:"partial_deadlock"`     // it stopped it for buffers whose heads did not move while others did
	Stuck              []string       `json:"stuck,omitempty"`      // what it found blocked
	UndeliveredPackets int64          `json:"undelivered_packets"`  // generated, not dropped, not yet delivered at the end
	DroppedPackets     int64          `json:"dropped_packets"`      // dropped from application queues at traffic.stop_cycle
	ThrottledMessages  int64          `json:"throttled_messages"`   // generated but not queued: application queues full (traffic.max_queued_packets)
	FirstThrottleCycle int64          `json:"first_throttle_cycle"` // when the first was; -1: never
	MaxQueuedPackets   int            `json:"max_queued_packets"`   // the bound in force per NIC
	OfferedLoad        float64        `json:"offered_load"`
	AcceptedThroughput float64        `json:"accepted_throughput"`
	DeliveredFlits     int64          `json:"delivered_flits"`
	Latency            LatencySummary `json:"latency"`
	NetworkLatency     LatencySummary `json:"network_latency"`
	PerSL              []SLResult     `json:"per_sl"`
	Series             []SeriesPoint  `json:"series,omitempty"` // accepted throughput per series_cycles interval
	CreditStallCycles  int64          `json:"credit_stall_cycles"`
	SchedulerDecisions int64          `json:"scheduler_decisions"`        // output scheduler decisions, switch ports and NICs, whole run
	SchedulerWasted    int64          `json:"scheduler_wasted"`           // those whose head could not send (table view only)
	WastedNotReady     int64          `json:"scheduler_wasted_not_ready"` // wasted on a head not ready yet (the rest lacked credits)
	SchedulerHitRate   float64        `json:"scheduler_hit_rate"`         // 1 - wasted/decisions; 1 in the eligible view
	SwitchHitRate      float64        `json:"switch_scheduler_hit_rate"`  // the same over switch output ports only
	NICHitRate         float64        `json:"nic_scheduler_hit_rate"`     // and over NICs only
	// Decisions per scheduler per cycle: scheduler_decisions over (switch
	// output ports + NICs) × simulated cycles, whole run like the counts.
	DecisionsPerCycle float64 `json:"scheduler_decisions_per_cycle"`
	// Link cycles idled by the schedulers themselves: a link free, a head
	// that could be sent, no decision sending it (a decision not complete
	// yet under qos.decision_cycles, or a wasted one); whole run.
	SchedulerIdleCycles       int64             `json:"scheduler_idle_cycles"`
	SwitchSchedulerIdleCycles int64             `json:"switch_scheduler_idle_cycles"`
	NICSchedulerIdleCycles    int64             `json:"nic_scheduler_idle_cycles"`
	Preemption                *PreemptionResult `json:"preemption,omitempty"` // with qos.preemption
	Islip                     *IslipResult      `json:"islip,omitempty"`      // with switch.allocator islip
	ConservationOK            bool              `json:"conservation_ok"`
	ConservationProblems      []string          `json:"conservation_problems,omitempty"`
	Digest                    string            `json:"digest"`
	WallSeconds               float64           `json:"wall_seconds"`
	CyclesPerSecond           float64           `json:"cycles_per_second"`
	FlitsPerSecond            float64           `json:"flits_per_second"`
	Trace                     *TraceResult      `json:"trace,omitempty"`   // the trace replay, when trace.file names one
	Partial                   *PartialResult    `json:"partial,omitempty"` // a distributed run that lost a member: what these results are
	Links                     *LinkResults      `json:"links,omitempty"`   // each link's utilization in the measurement window
}

// PartialResult marks the results of a distributed run that a member's
// fault ended: they are the members' totals at the end of an earlier
// window (the latest one every member's totals describe), not the run's
// end, so a reader must not take them for a complete run's.
type PartialResult struct {
	Failed              string `json:"failed"`               // the member (or members) that failed, with its address
	Reason              string `json:"reason"`               // the fault, as the coordinator reported it
	Window              uint64 `json:"window"`               // the window the results describe the end of
	Cycle               int64  `json:"cycle"`                // its end: the cycle the results stop at (simulated_cycles)
	ConservationChecked bool   `json:"conservation_checked"` // always false: the messages in transit are in no member's totals
	Note                string `json:"note"`                 // what the results include and what they leave out
}

// Measure makes the results of a run: the network's counters after the
// engine o reports on stopped.
func Measure(n *fabric.Network, o Outcome) *Results {
	return MeasureTotals(n, o, n.Totals(), n.CheckConservation(o.InFlight))
}

// MeasureTotals makes the results of a run from its totals and the
// problems its conservation check found: for an engine whose components'
// state is not all in n (a distributed run merges its members' totals).
// n gives the config and the topology.
func MeasureTotals(n *fabric.Network, o Outcome, tot fabric.Totals, problems []string) *Results {
	cfg := n.Config
	st := tot.Stats
	measured := int64(o.Reached) - cfg.Warmup
	nics := len(tot.NICs)
	r := &Results{Config: cfg, Seed: cfg.Seed, Engine: o.Engine, Partitions: o.Partitions, NICs: nics, CycleNs: cfg.CycleNs(),
		Topology: cfg.TopologySpec().Describe(), Switches: n.NumSwitches(),
		SimulatedCycles: int64(o.Reached), MeasuredCycles: max(measured, 0), Interrupted: o.Interrupted,
		Blocked: o.Blocked, PartialDeadlock: o.PartialDeadlock, Stuck: o.Stuck,
		WallSeconds: o.Wall.Seconds()}
	per := func(flits int64) float64 {
		if measured <= 0 {
			return 0
		}
		return float64(flits) / float64(measured) / float64(nics)
	}
	var offered, delivered int64
	allLat, allNet := newHist(), newHist()
	var latSum, netSum, msgs int64
	for i, sl := range cfg.QoS.SLs {
		offered += st.Offered[i]
		delivered += st.Delivered[i]
		allLat.Merge(st.Lat[i])
		allNet.Merge(st.NetLat[i])
		latSum, netSum, msgs = latSum+st.LatSum[i], netSum+st.NetLatSum[i], msgs+st.Msgs[i]
		r.PerSL = append(r.PerSL, SLResult{SL: sl.Name, OfferedLoad: per(st.Offered[i]), AcceptedThroughput: per(st.Delivered[i]),
			Latency:        summarize(st.Lat[i], st.LatSum[i], st.Msgs[i], r.CycleNs),
			NetworkLatency: summarize(st.NetLat[i], st.NetLatSum[i], st.Msgs[i], r.CycleNs)})
	}
	for i := range r.PerSL {
		if delivered > 0 {
			r.PerSL[i].NormalizedThroughput = float64(st.Delivered[i]) / float64(delivered)
		}
	}
	r.OfferedLoad, r.AcceptedThroughput, r.DeliveredFlits = per(offered), per(delivered), delivered
	r.Series = series(st, int64(st.SeriesInterval), int64(o.Reached), nics)
	r.Latency = summarize(allLat, latSum, msgs, r.CycleNs)
	r.NetworkLatency = summarize(allNet, netSum, msgs, r.CycleNs)
	r.CreditStallCycles, r.UndeliveredPackets, r.DroppedPackets = tot.CreditStallCycles, tot.UndeliveredPackets, tot.DroppedPackets
	r.WastedNotReady = tot.WastedNotReady
	r.ThrottledMessages, r.FirstThrottleCycle, r.MaxQueuedPackets = tot.ThrottledMessages, int64(tot.FirstThrottle), cfg.MaxQueuedPackets()
	r.SchedulerDecisions, r.SchedulerWasted = tot.SwitchDecisions+tot.NICDecisions, tot.SwitchWasted+tot.NICWasted
	r.SchedulerHitRate = fabric.HitRate(r.SchedulerDecisions, r.SchedulerWasted)
	r.SwitchHitRate, r.NICHitRate = fabric.HitRate(tot.SwitchDecisions, tot.SwitchWasted), fabric.HitRate(tot.NICDecisions, tot.NICWasted)
	r.Preemption = preemptionResult(&cfg, &tot)
	if cfg.Switch.Allocator == fabric.AllocIslip {
		r.Islip = &IslipResult{Iterations: tot.IslipIterations, Matches: tot.IslipMatches, LostWindows: tot.IslipLost, Declined: tot.IslipDeclined}
	}
	r.SwitchSchedulerIdleCycles, r.NICSchedulerIdleCycles = tot.SwitchSchedulerIdle, tot.NICSchedulerIdle
	r.SchedulerIdleCycles = tot.SwitchSchedulerIdle + tot.NICSchedulerIdle
	if tot.Schedulers > 0 && o.Reached > 0 {
		r.DecisionsPerCycle = float64(r.SchedulerDecisions) / float64(tot.Schedulers) / float64(o.Reached)
	}
	r.ConservationOK, r.ConservationProblems = len(problems) == 0, problems
	r.Digest = digest(o.Reached, &tot)
	r.Trace = traceResult(n, o, r.CycleNs)
	r.Links = linkResults(n.Links(), tot.LinkFlits, r.MeasuredCycles)
	if secs := o.Wall.Seconds(); secs > 0 {
		r.CyclesPerSecond = float64(o.Reached) / secs
		r.FlitsPerSecond = float64(tot.DeliveredFlits) / secs
	}
	return r
}

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(fabric.MaxLatency), 3) }

func summarize(h *hdrhistogram.Histogram, sum, count int64, cycleNs float64) LatencySummary {
	if count == 0 {
		return LatencySummary{}
	}
	mean := float64(sum) / float64(count)
	return LatencySummary{Messages: count, MeanCycles: mean, P50Cycles: h.ValueAtQuantile(50),
		P99Cycles: h.ValueAtQuantile(99), MaxCycles: h.Max(), MeanNs: mean * cycleNs}
}

// digest hashes the simulated outcome: every NIC's delivery sequence, the
// cycle reached and the measured counters. No wall-clock figure enters it.
func digest(reached clock.Cycle, t *fabric.Totals) string {
	h := fabric.HashWords(fabric.HashOffset, uint64(reached))
	for _, nic := range t.NICs {
		h = fabric.HashWords(h, nic.DeliveryHash, uint64(nic.Generated), uint64(nic.Delivered))
	}
	st := t.Stats
	for i := range st.Offered {
		h = fabric.HashWords(h, uint64(st.Offered[i]), uint64(st.Delivered[i]), uint64(st.LatSum[i]), uint64(st.NetLatSum[i]))
	}
	return fmt.Sprintf("%016x", h)
}

// series turns the per-interval delivered flits into throughput points, up
// to the cycle reached (the last interval may be shorter).
func series(st *fabric.Stats, interval, reached int64, nics int) []SeriesPoint {
	if interval <= 0 {
		return nil
	}
	var out []SeriesPoint
	for from := int64(0); from < reached; from += interval {
		to := min(from+interval, reached)
		p := SeriesPoint{FromCycle: from, ToCycle: to, PerSL: make([]float64, len(st.Offered))}
		bin := int(from / interval)
		for sl := range p.PerSL {
			if sl < len(st.Series) && bin < len(st.Series[sl]) {
				p.PerSL[sl] = float64(st.Series[sl][bin]) / float64(to-from) / float64(nics)
				p.Accepted += p.PerSL[sl]
			}
		}
		out = append(out, p)
	}
	return out
}

// IslipResult counts the islip allocator's work over the whole run, summed
// over the switches' input and central buffers: iterations sent (each a
// set of requests for one read-port window), rounds ended by an accept,
// windows given up with no grant accepted, and grants declined (each left
// a destination's write port booked for a transfer that did not come).
type IslipResult struct {
	Iterations  int64 `json:"iterations"`
	Matches     int64 `json:"matches"`
	LostWindows int64 `json:"lost_windows"`
	Declined    int64 `json:"declined"`
}

// PreemptionResult counts the packet preemptions of a run (qos.preemption)
// on every link, switch ports and NICs, whole run.
type PreemptionResult struct {
	Preemptions int64            `json:"preemptions"` // packets interrupted
	ByPair      map[string]int64 `json:"by_pair"`     // "A>B": packets of SL B interrupted by SL A
	// Link cycles held by a packet whose next flit had not arrived: its tail
	// made late by a preemption upstream, the link sends nothing then.
	HoleCycles int64 `json:"hole_cycles"`
}

func preemptionResult(cfg *fabric.Config, tot *fabric.Totals) *PreemptionResult {
	if !cfg.QoS.Preemption.Enabled() {
		return nil
	}
	r := &PreemptionResult{Preemptions: tot.Preemptions, HoleCycles: tot.HoleCycles, ByPair: map[string]int64{}}
	for a, row := range tot.PreemptionsByPair {
		for b, c := range row {
			if c > 0 {
				r.ByPair[cfg.QoS.SLs[a].Name+">"+cfg.QoS.SLs[b].Name] = c
			}
		}
	}
	return r
}

package fabric

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/problem"
	"github.com/opasim/opasim/workloads"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// Problems collects every validation problem (problem.List: it is an
// error when non-empty).
type Problems = problem.List

// Validate returns every problem at once, each naming the field, the value
// and what is allowed; nil when the config is usable. schedulers are the
// schedulers qos.scheduler may name.
func (c *Config) Validate(schedulers *sched.Registry) error {
	var p Problems
	c.validateRun(&p)
	c.validateTopology(&p)
	c.validateSwitch(&p)
	c.validateQoS(&p, schedulers)
	c.validateTraffic(&p)
	c.validateTrace(&p)
	if len(p) == 0 {
		c.validateBuffers(&p)
	}
	if len(p) == 0 {
		c.validateSchedulerFits(&p, schedulers)
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

func (c *Config) validateRun(p *Problems) {
	p.AtLeast("cycles", c.Cycles, 1)
	if c.Warmup < 0 || c.Warmup >= c.Cycles {
		p.NotAllowed("warmup", c.Warmup, fmt.Sprintf("must be in [0, cycles=%d)", c.Cycles))
	}
	p.AtLeast("watchdog_cycles", c.WatchdogCycles, 0)
	p.AtLeast("memory_budget_mb", c.MemoryBudget, 0)
	p.AtLeast("series_cycles", c.SeriesCycles, 0)
	if c.Engine != "actors" && c.Engine != "sequential" {
		p.NotAllowed("engine", fmt.Sprintf("%q", c.Engine), "must be one of: actors, sequential")
	}
	if c.Partitions < 0 || c.Partitions > MaxPartitions {
		p.NotAllowed("partitions", c.Partitions, fmt.Sprintf("must be in [0, %d] (0 = one per GOMAXPROCS)", MaxPartitions))
	}
	if c.Window < 0 || c.Window > c.MaxWindow() {
		p.NotAllowed("window", c.Window, fmt.Sprintf("must be in [0, %d] (0 = the largest, the minimum latency between components)", c.MaxWindow()))
	}
}

func (c *Config) validateTopology(p *Problems) {
	t := &c.Topology
	if t.DORTies != "" && !contains(topo.TieRules(), t.DORTies) {
		p.NotAllowed("topology.dor_ties", fmt.Sprintf("%q", t.DORTies), "must be one of: "+strings.Join(topo.TieRules(), ", "))
	}
	if t.TrunkSelect != "" && !contains(topo.TrunkSelects(), t.TrunkSelect) {
		p.NotAllowed("topology.trunk_select", fmt.Sprintf("%q", t.TrunkSelect), "must be one of: "+strings.Join(topo.TrunkSelects(), ", "))
	}
	if t.Preset != "" {
		if _, err := topo.LookupPreset(t.Preset); err != nil {
			p.NotAllowed("topology.preset", fmt.Sprintf("%q", t.Preset), "must be one of: "+strings.Join(topo.PresetNames(), ", "))
		}
		return
	}
	switch t.Kind {
	case "single_switch":
		if t.Ports < 8 || t.Ports%PortsPerMPort != 0 || t.Ports > 1<<20 {
			p.NotAllowed("topology.ports", t.Ports, "must be a multiple of 4 in [8, 1048576] (MPorts of 4 ports, at least two MPorts)")
		}
	case "torus", "tree":
		if err := c.TopologySpec().Check(); err != nil {
			p.NotAllowed("topology", t.Kind, err.Error())
		}
	default:
		p.NotAllowed("topology.kind", fmt.Sprintf("%q", t.Kind), "must be one of: single_switch, torus, tree")
	}
	if t.Routing != "" && !topo.DefaultRegistry().Has(t.Routing) {
		p.NotAllowed("topology.routing", fmt.Sprintf("%q", t.Routing), "must be one of: "+strings.Join(topo.DefaultRegistry().Names(), ", "))
	}
}

func (c *Config) validateSwitch(p *Problems) {
	s := &c.Switch
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"switch.bytes_per_flit", s.BytesPerFlit, 1}, {"switch.flits_per_credit", s.FlitsPerCredit, 1},
		{"switch.input_buffer_flits", s.InputBufferFlits, 1}, {"switch.output_buffer_flits", s.OutputBufferFlits, 1},
		{"switch.central_buffer_flits", s.CentralBufferFlits, 1}, {"switch.exclusive_vl_flits", s.ExclusiveVLFlits, 0},
		{"switch.max_vl_flits", s.MaxVLFlits, 1}, {"switch.mport_speedup", s.MPortSpeedup, 1},
		{"switch.central_speedup", s.CentralSpeedup, 1},
		{"nic.injection_buffer_flits", c.NIC.InjectionBufferFlits, 1}, {"nic.receive_buffer_flits", c.NIC.ReceiveBufferFlits, 1},
	} {
		p.AtLeast(f.name, int64(f.v), int64(f.min))
	}
	if s.VLs < 1 || s.VLs > 32 {
		p.NotAllowed("switch.vls", s.VLs, "must be in [1, 32]")
	}
	if _, err := lookupAllocator(s.Allocator); err != nil {
		p.NotAllowed("switch.allocator", fmt.Sprintf("%q", s.Allocator), "must be one of: "+strings.Join(AllocatorNames(), ", "))
	}
	p.AtLeast("switch.allocator_depth", int64(s.AllocatorDepth), 0)
	if s.RequestPipelining != "" && !contains(RequestPipelinings(), s.RequestPipelining) {
		p.NotAllowed("switch.request_pipelining", fmt.Sprintf("%q", s.RequestPipelining), "must be one of: "+strings.Join(RequestPipelinings(), ", "))
	} else if s.RequestPipelining == PipelineAnyDestination && s.Allocator != AllocPipelined {
		p.NotAllowed("switch.request_pipelining", fmt.Sprintf("%q", s.RequestPipelining),
			fmt.Sprintf("must be %s (or absent) with switch.allocator %q: only the pipelined allocator has several requests of a queue in flight", PipelineSameDestination, s.Allocator))
	}
	if s.Allocator == AllocIslip {
		if most := (s.Latency.AT - 1) / 2; int64(s.IslipIterations) < 1 || int64(s.IslipIterations) > most {
			p.NotAllowed("switch.islip_iterations", s.IslipIterations,
				fmt.Sprintf("must be in [1, %d]: each iteration's request and grant and the last accept take at least a cycle each within switch.latency.at = %d", max(1, most), s.Latency.AT))
		}
		if c.QoS.Preemption.Enabled() {
			p.NotAllowed("switch.allocator", fmt.Sprintf("%q", s.Allocator), "must be pipelined or serial with qos.preemption (late tails are not modelled under islip)")
		}
	}
	if !contains(topo.CentralSchemes(), s.CentralClasses) {
		p.NotAllowed("switch.central_classes", s.CentralClasses, "must be one of: "+strings.Join(topo.CentralSchemes(), ", "))
	}
	l := &s.Latency
	for _, f := range []struct {
		name string
		v    int64
		min  int64
	}{
		{"switch.latency.rt", l.RT, 0}, {"switch.latency.sb_in", l.SBIn, 0}, {"switch.latency.sb_out", l.SBOut, 0},
		{"switch.latency.at", l.AT, 2}, {"switch.latency.x_mport", l.XMPort, 0}, {"switch.latency.x_central", l.XCentral, 0},
		{"switch.latency.fly", l.Fly, 1},
	} {
		if f.v < f.min {
			why := fmt.Sprintf("must be at least %d", f.min)
			if f.name == "switch.latency.at" {
				why += " (the request and the grant of an arbitration take at least one cycle each)"
			}
			p.NotAllowed(f.name, f.v, why)
		}
	}
}

func (c *Config) validateQoS(p *Problems, schedulers *sched.Registry) {
	q := &c.QoS
	if !schedulers.Has(q.Scheduler) {
		p.NotAllowed("qos.scheduler", fmt.Sprintf("%q", q.Scheduler), "must be one of: "+strings.Join(schedulers.Names(), ", "))
	}
	derivesTable := schedulers.NeedsTable(q.Scheduler) && q.DTableFile == ""
	if q.SchedulerView != "" && !contains(SchedulerViews(), q.SchedulerView) {
		p.NotAllowed("qos.scheduler_view", fmt.Sprintf("%q", q.SchedulerView), "must be one of: "+strings.Join(SchedulerViews(), ", "))
	}
	if len(q.SLs) == 0 || len(q.SLs) > 32 {
		p.NotAllowed("qos.sls", len(q.SLs), "must list 1 to 32 service levels")
	}
	if len(q.SC2VL) == 0 || len(q.SC2VL) > 32 {
		p.NotAllowed("qos.sc2vl", len(q.SC2VL), "must map 1 to 32 service channels")
	}
	for sc, vl := range q.SC2VL {
		if vl < 0 || vl >= c.Switch.VLs {
			p.NotAllowed(fmt.Sprintf("qos.sc2vl[%d]", sc), vl, fmt.Sprintf("must be a VL in [0, %d)", c.Switch.VLs))
		}
	}
	c.validateSLs(p, derivesTable)
	c.validateVLArb(p)
	c.validatePreemption(p)
	c.validateHardware(p)
}

// validatePreemption checks qos.preemption: every key and value names an SL
// of qos.sls, no SL preempts itself, the relation has no cycle (a packet
// could otherwise be interrupted for ever in turn), min_flits is at least 1,
// and the switch's latencies let news of a late tail overtake the tail
// (preempt.go): with λ = floor(AT/2), λ ≤ sb_in + x_mport and
// 2λ ≤ sb_in + x_mport + x_central + sb_out.
func (c *Config) validatePreemption(p *Problems) {
	q := &c.QoS.Preemption
	if !q.Enabled() {
		if q.MinFlits != 0 {
			p.NotAllowed("qos.preemption.min_flits", q.MinFlits, "must be 0 when qos.preemption.preempts is empty")
		}
		return
	}
	idx := map[string]int{}
	var names []string
	for i, sl := range c.QoS.SLs {
		idx[sl.Name] = i
		names = append(names, sl.Name)
	}
	known := "must name an SL of qos.sls: " + strings.Join(names, ", ")
	edges := map[int][]int{}
	for _, a := range sortedKeys(q.Preempts) {
		ia, ok := idx[a]
		if !ok {
			p.NotAllowed("qos.preemption.preempts", fmt.Sprintf("%q", a), known)
			continue
		}
		for i, b := range q.Preempts[a] {
			f := fmt.Sprintf("qos.preemption.preempts.%s[%d]", a, i)
			ib, ok := idx[b]
			switch {
			case !ok:
				p.NotAllowed(f, fmt.Sprintf("%q", b), known)
			case ib == ia:
				p.NotAllowed(f, fmt.Sprintf("%q", b), "must be another SL than "+a+" (an SL does not preempt itself)")
			default:
				edges[ia] = append(edges[ia], ib)
			}
		}
	}
	if cyc := preemptionCycle(edges, len(names)); cyc != nil {
		var path []string
		for _, i := range cyc {
			path = append(path, names[i])
		}
		p.NotAllowed("qos.preemption.preempts", strings.Join(path, " > "),
			"must have no cycle (SLs preempting each other in turn could interrupt a packet for ever)")
	}
	if q.MinFlits < 1 {
		p.NotAllowed("qos.preemption.min_flits", q.MinFlits, "must be at least 1 (flits an interrupted packet has sent)")
	}
	l := &c.Switch.Latency
	lambda := l.AT / 2
	if lambda > l.SBIn+l.XMPort || 2*lambda > l.SBIn+l.XMPort+l.XCentral+l.SBOut {
		p.NotAllowed("switch.latency", fmt.Sprintf("at %d, sb_in %d, x_mport %d, x_central %d, sb_out %d", l.AT, l.SBIn, l.XMPort, l.XCentral, l.SBOut),
			"with qos.preemption, floor(at/2) must be at most sb_in + x_mport, and twice it at most sb_in + x_mport + x_central + sb_out (news of a late tail must overtake the tail)")
	}
}

// preemptionCycle returns a cycle of the relation edges over n SLs, or nil.
func preemptionCycle(edges map[int][]int, n int) []int {
	state := make([]int, n) // 0 new, 1 on the path, 2 done
	var path []int
	var visit func(v int) []int
	visit = func(v int) []int {
		state[v] = 1
		path = append(path, v)
		for _, w := range edges[v] {
			if state[w] == 1 {
				for i, x := range path {
					if x == w {
						return append(append([]int{}, path[i:]...), w)
					}
				}
			}
			if state[w] == 0 {
				if c := visit(w); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[v] = 2
		return nil
	}
	for v := 0; v < n; v++ {
		if state[v] == 0 {
			if c := visit(v); c != nil {
				return c
			}
		}
	}
	return nil

}

// validateHardware checks the schedulers' hardware constraints
// (docs/schedulers.md, "Hardware constraints"). Whether a table and its
// weights fit them is the scheduler's check, when the network is built.
func (c *Config) validateHardware(p *Problems) {
	q := &c.QoS
	if q.DecisionCycles < 0 || q.DecisionCycles > MaxDecisionCycles {
		p.NotAllowed("qos.decision_cycles", q.DecisionCycles, fmt.Sprintf("must be in [1, %d] cycles (0 or absent: 1)", MaxDecisionCycles))
	}
	if q.CounterBits < 0 || q.CounterBits > sched.MaxCounterBits {
		p.NotAllowed("qos.counter_bits", q.CounterBits, fmt.Sprintf("must be in [0, %d] (0: unlimited)", sched.MaxCounterBits))
	}
	if q.CounterOverflow != "" && q.CounterOverflow != OverflowSaturate && q.CounterOverflow != OverflowWrap {
		p.NotAllowed("qos.counter_overflow", fmt.Sprintf("%q", q.CounterOverflow), "must be one of: saturate, wrap")
	}
	if q.TableEntries < 0 {
		p.NotAllowed("qos.table_entries", q.TableEntries, "must be at least 0 (0: no limit)")
	}
	if q.DecisionCycles > 1 && q.Preemption.Enabled() {
		p.NotAllowed("qos.decision_cycles", q.DecisionCycles,
			"must be 1 (or absent) with qos.preemption: how long a preemption decision takes is not modelled")
	}
}

// validateSchedulerFits builds the scheduler once, when qos.counter_bits
// or qos.table_entries constrain it, to refuse a table or a weight that
// does not fit them before the run (the scheduler's factory says which).
// A table from qos.dtable_file is checked when the run reads it, at Build.
func (c *Config) validateSchedulerFits(p *Problems, schedulers *sched.Registry) {
	q := &c.QoS
	if q.CounterBits == 0 && q.TableEntries == 0 {
		return
	}
	sc := c.schedConfig(c.SCTables())
	if schedulers.NeedsTable(q.Scheduler) {
		if q.DTableFile != "" {
			return
		}
		res, err := dtable.Configure(c.DTableRequest())
		if err != nil {
			return // reported by Build, with the DTable configuration's own problems
		}
		sc.Table = res.Table
	}
	if _, err := schedulers.New(q.Scheduler, sc); err != nil {
		p.NotAllowed("qos.counter_bits, qos.table_entries", fmt.Sprintf("%d, %d", q.CounterBits, q.TableEntries),
			fmt.Sprintf("the %s scheduler's weights and tables must fit them: %v", q.Scheduler, err))
	}
}

// validateVLArb checks the vlarb scheduler's keys, whichever scheduler
// runs: every entry names an SL of qos.sls and weighs 0 or more credits,
// and tables that are given have an entry above 0 (given none, vlarb uses
// its default tables).
func (c *Config) validateVLArb(p *Problems) {
	q := &c.QoS
	positive := false
	for _, t := range []struct {
		key     string
		entries []VLArbEntry
	}{{"qos.vlarb_high", q.VLArbHigh}, {"qos.vlarb_low", q.VLArbLow}} {
		for i, e := range t.entries {
			f := fmt.Sprintf("%s[%d]", t.key, i)
			if e.SL < 0 || e.SL >= len(q.SLs) {
				p.NotAllowed(f+".sl", e.SL, fmt.Sprintf("must be an SL in [0, %d) (an index of qos.sls)", len(q.SLs)))
			}
			if e.Weight < 0 {
				p.NotAllowed(f+".weight", e.Weight, "must be at least 0 (credits; 0 skips the entry)")
			}
			positive = positive || e.Weight > 0
		}
	}
	if len(q.VLArbHigh)+len(q.VLArbLow) > 0 && !positive {
		p.NotAllowed("qos.vlarb_high, qos.vlarb_low", "every weight 0",
			"at least one entry must weigh more than 0 credits (or give neither table: SL 0 high, the others low, each one MTU)")
	}
	if q.VLArbHighLimit < VLArbUnlimited {
		p.NotAllowed("qos.vlarb_high_limit", q.VLArbHighLimit,
			fmt.Sprintf("must be %d (no limit) or at least 0 (credits the high-priority table sends in a row; 0: one packet)", VLArbUnlimited))
	}
}

// validateSLs checks every SL; derivesTable: the scheduler reads an
// arbitration table and no qos.dtable_file gives it, so the SLs' distances
// make it.
func (c *Config) validateSLs(p *Problems, derivesTable bool) {
	q := &c.QoS
	owner := map[int]string{}
	named := map[string]int{}
	sum := 0.0
	for i, sl := range q.SLs {
		f := fmt.Sprintf("qos.sls[%d]", i)
		if sl.Name == "" {
			p.NotAllowed(f+".name", `""`, "must be a non-empty name")
		} else if first, taken := named[sl.Name]; taken {
			p.NotAllowed(f+".name", fmt.Sprintf("%q", sl.Name), fmt.Sprintf("must be unique: qos.sls[%d] is named %q too", first, sl.Name))
		} else {
			named[sl.Name] = i
		}
		if len(sl.SCs) == 0 {
			p.NotAllowed(f+".scs", "[]", "must list at least one SC")
		}
		for _, sc := range sl.SCs {
			if sc < 0 || sc >= len(q.SC2VL) {
				p.NotAllowed(f+".scs", sc, fmt.Sprintf("must be an SC in [0, %d) (the length of qos.sc2vl)", len(q.SC2VL)))
			} else if o, taken := owner[sc]; taken {
				p.NotAllowed(f+".scs", sc, "SC already belongs to SL "+o+" (an SC carries one SL)")
			} else {
				owner[sc] = sl.Name
			}
		}
		if sl.MTUBytes < 0 {
			p.NotAllowed(f+".mtu_bytes", sl.MTUBytes, fmt.Sprintf("must be at least 1 (0 or absent: the default, %d)", DefaultMTUBytes))
		}
		p.AtLeast(f+".message_bytes", int64(sl.MessageBytes), 0)
		if derivesTable {
			p.AtLeast(f+".distance", int64(sl.Distance), 1)
		}
		if sl.Share < 0 || sl.Share > 1 || math.IsNaN(sl.Share) {
			p.NotAllowed(f+".share", sl.Share, "must be in [0, 1]")
		}
		if sl.SBTWeight < 0 {
			p.NotAllowed(f+".sbt_weight", sl.SBTWeight, "must be at least 0")
		}
		sum += sl.Share
	}
	if len(q.SLs) > 0 && math.Abs(sum-1) > 1e-6 {
		p.NotAllowed("qos.sls[*].share", fmt.Sprintf("sum %.6g", sum), "the shares of the offered load must sum to 1")
	}
}

func (c *Config) validateTraffic(p *Problems) {
	t := &c.Traffic
	if !contains(workloads.PatternNames(), t.Pattern) {
		p.NotAllowed("traffic.pattern", fmt.Sprintf("%q", t.Pattern), "must be one of: "+strings.Join(workloads.PatternNames(), ", "))
	}
	if c.Trace.File != "" {
		if !(t.Load >= 0 && t.Load <= 1) {
			p.NotAllowed("traffic.load", t.Load, "must be in [0, 1] flits/cycle/NIC (with a trace, 0: no background traffic)")
		}
	} else if !(t.Load > 0 && t.Load <= 1) {
		p.NotAllowed("traffic.load", t.Load, "must be in (0, 1] flits/cycle/NIC")
	}
	if t.Process != "bernoulli" && t.Process != "cbr" {
		p.NotAllowed("traffic.process", fmt.Sprintf("%q", t.Process), "must be one of: bernoulli, cbr")
	}
	p.AtLeast("traffic.message_flits", int64(t.MessageFlits), 1)
	p.AtLeast("traffic.max_queued_packets", int64(t.MaxQueuedPackets), 0)
	if t.ShortMessagePercent < 0 || t.ShortMessagePercent > 100 {
		p.NotAllowed("traffic.short_message_percent", t.ShortMessagePercent, "must be in [0, 100]")
	}
	if t.ShortMessagePercent < 100 || t.ShortMessageFlits != 0 || t.LongMessageFlits != 0 {
		p.AtLeast("traffic.short_message_flits", int64(t.ShortMessageFlits), 1)
		p.AtLeast("traffic.long_message_flits", int64(t.LongMessageFlits), 1)
	}
	if n := c.NumNICs(); n > 0 && (t.HotSpot < 0 || t.HotSpot >= n) {
		p.NotAllowed("traffic.hot_spot", t.HotSpot, fmt.Sprintf("must be a NIC in [0, %d)", n))
	}
	if t.HotSpotPercent < 0 || t.HotSpotPercent > 100 {
		p.NotAllowed("traffic.hot_spot_percent", t.HotSpotPercent, "must be in [0, 100]")
	}
	if t.StopCycle < 0 || t.StopCycle > c.Cycles {
		p.NotAllowed("traffic.stop_cycle", t.StopCycle, fmt.Sprintf("must be in [0, cycles=%d] (0: generate until the end)", c.Cycles))
	}
}

// validateBuffers checks that every VL of every buffer can hold the largest
// packet and that the exclusive space fits.
func (c *Config) validateBuffers(p *Problems) {
	s := &c.Switch
	maxPkt := c.credits(c.MaxPacketFlits())
	excl, maxVL := c.credits(s.ExclusiveVLFlits), s.MaxVLFlits/s.FlitsPerCredit
	if maxVL < maxPkt {
		p.NotAllowed("switch.max_vl_flits", s.MaxVLFlits, fmt.Sprintf("must hold the largest packet: at least %d flits", maxPkt*s.FlitsPerCredit))
	}
	if excl > maxVL {
		p.NotAllowed("switch.exclusive_vl_flits", s.ExclusiveVLFlits, fmt.Sprintf("must not exceed switch.max_vl_flits=%d", s.MaxVLFlits))
	}
	for _, b := range []struct {
		name  string
		flits int
	}{
		{"switch.input_buffer_flits", s.InputBufferFlits}, {"switch.output_buffer_flits", s.OutputBufferFlits},
		{"switch.central_buffer_flits", s.CentralBufferFlits}, {"nic.injection_buffer_flits", c.NIC.InjectionBufferFlits},
		{"nic.receive_buffer_flits", c.NIC.ReceiveBufferFlits},
	} {
		capC := b.flits / s.FlitsPerCredit
		if need := excl*s.VLs + maxPkt - min(excl, maxPkt); capC < max(need, maxPkt) {
			p.NotAllowed(b.name, b.flits, fmt.Sprintf("must hold the exclusive space of %d VLs plus the largest packet: at least %d flits",
				s.VLs, max(need, maxPkt)*s.FlitsPerCredit))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *Config) validateTrace(p *Problems) {
	t := &c.Trace
	if t.File == "" {
		if t.SL != 0 || t.Mapping != "" || t.MappingFile != "" || len(t.Collectives) > 0 || t.MaxInflatedMB != nil {
			p.NotAllowed("trace.file", `""`, "must name a trace when other trace keys are set")
		}
		return
	}
	if m := t.MaxInflatedMB; m != nil && (*m < 1 || *m > MaxInflatedMBLimit) {
		p.NotAllowed("trace.max_inflated_mb", *m, fmt.Sprintf("must be in [1, %d] MiB (absent: %d)", MaxInflatedMBLimit, vef.DefaultMaxInflated>>20))
	}
	if t.SL < 0 || t.SL >= len(c.QoS.SLs) {
		p.NotAllowed("trace.sl", t.SL, fmt.Sprintf("must be an index of qos.sls, in [0, %d)", len(c.QoS.SLs)))
	}
	switch t.Mapping {
	case "", MappingLinear, MappingRandom:
		if t.MappingFile != "" {
			p.NotAllowed("trace.mapping_file", t.MappingFile, "must be empty unless trace.mapping is file")
		}
	case MappingFile:
		if t.MappingFile == "" {
			p.NotAllowed("trace.mapping_file", `""`, "must name a file when trace.mapping is file")
		}
	default:
		p.NotAllowed("trace.mapping", fmt.Sprintf("%q", t.Mapping), "must be one of: linear, random, file")
	}
	for _, name := range sortedKeys(t.Collectives) {
		op, ok := vef.OpNamed(name)
		if !ok {
			p.NotAllowed("trace.collectives", name, "must be an op: "+strings.Join(vef.OpNames(), ", "))
			continue
		}
		if algs := collective.Algorithms(op); !contains(algs, t.Collectives[name]) {
			p.NotAllowed("trace.collectives."+name, fmt.Sprintf("%q", t.Collectives[name]), "must be one of: "+strings.Join(algs, ", "))
		}
	}
	if c.Traffic.StopCycle != 0 {
		p.NotAllowed("traffic.stop_cycle", c.Traffic.StopCycle, "must be 0 with a trace (a trace stops when it ends)")
	}
	if c.Traffic.DropBacklog {
		p.NotAllowed("traffic.drop_backlog", true, "must be false with a trace (dropping its messages would stall it)")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

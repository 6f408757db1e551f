package fabric

import (
	"fmt"
	"slices"
	"strings"

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

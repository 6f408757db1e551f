// Package agreement holds the engine-agreement configs shared by the
// tests of the engines (package actors) and of runs across processes
// (package distrib).
package agreement

import (
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// Configs are the configs on which every engine must give the sequential
// engine's digest, bit for bit: each exercises a part of the model whose
// state travels between groups (the schedulers and their views, wasted
// decisions, preemption, the allocators, light load where groups go idle
// and wake for one message, a torus's datelines). The actor engine's tests
// and the distributed run's use them.
func Configs() map[string]fabric.Config {
	uniform := small002()
	uniform.Cycles, uniform.Warmup, uniform.Traffic.Load = 6000, 1000, 0.9
	small := small002()
	small.Topology.Ports, small.Cycles, small.Warmup = 8, 6000, 1000
	small.Traffic.Pattern, small.Traffic.Load = "hot_spot", 0.7
	mix := small002()
	mix.Cycles, mix.Warmup, mix.Traffic.Load = 6000, 1000, 0.6
	mix.Traffic.ShortMessageFlits, mix.Traffic.LongMessageFlits, mix.Traffic.ShortMessagePercent = 4, 64, 60
	mix.Traffic.Pattern = "bit_reversal"
	odd := small002()
	odd.Cycles, odd.Warmup = 6000, 1000
	odd.Switch.Latency = fabric.LatencyConfig{RT: 7, SBIn: 11, SBOut: 13, AT: 5, XMPort: 3, XCentral: 1, Fly: 3}
	all := map[string]fabric.Config{"uniform 0.9": uniform, "8 ports hot spot": small, "short/long mix": mix, "odd latencies": odd}
	for _, s := range sched.Default().Names() {
		c := small002()
		if err := fabric.ApplyTrafficPreset(&c, "paper-mix"); err != nil {
			panic(err)
		}
		c.Topology.Ports, c.QoS.Scheduler, c.Traffic.Load = 16, s, 1.0
		c.Cycles, c.Warmup = 5000, 1000
		all["paper mix, "+s] = c
	}
	for _, s := range []string{"rr_burst", "dtable"} { // wasted decisions wake ports every cycle
		c := all["paper mix, "+s]
		c.QoS.SchedulerView = fabric.ViewTable
		all["paper mix, "+s+", table view"] = c
	}
	for _, s := range []string{"sbt", "sbt_switch", "dtable"} { // wasted decisions call Miss, which moves the schedulers' state
		c := all["paper mix, "+s]
		c.QoS.SchedulerView = fabric.ViewTableFeedback
		all["paper mix, "+s+", table_feedback view"] = c
	}
	// Preemption: the news of late tails travels through the switches.
	deep := fabric.PreemptionConfig{MinFlits: 4, Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"CL", "BE", "BK"}, "CL": {"BE", "BK"}}}
	pm := all["paper mix, dtable"]
	pm.QoS.Preemption = deep
	all["paper mix, dtable, preemption"] = pm
	// Decisions of several cycles wake ports ahead of their links' freeing
	// and idle them; narrow counters change the schedulers' state.
	slow := all["paper mix, dtable, table_feedback view"]
	slow.QoS.DecisionCycles, slow.QoS.CounterBits, slow.QoS.CounterOverflow = 24, 9, fabric.OverflowWrap
	all["paper mix, dtable, table_feedback view, 24-cycle decisions, 9-bit wrapping counters"] = slow
	slowDRR := all["paper mix, drr"]
	slowDRR.QoS.DecisionCycles, slowDRR.QoS.CounterBits = 5, 10
	all["paper mix, drr, 5-cycle decisions, 10-bit saturating counters"] = slowDRR
	addNetworks(all, deep)
	return all
}

// addNetworks adds to all the configs on networks of several switches (a
// tree, a torus), uniform 0.9's islip variant, and the default buffers;
// deep is the preemption the paper-mix configs use.
func addNetworks(all map[string]fabric.Config, deep fabric.PreemptionConfig) {
	tree := small002()
	tree.Topology.Preset, tree.Cycles, tree.Warmup, tree.Traffic.Load = "tree-8ary-2", 3000, 500, 0.6
	all["8-ary 2-tree"] = tree
	tp := tree
	tp.Traffic.Load, tp.Switch.Allocator, tp.QoS.Preemption = 0.9, fabric.AllocSerial, deep
	all["8-ary 2-tree, preemption, serial allocator"] = tp
	// islip: accepts and declines between buffers, rounds retried within AT.
	ti := tree
	ti.Traffic.Load, ti.Switch.Allocator, ti.Switch.IslipIterations = 0.9, fabric.AllocIslip, 2
	all["8-ary 2-tree, islip, 2 iterations"] = ti
	si := all["uniform 0.9"]
	si.Switch.Allocator, si.Traffic.Load = fabric.AllocIslip, 1.0
	all["uniform 1.0, islip"] = si
	// At light load groups go idle and wake for one message: a wake lost
	// at the barrier shows here (seed 3 did, in an earlier engine).
	light := tree
	light.Cycles, light.Traffic.Load, light.Seed = 20000, 0.05, 3
	all["8-ary 2-tree, light load"] = light
	torus := small002()
	torus.Topology = fabric.TopologyConfig{Kind: "torus", Dims: []int{3, 2}, NICsPerSwitch: 4, Trunk: 2}
	torus.Cycles, torus.Warmup, torus.Traffic.Load = 3000, 500, 0.8
	torus.Switch.CentralBufferFlits = 1024 // a lane per (direction, VL): 5 x 8 x 16 flits reserved
	all["3x2 torus"] = torus
	// The default buffers (seed 000's): deep queues, few credit stalls.
	big := fabric.Default()
	big.Topology = torus.Topology
	big.Cycles, big.Warmup, big.Traffic.Load = 3000, 500, 1.0
	all["3x2 torus, default buffers"] = big
}

// small002 is the default config with seed 002's small buffers (the
// hardware preset seed002), under which every buffer fills and credits
// run out: the configs above were made for it.
func small002() fabric.Config {
	c := fabric.Default()
	if err := fabric.ApplyHardwarePreset(&c, fabric.HardwareSeed002); err != nil {
		panic(err)
	}
	return c
}

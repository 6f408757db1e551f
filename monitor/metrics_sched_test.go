package monitor

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestSchedulerDecisionMetrics: with qos.scheduler_view table, the decision
// counters agree with the results (both cover the whole run), per-port
// series add up to the switches' total, and some decisions are wasted.
func TestSchedulerDecisionMetrics(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine, cfg.QoS.SchedulerView = "sequential", fabric.ViewTable
	m, res := observedRun(t, cfg, MetricsOptions{PortDetail: true})
	var decisions, wasted, portDecisions, portWasted float64
	for k, v := range simulated(t, m) {
		switch {
		case strings.HasPrefix(k, "opasim_scheduler_decisions_total{"):
			decisions += v
		case strings.HasPrefix(k, "opasim_scheduler_wasted_decisions_total{"):
			wasted += v
		case strings.HasPrefix(k, "opasim_port_scheduler_decisions_total{"):
			portDecisions += v
		case strings.HasPrefix(k, "opasim_port_scheduler_wasted_decisions_total{"):
			portWasted += v
		}
	}
	if decisions != float64(res.SchedulerDecisions) || wasted != float64(res.SchedulerWasted) {
		t.Errorf("metrics: %g decisions, %g wasted; results %d, %d", decisions, wasted, res.SchedulerDecisions, res.SchedulerWasted)
	}
	if wasted == 0 || portWasted == 0 {
		t.Errorf("no wasted decision (%g, per port %g) in the table view", wasted, portWasted)
	}
	all := simulated(t, m)
	sw := all["opasim_scheduler_decisions_total{group=switch,scheduler=rr}"]
	swWasted := all["opasim_scheduler_wasted_decisions_total{group=switch,scheduler=rr}"]
	if sw == 0 || portDecisions != sw || portWasted != swWasted {
		t.Errorf("per-port decisions %g (wasted %g), switch group total %g (wasted %g)", portDecisions, portWasted, sw, swWasted)
	}
}

// TestPreemptionMetrics: with qos.preemption, the preemption counters agree
// with the results (both cover the whole run, switch ports and NICs), and
// the per-port series add up to the switch group's.
func TestPreemptionMetrics(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine, cfg.Traffic.Load = "sequential", 0.9
	cfg.QoS.Preemption = fabric.PreemptionConfig{MinFlits: 4,
		Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"CL", "BE", "BK"}}}
	m, res := observedRun(t, cfg, MetricsOptions{PortDetail: true})
	all := simulated(t, m)
	var ports float64
	for k, v := range all {
		if strings.HasPrefix(k, "opasim_port_preemptions_total{") {
			ports += v
		}
	}
	sw, nic := all["opasim_preemptions_total{group=switch}"], all["opasim_preemptions_total{group=nics}"]
	holes := all["opasim_preemption_hole_cycles_total{group=switch}"] + all["opasim_preemption_hole_cycles_total{group=nics}"]
	if res.Preemption == nil || sw+nic != float64(res.Preemption.Preemptions) || holes != float64(res.Preemption.HoleCycles) {
		t.Errorf("metrics: %g + %g packets interrupted, %g hole cycles; results %+v", sw, nic, holes, res.Preemption)
	}
	if sw == 0 || nic == 0 || ports != sw {
		t.Errorf("switch ports %g (per port %g), NICs %g: want some on both, the ports adding up", sw, ports, nic)
	}
}

// TestSchedulerIdleMetrics: with qos.decision_cycles 24 (longer than the
// 16-flit packets) the schedulers idle their links; the idle-cycle
// counters agree with the results, and the per-port series add up to the
// switch group's total.
func TestSchedulerIdleMetrics(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine, cfg.QoS.DecisionCycles = "sequential", 24
	m, res := observedRun(t, cfg, MetricsOptions{PortDetail: true})
	all := simulated(t, m)
	var idle, portIdle float64
	for k, v := range all {
		switch {
		case strings.HasPrefix(k, "opasim_scheduler_idle_cycles_total{"):
			idle += v
		case strings.HasPrefix(k, "opasim_port_scheduler_idle_cycles_total{"):
			portIdle += v
		}
	}
	if idle == 0 || idle != float64(res.SchedulerIdleCycles) {
		t.Errorf("metrics: %g idle cycles; results %d (want the same, above 0)", idle, res.SchedulerIdleCycles)
	}
	if sw := all["opasim_scheduler_idle_cycles_total{group=switch,scheduler=rr}"]; portIdle != sw || sw != float64(res.SwitchSchedulerIdleCycles) {
		t.Errorf("per-port idle cycles %g, switch group %g, results %d", portIdle, sw, res.SwitchSchedulerIdleCycles)
	}
}

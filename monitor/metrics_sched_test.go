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

package monitor

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/sim"
)

// runLevel are the series every member of a distributed run exports
// alike (the run's settings and clock): a dashboard takes their max over
// members. Every other series but sl_delivered_share_ratio (a ratio) sums.
var runLevel = []string{"opasim_simulated_cycle{", "opasim_configured_cycles{", "opasim_warmup_cycles{",
	"opasim_nics{", "opasim_configured_load_flits_per_cycle{", "opasim_sl_configured_share_ratio{"}

// partsObserver hands each group's report to the Metrics of the part that
// owns it, and every window to all parts, as the members of a distributed
// run do (each observes the groups it runs).
type partsObserver struct {
	parts []*Metrics
	owner []int
}

func (p partsObserver) GroupDone(g int, w clock.Window, busy time.Duration) {
	p.parts[p.owner[g]].GroupDone(g, w, busy)
}

func (p partsObserver) WindowDone(w clock.Window, wait time.Duration) {
	for _, m := range p.parts {
		m.WindowDone(w, wait)
	}
}

// TestMetricsPartsAddUp: Metrics that each watch a part of the groups
// (MetricsOptions.Groups, as the members of a distributed run) add up to
// the Metrics of the whole run, series by series and bit for bit: the run
// level series by their max, every other by a sum (the rule the
// dashboards' queries follow). Each part exports only its own switches.
func TestMetricsPartsAddUp(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine = "sequential"
	whole, _ := observedRun(t, cfg, MetricsOptions{PortDetail: true})
	want := simulated(t, whole)

	n := build(t, cfg)
	const members = 3
	obs := partsObserver{owner: make([]int, len(n.Groups))}
	for i := range members {
		watched := make([]bool, len(n.Groups))
		for g := range n.Groups {
			if g%members == i {
				watched[g] = true
			}
			obs.owner[g] = g % members
		}
		obs.parts = append(obs.parts, NewMetrics(n, MetricsOptions{PortDetail: true, Groups: watched,
			Labels: prometheus.Labels{"run_id": "parts", "member": string(rune('0' + i))}}))
	}
	out := sim.RunSequential(context.Background(), n, sim.Hooks{Observer: obs})
	got := map[string]float64{}
	switches := 0
	for i, m := range obs.parts {
		m.Finish(out.Reached)
		for k, v := range simulated(t, m) {
			if strings.HasPrefix(k, "opasim_sl_delivered_share_ratio{") {
				continue
			}
			if strings.HasPrefix(k, "opasim_buffer_capacity_flits{") && strings.Contains(k, "stage=input") {
				switches++
			}
			if isRunLevel(k) {
				got[k] = math.Max(got[k], v)
			} else {
				got[k] += v
			}
		}
		page := scrape(t, m)
		if !strings.Contains(page, `opasim_nics{member="`+string(rune('0'+i))+`",run_id="parts"}`) ||
			!strings.Contains(page, "\n"+`go_goroutines{member="`+string(rune('0'+i))+`"}`) {
			t.Errorf("part %d: the run_id and member labels are missing from its opasim_ series, or member from go_goroutines:\n%.1500s", i, page)
		}
		if l := runtimeWithRunID(page); l != "" {
			t.Errorf("part %d: a Go runtime or process series carries run_id: %s", i, l)
		}
	}
	if wantSwitches := n.NumSwitches(); switches != wantSwitches {
		t.Errorf("the parts export %d switches' buffers, the network has %d: a switch is left out or exported twice", switches, wantSwitches)
	}
	compared := 0
	for k, v := range want {
		if strings.HasPrefix(k, "opasim_sl_delivered_share_ratio{") {
			continue
		}
		compared++
		if got[k] != v {
			t.Errorf("%s: the parts add up to %g, the whole run's is %g", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: exported by a part, not by the whole run", k)
		}
	}
	if compared < 100 || want["opasim_delivered_flits_total{sl=VO}"] == 0 {
		t.Fatalf("%d series compared, VO delivered %g: the case tests little", compared, want["opasim_delivered_flits_total{sl=VO}"])
	}
	t.Logf("%d series of 3 parts add up to the whole run's", compared)
}

func isRunLevel(k string) bool {
	for _, p := range runLevel {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// runtimeWithRunID is the first line of page whose Go runtime or process
// series carries run_id, or "".
func runtimeWithRunID(page string) string {
	for _, l := range strings.Split(page, "\n") {
		if (strings.HasPrefix(l, "go_") || strings.HasPrefix(l, "process_")) && strings.Contains(l, "run_id=") {
			return l
		}
	}
	return ""
}

package main

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/promtest"
)

// dashboardsDir holds the shipped dashboards.
const dashboardsDir = "../../dashboards"

// memberServing is a member's line giving its metrics URL.
var memberServing = regexp.MustCompile(`serving this member's metrics on http://(\S+)/metrics`)

// perProcess are the panels whose series are each process's own (the
// members' barriers, processes, runtimes and scrapes) or the busiest
// ports as exported: only these may keep the member label.
var perProcess = []string{"Clock barrier wait (wall)", "Process CPU and memory", "Go runtime",
	"Busiest ports over the time range: output buffer and credit stalls (needs --metrics-detail port)",
	"Scrape duration and gather time (wall)", "Samples per scrape, and gathers"}

// TestDashboardsDistributed: a real Prometheus scrapes the two members of
// a distributed run (run id "dist") and a run in one process of the same
// network ("single"); every panel and variable query of the shipped
// dashboards answers, the run variable lists both runs, no panel but the
// per-process ones splits a run by member, and the run-level figures
// the dashboards compute from the members' series (NICs, buffer space per
// stage, switches, configured shares and cycles) equal the one-process
// run's: the members add up to one run, none counted twice or left out.
func TestDashboardsDistributed(t *testing.T) {
	bin := promtest.Binary(t)
	args := []string{"--preset", "tree-8ary-2", "--cycles", "100000000", "--load", "0.7"}
	coord, addr := coordinate(t, "2", append(args, "--run-id", "dist")...)
	var targets []string
	for range 2 {
		m := start(t, testToken, "member", "--join", addr, "--metrics-addr", "127.0.0.1:0", "--metrics-detail", "port")
		targets = append(targets, m.await(t, memberServing, 30*time.Second))
	}
	single := start(t, "", append(append([]string{"run"}, args...), "--metrics-addr", "127.0.0.1:0", "--metrics-detail", "port", "--run-id", "single")...)
	url := single.await(t, servingLine, 30*time.Second)
	targets = append(targets, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics"))
	prom := promtest.Start(t, bin, targets...)
	prom.WaitForScrapes(t, 4)

	panels, variables := promtest.Queries(t, dashboardsDir)
	for _, v := range variables {
		got, err := prom.LabelValues(promtest.Substitute(v.Expr))
		if err != nil || len(got) == 0 {
			t.Errorf("%s, %s: values %q (%v) for %s", v.File, v.Panel, got, err, v.Expr)
		}
		if v.Panel == "variable run" {
			sort.Strings(got)
			if !slices.Equal(got, []string{"dist", "single"}) {
				t.Errorf("%s: the run variable lists %q, want [dist single]", v.File, got)
			}
		}
	}
	for _, q := range panels {
		expr := promtest.Substitute(strings.ReplaceAll(q.Expr, "$run", "dist"))
		got, err := prom.Query(expr)
		if err != nil || len(got) == 0 {
			t.Errorf("%s, panel %q: %d series (%v) for\n  %s", q.File, q.Panel, len(got), err, expr)
			continue
		}
		for _, s := range got {
			if _, ok := s.Metric["member"]; ok && !slices.Contains(perProcess, q.Panel) {
				t.Errorf("%s, panel %q: a series split by member, %v, for\n  %s", q.File, q.Panel, s.Metric, expr)
				break
			}
		}
	}
	// The same run-level figures computed the dashboards' way for each run.
	for _, expr := range []string{
		`max by (job, run_id) (opasim_nics{run_id="RUN"})`,
		`max by (job, run_id) (opasim_configured_cycles{run_id="RUN"})`,
		`sum by (stage) (opasim_buffer_capacity_flits{run_id="RUN"})`,
		`count(sum by (switch) (opasim_buffer_capacity_flits{run_id="RUN"}))`,
		`count(opasim_buffer_capacity_flits{run_id="RUN"})`,
		`count(opasim_port_buffer_occupancy_flits{run_id="RUN"})`,
		`max by (job, run_id, sl) (opasim_sl_configured_share_ratio{run_id="RUN"})`,
	} {
		dist, err1 := prom.Query(strings.ReplaceAll(expr, "RUN", "dist"))
		one, err2 := prom.Query(strings.ReplaceAll(expr, "RUN", "single"))
		if err1 != nil || err2 != nil || len(dist) == 0 || len(dist) != len(one) {
			t.Errorf("%s: %v (%v) on the members, %v (%v) in one process", expr, dist, err1, one, err2)
			continue
		}
		for i := range dist {
			if dist[i].Value != one[i].Value || dist[i].Value == 0 {
				t.Errorf("%s: %v on the members, %v in one process", expr, dist[i], one[i])
			}
		}
	}
	// The offered load the run dashboard shows, flits per simulated cycle
	// and NIC, is the configured 0.7 for both runs: the members' cycles
	// are not added up, their injected flits are.
	for _, q := range panels {
		if !strings.Contains(q.Expr, "opasim_injected_flits_total") || !strings.HasPrefix(q.Panel, "Offered vs accepted") {
			continue
		}
		for _, run := range []string{"dist", "single"} {
			got, err := prom.Query(promtest.Substitute(strings.ReplaceAll(q.Expr, "$run", run)))
			if err != nil || len(got) != 1 || got[0].Value < 0.6 || got[0].Value > 0.8 {
				t.Errorf("%s: offered load %v (%v), want one series near 0.7", run, got, err)
			}
		}
	}
	// Both members deliver: the sum over them is more than either's.
	if got, err := prom.Query(`sum by (member) (opasim_delivered_flits_total{run_id="dist"})`); err != nil || len(got) != 2 || got[0].Value == 0 || got[1].Value == 0 {
		t.Errorf("delivered flits per member: %v (%v), want two members delivering", got, err)
	}
	t.Logf("%d panel and %d variable queries answered over two members and one process after %d scrapes", len(panels), len(variables), prom.Scrapes())
	_ = coord.cmd.Process.Kill()
}

package monitor

import (
	"context"
	"math"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/internal/promtest"
	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/sim"
)

// TestDashboardsTellTheTruth starts a real Prometheus that scrapes a live
// run of mixedPackets (SLs with 8-, 16- and 32-flit packets, port detail
// on) and a target where nothing listens, then puts the dashboards' own
// queries to it:
//
//   - scrape health: "Targets up" shows the live target 1 and the dead one
//     0, and "Samples per scrape" the dead one 0: a failing target is
//     seen, not taken for an idle run;
//   - grant share vs target: over the whole run each SL's share of the
//     granted flits is within 0.02 of its configured share (0.2), while
//     the share of granted packets the panel used to draw is off by more
//     than 0.1 for VO (8-flit packets: 0.36) and BE (32-flit: 0.09);
//   - link utilization: the injection and ejection classes carry the
//     offered load;
//   - busiest ports and links: over a range query of the whole scrape the
//     panels draw at most their 10 (or 5) ports per run, always the same
//     ones.
func TestDashboardsTellTheTruth(t *testing.T) {
	testlong.Skip(t, "a live run scraped by a real Prometheus for about 15 s")
	bin := promtest.Binary(t)
	queries, errs := decodeDashboards(t, readDashboards(t))
	for _, e := range errs {
		t.Fatal(e)
	}
	find := func(file, title, ref string) string {
		t.Helper()
		for _, q := range queries {
			if q.file == file && q.panel == title && q.ref == ref {
				return q.expr
			}
		}
		t.Fatalf("%s has no panel %q with a query %s", file, title, ref)
		return ""
	}

	ctx, stop := context.WithCancel(context.Background())
	cfg := mixedPackets(1 << 40)
	cfg.Warmup, cfg.Engine = 1000, "sequential"
	live, finished := liveRunOf(t, ctx, cfg)
	t.Cleanup(stop) // before liveRunOf's cleanup, which waits for the run
	dead := closedLoopbackAddr(t)
	prom := promtest.Start(t, bin, live, dead)
	const scrapes = 12
	waitUntil(t, time.Minute, func() bool {
		up, err := prom.Query(`up`)
		n, err2 := prom.Query(`count_over_time(opasim_simulated_cycle[5m])`)
		return err == nil && err2 == nil && len(up) == 2 && len(n) == 1 && n[0].Value >= scrapes
	})
	now := time.Now()

	// Scrape health.
	upByTarget := map[string]float64{}
	for _, s := range query(t, prom, find("opasim-run.json", "Targets up", "A")) {
		upByTarget[s.Metric["instance"]] = s.Value
	}
	if upByTarget[live] != 1 || upByTarget[dead] != 0 || len(upByTarget) != 2 {
		t.Errorf("Targets up: %v, want %s 1 and %s 0", upByTarget, live, dead)
	}
	samples := map[string]float64{}
	for _, s := range query(t, prom, find("opasim-run.json", "Samples per scrape, and gathers", "A")) {
		samples[s.Metric["instance"]] = s.Value
	}
	if samples[live] < 100 || samples[dead] != 0 {
		t.Errorf("Samples per scrape: %v, want over 100 for %s and 0 for %s", samples, live, dead)
	}
	if got := query(t, prom, find("opasim-run.json", "Scrape duration and gather time (wall)", "B")); len(got) != 1 {
		t.Errorf("opasim's gather time: %d series, want 1", len(got))
	}

	// Grant share vs target, over the whole run.
	whole := func(expr string) string { return strings.ReplaceAll(expr, "$__rate_interval", "5m") }
	const title = "Grant share per SL vs target (flits)"
	granted, target := find("opasim-fabric.json", title, "A"), find("opasim-fabric.json", title, "B")
	want := map[string]float64{}
	for _, s := range query(t, prom, target) {
		want[s.Metric["sl"]] = s.Value
	}
	packets := map[string]float64{}
	for _, s := range query(t, prom, whole(strings.ReplaceAll(granted, "opasim_scheduler_granted_flits_total", "opasim_scheduler_grants_total"))) {
		packets[s.Metric["sl"]] = s.Value
	}
	got := query(t, prom, whole(granted))
	if len(got) != len(packetFlits) || len(want) != len(packetFlits) {
		t.Fatalf("%s: %d SLs granted, %d targets, want %d", title, len(got), len(want), len(packetFlits))
	}
	for _, s := range got {
		sl := s.Metric["sl"]
		t.Logf("SL %s: %.3f of the granted flits, %.3f of the granted packets, target %.3f", sl, s.Value, packets[sl], want[sl])
		if math.Abs(s.Value-want[sl]) > 0.02 {
			t.Errorf("SL %s: %.3f of the granted flits, target %.3f", sl, s.Value, want[sl])
		}
	}
	for _, sl := range []string{"VO", "BE"} { // the run tells packets from flits
		if math.Abs(packets[sl]-want[sl]) < 0.1 {
			t.Errorf("SL %s: %.3f of the granted packets, within 0.1 of its target %.3f: the run does not tell packets from flits", sl, packets[sl], want[sl])
		}
	}

	// Link utilization per class: the NICs' links carry the offered load,
	// every flit leaves the network on an ejection link, and the tree's
	// switch-to-switch classes are there too.
	const links = "Mean link utilization per class"
	classes := map[string]float64{}
	for _, s := range query(t, prom, whole(find("opasim-fabric.json", links, "A"))) {
		classes[s.Metric["class"]] = s.Value
	}
	t.Logf("%s: %v", links, classes)
	for _, c := range []string{"injection", "ejection"} {
		if math.Abs(classes[c]-cfg.Traffic.Load) > 0.05 {
			t.Errorf("%s: %s %.3f, want the offered load %.2f within 0.05", links, c, classes[c], cfg.Traffic.Load)
		}
	}
	if len(classes) < 4 {
		t.Errorf("%s: %d classes (%v), want injection, ejection and the tree's up and down links", links, len(classes), classes)
	}

	// Busiest ports: the same ports all along the range.
	start := now.Add(-(scrapes - 2) * time.Second)
	for _, c := range []struct {
		title, ref string
		most       int
	}{
		{"Busiest ports over the time range: output buffer and credit stalls (needs --metrics-detail port)", "A", 10},
		{"Busiest ports over the time range: output buffer and credit stalls (needs --metrics-detail port)", "B", 5},
		{"Ports with the most wasted decisions and scheduler-idle link cycles over the time range (needs --metrics-detail port)", "A", 10},
		{"Ports with the most wasted decisions and scheduler-idle link cycles over the time range (needs --metrics-detail port)", "B", 10},
		{"Busiest links over the time range (needs --metrics-detail port)", "A", 10},
	} {
		expr := promtest.Substitute(find("opasim-fabric.json", c.title, c.ref))
		series, err := prom.QueryRange(expr, start, now, time.Second)
		if err != nil {
			t.Fatalf("%s %s: %v", c.title, c.ref, err)
		}
		ports := distinctPorts(series)
		if len(ports) == 0 || len(ports) > c.most {
			t.Errorf("%s %s: %d ports over %s to %s, want 1 to %d: %v", c.title, c.ref, len(ports), start.Format(time.TimeOnly), now.Format(time.TimeOnly), c.most, ports)
		}
	}
	old, err := prom.QueryRange(`topk(10, opasim_port_buffer_occupancy_flits{stage="output"})`, start, now, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the topk of each instant over the same range, as the panel had it: %d ports", len(distinctPorts(old)))

	stop()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Error("the run did not stop within 30 s of its interruption")
	}
}

// distinctPorts are the switch/port pairs of series.
func distinctPorts(series []promtest.Sample) []string {
	var ports []string
	for _, s := range series {
		p := s.Metric["run_id"] + " " + s.Metric["switch"] + "/" + s.Metric["port"]
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports
}

func query(t *testing.T, prom *promtest.Server, expr string) []promtest.Sample {
	t.Helper()
	got, err := prom.Query(promtest.Substitute(expr))
	if err != nil {
		t.Fatalf("%v for %s", err, expr)
	}
	return got
}

// waitUntil polls ok every half second until it holds, or fails the test
// after limit.
func waitUntil(t *testing.T, limit time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("Prometheus did not scrape the targets as expected within %s", limit)
}

// closedLoopbackAddr is a loopback address where nothing listens (a port
// just freed).
func closedLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// liveRunOf runs cfg with live metrics (per-port detail, run_id "live")
// served on a free loopback port until ctx is done; it returns the
// server's host:port and a channel closed when the run has stopped.
func liveRunOf(t *testing.T, ctx context.Context, cfg fabric.Config) (string, <-chan struct{}) {
	t.Helper()
	n := build(t, cfg)
	m := NewMetrics(n, MetricsOptions{PortDetail: true, Every: 100 * time.Millisecond, Labels: prometheus.Labels{"run_id": "live"}})
	srv, err := ServeMetrics("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		o := runOn(t, ctx, n, sim.Hooks{Observer: m})
		m.Finish(o.Reached)
	}()
	t.Cleanup(func() {
		<-finished
		srv.Close()
	})
	return srv.Addr(), finished
}

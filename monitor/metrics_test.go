package monitor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// smallTree is a 4-ary 2-tree (8 switches, 16 NICs) under uniform traffic
// heavy enough that buffers fill and credits run out now and then.
func smallTree(cycles int64) fabric.Config {
	c := fabric.Default()
	c.Topology = fabric.TopologyConfig{Kind: "tree", K: 4, N: 2}
	c.Cycles, c.Warmup, c.Traffic.Load = cycles, cycles/5, 0.8
	return c
}

func build(t testing.TB, cfg fabric.Config) *fabric.Network {
	t.Helper()
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// runOn runs n on the engine its config names.
func runOn(t *testing.T, ctx context.Context, n *fabric.Network, h sim.Hooks) sim.Outcome {
	t.Helper()
	if n.Config.Engine == "sequential" {
		return sim.RunSequential(ctx, n, h)
	}
	out, err := actors.Run(ctx, n, h)
	if err != nil {
		t.Error(err)
	}
	return out
}

// observedRun runs cfg on the given engine with a Metrics watching it,
// finished, as `opasim run --metrics-addr` does.
func observedRun(t *testing.T, cfg fabric.Config, o MetricsOptions) (*Metrics, *sim.Results) {
	t.Helper()
	n := build(t, cfg)
	m := NewMetrics(n, o)
	out := runOn(t, context.Background(), n, sim.Hooks{Observer: m})
	m.Finish(out.Reached)
	return m, sim.Measure(n, out)
}

// emptyMetrics watches a network that never runs.
func emptyMetrics(t *testing.T) *Metrics {
	return NewMetrics(build(t, smallTree(1000)), MetricsOptions{})
}

// TestMetricsLint: after a short real run, promlint (CollectAndLint) finds
// nothing wrong with any metric, per-port detail included.
func TestMetricsLint(t *testing.T) {
	m, _ := observedRun(t, smallTree(3000), MetricsOptions{PortDetail: true})
	problems, err := testutil.CollectAndLint(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	if n := testutil.CollectAndCount(m); n == 0 {
		t.Fatal("no metrics collected")
	}
}

// TestPromtoolCheckMetrics: promtool, where installed, accepts the page
// a scrape gets, runtime and process metrics included.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not on PATH")
	}
	m, _ := observedRun(t, smallTree(3000), MetricsOptions{PortDetail: true})
	page := scrape(t, m)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// scrape serves m on a free loopback port and gets /metrics once.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	srv, err := ServeMetrics("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", srv.URL(), resp.StatusCode, err)
	}
	return string(body)
}

// TestServeMetricsPortTaken: a taken port is an error before anything runs.
func TestServeMetricsPortTaken(t *testing.T) {
	first, err := ServeMetrics("127.0.0.1:0", emptyMetrics(t))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	addr := strings.TrimSuffix(strings.TrimPrefix(first.URL(), "http://"), "/metrics")
	if s, err := ServeMetrics(addr, emptyMetrics(t)); err == nil {
		s.Close()
		t.Fatalf("serving twice on %s: no error", addr)
	}
}

// simulated are a Metrics' series that depend on the simulation only (not
// on wall time): name{labels} -> value.
func simulated(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		name := mf.GetName()
		if strings.HasSuffix(name, "_seconds") || name == "opasim_simulated_cycles_per_second" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			key := name + labelString(mt.GetLabel())
			switch {
			case mt.Counter != nil:
				out[key] = mt.GetCounter().GetValue()
			case mt.Gauge != nil:
				out[key] = mt.GetGauge().GetValue()
			case mt.Histogram != nil:
				h := mt.GetHistogram()
				out[key+"_count"], out[key+"_sum"] = float64(h.GetSampleCount()), h.GetSampleSum()
				for _, b := range h.GetBucket() {
					out[fmt.Sprintf("%s_bucket%g", key, b.GetUpperBound())] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return out
}

func labelString(ls []*dto.LabelPair) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMetricsMatchResults: the final metrics agree with the run's own
// results, and both engines (actors at any GOMAXPROCS, sequential) export
// the same simulated figures, bit for bit.
func TestMetricsMatchResults(t *testing.T) {
	cfg := smallTree(4000)
	cfg.Engine = "sequential"
	seqM, res := observedRun(t, cfg, MetricsOptions{PortDetail: true})
	want := simulated(t, seqM)
	if got := want["opasim_simulated_cycle{}"]; got != float64(cfg.Cycles) {
		t.Errorf("simulated cycle %g, want %d", got, cfg.Cycles)
	}
	var delivered, msgs, grants, portGrants, histCount float64
	for k, v := range want {
		switch {
		case strings.HasPrefix(k, "opasim_delivered_flits_total"):
			delivered += v
		case strings.HasPrefix(k, "opasim_delivered_messages_total"):
			msgs += v
		case strings.HasPrefix(k, "opasim_scheduler_grants_total"):
			grants += v
		case strings.HasPrefix(k, "opasim_port_grants_total"):
			portGrants += v
		case strings.HasPrefix(k, "opasim_message_latency_cycles") && strings.HasSuffix(k, "}_count"):
			histCount += v
		}
	}
	if delivered < float64(res.DeliveredFlits) || delivered == 0 {
		t.Errorf("delivered flits %g since the start, fewer than the %d of the measured window", delivered, res.DeliveredFlits)
	}
	if msgs != histCount || msgs == 0 {
		t.Errorf("delivered messages %g, latency histogram count %g", msgs, histCount)
	}
	if grants == 0 || grants != portGrants {
		t.Errorf("scheduler grants %g, per-port grants %g", grants, portGrants)
	}
	for _, procs := range []int{1, 2} {
		c := cfg
		c.Engine = "actors"
		prev := runtime.GOMAXPROCS(procs)
		m, _ := observedRun(t, c, MetricsOptions{PortDetail: true})
		runtime.GOMAXPROCS(prev)
		got := simulated(t, m)
		if len(got) != len(want) {
			t.Errorf("GOMAXPROCS=%d: %d series, sequential %d", procs, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("GOMAXPROCS=%d: %s = %g, sequential %g", procs, k, got[k], v)
			}
		}
	}
}

// TestMetricsRateLimit: between two moves of the epoch a group copies its
// state once, and the clock moves the epoch at most once per Every.
func TestMetricsRateLimit(t *testing.T) {
	m := NewMetrics(build(t, smallTree(1000)), MetricsOptions{Every: time.Hour})
	r := m.run
	copies := func() int64 {
		s := r.groups[0]
		s.mu.Lock()
		defer s.mu.Unlock()
		var c int64
		for _, x := range s.pub.steps.n {
			c += x
		}
		return c
	}
	w := clock.Window{From: 0, To: 8}
	for range 3 {
		m.GroupDone(0, w, time.Microsecond)
	}
	if c := copies(); c != 1 {
		t.Fatalf("after 3 windows in one epoch the copy counts %d steps, want 1 (the first window only)", c)
	}
	m.WindowDone(w, 0) // the first publication moves the epoch on
	m.WindowDone(w, 0) // within Every: does not
	m.GroupDone(0, w, time.Microsecond)
	m.GroupDone(0, w, time.Microsecond)
	if c := copies(); c != 4 {
		t.Fatalf("after the epoch moved once the copy counts %d steps, want 4", c)
	}
	m.Finish(0)
	if c := copies(); c != 5 {
		t.Fatalf("Finish: the copy counts %d steps, want all 5", c)
	}
}

// TestWallBucket: durations fall in the first bucket whose bound holds them.
func TestWallBucket(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {1024, 0}, {1025, 1}, {4096, 1}, {4097, 2}, {16384, 2},
		{time.Millisecond, 5}, {1 << 26, 8}, {1<<26 + 1, wallBuckets}, {time.Hour, wallBuckets},
	} {
		got := wallBucket(tc.d)
		if got != tc.want {
			t.Errorf("wallBucket(%v) = %d, want %d", tc.d, got, tc.want)
		}
		if got < wallBuckets && tc.d.Seconds() > wallBound(got) {
			t.Errorf("%v above the bound %g s of its bucket %d", tc.d, wallBound(got), got)
		}
	}
}

// BenchmarkGroupDone is the hot path between two copies: what every group
// pays after every window with metrics on.
func BenchmarkGroupDone(b *testing.B) {
	m := NewMetrics(build(b, smallTree(1000)), MetricsOptions{Every: time.Hour})
	w := clock.Window{From: 0, To: 8}
	m.GroupDone(0, w, 0)
	b.ResetTimer()
	for i := range b.N {
		m.GroupDone(0, w, time.Duration(i&0xffff))
	}
}

// BenchmarkCollect is one scrape's work on a 4-ary 2-tree with per-port
// detail (off the hot path: it runs on the HTTP server's goroutine).
func BenchmarkCollect(b *testing.B) {
	m := NewMetrics(build(b, smallTree(1000)), MetricsOptions{PortDetail: true})
	m.Finish(0)
	b.ResetTimer()
	for range b.N {
		mfs, err := m.reg.Gather()
		if err != nil || len(mfs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkPublish is one copy of a 48-port switch's state and of its 48
// NICs' counters (per-port detail on): what a group pays once per Every.
func BenchmarkPublish(b *testing.B) {
	m := NewMetrics(build(b, fabric.Default()), MetricsOptions{PortDetail: true})
	r := m.run
	b.ResetTimer()
	for range b.N {
		for g, s := range r.groups {
			r.publish(g, s)
		}
	}
}

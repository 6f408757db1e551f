package monitor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/promtest"
)

// The shipped dashboards and the files beside them.
const dashboardsDir = "../dashboards"

var metricName = regexp.MustCompile(`\b(opasim|go|process)_[a-z0-9_]+`)

// TestDashboardsUseExportedMetrics: every metric a dashboard names is one
// the simulator exports (checked without Prometheus: a typo fails here).
func TestDashboardsUseExportedMetrics(t *testing.T) {
	m, _ := observedRun(t, smallTree(2000), MetricsOptions{PortDetail: true})
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, mf := range mfs {
		exported[mf.GetName()] = true
	}
	panels, variables := promtest.Queries(t, dashboardsDir)
	for _, q := range append(panels, variables...) {
		if s := promtest.Substitute(q.Expr); strings.Contains(s, "$") {
			t.Errorf("%s %q: a variable is left after substitution: %s", q.File, q.Panel, s)
		}
		for _, name := range metricName.FindAllString(q.Expr, -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if !exported[name] && !exported[base] {
				t.Errorf("%s %q: metric %s is not exported", q.File, q.Panel, name)
			}
		}
	}
}

// TestDashboardsOnPrometheus starts a real Prometheus that scrapes a live
// actor-engine run every second, then runs every panel query of every
// shipped dashboard through Prometheus's HTTP API: each must return data.
// Without the prometheus binary it skips, except in CI (CI=true) where it
// fails. (cmd/opasim's TestDashboardsDistributed does the same over the
// members of a distributed run.)
func TestDashboardsOnPrometheus(t *testing.T) {
	bin := promtest.Binary(t)
	ctx, stop := context.WithCancel(context.Background())
	metricsURL, finished := liveRun(t, ctx)
	prom := promtest.Start(t, bin, strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics"))
	prom.WaitForScrapes(t, 4)

	panels, variables := promtest.Queries(t, dashboardsDir)
	for _, q := range panels {
		if got, err := prom.Query(promtest.Substitute(q.Expr)); err != nil || len(got) == 0 {
			t.Errorf("%s, panel %q: %d series (%v) for\n  %s", q.File, q.Panel, len(got), err, promtest.Substitute(q.Expr))
		}
	}
	for _, v := range variables {
		if got, err := prom.LabelValues(promtest.Substitute(v.Expr)); err != nil || len(got) == 0 {
			t.Errorf("%s, %s: %d values (%v) for %s", v.File, v.Panel, len(got), err, v.Expr)
		}
	}
	if got, err := prom.LabelValues(`label_values(opasim_nics, run_id)`); err != nil || len(got) != 1 || got[0] != "live" {
		t.Errorf("run_id values %q (%v), want [live]", got, err)
	}
	t.Logf("%d panel queries and %d variable queries answered by Prometheus after %d scrapes", len(panels), len(variables), prom.Scrapes())
	stop()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Error("the run did not stop within 30 s of its interruption")
	}
}

// liveRun starts a long actor-engine run of the small tree with live
// metrics (per-port detail on, run_id "live") served on a free loopback
// port; it runs until ctx is done. It returns the metrics URL and a
// channel closed when the run has stopped.
func liveRun(t *testing.T, ctx context.Context) (string, <-chan struct{}) {
	t.Helper()
	cfg := smallTree(1 << 40)
	cfg.Warmup = 1000
	addr, finished := liveRunOf(t, ctx, cfg)
	return "http://" + addr + "/metrics", finished
}

// TestComposeFileValid: the compose file passes `docker-compose config -q`
// where docker-compose is installed (it needs no Docker engine for that).
func TestComposeFileValid(t *testing.T) {
	bin, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Skip("docker-compose not on PATH (apt-get install docker-compose)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-f", filepath.Join(dashboardsDir, "docker-compose.yml"), "config", "-q")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker-compose config -q: %v\n%s", err, out)
	}
}

// TestPrometheusConfigValid: promtool, where installed, accepts the
// shipped scrape config.
func TestPrometheusConfigValid(t *testing.T) {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not on PATH (apt-get install prometheus)")
	}
	out, err := exec.Command(bin, "check", "config", filepath.Join(dashboardsDir, "prometheus.yml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
}

// TestProvisioningPointsAtDashboards: the compose file mounts every
// dashboard JSON where the provisioning file tells Grafana to look.
func TestProvisioningPointsAtDashboards(t *testing.T) {
	compose, err := os.ReadFile(filepath.Join(dashboardsDir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := os.ReadFile(filepath.Join(dashboardsDir, "provisioning", "dashboards", "opasim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := regexp.MustCompile(`path:\s*(\S+)`).FindSubmatch(prov)
	if dir == nil {
		t.Fatal("provisioning/dashboards/opasim.yaml names no path")
	}
	files, _ := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	sort.Strings(files)
	for _, f := range files {
		mount := "./" + filepath.Base(f) + ":" + string(dir[1]) + "/" + filepath.Base(f)
		if !bytes.Contains(compose, []byte(mount)) {
			t.Errorf("docker-compose.yml does not mount %s", mount)
		}
	}
}

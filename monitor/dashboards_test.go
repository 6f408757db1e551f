package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/sim"
)

// The shipped dashboards and the files beside them.
const dashboardsDir = "../dashboards"

// panelQuery is one PromQL target of a shipped dashboard panel.
type panelQuery struct {
	file, panel, expr string
}

// dashboardQueries walks every dashboard JSON for its "expr" fields; it
// also returns the template variables' queries.
func dashboardQueries(t *testing.T) (panels []panelQuery, variables []panelQuery) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in %s: %v", dashboardsDir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		walkExprs(doc, "", func(panel, expr string) { panels = append(panels, panelQuery{name, panel, expr}) })
		tpl, _ := doc.(map[string]any)["templating"].(map[string]any)
		list, _ := tpl["list"].([]any)
		for _, v := range list {
			v := v.(map[string]any)
			if q, ok := v["query"].(string); ok && v["type"] == "query" {
				variables = append(variables, panelQuery{name, "variable " + v["name"].(string), q})
			}
		}
	}
	return panels, variables
}

// walkExprs calls found for every "expr" string under v, with the title of
// the innermost object that has one.
func walkExprs(v any, title string, found func(panel, expr string)) {
	switch v := v.(type) {
	case map[string]any:
		if t, ok := v["title"].(string); ok {
			title = t
		}
		if e, ok := v["expr"].(string); ok {
			found(title, e)
		}
		for _, x := range v {
			walkExprs(x, title, found)
		}
	case []any:
		for _, x := range v {
			walkExprs(x, title, found)
		}
	}
}

var (
	builtinVar  = strings.NewReplacer("${__rate_interval}", "10s", "$__rate_interval", "10s", "${__interval}", "2s", "$__interval", "2s", "${__range}", "1m", "$__range", "1m")
	templateVar = regexp.MustCompile(`\$\{\w+(:\w+)?\}|\$\w+|\[\[\w+\]\]`)
	metricName  = regexp.MustCompile(`\b(opasim|go|process)_[a-z0-9_]+`)
)

// substitute replaces Grafana's variables the way Grafana would for "All":
// intervals by durations, template variables by a regex matching anything
// (the dashboards use them with =~).
func substitute(expr string) string {
	return templateVar.ReplaceAllString(builtinVar.Replace(expr), ".*")
}

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
	panels, variables := dashboardQueries(t)
	for _, q := range append(panels, variables...) {
		if s := substitute(q.expr); strings.Contains(s, "$") {
			t.Errorf("%s %q: a variable is left after substitution: %s", q.file, q.panel, s)
		}
		for _, name := range metricName.FindAllString(q.expr, -1) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if !exported[name] && !exported[base] {
				t.Errorf("%s %q: metric %s is not exported", q.file, q.panel, name)
			}
		}
	}
}

// TestDashboardsOnPrometheus starts a real Prometheus that scrapes a live
// actor-engine run every second, then runs every panel query of every
// shipped dashboard through Prometheus's HTTP API: each must return data.
// Without the prometheus binary it skips, except in CI (CI=true) where it
// fails.
func TestDashboardsOnPrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not on PATH: CI must install it (apt-get install prometheus)")
		}
		t.Skip("prometheus not on PATH (apt-get install prometheus)")
	}
	ctx, stop := context.WithCancel(context.Background())
	metricsURL, finished := liveRun(t, ctx)
	prom := startPrometheus(t, bin, strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics"))
	prom.waitForScrapes(t, 4)

	panels, variables := dashboardQueries(t)
	for _, q := range panels {
		if n, err := prom.series(substitute(q.expr)); err != nil || n == 0 {
			t.Errorf("%s, panel %q: %d series (%v) for\n  %s", q.file, q.panel, n, err, substitute(q.expr))
		}
	}
	for _, v := range variables {
		if n, err := prom.labelValues(substitute(v.expr)); err != nil || n == 0 {
			t.Errorf("%s, %s: %d values (%v) for %s", v.file, v.panel, n, err, v.expr)
		}
	}
	t.Logf("%d panel queries and %d variable queries answered by Prometheus after %d scrapes", len(panels), len(variables), prom.scrapes(t))
	stop()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Error("the run did not stop within 30 s of its interruption")
	}
}

// liveRun starts a long actor-engine run of the small tree with live
// metrics (per-port detail on) served on a free loopback port; it runs
// until ctx is done. It returns the metrics URL and a channel closed when
// the run has stopped.
func liveRun(t *testing.T, ctx context.Context) (string, <-chan struct{}) {
	t.Helper()
	cfg := smallTree(1 << 40)
	cfg.Warmup = 1000
	n := build(t, cfg)
	m := NewMetrics(n, MetricsOptions{PortDetail: true, Every: 100 * time.Millisecond})
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
	return srv.URL(), finished
}

// promServer is a Prometheus server the test started.
type promServer struct {
	api string
	out *bytes.Buffer
}

// startPrometheus runs bin on a free loopback port with a fresh data
// directory and a config that scrapes target every second; it is killed
// when the test ends.
func startPrometheus(t *testing.T, bin, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	text := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n"+
		"  - job_name: opasim\n    scrape_timeout: 1s\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for try := 0; try < 3; try++ {
		addr := freeLoopbackAddr(t)
		var out bytes.Buffer
		cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, fmt.Sprint("data", try)),
			"--web.listen-address="+addr, "--log.level=warn")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		p := &promServer{api: "http://" + addr, out: &out}
		if p.ready(exited, 30*time.Second) {
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
				if t.Failed() {
					t.Logf("prometheus output:\n%s", out.String())
				}
			})
			return p
		}
		_ = cmd.Process.Kill()
		<-exited
		t.Logf("prometheus on %s did not become ready (try %d):\n%s", addr, try+1, out.String())
	}
	t.Fatal("prometheus did not start")
	return nil
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ready waits until Prometheus answers /-/ready, it exits, or the limit.
func (p *promServer) ready(exited <-chan struct{}, limit time.Duration) bool {
	client := http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		select {
		case <-exited:
			return false
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := client.Get(p.api + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
	}
	return false
}

// waitForScrapes waits (a minute at most) until the target is up and
// Prometheus holds at least n samples of the simulated cycle.
func (p *promServer) waitForScrapes(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if p.targetUp() && p.scrapes(t) >= n {
			return
		}
	}
	t.Fatalf("Prometheus did not scrape the run %d times within a minute (target up: %v)", n, p.targetUp())
}

func (p *promServer) targetUp() bool {
	var r struct {
		Data struct {
			ActiveTargets []struct {
				Health string `json:"health"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/targets", nil, &r); err != nil {
		return false
	}
	return len(r.Data.ActiveTargets) == 1 && r.Data.ActiveTargets[0].Health == "up"
}

// scrapes is how many samples of opasim_simulated_cycle Prometheus holds.
func (p *promServer) scrapes(t *testing.T) int {
	var r queryResult
	if err := p.get("/api/v1/query", url.Values{"query": {"count_over_time(opasim_simulated_cycle[5m])"}}, &r); err != nil || len(r.Data.Result) == 0 {
		return 0
	}
	var n int
	if _, err := fmt.Sscan(fmt.Sprint(r.Data.Result[0].Value[1]), &n); err != nil {
		t.Logf("count_over_time: %v", r.Data.Result[0].Value)
	}
	return n
}

type queryResult struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  []any             `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

// series runs an instant query and returns how many series it gives.
func (p *promServer) series(expr string) (int, error) {
	var r queryResult
	if err := p.get("/api/v1/query", url.Values{"query": {expr}}, &r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	return len(r.Data.Result), nil
}

var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// labelValues answers a variable's label_values(selector, label) as
// Grafana does, with the series API; it returns how many values it finds.
func (p *promServer) labelValues(q string) (int, error) {
	m := labelValuesQuery.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return 0, fmt.Errorf("not a label_values(selector, label) query")
	}
	var r struct {
		Status string              `json:"status"`
		Data   []map[string]string `json:"data"`
	}
	if err := p.get("/api/v1/series", url.Values{"match[]": {m[1]}}, &r); err != nil {
		return 0, err
	}
	values := map[string]bool{}
	for _, s := range r.Data {
		if v, ok := s[m[2]]; ok {
			values[v] = true
		}
	}
	return len(values), nil
}

func (p *promServer) get(path string, q url.Values, into any) error {
	client := http.Client{Timeout: 10 * time.Second}
	u := p.api + path
	if q != nil {
		u += "?" + q.Encode()
	}
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%s: %d %s", path, resp.StatusCode, body)
	}
	return nil
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

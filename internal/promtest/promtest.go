// Package promtest runs a real Prometheus server for tests, and reads the
// shipped Grafana dashboards' queries so that tests can put every one of
// them to that server. It is used by the tests of package monitor (a run
// in one process) and of cmd/opasim (a run over member processes).
package promtest

import (
	"bytes"
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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/internal/testlong"
)

// Binary is the prometheus binary's path. Without one on PATH the test is
// skipped, except in CI (CI=true) where it fails: CI must install it.
func Binary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not on PATH: CI must install it (apt-get install prometheus)")
		}
		testlong.Skipf(t, "prometheus not on PATH (apt-get install prometheus)")
	}
	return bin
}

// Query is one PromQL query of a shipped dashboard: a panel's target, or a
// template variable's query (Panel is then "variable NAME").
type Query struct {
	File, Panel, Expr string
}

// Queries walks every dashboard JSON in dir for its panels' "expr" fields
// and its template variables' queries.
func Queries(t *testing.T, dir string) (panels, variables []Query) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in %s: %v", dir, err)
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
		walkExprs(doc, "", func(panel, expr string) { panels = append(panels, Query{name, panel, expr}) })
		tpl, _ := doc.(map[string]any)["templating"].(map[string]any)
		list, _ := tpl["list"].([]any)
		for _, v := range list {
			v := v.(map[string]any)
			if q, ok := v["query"].(string); ok && v["type"] == "query" {
				variables = append(variables, Query{name, "variable " + v["name"].(string), q})
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
)

// Substitute replaces Grafana's variables the way Grafana would for "All":
// intervals by durations, template variables by a regex matching anything
// (the dashboards use them with =~).
func Substitute(expr string) string {
	return templateVar.ReplaceAllString(builtinVar.Replace(expr), ".*")
}

// Server is a Prometheus server a test started.
type Server struct {
	api     string
	targets int
}

// Start runs bin on a free loopback port with a fresh data directory and a
// config that scrapes the targets (host:port) every second in one job,
// "opasim"; it is killed when the test ends.
func Start(t *testing.T, bin string, targets ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	quoted := make([]string, len(targets))
	for i, a := range targets {
		quoted[i] = strconv.Quote(a)
	}
	text := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n"+
		"  - job_name: opasim\n    scrape_timeout: 1s\n    static_configs:\n      - targets: [%s]\n", strings.Join(quoted, ", "))
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
		p := &Server{api: "http://" + addr, targets: len(targets)}
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
func (p *Server) ready(exited <-chan struct{}, limit time.Duration) bool {
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

// WaitForScrapes waits (a minute at most) until every target is up and
// Prometheus holds at least n samples of the simulated cycle from each.
func (p *Server) WaitForScrapes(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if p.targetsUp() && p.Scrapes() >= n {
			return
		}
	}
	t.Fatalf("Prometheus did not scrape the run %d times within a minute (targets up: %v)", n, p.targetsUp())
}

func (p *Server) targetsUp() bool {
	var r struct {
		Data struct {
			ActiveTargets []struct {
				Health string `json:"health"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/targets", nil, &r); err != nil || len(r.Data.ActiveTargets) != p.targets {
		return false
	}
	for _, a := range r.Data.ActiveTargets {
		if a.Health != "up" {
			return false
		}
	}
	return true
}

// Scrapes is the fewest samples of opasim_simulated_cycle Prometheus holds
// from one target (0 while a target has none).
func (p *Server) Scrapes() int {
	got, err := p.Query("count_over_time(opasim_simulated_cycle[5m])")
	if err != nil || len(got) < p.targets {
		return 0
	}
	least := -1
	for _, s := range got {
		if n := int(s.Value); least < 0 || n < least {
			least = n
		}
	}
	return least
}

// Sample is one series of an instant query's answer.
type Sample struct {
	Metric map[string]string
	Value  float64
}

// Query runs an instant query.
func (p *Server) Query(expr string) ([]Sample, error) {
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/query", url.Values{"query": {expr}}, &r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	out := make([]Sample, len(r.Data.Result))
	for i, s := range r.Data.Result {
		out[i].Metric = s.Metric
		if len(s.Value) == 2 {
			v, err := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %v: %w", expr, s.Value, err)
			}
			out[i].Value = v
		}
	}
	return out, nil
}

var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// LabelValues answers a variable's label_values(selector, label) as
// Grafana does, with the series API: the values it finds.
func (p *Server) LabelValues(q string) ([]string, error) {
	m := labelValuesQuery.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return nil, fmt.Errorf("not a label_values(selector, label) query")
	}
	var r struct {
		Status string              `json:"status"`
		Data   []map[string]string `json:"data"`
	}
	if err := p.get("/api/v1/series", url.Values{"match[]": {m[1]}}, &r); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var values []string
	for _, s := range r.Data {
		if v, ok := s[m[2]]; ok && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	return values, nil
}

func (p *Server) get(path string, q url.Values, into any) error {
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

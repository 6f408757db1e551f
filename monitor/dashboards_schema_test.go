package monitor

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	client "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/opasim/opasim/internal/promtest"
)

// dashQuery is one PromQL query of a dashboard, as Grafana's own types
// read it: a panel's target, or a query variable's query.
type dashQuery struct {
	file, panel, ref, expr string
	variable               bool
}

// decodeDashboards decodes every dashboards/*.json strictly into the
// Grafana foundation SDK's dashboard types (an unknown field, a field of
// the wrong type or a required one missing is an error, in the
// dashboard, its panels, their options and field config, their
// Prometheus targets and the template variables) and returns their
// queries; errs are the decoding errors, one per file and problem.
func decodeDashboards(t *testing.T, files map[string][]byte) (queries []dashQuery, errs []string) {
	t.Helper()
	plugins.RegisterDefaultPlugins()
	rt := cog.NewRuntime()
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		var d dashboard.Dashboard
		if err := d.UnmarshalJSONStrict(files[f]); !isNil(err) {
			errs = append(errs, fmt.Sprintf("%s: %v", f, err)) // and go on: the queries are checked too
		}
		// The SDK's PanelOrRowPanel drops a panel that decodes without
		// error (it takes its empty error list for an error): decode the
		// panels again one by one.
		var raw struct {
			Panels []json.RawMessage `json:"panels"`
		}
		if err := json.Unmarshal(files[f], &raw); err != nil {
			t.Fatal(err)
		}
		ids := map[uint32]string{}
		var panels []dashboard.Panel
		for i, r := range raw.Panels {
			var kind struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(r, &kind); err != nil {
				t.Fatal(err)
			}
			if kind.Type == "row" {
				var row dashboard.RowPanel
				if err := row.UnmarshalJSONStrict(r); !isNil(err) {
					errs = append(errs, fmt.Sprintf("%s: panels[%d]: %v", f, i, err))
					continue
				}
				title := ""
				if row.Title != nil {
					title = *row.Title
				}
				if other, dup := ids[row.Id]; dup {
					errs = append(errs, fmt.Sprintf("%s: row %q has id %d, as %q has", f, title, row.Id, other))
				}
				ids[row.Id] = title
				panels = append(panels, row.Panels...)
				continue
			}
			var p dashboard.Panel
			if err := p.UnmarshalJSONStrict(r); !isNil(err) {
				errs = append(errs, fmt.Sprintf("%s: panels[%d]: %v", f, i, err))
				continue
			}
			// The same mistake drops every target that decodes without
			// error: decode them one by one as Prometheus queries.
			var targets struct {
				Targets []json.RawMessage `json:"targets"`
			}
			if err := json.Unmarshal(r, &targets); err != nil {
				t.Fatal(err)
			}
			p.Targets = nil
			for j, tr := range targets.Targets {
				q := new(prometheus.Dataquery)
				if err := q.UnmarshalJSONStrict(tr); !isNil(err) {
					errs = append(errs, fmt.Sprintf("%s: panels[%d].targets[%d]: %v", f, i, j, err))
					continue
				}
				p.Targets = append(p.Targets, q)
			}
			panels = append(panels, p)
		}
		if len(panels) == 0 {
			errs = append(errs, fmt.Sprintf("%s: no panels", f))
		}
		for _, p := range panels {
			title := ""
			if p.Title != nil {
				title = *p.Title
			}
			if p.Id == nil {
				errs = append(errs, fmt.Sprintf("%s: panel %q has no id", f, title))
			} else if other, dup := ids[*p.Id]; dup {
				errs = append(errs, fmt.Sprintf("%s: panel %q has id %d, as %q has", f, title, *p.Id, other))
			} else {
				ids[*p.Id] = title
			}
			if p.GridPos == nil {
				errs = append(errs, fmt.Sprintf("%s: panel %q has no gridPos", f, title))
			}
			if _, ok := rt.ConfigForPanelcfgVariant(p.Type); !ok {
				errs = append(errs, fmt.Sprintf("%s: panel %q is of type %q, which Grafana's types do not know", f, title, p.Type))
			}
			if len(p.Targets) == 0 {
				errs = append(errs, fmt.Sprintf("%s: panel %q has no query", f, title))
			}
			refs := map[string]bool{}
			for i, target := range p.Targets {
				q := target.(*prometheus.Dataquery)
				if q.Datasource == nil || q.Datasource.Type == nil || *q.Datasource.Type != "prometheus" {
					errs = append(errs, fmt.Sprintf("%s: panel %q, target %d does not name a Prometheus data source", f, title, i))
				}
				ref := ""
				if q.RefId != nil {
					ref = *q.RefId
				}
				if ref == "" || refs[ref] {
					errs = append(errs, fmt.Sprintf("%s: panel %q, target %d: refId %q missing or repeated", f, title, i, ref))
				}
				refs[ref] = true
				if strings.TrimSpace(q.Expr) == "" {
					errs = append(errs, fmt.Sprintf("%s: panel %q, target %s has no expr", f, title, ref))
				}
				queries = append(queries, dashQuery{file: f, panel: title, ref: ref, expr: q.Expr})
			}
		}
		for _, v := range d.Templating.List {
			if v.Type != dashboard.VariableTypeQuery {
				continue
			}
			if v.Query == nil || v.Query.String == nil {
				errs = append(errs, fmt.Sprintf("%s: variable %s has no query text", f, v.Name))
				continue
			}
			m := labelValues.FindStringSubmatch(*v.Query.String)
			if m == nil {
				errs = append(errs, fmt.Sprintf("%s: variable %s: %q is not label_values(selector, label)", f, v.Name, *v.Query.String))
				continue
			}
			queries = append(queries, dashQuery{file: f, panel: "variable " + v.Name, expr: m[1], variable: true})
		}
	}
	return queries, errs
}

// isNil tells whether err is no error: the SDK returns its error list,
// cog.BuildErrors, empty when there is none.
func isNil(err error) bool {
	be, ok := err.(cog.BuildErrors)
	return err == nil || (ok && len(be) == 0)
}

var labelValues = regexp.MustCompile(`^\s*label_values\((.+),\s*\w+\)\s*$`)

// readDashboards reads every dashboards/*.json.
func readDashboards(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dashboardsDir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no dashboards in %s: %v", dashboardsDir, err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = data
	}
	return files
}

// registeredMetrics are the names a scrape of opasim can hold: every
// family a Metrics registers (a histogram's _bucket, _sum and _count), the
// Go runtime and process collectors' (their families on this platform),
// and the series Prometheus adds to every target's scrape.
func registeredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{"up": true, "scrape_duration_seconds": true, "scrape_samples_scraped": true,
		"scrape_samples_post_metric_relabeling": true, "scrape_series_added": true}
	d := newDescs()
	for _, f := range d.all() {
		names[f.name] = true
		if f.kind == histogramKind {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f.name+s] = true
			}
		}
	}
	reg := client.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		if mf.GetType().String() == "SUMMARY" || mf.GetType().String() == "HISTOGRAM" {
			names[mf.GetName()+"_sum"], names[mf.GetName()+"_count"] = true, true
			names[mf.GetName()+"_bucket"] = true
		}
	}
	return names
}

// checkQueries checks the dashboards' queries for what Grafana's types
// cannot: each names only registered metrics, and a panel's every
// aggregation keeps run_id and its every opasim_ selector is filtered on
// $run, so that "All" never adds runs together. It returns the problems.
func checkQueries(queries []dashQuery, registered map[string]bool) []string {
	var errs []string
	for _, q := range queries {
		where := fmt.Sprintf("%s, %s %s", q.file, q.panel, q.ref)
		a, err := analyse(q.expr)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v in %s", where, err, q.expr))
			continue
		}
		for _, m := range a.metrics {
			if !registered[m.name] {
				errs = append(errs, fmt.Sprintf("%s: metric %s is not one opasim or Prometheus exports", where, m.name))
			}
			if !q.variable && strings.HasPrefix(m.name, "opasim_") && !strings.Contains(m.matchers, `run_id=~"$run"`) {
				errs = append(errs, fmt.Sprintf("%s: %s{%s} is not filtered on run_id=~\"$run\"", where, m.name, m.matchers))
			}
		}
		if q.variable {
			continue
		}
		for _, g := range a.aggregations {
			if problem := g.dropsRunID(); problem != "" {
				errs = append(errs, fmt.Sprintf("%s: %s %s: %s", where, g.op, g.clause(), problem))
			}
		}
	}
	return errs
}

// TestDashboardsGrafanaTypes: every shipped dashboard decodes strictly
// into Grafana's own dashboard types, every panel target is a Prometheus
// query, and every query names only metrics opasim (or Prometheus, for
// scrape health) exports and keeps runs apart (checkQueries).
func TestDashboardsGrafanaTypes(t *testing.T) {
	queries, errs := decodeDashboards(t, readDashboards(t))
	errs = append(errs, checkQueries(queries, registeredMetrics(t))...)
	for _, e := range errs {
		t.Error(e)
	}
	if len(queries) < 50 {
		t.Errorf("%d queries found in the dashboards, fewer than the 50 they have", len(queries))
	}
}

// TestDashboardsPromQL: promtool, Prometheus' own parser, accepts every
// query of every dashboard (variables replaced as Grafana does for "All"),
// each checked as a recording rule of a rule file.
func TestDashboardsPromQL(t *testing.T) {
	promtool := promtoolBinary(t)
	queries, errs := decodeDashboards(t, readDashboards(t))
	for _, e := range errs {
		t.Error(e)
	}
	if out, err := checkPromQL(t, promtool, queries); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}

// promtoolBinary is promtool's path; without one the test is skipped,
// except in CI (CI=true), which installs it with prometheus.
func promtoolBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not on PATH: CI must install it (apt-get install prometheus)")
		}
		t.Skip("promtool not on PATH (apt-get install prometheus)")
	}
	return bin
}

// checkPromQL writes every query as a recording rule of its own group
// (named after its dashboard, panel and refId, so that promtool's message
// says which) and runs promtool check rules on the file.
func checkPromQL(t *testing.T, promtool string, queries []dashQuery) (string, error) {
	t.Helper()
	var b strings.Builder
	b.WriteString("groups:\n")
	for i, q := range queries {
		fmt.Fprintf(&b, "  - name: %q\n    rules:\n      - record: dashboard_query_%d\n        expr: %q\n",
			fmt.Sprintf("%s, %s %s", q.file, q.panel, q.ref), i, promtest.Substitute(q.expr))
	}
	path := filepath.Join(t.TempDir(), "dashboards.rules.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput()
	return string(out), err
}

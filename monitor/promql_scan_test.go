package monitor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A small scanner of the PromQL the dashboards use, enough to find the
// metrics an expression selects (with their matchers) and its
// aggregations (with their by or without labels). Whether the expression
// parses at all is promtool's to say (TestDashboardsPromQL).

type token struct {
	kind byte // 'i' identifier, 's' string, 'n' number or duration, '$' variable, else the punctuation itself
	text string
}

func scan(expr string) ([]token, error) {
	var ts []token
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(expr) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			ts = append(ts, token{'s', expr[i : j+1]})
			i = j + 1
		case c == '$':
			j := i + 1
			if j < len(expr) && expr[j] == '{' {
				for j < len(expr) && expr[j] != '}' {
					j++
				}
				j++
			} else {
				for j < len(expr) && isIdent(expr[j], false) {
					j++
				}
			}
			ts = append(ts, token{'$', expr[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(expr) && (isIdent(expr[j], false) || expr[j] == '.') {
				j++
			}
			ts = append(ts, token{'n', expr[i:j]})
			i = j
		case isIdent(c, true):
			j := i
			for j < len(expr) && isIdent(expr[j], false) {
				j++
			}
			ts = append(ts, token{'i', expr[i:j]})
			i = j
		default:
			ts = append(ts, token{c, string(c)})
			i++
		}
	}
	return ts, nil
}

// selection is a metric an expression selects, and its matchers' text.
type selection struct{ name, matchers string }

// aggregation is an aggregation operator and its grouping clause.
type aggregation struct {
	op       string
	modifier string   // "by", "without" or ""
	labels   []string // the clause's labels
}

func (g aggregation) clause() string {
	if g.modifier == "" {
		return "(no by or without)"
	}
	return g.modifier + " (" + strings.Join(g.labels, ", ") + ")"
}

var (
	// grouping aggregations keep only the labels of their clause; the
	// selecting ones keep their operand's labels.
	grouping  = []string{"sum", "avg", "min", "max", "count", "stddev", "stdvar", "group", "count_values"}
	selecting = []string{"topk", "bottomk", "quantile", "limitk", "limit_ratio"}
	// keywords that are neither metrics nor functions.
	keywords = []string{"bool", "and", "or", "unless", "offset", "inf", "nan", "Inf", "NaN"}
	// modifiers followed by a list of labels.
	labelLists = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}
)

// dropsRunID says how g adds series of different runs together, or "".
func (g aggregation) dropsRunID() string {
	has := slices.Contains(g.labels, "run_id")
	switch {
	case g.modifier == "without" && has:
		return "drops run_id"
	case g.modifier == "by" && !has:
		return "keeps no run_id: series of different runs are aggregated together"
	case g.modifier == "" && slices.Contains(grouping, g.op):
		return "keeps no label, run_id included"
	}
	return ""
}

type analysis struct {
	metrics      []selection
	aggregations []aggregation
}

// analyse finds the metrics and aggregations of expr.
func analyse(expr string) (analysis, error) {
	ts, err := scan(expr)
	if err != nil {
		return analysis{}, err
	}
	var a analysis
	// closing finds the index of the token that closes the one at i.
	closing := func(i int) (int, error) {
		open, shut := ts[i].kind, map[byte]byte{'(': ')', '{': '}', '[': ']'}[ts[i].kind]
		depth := 0
		for j := i; j < len(ts); j++ {
			switch ts[j].kind {
			case open:
				depth++
			case shut:
				if depth--; depth == 0 {
					return j, nil
				}
			}
		}
		return 0, fmt.Errorf("unbalanced %c", open)
	}
	// list reads a parenthesised label list at i, returning its labels and
	// the index after it.
	list := func(i int) ([]string, int, error) {
		if i >= len(ts) || ts[i].kind != '(' {
			return nil, i, fmt.Errorf("a label list expected")
		}
		end, err := closing(i)
		if err != nil {
			return nil, i, err
		}
		var ls []string
		for _, t := range ts[i+1 : end] {
			if t.kind == 'i' {
				ls = append(ls, t.text)
			}
		}
		return ls, end + 1, nil
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch t.kind {
		case '[':
			end, err := closing(i)
			if err != nil {
				return a, err
			}
			i = end
		case '{': // matchers without a metric name
			end, err := closing(i)
			if err != nil {
				return a, err
			}
			i = end
		case 'i':
			next := byte(0)
			if i+1 < len(ts) {
				next = ts[i+1].kind
			}
			switch {
			case slices.Contains(labelLists, t.text):
				_, after, err := list(i + 1)
				if err != nil {
					return a, fmt.Errorf("%s: %v", t.text, err)
				}
				i = after - 1
			case slices.Contains(keywords, t.text):
			case slices.Contains(grouping, t.text) || slices.Contains(selecting, t.text):
				g := aggregation{op: t.text}
				j := i + 1
				if j < len(ts) && (ts[j].text == "by" || ts[j].text == "without") {
					ls, after, err := list(j + 1)
					if err != nil {
						return a, err
					}
					g.modifier, g.labels, j = ts[j].text, ls, after
				}
				if j >= len(ts) || ts[j].kind != '(' {
					return a, fmt.Errorf("%s without its operand", t.text)
				}
				end, err := closing(j)
				if err != nil {
					return a, err
				}
				if g.modifier == "" && end+1 < len(ts) && (ts[end+1].text == "by" || ts[end+1].text == "without") {
					ls, _, err := list(end + 2)
					if err != nil {
						return a, err
					}
					g.modifier, g.labels = ts[end+1].text, ls
				}
				a.aggregations = append(a.aggregations, g)
				i = j // into the operand
			case next == '(': // a function
			default:
				s := selection{name: t.text}
				if next == '{' {
					end, err := closing(i + 1)
					if err != nil {
						return a, err
					}
					var b strings.Builder
					for _, m := range ts[i+2 : end] {
						b.WriteString(m.text)
					}
					s.matchers, i = b.String(), end
				}
				a.metrics = append(a.metrics, s)
			}
		}
	}
	return a, nil
}

// TestAnalyse: the scanner finds the metrics and aggregations of
// expressions whose answers are worked out by hand.
func TestAnalyse(t *testing.T) {
	for _, c := range []struct {
		expr    string
		metrics []string
		aggs    []string
		drops   int
	}{
		{`sum by (job, run_id, sl) (rate(opasim_x_total{job=~"$job",run_id=~"$run"}[$__rate_interval])) / on(job, run_id) group_left() max by (job, run_id) (opasim_y{run_id=~"$run"})`,
			[]string{`opasim_x_total{job=~"$job",run_id=~"$run"}`, `opasim_y{run_id=~"$run"}`}, []string{"sum by (job, run_id, sl)", "max by (job, run_id)"}, 0},
		{`sum by (sl) (rate(a{sl="x"}[1m])) / sum(b)`, []string{`a{sl="x"}`, `b{}`}, []string{"sum by (sl)", "sum (no by or without)"}, 2},
		{`topk(10, c) and on(job, instance) d{run_id=~"$run"} @ end()`, []string{`c{}`, `d{run_id=~"$run"}`}, []string{"topk (no by or without)"}, 0},
		{`sum(e) without (run_id) + count(f) by (run_id) + 2^30 offset 5m`, []string{`e{}`, `f{}`}, []string{"sum without (run_id)", "count by (run_id)"}, 1},
		{`histogram_quantile(0.99, sum by (job, run_id, le) (rate(g_bucket{le!="+Inf"}[5m]))) > bool 1`, []string{`g_bucket{le!="+Inf"}`}, []string{"sum by (job, run_id, le)"}, 0},
	} {
		a, err := analyse(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		var ms, gs []string
		drops := 0
		for _, m := range a.metrics {
			ms = append(ms, m.name+"{"+m.matchers+"}")
		}
		for _, g := range a.aggregations {
			gs = append(gs, g.op+" "+g.clause())
			if g.dropsRunID() != "" {
				drops++
			}
		}
		if !slices.Equal(ms, c.metrics) || !slices.Equal(gs, c.aggs) || drops != c.drops {
			t.Errorf("%s:\n got metrics %q, aggregations %q, %d dropping run_id\nwant metrics %q, aggregations %q, %d", c.expr, ms, gs, drops, c.metrics, c.aggs, c.drops)
		}
	}
}

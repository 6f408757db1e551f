package monitor

import (
	"bytes"
	"fmt"
	"strings"
)

// MetricDoc describes one metric family a Metrics exports: what the
// generated metrics reference (docs/reference/metrics.md) lists.
type MetricDoc struct {
	Name   string
	Kind   string // gauge, counter or histogram
	Labels []string
	Help   string
}

// MetricDocs lists every metric family a Metrics may export, in the order
// it exports them, from the same descriptions it registers.
func MetricDocs() []MetricDoc {
	d := newDescs()
	var out []MetricDoc
	for _, f := range d.all() {
		out = append(out, MetricDoc{Name: f.name, Kind: [...]string{"gauge", "counter", "histogram"}[f.kind], Labels: f.labels, Help: f.help})
	}
	return out
}

// ReferencePage renders MetricDocs as a Markdown page, title first, intro
// (Markdown) after it.
func ReferencePage(title, intro string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n%s\n\n| metric | type | labels | what |\n|---|---|---|---|\n", title, intro)
	for _, m := range MetricDocs() {
		labels := "—"
		if len(m.Labels) > 0 {
			labels = strings.Join(m.Labels, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, m.Kind, labels, strings.ReplaceAll(m.Help, "|", "\\|"))
	}
	return b.Bytes()
}

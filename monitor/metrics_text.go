package monitor

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/prometheus/common/expfmt"
)

// textWriter writes a Metrics' series in Prometheus' text exposition
// format (version 0.0.4) straight from the groups' copies, without making
// a prometheus.Metric of each: what a scrape of a large network costs is
// then a few appends per series (see docs/observability.md). The series
// are those Collect sends, with the same names, labels and values; the
// samples of a family are written together, families in name order.
//
// A textWriter is used by one scrape at a time; its buffers are kept for
// the next.
type textWriter struct {
	fams    []*family // by name
	layouts []layout  // by family id
	bufs    [][]byte  // by family id: the samples written
	scratch groupCopy
}

// layout is how a family's labels are written: every label, constant or
// variable, in name order, as Prometheus' own encoder writes them.
type layout struct {
	head  string // # HELP and # TYPE lines
	parts []labelPart
}

// labelPart is one label: prefix is `name="` (after a comma unless
// first), then either value (a constant label, escaped) or the sample's
// label at index v.
type labelPart struct {
	prefix, value string
	v             int // -1: a constant label
}

func newTextWriter(d *descs, constLabels map[string]string) *textWriter {
	all := d.all()
	w := &textWriter{fams: slices.Clone(all), layouts: make([]layout, len(all)), bufs: make([][]byte, len(all))}
	slices.SortFunc(w.fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	for _, f := range all {
		type named struct {
			name, value string
			v           int
		}
		var ls []named
		for name, value := range constLabels {
			ls = append(ls, named{name, string(appendEscaped(nil, value)), -1})
		}
		for i, name := range f.labels {
			ls = append(ls, named{name: name, v: i})
		}
		slices.SortFunc(ls, func(a, b named) int { return strings.Compare(a.name, b.name) })
		l := layout{head: "# HELP " + f.name + " " + escapeHelp(f.help) + "\n# TYPE " + f.name + " " + f.kind.String() + "\n"}
		for i, n := range ls {
			prefix := n.name + `="`
			if i > 0 {
				prefix = "," + prefix
			}
			l.parts = append(l.parts, labelPart{prefix: prefix, value: n.value, v: n.v})
		}
		w.layouts[f.id] = l
	}
	return w
}

// write appends every series of r to page, in text format, and returns it;
// it gives up (false) as soon as stop is set.
func (w *textWriter) write(r *runState, d *descs, page []byte, stop *atomic.Bool) ([]byte, bool) {
	for i := range w.bufs {
		w.bufs[i] = w.bufs[i][:0]
	}
	if !r.collect(emitter{tw: w, d: d, stop: stop}, &w.scratch) {
		return page, false
	}
	for _, f := range w.fams {
		if b := w.bufs[f.id]; len(b) > 0 {
			page = append(page, w.layouts[f.id].head...)
			page = append(page, b...)
		}
	}
	return page, true
}

// sample writes one gauge or counter sample.
func (w *textWriter) sample(f *family, v float64, labels []string) {
	b := append(w.bufs[f.id], f.name...)
	b = w.labels(b, f.id, labels, "")
	b = append(b, ' ')
	b = appendValue(b, v)
	w.bufs[f.id] = append(b, '\n')
}

// histogram writes a histogram's cumulative buckets (counts has one count
// per bound, then one above all bounds), its sum and its count.
func (w *textWriter) histogram(f *family, counts []int64, bk *buckets, sum float64, labels []string) {
	b := w.bufs[f.id]
	var n int64
	for i, le := range bk.le {
		if i < len(counts) {
			n += counts[i]
		}
		b = append(b, f.name...)
		b = append(b, "_bucket"...)
		b = w.labels(b, f.id, labels, le)
		b = append(b, ' ')
		b = appendValue(b, float64(n))
		b = append(b, '\n')
	}
	if len(counts) > len(bk.le) {
		n += counts[len(bk.le)]
	}
	b = append(b, f.name...)
	b = append(b, "_bucket"...)
	b = w.labels(b, f.id, labels, "+Inf")
	b = append(b, ' ')
	b = appendValue(b, float64(n))
	b = append(b, '\n')
	b = append(b, f.name...)
	b = append(b, "_sum"...)
	b = w.labels(b, f.id, labels, "")
	b = append(b, ' ')
	b = appendValue(b, sum)
	b = append(b, '\n')
	b = append(b, f.name...)
	b = append(b, "_count"...)
	b = w.labels(b, f.id, labels, "")
	b = append(b, ' ')
	b = appendValue(b, float64(n))
	w.bufs[f.id] = append(b, '\n')
}

// labels writes a sample's label set: the family's labels in name order,
// then le when not empty (a histogram bucket's bound, last as in
// Prometheus' own encoder).
func (w *textWriter) labels(b []byte, id int, labels []string, le string) []byte {
	parts := w.layouts[id].parts
	if len(parts) == 0 && le == "" {
		return b
	}
	b = append(b, '{')
	for _, p := range parts {
		b = append(b, p.prefix...)
		if p.v < 0 {
			b = append(b, p.value...)
		} else if p.v < len(labels) {
			b = appendEscaped(b, labels[p.v])
		}
		b = append(b, '"')
	}
	if le != "" {
		if len(parts) > 0 {
			b = append(b, ',')
		}
		b = append(b, `le="`...)
		b = append(b, le...)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendValue writes v as Prometheus' text encoder does.
func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendEscaped writes a label value escaped for the text format: a
// backslash, a double quote and a line feed.
func appendEscaped(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\\\"\n") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// escapeHelp escapes a help text: a backslash and a line feed.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// writeRuntime appends the Go runtime and process series of m in text
// format (through Prometheus' own encoder: they are few).
func (m *Metrics) writeRuntime(page []byte) ([]byte, error) {
	mfs, err := m.runtime.Gather()
	if err != nil {
		return page, err
	}
	buf := bytes.NewBuffer(page)
	enc := expfmt.NewEncoder(buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return buf.Bytes(), err
		}
	}
	return buf.Bytes(), nil
}

package monitor

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMetricsDocumented: docs/observability.md names every metric a
// Metrics registers, and every opasim_ metric it names is registered (a
// renamed or removed metric leaves no stale name behind).
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	d := newDescs()
	registered := map[string]bool{}
	for _, f := range d.all() {
		registered[f.name] = true
		if !strings.Contains(text, "`"+f.name+"`") {
			t.Errorf("docs/observability.md does not name %s (`%s`)", f.name, f.name)
		}
	}
	for _, name := range regexp.MustCompile("`(opasim_[a-z0-9_]+)").FindAllStringSubmatch(text, -1) {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name[1], "_bucket"), "_sum"), "_count")
		if !registered[name[1]] && !registered[base] {
			t.Errorf("docs/observability.md names %s, which no Metrics registers", name[1])
		}
	}
}

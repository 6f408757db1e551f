package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/internal/clidoc"
	"github.com/opasim/opasim/internal/configdoc"
	"github.com/opasim/opasim/monitor"
)

var updateReference = flag.Bool("update-reference", false, "write docs/reference from the command tree instead of checking it")

// referenceDir is the checked-in CLI reference, from this package's
// directory.
const referenceDir = "../../docs/reference"

// regenerate is the command that writes the reference again, as the pages
// and the failure below name it.
const regenerate = "`go generate ./cmd/opasim`"

// configKeysPage and flowConfigKeysPage are the pages of the run
// config's keys and of the flow-level config's keys in docs/reference.
const (
	configKeysPage     = "config-keys.md"
	flowConfigKeysPage = "flow-config-keys.md"
	metricsPage        = "metrics.md"
)

// referencePages are the pages of docs/reference: one per command, and
// the run config's keys with their defaults.
func referencePages() map[string][]byte {
	pages := clidoc.Render(newRootCmd, regenerate)
	pages[configKeysPage] = configdoc.Render(fabric.Default(), "The run config's keys and their defaults",
		"<!-- Generated from the code: do not edit. Regenerate with "+regenerate+" -->\n\n"+
			"Every key of the YAML file `opasim run --config` reads, with the value it has when the file "+
			"does not give it (`fabric.Default()`). What each key means and the values it allows: "+
			"[config.md](../config.md).")
	pages[flowConfigKeysPage] = configdoc.Render(spec.Default(), "The flow-level config's keys and their defaults",
		"<!-- Generated from the code: do not edit. Regenerate with "+regenerate+" -->\n\n"+
			"Every key of the YAML file `opasim flow static|dynamic --config` reads, with the value it has when "+
			"the file does not give it (`spec.Default()`). A 0 or an empty value often stands for a default the "+
			"run fills in (a capacity of 1, the topology's own routing, one worker per core): the guide, "+
			"[flow.md](../flow.md#the-config-file), says which, and the storage keys are explained in "+
			"[flow-workloads.md](../flow-workloads.md#configuration).")
	pages[metricsPage] = monitor.ReferencePage("The live metrics of a run",
		"<!-- Generated from the code: do not edit. Regenerate with "+regenerate+" -->\n\n"+
			"Every metric `opasim run --metrics-addr` (and `opasim member`) exports, from the descriptions the "+
			"exporter registers. Every opasim_ series also carries the run's constant labels (`run_id`; "+
			"`member` on a distributed run's members); the Go runtime's `go_*` and the process's `process_*` "+
			"series come beside them. The per-port metrics (labels switch and port) come only with "+
			"`--metrics-detail port`. How to read them, the dashboards and the cost of a scrape: "+
			"[observability.md](../observability.md); the link metrics: [links.md](../links.md).")
	return pages
}

// TestCLIReference: docs/reference is what the command tree and the
// default config give now, page for page and byte for byte, so a flag or
// a config key added, removed, renamed or given another default or
// meaning without the reference regenerated fails here, naming the page
// and the first line that differs.
func TestCLIReference(t *testing.T) {
	pages := referencePages()
	if *updateReference {
		if err := clidoc.Write(referenceDir, pages); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d pages to %s", len(pages), referenceDir)
		return
	}
	if err := clidoc.Check(referenceDir, pages); err != nil {
		t.Fatalf("docs/reference is not what the commands give now:\n%v\nregenerate it with: go generate ./cmd/opasim", err)
	}
}

// TestConfigKeysDocumented: docs/config.md, the hand-written key
// reference, names every key of the run config (by its path, or by its
// last part in a row that gives the path's start), so a key added to the
// config without a word in the docs fails here.
func TestConfigKeysDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_.\\[\\]]+)`").FindAllStringSubmatch(string(data), -1) {
		named[m[1]] = true
	}
	for _, k := range configdoc.Keys(fabric.Default()) {
		path := strings.ReplaceAll(k.Path, "[]", "")
		leaf := path[strings.LastIndex(path, ".")+1:]
		if !named[path] && !named[leaf] {
			t.Errorf("docs/config.md does not name the key %s (nor %s)", k.Path, leaf)
		}
	}
}

package sim

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestTabIndentation: a line indented with a tab is refused naming that
// line, wherever yaml.v3 puts its own complaint (no line on the first, the
// mapping's line for a later one); a tab after a value is not indentation.
func TestTabIndentation(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		line int
	}{
		{"traffic:\n\tload: 0.5\n", 2},
		{"\ttraffic:\n\t\tload: 0.5\n", 1},
		{"traffic:\n    load: 0.5\n\tpattern: uniform\n", 3},
		{"traffic:\n  load: 0.5\n\n\t\n", 4},
		{"qos:\n  sls:\n  \t- {name: A}\n", 3},
	} {
		cfg := fabric.Default()
		err := DecodeConfig([]byte(tc.yaml), &cfg)
		want := "line " + string(rune('0'+tc.line)) + ": a tab in the indentation: YAML indents with spaces only"
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", tc.yaml, err, want)
		}
	}
	cfg := fabric.Default()
	if err := DecodeConfig([]byte("cycles: 100\t# a comment after a tab\n"), &cfg); err != nil || cfg.Cycles != 100 {
		t.Errorf("a tab after a value: %v, cycles %d", err, cfg.Cycles)
	}
	if err := DecodeConfig([]byte("cycles: [\n"), &cfg); err == nil || strings.Contains(err.Error(), "tab") {
		t.Errorf("a syntax error without a tab: %v", err)
	}
}

package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestLoadConfigRefuses: what is not a small regular YAML file of known
// keys is refused with a message that says why, without reading it whole.
func TestLoadConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("cycles: 1000\n"+strings.Repeat("# padding\n", maxFileBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	unknown := filepath.Join(dir, "unknown.yaml")
	if err := os.WriteFile(unknown, []byte("traffic:\n  laod: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(two, []byte("cycles: 1000\n---\ncycles: 2000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"", "empty path"},
		{"/dev/zero", "not a regular file"},
		{dir, "not a regular file"},
		{filepath.Join(dir, "missing.yaml"), "no such file"},
		{big, "more than the limit of 1048576"},
		{unknown, "laod"},
		{two, "more than one YAML document"},
	} {
		cfg := fabric.Default()
		err := LoadConfig(tc.path, &cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadConfig(%q): %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
}

// TestLoadConfigKeepsUnnamedKeys: a file overrides only the keys it names.
func TestLoadConfigKeepsUnnamedKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("cycles: 1234\ntraffic:\n  load: 0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fabric.Default()
	if err := LoadConfig(path, &cfg); err != nil {
		t.Fatal(err)
	}
	def := fabric.Default()
	if cfg.Cycles != 1234 || cfg.Traffic.Load != 0.25 || cfg.Warmup != def.Warmup || cfg.Traffic.Pattern != def.Traffic.Pattern {
		t.Errorf("got cycles %d load %g warmup %d pattern %q", cfg.Cycles, cfg.Traffic.Load, cfg.Warmup, cfg.Traffic.Pattern)
	}
}

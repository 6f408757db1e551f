package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/strictyaml"
)

// TestLoadConfigRefuses: what is not a small regular YAML file of known
// keys is refused with a message that says why, without reading it whole.
func TestLoadConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("cycles: 1000\n"+strings.Repeat("# padding\n", strictyaml.MaxFileBytes/10+1)), 0o644); err != nil {
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

// TestSLMTUDefault: an SL without mtu_bytes, or with 0, has the default
// MTU; a negative one is refused, one that is not a whole number of flits
// is rounded up, and one larger than a VL may hold is refused.
func TestSLMTUDefault(t *testing.T) {
	schedulers := sched.Default()
	sl := func(mtu string) string {
		return "qos:\n  sc2vl: [0]\n  sls:\n  - {name: A, scs: [0], share: 1" + mtu + "}\n"
	}
	for _, tc := range []struct {
		name, yaml, problem string
		flits               int
	}{
		{"absent", sl(""), "", fabric.DefaultMTUBytes / 8},
		{"zero", sl(", mtu_bytes: 0"), "", fabric.DefaultMTUBytes / 8},
		{"not whole flits", sl(", mtu_bytes: 100"), "", 13},
		{"negative", sl(", mtu_bytes: -8"), "qos.sls[0].mtu_bytes: -8 is not allowed: must be at least 1 (0 or absent: the default, 128)", 0},
		{"larger than a VL holds", sl(", mtu_bytes: 40960"), "switch.max_vl_flits: 4096 is not allowed: must hold the largest packet: at least 5120 flits", 0},
	} {
		cfg := fabric.Default()
		if err := DecodeConfig([]byte(tc.yaml), &cfg); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err := cfg.Validate(schedulers)
		if tc.problem != "" {
			if err == nil || strings.Split(err.Error(), "\n")[0] != tc.problem {
				t.Errorf("%s: got %v, want %s", tc.name, err, tc.problem)
			}
			continue
		}
		if err != nil || cfg.MTUFlits(0) != tc.flits {
			t.Errorf("%s: %v, MTU %d flits, want %d", tc.name, err, cfg.MTUFlits(0), tc.flits)
		}
	}
}

// TestDTableFileNamesKeys: a DTable table file is checked like a config:
// a misspelt key and a value of the wrong type are named by their path and
// line, never by Go types.
func TestDTableFileNamesKeys(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"slz:\n  - {name: VO, mtu: 2}\nentries: []\n", "slz (line 1): unknown key; did you mean sls?"},
		{"sls:\n  - {name: VO, mtu: two}\nentries: []\n", `sls[0].mtu (line 2): "two" is not an integer`},
	} {
		path := filepath.Join(dir, "t.yaml")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readDTable(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "dtable.") {
			t.Errorf("%q: %v, want a message with %q and no Go type", tc.text, err, tc.want)
		}
	}
}

// TestVLArbKeys: the vlarb keys are read from YAML as docs/config.md writes
// them, a misspelt entry key is named by its path and line, and a bad value
// by its key path.
func TestVLArbKeys(t *testing.T) {
	cfg := fabric.Default()
	yaml := "qos:\n  scheduler: vlarb\n  vlarb_high: [{sl: 0, weight: 64}]\n  vlarb_low:\n    - {sl: 1, weight: 32}\n    - {sl: 4, weight: 0}\n  vlarb_high_limit: -1\n"
	if err := DecodeConfig([]byte(yaml), &cfg); err != nil {
		t.Fatal(err)
	}
	q := cfg.QoS
	if len(q.VLArbHigh) != 1 || q.VLArbHigh[0] != (fabric.VLArbEntry{SL: 0, Weight: 64}) || len(q.VLArbLow) != 2 ||
		q.VLArbLow[1] != (fabric.VLArbEntry{SL: 4, Weight: 0}) || q.VLArbHighLimit != fabric.VLArbUnlimited {
		t.Errorf("decoded %+v %+v %d", q.VLArbHigh, q.VLArbLow, q.VLArbHighLimit)
	}
	if err := cfg.Validate(sched.Default()); err != nil {
		t.Errorf("refused: %v", err)
	}
	cfg = fabric.Default()
	err := DecodeConfig([]byte("qos:\n  vlarb_low:\n    - {sl: 1, wieght: 32}\n"), &cfg)
	if want := "qos.vlarb_low[0].wieght (line 3): unknown key; did you mean weight?"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("misspelt key: %v, want %q", err, want)
	}
	cfg = fabric.Default()
	if err := DecodeConfig([]byte("qos:\n  vlarb_high: [{sl: 9, weight: 4}]\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate(sched.Default())
	if want := "qos.vlarb_high[0].sl: 9 is not allowed: must be an SL in [0, 5)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SL 9: %v, want %q", err, want)
	}
}

// TestHardwareConstraintKeys: qos.decision_cycles, counter_bits,
// counter_overflow and table_entries are read from YAML, and values out of
// range are refused all at once, each naming its key, value and range.
func TestHardwareConstraintKeys(t *testing.T) {
	cfg := fabric.Default()
	yaml := "qos:\n  decision_cycles: 8\n  counter_bits: 12\n  counter_overflow: wrap\n  table_entries: 64\n"
	if err := DecodeConfig([]byte(yaml), &cfg); err != nil {
		t.Fatal(err)
	}
	if q := cfg.QoS; q.DecisionCycles != 8 || q.CounterBits != 12 || q.CounterOverflow != fabric.OverflowWrap || q.TableEntries != 64 {
		t.Errorf("decoded %+v", q)
	}
	if err := cfg.Validate(sched.Default()); err != nil {
		t.Errorf("refused: %v", err)
	}
	cfg = fabric.Default()
	bad := "qos:\n  decision_cycles: 1025\n  counter_bits: 64\n  counter_overflow: clamp\n  table_entries: -1\n"
	if err := DecodeConfig([]byte(bad), &cfg); err != nil {
		t.Fatal(err)
	}
	err := cfg.Validate(sched.Default())
	for _, want := range []string{
		"qos.decision_cycles: 1025 is not allowed: must be in [1, 1024]",
		"qos.counter_bits: 64 is not allowed: must be in [0, 63]",
		`qos.counter_overflow: "clamp" is not allowed: must be one of: saturate, wrap`,
		"qos.table_entries: -1 is not allowed: must be at least 0",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v; want %q", err, want)
		}
	}
	cfg = fabric.Default()
	cfg.QoS.DecisionCycles = -1
	if err := cfg.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), "qos.decision_cycles: -1") {
		t.Errorf("decision_cycles -1: %v", err)
	}
}

// TestIslipKeys: switch.islip_iterations is read from YAML and kept within
// what fits in AT (2·iterations + 1 phases of at least a cycle); islip is
// refused with preemption.
func TestIslipKeys(t *testing.T) {
	cfg := fabric.Default()
	if err := DecodeConfig([]byte("switch:\n  allocator: islip\n  islip_iterations: 3\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Switch.Allocator != fabric.AllocIslip || cfg.Switch.IslipIterations != 3 {
		t.Fatalf("decoded %q, %d", cfg.Switch.Allocator, cfg.Switch.IslipIterations)
	}
	if err := cfg.Validate(sched.Default()); err != nil {
		t.Errorf("refused: %v", err)
	}
	if w := cfg.MaxWindow(); w != 2 {
		t.Errorf("window %d, want 2 (floor(16/7): the islip messages' latency)", w)
	}
	for _, tc := range []struct {
		at, iterations int
		want           string
	}{
		{16, 0, "switch.islip_iterations: 0 is not allowed: must be in [1, 7]"},
		{16, 8, "switch.islip_iterations: 8 is not allowed: must be in [1, 7]"},
		{4, 2, "switch.islip_iterations: 2 is not allowed: must be in [1, 1]"},
	} {
		cfg := fabric.Default()
		cfg.Switch.Allocator, cfg.Switch.IslipIterations, cfg.Switch.Latency.AT = fabric.AllocIslip, tc.iterations, int64(tc.at)
		if err := cfg.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AT %d, %d iterations: %v; want %q", tc.at, tc.iterations, err, tc.want)
		}
	}
	cfg = fabric.Default()
	cfg.Switch.Allocator = fabric.AllocIslip
	cfg.QoS.Preemption.Preempts = map[string][]string{"VO": {"BK"}}
	cfg.QoS.Preemption.MinFlits = 16
	if err := cfg.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), `switch.allocator: "islip" is not allowed: must be pipelined or serial with qos.preemption`) {
		t.Errorf("islip with preemption: %v", err)
	}
}

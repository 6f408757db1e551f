package sim

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/strictyaml"
)

const topKeys = "seed, cycles, warmup, engine, partitions, window, watchdog_cycles, series_cycles, memory_budget_mb, topology, switch, nic, qos, traffic, trace"

// threeSLs is a qos section whose third SL has a misspelt key on line 7.
const threeSLs = `qos:
  sls:
  - {name: A, scs: [0]}
  - {name: B, scs: [1]}
  - name: C
    scs: [2]
    mtu_byts: 256
`

// TestDecodeConfigNamesKeys: every refusal names the key path as the file
// writes it, its line and what is wrong, in the words of the config
// reference, never Go's.
func TestDecodeConfigNamesKeys(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"typo at top level", "cycles: 100\ncylces: 200\n", "cylces (line 2): unknown key; did you mean cycles?"},
		{"typo nested", "traffic:\n  laod: 0.5\n", "traffic.laod (line 2): unknown key; did you mean load?"},
		{"typo in a list element", threeSLs, "qos.sls[2].mtu_byts (line 7): unknown key; did you mean mtu_bytes?"},
		{"typo in case and dash", "traffic:\n  Drop-Backlog: true\n", "traffic.Drop-Backlog (line 2): unknown key; did you mean drop_backlog?"},
		{"far from every key", "colour: red\n", "colour (line 1): unknown key; allowed keys: " + topKeys},
		{"short and far", "foo: 1\n", "foo (line 1): unknown key; allowed keys: " + topKeys},
		{"odd key quoted", "\"a\\nb\": 1\n", `"a\nb" (line 1): unknown key; allowed keys: ` + topKeys},
		{"int", "cycles: abc\n", `cycles (line 1): "abc" is not an integer`},
		{"int quoted", "cycles: \"100\"\n", `cycles (line 1): "100" is not an integer`},
		{"int with a fraction", "cycles: 1.5\n", "cycles (line 1): 1.5 is not an integer"},
		{"int too large", "cycles: 99999999999999999999\n",
			"cycles (line 1): 99999999999999999999 is out of range: an integer in [-9223372036854775808, 9223372036854775807]"},
		{"float beyond an int", "warmup: 1e19\n",
			"warmup (line 1): 1e19 is out of range: an integer in [-9223372036854775808, 9223372036854775807]"},
		{"negative unsigned", "seed: -1\n", "seed (line 1): -1 is out of range: a non-negative integer in [0, 18446744073709551615]"},
		{"float", "traffic:\n  load: high\n", `traffic.load (line 2): "high" is not a number`},
		{"bool", "traffic: {drop_backlog: 1}\n", "traffic.drop_backlog (line 1): 1 is not true or false"},
		{"list", "qos:\n  sc2vl: 5\n", "qos.sc2vl (line 2): 5 is not a list"},
		{"list element", "topology:\n  dims: [4, four]\n", `topology.dims[1] (line 2): "four" is not an integer`},
		{"mapping", "traffic: uniform\n", `traffic (line 1): "uniform" is not a mapping of keys`},
		{"string", "engine: [actors]\n", "engine (line 1): a list is not a string"},
		{"document not a mapping", "- cycles: 5\n", "top level (line 1): a list is not a mapping of keys"},
		{"key not a scalar", "? [a]\n: 1\n", "top level (line 1): a list is not a key"},
		{"repeated key", "cycles: 1\nwarmup: 0\ncycles: 2\n", "cycles (line 3): repeated key (first at line 1)"},
		{"merged unknown key", "<<: {cycles: 300, cycels: 3}\n", "cycels (line 1): unknown key; did you mean cycles?"},
		{"alias of the wrong type", "traffic: &t {load: 0.5}\nswitch: {latency: *t}\n",
			"switch.latency.load (line 1): unknown key; allowed keys: rt, sb_in, sb_out, at, x_mport, x_central, fly"},
		{"alias inside itself", "qos: {sc2vl: &a [*a]}\n", "qos.sc2vl[0] (line 1): a list is not an integer"},
		{"every problem at once", "cylces: 1\ntraffic: {load: x, pattern: [a]}\n", "cylces (line 1): unknown key; did you mean cycles?\n" +
			"traffic.load (line 2): \"x\" is not a number\ntraffic.pattern (line 2): a list is not a string"},
		{"deep nesting", "cycles: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
			"cycles" + strings.Repeat("[0]", 38) + "… (line 1): nested more than 64 levels deep"},
		{"deeper than the parser goes", strings.Repeat("[", 100_000), "yaml: exceeded max depth of 10000"},
		{"second document", "cycles: 1\n---\ncycles: 2\n", "more than one YAML document"},
	} {
		cfg := fabric.Default()
		err := DecodeConfig([]byte(tc.yaml), &cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
		if cfg.Cycles != fabric.Default().Cycles {
			t.Errorf("%s: a refused file changed cycles to %d", tc.name, cfg.Cycles)
		}
	}
}

// TestDecodeConfigAccepts: what yaml.v3 reads as the right type still
// decodes, aliases and merge keys included.
func TestDecodeConfigAccepts(t *testing.T) {
	cfg := fabric.Default()
	data := "cycles: 1e4\nwarmup: 0x10\nseed: ~\nengine: 5\ntraffic: &t {drop_backlog: yes}\n" +
		"qos:\n  sc2vl: &v [0, 1, 2, 3, 4, 5, 6, 7, 6, 7]\ntopology:\n  <<: {kind: torus}\n  dims: [4, 4.0]\n"
	if err := DecodeConfig([]byte(data), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Cycles != 10000 || cfg.Warmup != 16 || cfg.Seed != 1 || cfg.Engine != "5" || !cfg.Traffic.DropBacklog ||
		cfg.Topology.Kind != "torus" || len(cfg.Topology.Dims) != 2 || cfg.Topology.Dims[1] != 4 {
		t.Errorf("decoded %+v", cfg)
	}
}

// TestDecodeConfigAliasBomb: a billion-laughs document is refused at once,
// in little memory, wherever the bomb is placed.
func TestDecodeConfigAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("qos:\n  sc2vl: [&a [1, 1, 1, 1, 1, 1, 1, 1, 1]")
	for c := 'b'; c <= 'j'; c++ {
		b.WriteString(", &" + string(c) + " [" + strings.Repeat("*"+string(c-1)+", ", 8) + "*" + string(c-1) + "]")
	}
	b.WriteString("]\nbomb: *j\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cfg := fabric.Default()
	err := DecodeConfig([]byte(b.String()), &cfg)
	runtime.ReadMemStats(&after)
	var kp KeyProblems
	if !errors.As(err, &kp) || len(kp) != 11 || kp[0].Error() != "qos.sc2vl[0] (line 2): a list is not an integer" ||
		kp[10].Error() != "bomb (line 3): unknown key; allowed keys: "+topKeys {
		t.Errorf("got %q", err)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 16 {
		t.Errorf("decoding the bomb allocated %d MiB", mb)
	}
}

// TestDecodeConfigCapsProblems: a file of many bad keys gives a short
// message.
func TestDecodeConfigCapsProblems(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	cfg := fabric.Default()
	err := DecodeConfig([]byte(b.String()), &cfg)
	var kp KeyProblems
	if !errors.As(err, &kp) || len(kp) != strictyaml.MaxReported+1 || kp[strictyaml.MaxReported].Error() != "and 980 more problems" {
		t.Errorf("got %v", err)
	}
}

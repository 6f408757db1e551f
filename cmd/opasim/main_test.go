package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/flow/runner"
	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/sim"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "opasim-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "opasim")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := testlong.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

func opasim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return o.String(), e.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// writer returns a function that writes text to the file name in dir and
// returns its path, failing the test if it cannot.
func writer(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// readFlowResults reads the results file of an opasim flow run.
func readFlowResults(t *testing.T, path string) runner.Results {
	t.Helper()
	var r runner.Results
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBadInput: every kind of bad input gets one clear message naming the
// field, the value and what is allowed, and exit status 2, never a panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	unknownKey := write("unknown.yaml", "traffic:\n  lode: 0.5\n")
	negLatency := write("neg.yaml", "switch:\n  latency:\n    fly: -3\n")
	badYAML := write("bad.yaml", "traffic: [\n")
	vlarbSL := write("vlarb.yaml", "qos:\n  vlarb_high: [{sl: 7, weight: 4}]\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"ports not a multiple of 4", []string{"run", "--ports", "46"}, []string{"topology.ports", "46", "multiple of 4"}},
		{"ports below 8", []string{"run", "--ports", "4"}, []string{"topology.ports", "4", "[8, 1048576]"}},
		{"ports beyond the limit", []string{"run", "--ports", "100000000"}, []string{"topology.ports", "100000000", "[8, 1048576]"}},
		{"load zero", []string{"run", "--load", "0"}, []string{"traffic.load", "0", "(0, 1]"}},
		{"load above 1", []string{"run", "--load", "1.5"}, []string{"traffic.load", "1.5", "(0, 1]"}},
		{"unknown pattern", []string{"run", "--pattern", "zigzag"}, []string{"traffic.pattern", "zigzag", "uniform"}},
		{"unknown scheduler", []string{"run", "--scheduler", "fifo"}, []string{"qos.scheduler", "fifo", "rr"}},
		{"unknown engine", []string{"run", "--engine", "gpu"}, []string{"engine", "gpu", "actors, sequential"}},
		{"unknown config key", []string{"run", "--config", unknownKey}, []string{"traffic.lode (line 2)", "unknown key; did you mean load?"}},
		{"negative latency", []string{"run", "--config", negLatency}, []string{"switch.latency.fly", "-3", "at least 1"}},
		{"missing config file", []string{"run", "--config", filepath.Join(dir, "nope.yaml")}, []string{"--config", "nope.yaml", "no such file"}},
		{"malformed YAML", []string{"run", "--config", badYAML}, []string{"--config", "bad.yaml"}},
		{"vlarb entry of no SL", []string{"run", "--scheduler", "vlarb", "--config", vlarbSL}, []string{"qos.vlarb_high[0].sl", "7", "[0, 5)"}},
		{"warmup beyond cycles", []string{"run", "--cycles", "100", "--warmup", "200"}, []string{"warmup", "200", "[0, cycles=100)"}},
		{"unknown flag", []string{"run", "--lod", "0.5"}, []string{"unknown flag", "--lod"}},
		{"flag of the wrong type", []string{"run", "--load", "high"}, []string{"--load", "high"}},
		{"preempt without its SLs", []string{"run", "--preempt", "VO"}, []string{"--preempt", `"VO"`, "SL:SL[,SL...]"}},
		{"preempt of no SL", []string{"run", "--preempt", "VO:XX"}, []string{"qos.preemption.preempts.VO[0]", "XX", "VO, VI, CL, BE, BK"}},
		{"preempt twice", []string{"run", "--preempt", "VO:BE", "--preempt", "VO:BK"}, []string{"--preempt", "VO is given twice"}},
		{"preempt in a cycle", []string{"run", "--preempt", "VO:BE", "--preempt", "BE:VO"}, []string{"qos.preemption.preempts", "no cycle"}},
		{"preempt min flits 0", []string{"run", "--preempt", "VO:BE", "--preempt-min-flits", "0"}, []string{"qos.preemption.min_flits", "0", "at least 1"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

// TestRunWritesResults: a short run prints a summary and writes a results
// file that describes itself.
func TestRunWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := opasim(t, "run", "--cycles", "4000", "--warmup", "1000", "--load", "0.3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"accepted", "latency", "conservation ok", "digest"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"config", "seed", "accepted_throughput", "offered_load", "latency", "network_latency",
		"conservation_ok", "digest", "wall_seconds", "cycles_per_second", "flits_per_second", "per_sl"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("results JSON lacks %q", k)
		}
	}
	var r sim.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Latency.P50Cycles <= 0 || r.Latency.MeanNs <= 0 || !r.ConservationOK || r.Config.Traffic.Load != 0.3 {
		t.Errorf("implausible results: %+v", r)
	}
}

// TestConfigFileAndFlags: a config file sets values, flags override it,
// and the effective config lands in the results.
func TestConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("cycles: 3000\nwarmup: 500\ntopology:\n  ports: 16\ntraffic:\n  pattern: transpose\n  load: 0.2\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	if _, stderr, code := opasim(t, "run", "--config", cfg, "--load", "0.4", "--engine", "sequential", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r sim.Results
	data, _ := os.ReadFile(out)
	json.Unmarshal(data, &r)
	c := r.Config
	if c.Topology.Ports != 16 || c.Traffic.Pattern != "transpose" || c.Traffic.Load != 0.4 || c.Cycles != 3000 || r.NICs != 16 {
		t.Errorf("effective config %+v", c)
	}
}

// TestPreemptFlags: --preempt gives the same run as the config file's
// qos.preemption, with min_flits 16 unless --preempt-min-flits says
// otherwise, and the summary counts the packets interrupted.
func TestPreemptFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "p.yaml")
	os.WriteFile(cfg, []byte("qos:\n  preemption:\n    preempts:\n      VO: [VI, CL, BE, BK]\n    min_flits: 16\n"), 0o644)
	base := []string{"run", "--traffic", "paper-mix", "--ports", "16", "--scheduler", "dtable", "--load", "0.9", "--cycles", "4000", "--warmup", "1000"}
	digest := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := opasim(t, append(append([]string{}, base...), args...)...)
		if code != 0 || !strings.Contains(stdout, "conservation ok") {
			t.Fatalf("%v: exit %d: %s%s", args, code, stdout, stderr)
		}
		if len(args) > 0 && !strings.Contains(stdout, "packets interrupted (VO>") {
			t.Errorf("%v: no preemption line:\n%s", args, stdout)
		}
		d := stdout[strings.Index(stdout, "digest"):]
		return d[:strings.Index(d, "\n")]
	}
	file, flag := digest("--config", cfg), digest("--preempt", "VO:VI,CL,BE,BK")
	if file != flag {
		t.Errorf("--preempt gives %q, the config file %q", flag, file)
	}
	if none, four := digest(), digest("--preempt", "VO:VI,CL,BE,BK", "--preempt-min-flits", "4"); none == file || four == file {
		t.Errorf("the same digest without preemption (%q) or with min_flits 4 (%q) as with 16", none, four)
	}
}

// expectRefused runs opasim with args and requires bad input's answer:
// exit status 2 within 5 seconds, no panic, a message mentioning every
// string of want.
func expectRefused(t *testing.T, name string, args, want []string) {
	t.Helper()
	start := time.Now()
	_, stderr, code := opasim(t, args...)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("%s: took %v to refuse", name, took.Round(time.Millisecond))
	}
	if code != 2 {
		t.Errorf("%s: exit status %d, want 2 (stderr: %.300s)", name, code, stderr)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("%s: panicked: %.500s", name, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: message %q does not mention %q", name, strings.TrimSpace(stderr), w)
		}
	}
}

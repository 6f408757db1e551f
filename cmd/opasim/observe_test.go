package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestObserveBadInput: bad observability flags, and a metrics address that
// is malformed, out of range, unknown or taken, are bad input (exit 2) with a message naming the flag.
func TestObserveBadInput(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"port taken", []string{"--metrics-addr", taken.Addr().String()}, []string{"--metrics-addr", "address already in use", "choose another port"}},
		{"no port", []string{"--metrics-addr", "localhost"}, []string{"--metrics-addr", "host:port"}},
		{"port out of range", []string{"--metrics-addr", ":65536"}, []string{"--metrics-addr", `":65536"`, "out of range"}},
		{"unknown host", []string{"--metrics-addr", "no-such-host.invalid:9464"}, []string{"--metrics-addr", "unknown host"}},
		{"unknown detail", []string{"--metrics-addr", "127.0.0.1:0", "--metrics-detail", "vl"}, []string{"--metrics-detail", `"vl"`, "switch, port"}},
		{"hold without address", []string{"--metrics-hold", "10s"}, []string{"--metrics-hold", "need --metrics-addr"}},
		{"negative hold", []string{"--metrics-addr", "127.0.0.1:0", "--metrics-hold", "-1s"}, []string{"--metrics-hold", "at least 0"}},
		{"bad pyroscope URL", []string{"--pyroscope-url", "127.0.0.1:4040"}, []string{"--pyroscope-url", "http://"}},
		{"pyroscope and cpuprofile", []string{"--pyroscope-url", "http://127.0.0.1:4040", "--cpuprofile", "cpu.out"}, []string{"--pyroscope-url", "--cpuprofile"}},
		{"bad run id", []string{"--pyroscope-url", "http://127.0.0.1:4040", "--run-id", "a b"}, []string{"--run-id", "letters"}},
		{"run id alone", []string{"--run-id", "a"}, []string{"--run-id", "--metrics-addr, --pyroscope-url or --distributed"}},
	} {
		_, stderr, code := opasim(t, append([]string{"run", "--cycles", "1000", "--warmup", "100"}, tc.args...)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", tc.name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, stderr, w)
			}
		}
	}
}

// TestMetricsListenAddr: a host-less address stays on loopback; any host
// given is kept.
func TestMetricsListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		":9464": "127.0.0.1:9464", "127.0.0.1:9464": "127.0.0.1:9464", "0.0.0.0:9464": "0.0.0.0:9464",
		"localhost:9464": "localhost:9464", "[::1]:9464": "[::1]:9464", ":0": "127.0.0.1:0",
	} {
		if got, err := metricsListenAddr(in); err != nil || got != want {
			t.Errorf("metricsListenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

var servingLine = regexp.MustCompile(`serving metrics on (http://\S+/metrics)`)

// TestRunServesMetrics: `opasim run --metrics-addr 127.0.0.1:0
// --metrics-hold` serves the final state of the run after it ends, until
// the hold ends or, here, an interrupt.
func TestRunServesMetrics(t *testing.T) {
	cmd := exec.Command(binary, "run", "--ports", "8", "--cycles", "20000", "--warmup", "2000",
		"--metrics-addr", "127.0.0.1:0", "--metrics-hold", "1m", "--metrics-detail", "port", "--run-id", "served-1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	defer func() { _ = cmd.Process.Kill() }()
	url := ""
	deadline := time.After(2 * time.Minute)
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("opasim ended before its hold: %v", <-exited)
			}
			if m := servingLine.FindStringSubmatch(l); m != nil && strings.Contains(l, "run over") {
				url = m[1]
			}
		case <-deadline:
			t.Fatal("no 'run over; serving metrics' line within 2 minutes")
		}
	}
	page := get(t, url)
	for _, want := range []string{`opasim_simulated_cycle{run_id="served-1"} 20000`, `opasim_configured_cycles{run_id="served-1"} 20000`,
		`opasim_delivered_flits_total{run_id="served-1",sl="VO"}`, `opasim_port_buffer_occupancy_flits{port="7",run_id="served-1",stage="output",switch="0"}`,
		"\ngo_goroutines ", "\nprocess_cpu_seconds_total "} { // the process's series, without run_id
		if !strings.Contains(page, want) {
			t.Errorf("/metrics after the run lacks %q", want)
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after an interrupted hold: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the hold did not end within 30 s of an interrupt")
	}
	if !strings.Contains(stdout.String(), "conservation ok") {
		t.Errorf("no summary on stdout:\n%s", stdout.String())
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestRunPyroscopeUnreachable: a Pyroscope server that is not there never
// fails the run: it ends normally with one warning.
func TestRunPyroscopeUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stdout, stderr, code := opasim(t, "run", "--ports", "8", "--cycles", "20000", "--warmup", "2000",
		"--pyroscope-url", "http://"+addr, "--run-id", "unreachable-1")
	if code != 0 || !strings.Contains(stdout, "conservation ok") {
		t.Fatalf("exit %d with the server gone\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "warning: pyroscope"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, stderr)
	}
}

package main

import (
	"net"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/monitor"
)

// TestServeMetricsAddrErrors: each way --metrics-addr can be wrong gets its
// own message, naming the flag and the value and saying what is wrong.
func TestServeMetricsAddrErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	n, err := buildNetwork(fabric.Default())
	if err != nil {
		t.Fatal(err)
	}
	m := monitor.NewMetrics(n, monitor.MetricsOptions{})
	const (
		malformed  = "is malformed"
		outOfRange = "is out of range"
		unknown    = "unknown host"
		inUse      = "address already in use"
	)
	categories := []string{malformed, outOfRange, unknown, inUse}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"localhost", []string{malformed, "missing port", "host:port"}},
		{"127.0.0.1:9464:1", []string{malformed, "too many colons", "host:port"}},
		{"127.0.0.1:", []string{malformed, "no port"}},
		{":http", []string{malformed, `port "http" is not a number`}},
		{"", []string{malformed}},
		{":65536", []string{outOfRange, "port 65536", "0 to 65535"}},
		{"127.0.0.1:-1", []string{outOfRange, "port -1"}},
		{":99999999999999999999", []string{outOfRange}},
		{"no-such-host.invalid:9464", []string{unknown, `"no-such-host.invalid"`}},
		{taken.Addr().String(), []string{inUse, "choose another port"}},
	} {
		s, err := serveMetrics(tc.value, m)
		if err == nil {
			s.Close()
			t.Errorf("%q: no error", tc.value)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--metrics-addr: ") || !strings.Contains(msg, `"`+tc.value+`"`) {
			t.Errorf("%q: %q does not name the flag and the value", tc.value, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: %q lacks %q", tc.value, msg, w)
			}
		}
		for _, c := range categories {
			if c != tc.want[0] && strings.Contains(msg, c) {
				t.Errorf("%q: %q also says %q", tc.value, msg, c)
			}
		}
	}
}

// TestServeMetricsAddrGood: a free port, port 0 and a host-less address
// serve.
func TestServeMetricsAddrGood(t *testing.T) {
	n, err := buildNetwork(fabric.Default())
	if err != nil {
		t.Fatal(err)
	}
	m := monitor.NewMetrics(n, monitor.MetricsOptions{})
	for _, value := range []string{"127.0.0.1:0", ":0", "localhost:0", ":+0"} {
		s, err := serveMetrics(value, m)
		if err != nil {
			t.Errorf("%q: %v", value, err)
			continue
		}
		if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
			t.Errorf("%q: serving on %s, want loopback", value, s.URL())
		}
		s.Close()
	}
}

package main

import "testing"

// TestHostileDistributed: bad input to a distributed run (`run
// --distributed N`, `member --join ADDR`) is refused with exit status 2
// before anything listens or runs, naming the flag, the value and what is
// allowed.
func TestHostileDistributed(t *testing.T) {
	tree := []string{"run", "--preset", "tree-8ary-2", "--distributed", "2"}
	run := func(args ...string) []string { return append(append([]string{}, tree...), args...) }
	member := func(args ...string) []string { return append([]string{"member", "--join", "127.0.0.1:7700"}, args...) }
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"join port out of range", []string{"member", "--join", "127.0.0.1:99999"}, []string{"--join", "127.0.0.1:99999", "port 99999", "[1, 65535]"}},
		{"join port 0", []string{"member", "--join", "127.0.0.1:0"}, []string{"--join", "port 0", "[1, 65535]"}},
		{"join port not a number", []string{"member", "--join", "127.0.0.1:http"}, []string{"--join", "port http", "[1, 65535]"}},
		{"join without a port", []string{"member", "--join", "notahost"}, []string{"--join", `"notahost"`, "not a host:port", "missing port"}},
		{"join host not resolvable", []string{"member", "--join", "notahost:7700"}, []string{"--join", `"notahost"`, "cannot be resolved"}},
		{"join without a host", []string{"member", "--join", ":7700"}, []string{"--join", `":7700"`, "no host"}},
		{"join missing", []string{"member"}, []string{"--join", "host:port is needed"}},
		{"member timeout negative", member("--timeout", "-1s"), []string{"--timeout", "-1s", "at least 1s"}},
		{"member timeout zero", member("--timeout", "0s"), []string{"--timeout", "0s", "at least 1s"}},
		{"member timeout below the heartbeats", member("--timeout", "500ms"), []string{"--timeout", "500ms", "at least 1s"}},
		{"member listen port out of range", member("--listen", "127.0.0.1:70000"), []string{"--listen", "port 70000", "[0, 65535]"}},
		{"member listen not an address", member("--listen", "loopback"), []string{"--listen", `"loopback"`, "not a host:port"}},
		{"member advertise without a port", member("--advertise", "10.0.0.1"), []string{"--advertise", `"10.0.0.1"`, "not a host:port"}},
		{"member advertise port 0", member("--advertise", "10.0.0.1:0"), []string{"--advertise", "port 0", "[1, 65535]"}},
		{"distributed on one switch", []string{"run", "--distributed", "2"}, []string{"--distributed", "2", "single switch", "[1, 1]"}},
		{"distributed beyond the network", []string{"run", "--preset", "tree-8ary-2", "--distributed", "100000"},
			[]string{"--distributed", "100000", "tree-8ary-2", "[1, 8]", "one member per switch of a tree level"}},
		{"distributed beyond a torus", []string{"run", "--preset", "torus2d-4x4", "--distributed", "17"}, []string{"--distributed", "17", "torus2d-4x4", "[1, 16]"}},
		{"distributed negative", []string{"run", "--preset", "tree-8ary-2", "--distributed", "-1"}, []string{"--distributed", "-1", "[1, 8]"}},
		{"distributed trace replay", run("--trace", "replay.vef"), []string{"--distributed", "replay.vef", "trace replay", "cannot run distributed"}},
		{"member-timeout zero", run("--member-timeout", "0s"), []string{"--member-timeout", "0s", "at least 1s"}},
		{"member-timeout negative", run("--member-timeout", "-5s"), []string{"--member-timeout", "-5s", "at least 1s"}},
		{"window-timeout negative", run("--window-timeout", "-1s"), []string{"--window-timeout", "-1s", "at least 1s"}},
		{"join-timeout zero", run("--join-timeout", "0s"), []string{"--join-timeout", "0s", "at least 1s"}},
		{"coordinator listen port out of range", run("--listen", "127.0.0.1:99999"), []string{"--listen", "port 99999", "[0, 65535]"}},
		{"coordinator advertise without a host", run("--advertise", ":7700"), []string{"--advertise", `":7700"`, "no host"}},
		{"member metrics-switches without port detail", member("--metrics-addr", "127.0.0.1:0", "--metrics-switches", "0-3"), []string{"--metrics-switches", "needs --metrics-detail port"}},
		{"member metrics-switches not a range", member("--metrics-addr", "127.0.0.1:0", "--metrics-detail", "port", "--metrics-switches", "0-x"), []string{"--metrics-switches", `"0-x"`, "not a switch number"}},
		{"member metrics-max-series zero", member("--metrics-addr", "127.0.0.1:0", "--metrics-max-series", "0"), []string{"--metrics-max-series", "0", "at least 1"}},
		{"member metrics-max-series without an address", member("--metrics-max-series", "10"), []string{"--metrics-max-series", "need --metrics-addr"}},
		{"window-timeout without distributed", []string{"run", "--window-timeout", "1m"}, []string{"--window-timeout", "needs --distributed"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
}

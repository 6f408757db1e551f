package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/monitor"
	"github.com/opasim/opasim/sim"
)

// observeFlags are the live-observability flags of `run`: Prometheus
// metrics while the run goes on, and profiles pushed to Pyroscope.
type observeFlags struct {
	metricsAddr   string
	metricsHold   time.Duration
	metricsDetail string
	pyroscopeURL  string
	runID         string
}

func (o *observeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on /metrics at this host:port while the run goes on, e.g. 127.0.0.1:9464 "+
		"(a bare :9464 stays on loopback; give 0.0.0.0:9464 to listen on every interface); off by default")
	fs.DurationVar(&o.metricsHold, "metrics-hold", 0, "keep serving metrics this long after the run ends so the last scrape is not lost, e.g. 30s (Ctrl-C ends it)")
	fs.StringVar(&o.metricsDetail, "metrics-detail", "switch", "finest grain of the metrics: switch, or port (adds per-port series)")
	fs.StringVar(&o.pyroscopeURL, "pyroscope-url", "", "push CPU and memory profiles to this Pyroscope server, e.g. http://127.0.0.1:4040; off by default")
	fs.StringVar(&o.runID, "run-id", "", "the run's id: label run_id of its metrics (every member's, with --distributed) and tag of its Pyroscope profiles "+
		"(default: the start time and a random suffix)")
}

// observation is the live observability of one run; each part is nil when
// its flag is off.
type observation struct {
	metrics  *monitor.Metrics
	server   *monitor.MetricsServer
	profiler *monitor.Profiling
	hold     time.Duration
	ran      bool
	log      io.Writer
}

// startObserving starts what the observability flags ask for (checked by
// observeFlags.check) on the built network n, before the run starts: a bad
// address or a taken port is an error (bad input); an unreachable
// Pyroscope server is not.
func startObserving(f *runFlags, n *fabric.Network, log io.Writer) (*observation, error) {
	o := &f.observe
	ob := &observation{hold: o.metricsHold, log: log}
	if o.metricsAddr != "" {
		ob.metrics = monitor.NewMetrics(n, monitor.MetricsOptions{PortDetail: o.metricsDetail == "port",
			Labels: prometheus.Labels{"run_id": o.id()}})
		var err error
		if ob.server, err = serveMetrics(o.metricsAddr, ob.metrics); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "opasim: serving metrics on %s\n", ob.server.URL())
	}
	if o.pyroscopeURL != "" {
		p, err := monitor.StartProfiling(monitor.ProfilingOptions{ServerURL: o.pyroscopeURL, Tags: profileTags(f, n.Config), Warn: log})
		if err != nil {
			ob.close(context.Background())
			return nil, fmt.Errorf("--pyroscope-url: %w", err)
		}
		ob.profiler = p
	}
	return ob, nil
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// checkMetricsDetail checks a --metrics-detail value (run's and member's).
func checkMetricsDetail(detail string) error {
	if detail != "switch" && detail != "port" {
		return fmt.Errorf("--metrics-detail: %q is not allowed: must be one of: switch, port", detail)
	}
	return nil
}

// id is the run's id: --run-id, or else the start time and a random
// suffix, made at the first call.
func (o *observeFlags) id() string {
	if o.runID == "" {
		var b [3]byte
		_, _ = rand.Read(b[:])
		o.runID = time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
	}
	return o.runID
}

// check returns every problem of the flags at once; distributed tells
// whether the run is distributed (its members label their metrics with
// the run's id).
func (o *observeFlags) check(cpuProfile string, distributed bool) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := checkMetricsDetail(o.metricsDetail); err != nil {
		errs = append(errs, err)
	}
	if o.metricsHold < 0 {
		bad("--metrics-hold: %v is not allowed: must be a duration of at least 0, e.g. 30s", o.metricsHold)
	}
	if o.metricsAddr == "" && (o.metricsHold != 0 || o.metricsDetail != "switch") {
		bad("--metrics-hold and --metrics-detail need --metrics-addr")
	}
	if o.runID != "" && !runIDPattern.MatchString(o.runID) {
		bad("--run-id: %q is not allowed: must be 1 to 64 letters, digits, '.', '_' or '-'", o.runID)
	}
	if o.runID != "" && o.pyroscopeURL == "" && o.metricsAddr == "" && !distributed {
		bad("--run-id names the run in its metrics and profiles: it needs --metrics-addr, --pyroscope-url or --distributed")
	}
	if o.pyroscopeURL != "" && cpuProfile != "" {
		bad("--pyroscope-url and --cpuprofile both need the Go CPU profiler: give one of them")
	}
	return errors.Join(errs...)
}

// profileTags tag a run's profiles: the preset (or, without one, the
// topology kind), the scheduler, the engine and the run id.
func profileTags(f *runFlags, cfg fabric.Config) map[string]string {
	preset := cfg.Topology.Preset
	if preset == "" {
		preset = cfg.Topology.Kind
	}
	return map[string]string{"preset": preset, "scheduler": cfg.QoS.Scheduler, "engine": cfg.Engine, "run_id": f.observe.id()}
}

// observer is what the engines call: nil when metrics are off.
func (ob *observation) observer() sim.Observer {
	if ob.metrics == nil {
		return nil
	}
	return ob.metrics
}

// finish publishes the final state of the run (res is nil when it did not
// run), once the engine has returned.
func (ob *observation) finish(res *sim.Results) {
	if ob.metrics == nil || res == nil {
		return
	}
	ob.ran = true
	ob.metrics.Finish(clock.Cycle(res.SimulatedCycles))
}

// close stops profiling, then keeps serving metrics for the hold (unless
// the run did not run or ctx is done: Ctrl-C ends the hold), then stops.
func (ob *observation) close(ctx context.Context) {
	if ob.profiler != nil {
		ob.profiler.Stop()
	}
	if ob.server == nil {
		return
	}
	if ob.hold > 0 && ob.ran && ctx.Err() == nil {
		fmt.Fprintf(ob.log, "opasim: run over; serving metrics on %s for %v more (Ctrl-C to stop)\n", ob.server.URL(), ob.hold)
		t := time.NewTimer(ob.hold)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	_ = ob.server.Close()
}

// benchObserver is the observer of `opasim bench --metrics` on network n:
// live metrics without a server, to measure what they cost the engines.
func benchObserver(on bool, n *fabric.Network) sim.Observer {
	if !on {
		return nil
	}
	return monitor.NewMetrics(n, monitor.MetricsOptions{})
}

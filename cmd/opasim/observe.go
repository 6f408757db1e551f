package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/monitor"
	"github.com/opasim/opasim/sim"
)

// observeFlags are the live-observability flags of `run`: Prometheus
// metrics while the run goes on, and profiles pushed to Pyroscope.
type observeFlags struct {
	metricsAddr      string
	metricsHold      time.Duration
	metricsDetail    string
	metricsSwitches  string
	metricsMaxSeries int64
	pyroscopeURL     string
	runID            string

	portSwitches []bool // --metrics-switches, parsed by checkSeries (nil: every switch)
	series       monitor.Series
}

func (o *observeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on /metrics at this host:port while the run goes on, e.g. 127.0.0.1:9464 "+
		"(a bare :9464 stays on loopback; give 0.0.0.0:9464 to listen on every interface); off by default")
	fs.DurationVar(&o.metricsHold, "metrics-hold", 0, "keep serving metrics this long after the run ends so the last scrape is not lost, e.g. 30s (Ctrl-C ends it)")
	fs.StringVar(&o.metricsDetail, "metrics-detail", "switch", "finest grain of the metrics: switch, or port (adds per-port series)")
	fs.StringVar(&o.metricsSwitches, "metrics-switches", "", "with --metrics-detail port: the switches whose ports get series, "+
		"numbers and ranges, e.g. 0-15,64 (default: every switch)")
	fs.Int64Var(&o.metricsMaxSeries, "metrics-max-series", monitor.DefaultSeriesLimit, "refuse a run whose metrics would have more series than this a scrape "+
		"(estimated from the network's size before it runs)")
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
			PortSwitches: o.portSwitches, Labels: prometheus.Labels{"run_id": o.id()}})
		var err error
		if ob.server, err = serveMetrics(o.metricsAddr, ob.metrics); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "opasim: serving metrics on %s (%d series a scrape)\n", ob.server.URL(), o.series.Total)
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
	if o.metricsAddr == "" && (o.metricsHold != 0 || o.metricsDetail != "switch" || o.metricsSwitches != "" ||
		o.metricsMaxSeries != monitor.DefaultSeriesLimit) {
		bad("--metrics-hold, --metrics-detail, --metrics-switches and --metrics-max-series need --metrics-addr")
	}
	if o.metricsSwitches != "" && o.metricsDetail != "port" {
		bad("--metrics-switches chooses the switches whose ports get series: it needs --metrics-detail port")
	}
	if o.metricsMaxSeries < 1 {
		bad("--metrics-max-series: %d is not allowed: must be at least 1 (default %d)", o.metricsMaxSeries, monitor.DefaultSeriesLimit)
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

// checkSeries estimates, before the network is built, the series its
// metrics would have a scrape (monitor.EstimateSeries) and refuses more
// than --metrics-max-series, naming what would fit; it parses
// --metrics-switches against the network's switches. A config that does
// not validate is left to the build to report.
func (o *observeFlags) checkSeries(cfg fabric.Config) error {
	if o.metricsAddr == "" || cfg.Validate(sched.Default()) != nil {
		return nil
	}
	switches, _, _ := cfg.TopologySpec().Size()
	if o.metricsSwitches != "" {
		sel, err := parseSwitches(o.metricsSwitches, switches)
		if err != nil {
			return err
		}
		o.portSwitches = sel
	}
	opts := monitor.MetricsOptions{PortDetail: o.metricsDetail == "port", PortSwitches: o.portSwitches}
	s := monitor.EstimateSeries(cfg, opts)
	o.series = s
	limit := o.metricsMaxSeries
	if s.Total <= limit {
		return nil
	}
	if !opts.PortDetail {
		return fmt.Errorf("--metrics-max-series: the metrics of this network would have %d series a scrape (%d switches), more than the limit of %d: "+
			"raise --metrics-max-series, or run without --metrics-addr", s.Total, switches, limit)
	}
	fit := ""
	if k := (limit - s.Switch) / max(s.PerSwitch, 1); k >= 1 && s.Switch <= limit {
		fit = fmt.Sprintf(", or choose at most %d switches with --metrics-switches (e.g. --metrics-switches 0-%d)", k, k-1)
	}
	return fmt.Errorf("--metrics-detail port: the metrics of this network would have %d series a scrape (%d switches with %d ports of %d series each, and %d others), "+
		"more than the limit of %d (--metrics-max-series): use --metrics-detail switch (%d series)%s, or raise --metrics-max-series",
		s.Total, s.Ported, s.Radix, s.PerPort, s.Switch, limit, s.Switch, fit)
}

// parseSwitches parses --metrics-switches: switch numbers and ranges
// (a-b, both included) separated by commas, each below switches.
func parseSwitches(value string, switches int64) ([]bool, error) {
	ranges, err := switchRanges(value, switches)
	if err != nil {
		return nil, err
	}
	sel := make([]bool, switches)
	for _, r := range ranges {
		for sw := r[0]; sw <= r[1]; sw++ {
			sel[sw] = true
		}
	}
	return sel, nil
}

// switchRanges are the ranges of --metrics-switches, each below switches.
func switchRanges(value string, switches int64) ([][2]int64, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("--metrics-switches: %q: %s: must be switch numbers and ranges from 0 to %d, e.g. 0-15,64", value, fmt.Sprintf(format, args...), switches-1)
	}
	var ranges [][2]int64
	for _, part := range strings.Split(value, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		b, errB := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
		switch {
		case errA != nil || errB != nil:
			return nil, bad("%q is not a switch number or a range a-b", strings.TrimSpace(part))
		case a > b:
			return nil, bad("range %d-%d is empty", a, b)
		case b >= switches:
			return nil, bad("switch %d is out of range: this network has %d switches", b, switches)
		}
		ranges = append(ranges, [2]int64{a, b})
	}
	return ranges, nil
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
// run), once the engine has returned; not after a signal (ctx done), when
// the server stops at once.
func (ob *observation) finish(ctx context.Context, res *sim.Results) {
	if ob.metrics == nil || res == nil || ctx.Err() != nil {
		return
	}
	ob.ran = true
	ob.metrics.Finish(clock.Cycle(res.SimulatedCycles))
}

// closeOn stops the metrics server as soon as ctx is done (a signal): no
// scrape then takes the CPU the run needs to stop and write its results.
func (ob *observation) closeOn(ctx context.Context) {
	if ob.server != nil {
		ob.server.CloseOn(ctx)
	}
}

// close stops profiling, then keeps serving metrics for the hold (unless
// the run did not run or ctx is done: Ctrl-C ends the hold), then stops:
// at once when ctx is done (a signal), else after the scrapes being
// answered (monitor.CloseGrace at most).
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
	if ctx.Err() != nil {
		_ = ob.server.CloseNow()
		return
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

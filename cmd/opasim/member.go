package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/distrib"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/monitor"
	"github.com/opasim/opasim/sim"
)

// memberOptions holds the flags of `opasim member`.
type memberOptions struct {
	d                                                 distFlags
	join, metricsAddr, metricsDetail, metricsSwitches string
	metricsMaxSeries                                  int64
}

func newMemberCmd() *cobra.Command {
	var o memberOptions
	cmd := &cobra.Command{
		Use:   "member --join HOST:PORT",
		Short: "Host part of a distributed run (opasim run --distributed N) until it ends",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runMember(cmd, &o) },
	}
	registerMemberFlags(cmd.Flags(), &o)
	return cmd
}

// registerMemberFlags registers the flags of `opasim member` on fs.
func registerMemberFlags(fs *pflag.FlagSet, o *memberOptions) {
	d := &o.d
	fs.StringVar(&o.join, "join", "", "the coordinator's host:port (opasim run --distributed prints it)")
	d.registerCommon(fs, "where this member listens for the coordinator and the other members (host:port; port 0 picks one)")
	fs.DurationVar(&d.timeout, "timeout", distrib.DefaultTimeout, "fail when the coordinator does not answer the join, or once the run is set up "+
		"sends nothing (no heartbeat: its process is stopped or cut off), for this long (at least 1s)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of this member's part of the run on /metrics at this host:port, "+
		"its opasim_ series labelled run_id=\"ID\" and member=\"INDEX\", the Go runtime's and process's member only (a bare :9464 stays on loopback); off by default")
	fs.StringVar(&o.metricsDetail, "metrics-detail", "switch", "finest grain of the metrics: switch, or port (adds per-port series)")
	fs.StringVar(&o.metricsSwitches, "metrics-switches", "", "with --metrics-detail port: the switches whose ports get series (of those this member runs), "+
		"numbers and ranges, e.g. 0-15,64 (default: every switch)")
	fs.Int64Var(&o.metricsMaxSeries, "metrics-max-series", monitor.DefaultSeriesLimit, "the most series a scrape of this member's metrics may have: "+
		"port detail that would have more is left out (a warning says so) and the member serves switch detail")
}

// runMember runs `opasim member`: it checks the flags, serves the
// member's metrics if asked and hosts its part of the run until it ends.
func runMember(cmd *cobra.Command, o *memberOptions) error {
	d := &o.d
	if err := checkMemberFlags(o); err != nil {
		return badInput(err)
	}
	tok, err := d.token()
	if err != nil {
		return badInput(err)
	}
	if !distrib.IsLoopback(d.listen) {
		fmt.Fprintf(cmd.ErrOrStderr(), "opasim: warning: --listen %s is reachable from other hosts; the run's traffic is not encrypted\n", d.listen)
	}
	mo := distrib.MemberOptions{Join: o.join, Listen: d.listen, Advertise: d.advertise, Token: tok,
		Timeout: d.timeout, Log: distLogger(cmd.ErrOrStderr())}
	if o.metricsAddr != "" {
		mm := memberMetrics{portDetail: o.metricsDetail == "port", switches: o.metricsSwitches, maxSeries: o.metricsMaxSeries, warn: cmd.ErrOrStderr()}
		srv, err := serveMemberMetrics(o.metricsAddr, mm, &mo)
		if err != nil {
			return badInput(err)
		}
		defer srv.Close()
		fmt.Fprintf(cmd.ErrOrStderr(), "opasim: serving this member's metrics on http://%s/metrics\n", srv.Addr)
	}
	ctx, stopped := signalCause(cmd.Context())
	err = distrib.RunMember(ctx, mo)
	if sig := stopped(); sig != nil && err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "opasim: %v\n", err)
		return sig
	}
	return err
}

// checkMemberFlags checks the flags of `opasim member` but the token: the
// coordinator's address, the timeout, the addresses and the metrics
// flags.
func checkMemberFlags(o *memberOptions) error {
	if err := checkJoin(o.join); err != nil {
		return err
	}
	if err := checkTimeout("--timeout", o.d.timeout); err != nil {
		return err
	}
	if err := o.d.checkAddresses(); err != nil {
		return err
	}
	if err := checkMetricsDetail(o.metricsDetail); err != nil {
		return err
	}
	if o.metricsAddr == "" && (o.metricsDetail != "switch" || o.metricsSwitches != "" || o.metricsMaxSeries != monitor.DefaultSeriesLimit) {
		return errors.New("--metrics-detail, --metrics-switches and --metrics-max-series need --metrics-addr")
	}
	if o.metricsSwitches != "" && o.metricsDetail != "port" {
		return errors.New("--metrics-switches chooses the switches whose ports get series: it needs --metrics-detail port")
	}
	if o.metricsMaxSeries < 1 {
		return fmt.Errorf("--metrics-max-series: %d is not allowed: must be at least 1 (default %d)", o.metricsMaxSeries, monitor.DefaultSeriesLimit)
	}
	if o.metricsSwitches != "" {
		// The network is known at setup: its switch count is checked then.
		if _, err := switchRanges(o.metricsSwitches, math.MaxInt32); err != nil {
			return err
		}
	}
	return nil
}

// memberMetrics are a member's metrics flags.
type memberMetrics struct {
	portDetail bool
	switches   string // --metrics-switches, checked for syntax
	maxSeries  int64
	warn       io.Writer
}

// options are the metrics options of the member's part p of network n: its
// groups, and port detail where asked, unless the switches named are not
// the network's or the series would be more than the limit (a warning
// says which, and the member serves switch detail).
func (mm memberMetrics) options(n *fabric.Network, p distrib.MemberPart) monitor.MetricsOptions {
	o := monitor.MetricsOptions{Groups: p.Owned, Labels: prometheus.Labels{"run_id": p.RunID, "member": strconv.Itoa(p.Index)}}
	if !mm.portDetail {
		return o
	}
	switches := n.NumSwitches()
	sel := make([]bool, switches)
	if mm.switches != "" {
		s, err := parseSwitches(mm.switches, int64(switches))
		if err != nil {
			fmt.Fprintf(mm.warn, "opasim: warning: %v; serving switch detail\n", err)
			return o
		}
		sel = s
	} else {
		for i := range sel {
			sel[i] = true
		}
	}
	owned := make([]bool, switches) // the switches of the groups this member runs
	for g, grp := range n.Groups {
		if g < len(p.Owned) && p.Owned[g] && grp.Kind == "switch" && grp.Switch >= 0 && grp.Switch < switches {
			owned[grp.Switch] = true
		}
	}
	for i := range sel {
		sel[i] = sel[i] && owned[i]
	}
	est := monitor.EstimateSeries(n.Config, monitor.MetricsOptions{PortDetail: true, PortSwitches: sel})
	if est.Total > mm.maxSeries {
		fmt.Fprintf(mm.warn, "opasim: warning: --metrics-detail port: this member's metrics would have up to %d series a scrape (%d switches with %d ports of %d series each), "+
			"more than the limit of %d (--metrics-max-series): serving switch detail; choose fewer switches with --metrics-switches, or raise --metrics-max-series\n",
			est.Total, est.Ported, est.Radix, est.PerPort, mm.maxSeries)
		return o
	}
	o.PortDetail, o.PortSwitches = true, sel
	return o
}

// signalCause is onSignals with the signal as the context's cause (a
// member tells the coordinator why it leaves): stopped returns the
// signalled error, as onSignals', however often it is called.
func signalCause(parent context.Context) (context.Context, func() error) {
	sigCtx, stop := onSignals(parent)
	var once sync.Once
	var sig error
	stopped := func() error {
		once.Do(func() { sig = stop() })
		return sig
	}
	ctx, cancel := context.WithCancelCause(parent)
	go func() {
		<-sigCtx.Done()
		if s := stopped(); s != nil {
			cancel(s)
			return
		}
		cancel(context.Canceled)
	}()
	return ctx, stopped
}

// serveMemberMetrics serves /metrics at value (as --metrics-addr of run)
// at once, empty until the member knows its part: then the live metrics
// of the groups it runs (monitor.Metrics watching those only, with port
// detail if asked) and its process's, its opasim_ series labelled with the
// run's id and the member's index, the process's with the index only. The
// member's series of switches and NICs are its own, so a sum over members is the run's (the dashboards' rule).
func serveMemberMetrics(value string, mm memberMetrics, mo *distrib.MemberOptions) (*http.Server, error) {
	addr, err := metricsListenAddr(value)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(value, err)
	}
	var current atomic.Pointer[monitor.Metrics]
	mo.Observe = func(n *fabric.Network, p distrib.MemberPart) sim.Observer {
		m := monitor.NewMetrics(n, mm.options(n, p))
		current.Store(m)
		return m
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", monitor.NewScraper(current.Load)) // one gather at a time, bounded memory (as run's)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, Addr: ln.Addr().String()}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

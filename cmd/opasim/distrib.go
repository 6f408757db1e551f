package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/distrib"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/monitor"
	"github.com/opasim/opasim/sim"
)

// tokenEnv names the environment variable that holds a distributed run's
// shared token when no --token-file is given. The token is never a flag
// value: a command line is visible to every user of the host (ps).
const tokenEnv = "OPASIM_TOKEN"

// minTokenBytes bounds a token from below: a short secret is guessed.
const minTokenBytes = 16

// distFlags are the flags of a distributed run, on `run` (the coordinator)
// and `member`.
type distFlags struct {
	members                             int
	listen, advertise                   string
	tokenFile                           string
	timeout, windowTimeout, joinTimeout time.Duration
	snapshotEvery                       time.Duration
	tok                                 []byte // the token, once check read it
}

func (d *distFlags) registerCommon(fs *pflag.FlagSet, listenHelp string) {
	fs.StringVar(&d.listen, "listen", "127.0.0.1:0", listenHelp)
	fs.StringVar(&d.advertise, "advertise", "", "the host:port the other processes reach this one at, when not the --listen address "+
		"(needed with a --listen on every interface, e.g. 0.0.0.0:7700)")
	fs.StringVar(&d.tokenFile, "token-file", "", "file holding the run's shared token (default: the "+tokenEnv+" environment variable)")
}

func (d *distFlags) registerRun(fs *pflag.FlagSet) {
	fs.IntVar(&d.members, "distributed", 0, "run across this many member processes (opasim member --join ADDR), this one the coordinator; "+
		"see docs/distributed.md")
	d.registerCommon(fs, "with --distributed: where the coordinator listens for members (host:port; port 0 picks one, printed on stderr)")
	fs.DurationVar(&d.timeout, "member-timeout", distrib.DefaultTimeout, "with --distributed: fail the run when a member sends nothing "+
		"(no report, no heartbeat: its process is stopped or cut off) for this long; a slow member sends heartbeats (at least 1s)")
	fs.DurationVar(&d.windowTimeout, "window-timeout", distrib.DefaultWindowTimeout, "with --distributed: fail the run when a window "+
		"(or the members' network builds, or their final totals) is not done within this long though every member sends heartbeats (at least 1s)")
	fs.DurationVar(&d.joinTimeout, "join-timeout", 10*time.Minute, "with --distributed: fail when the members have not all joined within this long (at least 1s)")
	fs.DurationVar(&d.snapshotEvery, "snapshot-every", distrib.DefaultSnapshotEvery, "with --distributed: take a snapshot of the members' totals "+
		"after this much wall time, for the partial results written if a member fails")
}

// token reads the shared token: the --token-file's contents (surrounding
// white space dropped), else $OPASIM_TOKEN.
func (d *distFlags) token() ([]byte, error) {
	var tok []byte
	from := tokenEnv
	if d.tokenFile != "" {
		data, err := os.ReadFile(d.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		tok, from = bytes.TrimSpace(data), "--token-file "+d.tokenFile
	} else {
		tok = []byte(os.Getenv(tokenEnv))
	}
	if len(tok) < minTokenBytes {
		return nil, fmt.Errorf("a distributed run needs a shared token of at least %d bytes in %s or a --token-file; %s has %d",
			minTokenBytes, tokenEnv, from, len(tok))
	}
	return tok, nil
}

// check refuses flags a distributed run cannot honour, on the effective
// config cfg, before anything is built or listens; it reads the token.
func (d *distFlags) check(fs *pflag.FlagSet, f *runFlags, cfg *fabric.Config) error {
	if d.members == 0 {
		for _, name := range []string{"listen", "advertise", "token-file", "member-timeout", "window-timeout", "join-timeout", "snapshot-every"} {
			if fs.Changed(name) {
				return fmt.Errorf("--%s needs --distributed", name)
			}
		}
		return nil
	}
	if err := checkMembers(d.members, cfg); err != nil {
		return err
	}
	if cfg.Trace.File != "" {
		return fmt.Errorf("--distributed: a trace replay (trace.file %s) cannot run distributed: its tasks' state is shared by every NIC", cfg.Trace.File)
	}
	for _, t := range []struct {
		flag string
		v    time.Duration
	}{{"--member-timeout", d.timeout}, {"--window-timeout", d.windowTimeout}, {"--join-timeout", d.joinTimeout}} {
		if err := checkTimeout(t.flag, t.v); err != nil {
			return err
		}
	}
	if d.snapshotEvery <= 0 {
		return fmt.Errorf("--snapshot-every: %s is not allowed: must be a positive duration, e.g. 1s", d.snapshotEvery)
	}
	if f.observe.metricsAddr != "" || f.observe.pyroscopeURL != "" {
		return errors.New("--metrics-addr and --pyroscope-url are not available with --distributed: the coordinator's copy of the network never runs")
	}
	if err := d.checkAddresses(); err != nil {
		return err
	}
	tok, err := d.token()
	d.tok = tok
	return err
}

// checkMembers refuses a member count the network of cfg cannot be shared
// among, worked out from its shape (a topology the build refuses is left
// to it).
func checkMembers(members int, cfg *fabric.Config) error {
	if p := cfg.Topology.Preset; p != "" {
		if _, err := topo.LookupPreset(p); err != nil {
			return nil
		}
	}
	spec := cfg.TopologySpec()
	if spec.Check() != nil {
		return nil
	}
	most, rule := distrib.MaxMembers(spec)
	if members < 1 || int64(members) > most {
		return fmt.Errorf("--distributed: %d is not allowed for %s: must be in [1, %d] (%s; 1 runs the whole network in one member)",
			members, spec.Describe(), most, rule)
	}
	return nil
}

// checkTimeout refuses a timeout of a distributed run below
// distrib.MinTimeout (its heartbeats come every distrib.HeartbeatEvery).
func checkTimeout(flag string, v time.Duration) error {
	if v < distrib.MinTimeout {
		return fmt.Errorf("%s: %s is not allowed: must be at least %s, e.g. 30s", flag, v, distrib.MinTimeout)
	}
	return nil
}

// checkAddresses checks --listen (and that it can be listened on now) and
// --advertise.
func (d *distFlags) checkAddresses() error {
	if err := distrib.CheckListen(d.listen); err != nil {
		return fmt.Errorf("--listen %w", err)
	}
	if d.advertise != "" {
		if _, err := distrib.CheckPeer(d.advertise); err != nil {
			return fmt.Errorf("--advertise %w", err)
		}
	}
	return nil
}

// resolveWait bounds the lookup of --join's host: a name that takes
// longer is refused (the members could not reach it either).
const resolveWait = 3 * time.Second

// checkJoin checks --join: host:port, the port in [1, 65535], the host a
// name that resolves or an address.
func checkJoin(join string) error {
	if join == "" {
		return errors.New("--join: the coordinator's host:port is needed (opasim run --distributed prints it)")
	}
	host, err := distrib.CheckPeer(join)
	if err != nil {
		return fmt.Errorf("--join %w", err)
	}
	if net.ParseIP(host) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveWait)
	defer cancel()
	if _, err := net.DefaultResolver.LookupHost(ctx, host); err != nil {
		why := err.Error()
		var de *net.DNSError
		if errors.As(err, &de) {
			why = de.Err
		}
		return fmt.Errorf("--join %s: the host %q cannot be resolved (%s): give the coordinator's address or a name this host resolves", join, host, why)
	}
	return nil
}

// distLogger logs a distributed run's events (joins, refusals) on w.
func distLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// runDistributed is `opasim run --distributed N`: it coordinates the run
// of n over N members and reports like a run in one process. A signal
// ends the run at the next window (results marked interrupted, exit 128 +
// the signal); before every member joined there is no run, and the
// members in the lobby are told.
func runDistributed(cmd *cobra.Command, f *runFlags, n *fabric.Network) error {
	stderr := cmd.ErrOrStderr()
	if !isLoopbackListen(f.dist.listen) {
		fmt.Fprintf(stderr, "opasim: warning: --listen %s is reachable from other hosts; the run's traffic is not encrypted (the token only gates the join)\n", f.dist.listen)
	}
	if groups := len(n.Groups); groups < 8*f.dist.members {
		fmt.Fprintf(stderr, "opasim: warning: %d groups for %d members: a window's work per member is small, the barrier across processes may cost more than it saves\n",
			groups, f.dist.members)
	}
	ctx, stopped := onSignals(cmd.Context())
	stopProfile, err := startProfiles(f.cpuProfile, f.memProfile, f.execTrace)
	if err != nil {
		stopped()
		return badInput(err)
	}
	total := n.Config.Cycles
	start := fmt.Sprintf("the %d members joined; simulating %d cycles", f.dist.members, total)
	if n.Config.Trace.File != "" {
		total, start = -1, fmt.Sprintf("the %d members joined; replaying %s", f.dist.members, n.Config.Trace.File)
	}
	progress, endProgress := runProgress(stderr, progressOf(cmd), "distributed run", total, start)
	res, rep, err := distrib.Coordinate(ctx, n, distrib.Options{Members: f.dist.members, Listen: f.dist.listen, Advertise: f.dist.advertise,
		Token: f.dist.tok, Timeout: f.dist.timeout, WindowTimeout: f.dist.windowTimeout, JoinTimeout: f.dist.joinTimeout,
		SnapshotEvery: f.dist.snapshotEvery, Log: distLogger(stderr), RunID: f.observe.id(), Listening: func(a string) {
			fmt.Fprintf(stderr, "opasim: coordinator listening on %s for %d members (run id %s)\n", a, f.dist.members, f.observe.id())
		}, Hooks: sim.Hooks{Progress: progress}})
	endProgress(res, err)
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	sig := stopped()
	if err != nil && sig != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "opasim: %v; no results\n", err)
		return sig
	}
	if err != nil {
		return reportFault(cmd, f.out, res, rep, err)
	}
	printDistReport(cmd.OutOrStdout(), rep)
	if err := report(cmd, f.out, res); err != nil {
		return err
	}
	if res.Interrupted && sig != nil {
		return sig
	}
	return nil
}

// reportFault reports a run a member fault ended: the partial results of
// the latest complete snapshot of the members' totals when there is one
// (summary, and the results JSON to out), and an error saying what was
// written; the exit status stays 1, a failed run's.
func reportFault(cmd *cobra.Command, out string, res *sim.Results, rep distrib.Report, fault error) error {
	if res == nil || res.Partial == nil {
		return fmt.Errorf("distributed run failed, no results written (no complete snapshot of the members' totals was taken before the fault; "+
			"the first is taken after --snapshot-every of the run): %w", fault)
	}
	printDistReport(cmd.OutOrStdout(), rep)
	printSummary(cmd.OutOrStdout(), res)
	where := "printed above (no --out)"
	if out != "" {
		if err := writeResultsJSON(out, res, cmd.ErrOrStderr()); err != nil {
			return fmt.Errorf("distributed run failed, and its partial results could not be written: %w; the fault: %w", err, fault)
		}
		where = "written to " + out
	}
	return fmt.Errorf("distributed run failed; partial results %s, up to cycle %d (the end of window %d, the latest snapshot of every member's totals; conservation not checked): %w",
		where, res.Partial.Cycle, res.Partial.Window, fault)
}

func printDistReport(w io.Writer, r distrib.Report) {
	perWindow := func(x int64) float64 {
		if r.Windows == 0 {
			return 0
		}
		return float64(x) / float64(r.Windows)
	}
	fmt.Fprintf(w, "distributed: %s\n", r.Plan.Describe())
	perMsg := 0.0
	if r.Msgs > 0 {
		perMsg = float64(r.Bytes) / float64(r.Msgs)
	}
	fmt.Fprintf(w, "distributed: %d windows, %d batches of %d messages, %d bytes (%.0f bytes/window, %.1f bytes/message); barrier %.1f us/window of %.1f us/window wall\n",
		r.Windows, r.Batches, r.Msgs, r.Bytes, perWindow(r.Bytes), perMsg, perWindow(r.Barrier.Nanoseconds())/1e3, perWindow(r.Wall.Nanoseconds())/1e3)
	fmt.Fprintf(w, "distributed: %d snapshots of the members' totals: %d bytes, %.1f ms of the members' time\n",
		r.Snapshots, r.SnapshotBytes, float64(r.SnapshotTime.Nanoseconds())/1e6)
}

func isLoopbackListen(addr string) bool { return distrib.IsLoopback(addr) }

func newMemberCmd() *cobra.Command {
	var d distFlags
	var join, metricsAddr, metricsDetail, metricsSwitches string
	var metricsMaxSeries int64
	cmd := &cobra.Command{
		Use:   "member --join HOST:PORT",
		Short: "Host part of a distributed run (opasim run --distributed N) until it ends",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkJoin(join); err != nil {
				return badInput(err)
			}
			if err := checkTimeout("--timeout", d.timeout); err != nil {
				return badInput(err)
			}
			if err := d.checkAddresses(); err != nil {
				return badInput(err)
			}
			if err := checkMetricsDetail(metricsDetail); err != nil {
				return badInput(err)
			}
			if metricsAddr == "" && (metricsDetail != "switch" || metricsSwitches != "" || metricsMaxSeries != monitor.DefaultSeriesLimit) {
				return badInput(errors.New("--metrics-detail, --metrics-switches and --metrics-max-series need --metrics-addr"))
			}
			if metricsSwitches != "" && metricsDetail != "port" {
				return badInput(errors.New("--metrics-switches chooses the switches whose ports get series: it needs --metrics-detail port"))
			}
			if metricsMaxSeries < 1 {
				return badInput(fmt.Errorf("--metrics-max-series: %d is not allowed: must be at least 1 (default %d)", metricsMaxSeries, monitor.DefaultSeriesLimit))
			}
			if metricsSwitches != "" {
				// The network is known at setup: its switch count is checked then.
				if _, err := switchRanges(metricsSwitches, math.MaxInt32); err != nil {
					return badInput(err)
				}
			}
			tok, err := d.token()
			if err != nil {
				return badInput(err)
			}
			if !distrib.IsLoopback(d.listen) {
				fmt.Fprintf(cmd.ErrOrStderr(), "opasim: warning: --listen %s is reachable from other hosts; the run's traffic is not encrypted\n", d.listen)
			}
			mo := distrib.MemberOptions{Join: join, Listen: d.listen, Advertise: d.advertise, Token: tok,
				Timeout: d.timeout, Log: distLogger(cmd.ErrOrStderr())}
			if metricsAddr != "" {
				mm := memberMetrics{portDetail: metricsDetail == "port", switches: metricsSwitches, maxSeries: metricsMaxSeries, warn: cmd.ErrOrStderr()}
				srv, err := serveMemberMetrics(metricsAddr, mm, &mo)
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
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&join, "join", "", "the coordinator's host:port (opasim run --distributed prints it)")
	d.registerCommon(fs, "where this member listens for the coordinator and the other members (host:port; port 0 picks one)")
	fs.DurationVar(&d.timeout, "timeout", distrib.DefaultTimeout, "fail when the coordinator does not answer the join, or once the run is set up "+
		"sends nothing (no heartbeat: its process is stopped or cut off), for this long (at least 1s)")
	fs.StringVar(&metricsAddr, "metrics-addr", "", "serve Prometheus metrics of this member's part of the run on /metrics at this host:port, "+
		"its opasim_ series labelled run_id=\"ID\" and member=\"INDEX\", the Go runtime's and process's member only (a bare :9464 stays on loopback); off by default")
	fs.StringVar(&metricsDetail, "metrics-detail", "switch", "finest grain of the metrics: switch, or port (adds per-port series)")
	fs.StringVar(&metricsSwitches, "metrics-switches", "", "with --metrics-detail port: the switches whose ports get series (of those this member runs), "+
		"numbers and ranges, e.g. 0-15,64 (default: every switch)")
	fs.Int64Var(&metricsMaxSeries, "metrics-max-series", monitor.DefaultSeriesLimit, "the most series a scrape of this member's metrics may have: "+
		"port detail that would have more is left out (a warning says so) and the member serves switch detail")
	return cmd
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

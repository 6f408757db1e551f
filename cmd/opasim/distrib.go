package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opasim/opasim/distrib"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one simulation (with no arguments: one 48-port switch, uniform traffic, load 0.5)",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runOnce(cmd, &f) },
	}
	f.register(cmd.Flags())
	registerProgress(cmd.Flags(), "the cycles simulated of the total (of the whole run when distributed)")
	return cmd
}

// engines are the engines a config's `engine` names.
var engines = map[string]sim.Engine{"sequential": sim.Sequential{}, "actors": actors.Engine{}}

// runOnce is `opasim run`: it checks the flags and the output paths, builds
// the network, starts the observability the flags ask for on it, runs it
// and reports. A signal stops the run; its results are still written.
func runOnce(cmd *cobra.Command, f *runFlags) error {
	cfg, err := f.effective(cmd.Flags())
	if err != nil {
		return badInput(err)
	}
	if err := f.observe.check(f.cpuProfile, f.dist.members > 0); err != nil {
		return badInput(err)
	}
	if err := f.dist.check(cmd.Flags(), f, &cfg); err != nil {
		return badInput(err)
	}
	if err := f.checkOutputs(); err != nil {
		return err
	}
	if err := f.observe.checkSeries(cfg); err != nil {
		return badInput(err)
	}
	n, err := buildNetwork(cfg)
	if err != nil {
		return err
	}
	if f.dist.members > 0 {
		return runDistributed(cmd, f, n)
	}
	ctx, stopped := onSignals(cmd.Context())
	res, err := f.execute(ctx, cmd, n)
	sig := stopped()
	if err != nil {
		return err
	}
	if err := report(cmd, f.out, res); err != nil {
		return err
	}
	if res.Interrupted && sig != nil {
		return sig // a signal that only ended --metrics-hold is no failure
	}
	return nil
}

// report prints the summary of a run and writes its results to out (when
// given); a blocked network or a failed conservation check is an error.
func report(cmd *cobra.Command, out string, res *sim.Results) error {
	printSummary(cmd.OutOrStdout(), res)
	if out != "" {
		if err := writeResultsJSON(out, res, cmd.ErrOrStderr()); err != nil {
			return err
		}
	}
	if t := res.Trace; t != nil && t.Stalled {
		return fmt.Errorf("the trace replay stalled: every task left waits on something that cannot happen:\n  %s", strings.Join(t.Blocking, "\n  "))
	}
	if res.Blocked {
		what := fmt.Sprintf("nothing moved for %d cycles with packets inside", res.Config.WatchdogCycles)
		if res.PartialDeadlock {
			what = fmt.Sprintf("deadlock: buffer heads did not move for %d cycles", res.Config.WatchdogCycles)
		}
		return fmt.Errorf("the network is blocked (%s); stuck:\n  %s", what, strings.Join(res.Stuck, "\n  "))
	}
	if !res.ConservationOK {
		return fmt.Errorf("conservation check failed: %v", res.ConservationProblems)
	}
	return nil
}

// simulate builds the network and runs it on the configured engine. A
// config error is bad input.
func simulate(ctx context.Context, cfg fabric.Config, hooks sim.Hooks) (*sim.Results, error) {
	n, err := buildNetwork(cfg)
	if err != nil {
		return nil, err
	}
	return runNetwork(ctx, n, hooks)
}

// buildNetwork builds the network of cfg (reading the files it names); a
// config error is bad input.
func buildNetwork(cfg fabric.Config) (*fabric.Network, error) {
	n, err := sim.Build(cfg)
	if err != nil {
		return nil, badInput(err)
	}
	return n, nil
}

// runNetwork runs n on the engine its config names.
func runNetwork(ctx context.Context, n *fabric.Network, hooks sim.Hooks) (*sim.Results, error) {
	return sim.Execute(ctx, n, engines[n.Config.Engine], hooks)
}

// runProgress shows a run's progress on w as --progress says: the cycle
// reached of cycles (-1: an end not known in advance, a trace's: no ETA).
// It starts (its first line, its clock) at the hook's first call, as the
// first window opens: for a distributed run, once every member joined.
// The hook it returns is the engine's (nil when nothing is shown); the
// function ends the display with the cycles simulated (call it before
// printing the summary), if the run began. It changes nothing in the run.
func runProgress(w io.Writer, pf *progressFlags, what string, cycles int64, start string) (sim.Progress, func(*sim.Results, error)) {
	if pf.mode == progressOff {
		return nil, func(*sim.Results, error) {}
	}
	var (
		once sync.Once
		p    *progress
	)
	begin := func() { p = startProgress(w, pf, what, "cycles", cycles, "%s", start) }
	return func(c clock.Cycle) {
			once.Do(begin)
			p.set(int64(c), 0)
		}, func(res *sim.Results, err error) {
			if res == nil {
				once.Do(func() {}) // it never began: nothing to end
			}
			once.Do(begin)
			if res != nil {
				p.set(res.SimulatedCycles, 0)
			}
			p.finish(finishState(err, res != nil && res.Interrupted))
		}
}

func printSummary(w io.Writer, r *sim.Results) {
	c := r.Config
	engine := r.Engine
	if r.Partitions > 0 {
		engine += fmt.Sprintf(" (%s)", plural(r.Partitions, "partition", "partitions"))
	}
	fmt.Fprintf(w, "opasim: %s; %s, %d NICs; %s traffic at %.3g flits/cycle/NIC, scheduler %s, engine %s, seed %d\n",
		r.Topology, plural(r.Switches, "switch", "switches"), r.NICs, c.Traffic.Pattern, c.Traffic.Load, c.QoS.Scheduler, engine, r.Seed)
	if r.ThrottledMessages > 0 {
		fmt.Fprintf(w, "warning: from cycle %d the NICs' application queues were full (traffic.max_queued_packets = %d per NIC) and %d messages were not queued:\n"+
			"  the offered load is above what the network accepts; accepted throughput is the saturation figure, latencies grow with the run\n",
			r.FirstThrottleCycle, r.MaxQueuedPackets, r.ThrottledMessages)
	}
	if r.Interrupted {
		fmt.Fprintf(w, "interrupted at cycle %d: results cover what was simulated\n", r.SimulatedCycles)
	}
	fmt.Fprintf(w, "cycles %d (warm-up %d, measured %d), one cycle = %.2f ns\n", r.SimulatedCycles, c.Warmup, r.MeasuredCycles, r.CycleNs)
	fmt.Fprintf(w, "offered   %.4f flits/cycle/NIC\naccepted  %.4f flits/cycle/NIC\n", r.OfferedLoad, r.AcceptedThroughput)
	fmt.Fprintf(w, "latency   mean %.1f cycles (%.1f ns), p50 %d, p99 %d over %d messages\n",
		r.Latency.MeanCycles, r.Latency.MeanNs, r.Latency.P50Cycles, r.Latency.P99Cycles, r.Latency.Messages)
	fmt.Fprintf(w, "network   mean %.1f cycles (%.1f ns), p50 %d, p99 %d\n",
		r.NetworkLatency.MeanCycles, r.NetworkLatency.MeanNs, r.NetworkLatency.P50Cycles, r.NetworkLatency.P99Cycles)
	fmt.Fprintf(w, "%-4s %9s %9s %7s %10s %8s %8s\n", "SL", "offered", "accepted", "share", "mean lat", "p50", "p99")
	for _, s := range r.PerSL {
		fmt.Fprintf(w, "%-4s %9.4f %9.4f %7.3f %10.1f %8d %8d\n", s.SL, s.OfferedLoad, s.AcceptedThroughput,
			s.NormalizedThroughput, s.Latency.MeanCycles, s.Latency.P50Cycles, s.Latency.P99Cycles)
	}
	printVLRate(w, &c)
	ok := "ok"
	switch {
	case r.Partial != nil: // a distributed run's snapshot: the messages in transit are in no member's totals
		ok = fmt.Sprintf("not checked (partial results: the members' totals at the end of window %d, cycle %d; %s failed)",
			r.Partial.Window, r.Partial.Cycle, r.Partial.Failed)
	case !r.ConservationOK:
		ok = "FAILED"
	}
	view := c.QoS.SchedulerView
	if view == "" {
		view = fabric.ViewEligible
	}
	fmt.Fprintf(w, "scheduler %s, view %s: %d decisions, %d wasted (%d on a header not ready), hit rate %.4f (switch ports %.4f, NICs %.4f)\n",
		c.QoS.Scheduler, view, r.SchedulerDecisions, r.SchedulerWasted, r.WastedNotReady, r.SchedulerHitRate, r.SwitchHitRate, r.NICHitRate)
	fmt.Fprintf(w, "          %.4f decisions per scheduler per cycle, %d link cycles idled by the schedulers (switch ports %d, NICs %d)\n",
		r.DecisionsPerCycle, r.SchedulerIdleCycles, r.SwitchSchedulerIdleCycles, r.NICSchedulerIdleCycles)
	if pr := r.Preemption; pr != nil {
		pairs := make([]string, 0, len(pr.ByPair))
		for _, k := range slices.Sorted(maps.Keys(pr.ByPair)) {
			pairs = append(pairs, fmt.Sprintf("%s %d", k, pr.ByPair[k]))
		}
		fmt.Fprintf(w, "preemption: %d packets interrupted (%s), %d link cycles held for a late flit\n",
			pr.Preemptions, strings.Join(pairs, ", "), pr.HoleCycles)
	}
	if is := r.Islip; is != nil {
		fmt.Fprintf(w, "islip:    %d iterations, %d matches, %d windows lost, %d grants declined (whole run)\n",
			is.Iterations, is.Matches, is.LostWindows, is.Declined)
	}
	printTrace(w, r)
	fmt.Fprintf(w, "conservation %s, digest %s\n", ok, r.Digest)
	fmt.Fprintf(w, "speed     %.0f cycles/s, %.0f flits/s, %.2f s wall\n", r.CyclesPerSecond, r.FlitsPerSecond, r.WallSeconds)
}

// printVLRate prints the most one VL carries over a link into a switch,
// its buffer space over its credit loop (fabric.Config.VLRate): an SL's
// message travels on one VL, so a stream of one SL gets at most that.
// Per SL when their MTUs make it differ.
func printVLRate(w io.Writer, c *fabric.Config) {
	if len(c.QoS.SLs) == 0 {
		return
	}
	same := true
	for i := range c.QoS.SLs {
		same = same && c.VLRate(i) == c.VLRate(0)
	}
	if same {
		fmt.Fprintf(w, "vl rate   at most %.3f flits/cycle a VL into a switch (space over a %d-cycle credit loop, docs/model.md)\n",
			c.VLRate(0), c.CreditLoop(0))
		return
	}
	parts := make([]string, len(c.QoS.SLs))
	for i, sl := range c.QoS.SLs {
		parts[i] = fmt.Sprintf("%s %.3f", sl.Name, c.VLRate(i))
	}
	fmt.Fprintf(w, "vl rate   at most, flits/cycle a VL into a switch: %s (space over the credit loop, docs/model.md)\n", strings.Join(parts, ", "))
}

// checkOutputs makes sure every file the run writes can be written before
// it simulates anything.
func (f *runFlags) checkOutputs() error {
	return checkOptional([2]string{"--out", f.out}, [2]string{"--cpuprofile", f.cpuProfile},
		[2]string{"--memprofile", f.memProfile}, [2]string{"--exectrace", f.execTrace})
}

// execute runs n with the observability and profiles the flags ask for.
func (f *runFlags) execute(ctx context.Context, cmd *cobra.Command, n *fabric.Network) (*sim.Results, error) {
	obs, err := startObserving(f, n, cmd.ErrOrStderr())
	if err != nil {
		return nil, badInput(err)
	}
	obs.closeOn(ctx)
	defer obs.close(ctx)
	stopProfile, err := startProfiles(f.cpuProfile, f.memProfile, f.execTrace)
	if err != nil {
		return nil, badInput(err)
	}
	total := n.Config.Cycles
	if n.Config.Trace.File != "" {
		total = -1 // the trace's end ends the run: a count of cycles and their rate, no ETA
	}
	start := fmt.Sprintf("simulating %d cycles (engine %s)", total, n.Config.Engine)
	if total < 0 {
		start = fmt.Sprintf("replaying %s (engine %s)", n.Config.Trace.File, n.Config.Engine)
	}
	progress, endProgress := runProgress(os.Stderr, progressOf(cmd), "run", total, start)
	res, err := runNetwork(ctx, n, sim.Hooks{Progress: progress, Observer: obs.observer()})
	endProgress(res, err)
	obs.finish(ctx, res)
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	return res, err
}

// writeResultsJSON writes the results JSON to path; if that fails, it
// prints the JSON to stderr rather than lose a finished run.
func writeResultsJSON(path string, v any, stderr io.Writer) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := writeFileAtomic(path, data); err != nil {
		fmt.Fprintf(stderr, "opasim: could not write %s (%v); the results follow on stderr:\n", path, err)
		_, _ = stderr.Write(data)
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// printTrace prints what a trace replay measured.
func printTrace(w io.Writer, r *sim.Results) {
	t := r.Trace
	if t == nil {
		return
	}
	state := "ended"
	switch {
	case t.Stalled:
		state = "STALLED"
	case !t.Finished:
		state = "not finished"
	}
	ended := 0
	for _, e := range t.TaskEndCycles {
		if e >= 0 {
			ended++
		}
	}
	fmt.Fprintf(w, "trace     %s: %s, %d of %d tasks ended; %d records, %d messages delivered, %d flits\n",
		t.File, state, ended, t.Tasks, t.Records, t.Messages, t.Flits)
	if t.Finished {
		fmt.Fprintf(w, "trace     execution time %d cycles (%.1f us); message latency mean %.1f cycles, p50 %d, p99 %d, max %d\n",
			t.ExecutionCycles, t.ExecutionNs/1000, t.Latency.MeanCycles, t.Latency.P50Cycles, t.Latency.P99Cycles, t.Latency.MaxCycles)
	}
}

// Command speedgate fails CI when HEAD is slower than a baseline commit or
// needs more memory.
//
// It builds the baseline commit named in .ci/speed-baseline (with git
// archive into a temporary directory, so the work tree is not touched) and
// the work tree, runs the reference scenarios as whole processes,
// alternated (baseline and HEAD one after the other, five pairs of each
// scenario by default), measures each process's wall time and peak RSS,
// and prints a table. It exits 1 when a scenario's median of the per-pair
// time ratios HEAD/baseline exceeds --max-time-ratio (1.10) or its ratio
// of the median peak RSS exceeds --max-rss-ratio (1.20), 2 when it cannot
// measure (a build or a run failed, bad flags), and 0 otherwise.
//
//	go run ./cmd/speedgate                         # what .ci/run does
//	go run ./cmd/speedgate --head-bin /tmp/slow    # time a prebuilt binary as HEAD
//
// See docs/performance.md, "The speed gate".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type options struct {
	baselineFile     string
	repo             string
	baseBin, headBin string
	pairs            int
	lim              limits
	scenarios        string
}

func parseFlags(args []string, errOut io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("speedgate", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&o.baselineFile, "baseline-file", ".ci/speed-baseline", "file naming the baseline commit and why it is the baseline")
	fs.StringVar(&o.repo, "repo", ".", "the repository: HEAD is built from its work tree, the baseline from its history")
	fs.StringVar(&o.baseBin, "base-bin", "", "a prebuilt opasim to time as the baseline instead of building the baseline commit")
	fs.StringVar(&o.headBin, "head-bin", "", "a prebuilt opasim to time as HEAD instead of building the work tree")
	fs.IntVar(&o.pairs, "pairs", 5, "alternated baseline/HEAD pairs of each scenario")
	fs.Float64Var(&o.lim.Time, "max-time-ratio", 1.10, "fail when a scenario's median HEAD/baseline wall-time ratio exceeds this")
	fs.Float64Var(&o.lim.RSS, "max-rss-ratio", 1.20, "fail when a scenario's HEAD/baseline peak-RSS ratio exceeds this")
	fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated words: run only the scenarios whose names contain one (default all)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.pairs < 1 {
		return o, fmt.Errorf("--pairs %d: at least 1", o.pairs)
	}
	if !(o.lim.Time > 0) || !(o.lim.RSS > 0) {
		return o, fmt.Errorf("--max-time-ratio %g, --max-rss-ratio %g: both must be > 0", o.lim.Time, o.lim.RSS)
	}
	return o, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errGate is returned when a scenario failed a limit.
var errGate = errors.New("speed gate failed")

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	o, err := parseFlags(args, errOut)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(errOut, "speedgate:", err)
		}
		return 2
	}
	if err := gate(ctx, o, out); err != nil {
		if errors.Is(err, errGate) {
			fmt.Fprintln(errOut, "speedgate:", err)
			return 1
		}
		fmt.Fprintln(errOut, "speedgate:", err)
		return 2
	}
	return 0
}

func gate(ctx context.Context, o options, out io.Writer) error {
	scs, err := selectScenarios(scenarios, o.scenarios)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "speedgate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	bins := map[string]string{"base": o.baseBin, "head": o.headBin}
	label := "the prebuilt " + o.baseBin
	if o.baseBin == "" || o.headBin == "" {
		var commit string
		if o.baseBin == "" {
			b, err := readBaseline(o.baselineFile)
			if err != nil {
				return err
			}
			commit = b.Commit
			label = fmt.Sprintf("%s (%s)", b.Commit[:12], b.Why)
		}
		built, err := buildMissing(ctx, o, commit, tmp, out)
		if err != nil {
			return err
		}
		for side, bin := range built {
			bins[side] = bin
		}
	}
	for _, side := range []string{"base", "head"} {
		// One unmeasured start of each binary, so neither side's first
		// measured run pays for reading it from disk.
		if err := exec.CommandContext(ctx, bins[side], "--help").Run(); err != nil {
			return fmt.Errorf("%s binary %s: %v", side, bins[side], err)
		}
	}
	fmt.Fprintf(out, "baseline: %s\nHEAD: %s\n", label, headLabel(o))
	fmt.Fprintf(out, "limits: median time ratio <= %.2f, peak RSS ratio <= %.2f; pairs a scenario: %d; load average %s\n",
		o.lim.Time, o.lim.RSS, o.pairs, loadAverage())
	start := time.Now()
	outs, err := measure(ctx, bins, tmp, scs, o.pairs, out)
	if err != nil {
		return err
	}
	vs := make([]verdict, len(outs))
	failed := 0
	for i, oc := range outs {
		vs[i] = judge(oc, o.lim)
		if !vs[i].Pass() {
			failed++
		}
	}
	fmt.Fprintf(out, "\nmeasured in %.0f s; load average %s\n\n", time.Since(start).Seconds(), loadAverage())
	writeTable(out, vs, o.lim)
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d scenarios over a limit", errGate, failed, len(vs))
	}
	fmt.Fprintf(out, "\nspeed gate passed: %d scenarios within the limits\n", len(vs))
	return nil
}

func headLabel(o options) string {
	if o.headBin != "" {
		return "the prebuilt " + o.headBin
	}
	return "the work tree at " + o.repo
}

// loadAverage is the first three fields of /proc/loadavg ("?" where there
// is none): how busy the machine was while the gate measured.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

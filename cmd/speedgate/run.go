package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// scenario is one reference run: opasim's arguments and the GOMAXPROCS
// its process gets.
type scenario struct {
	Name  string
	Args  []string
	Procs int
}

// scenarios are the reference runs, sized so that five pairs of all three
// and both builds fit in about five minutes on an idle 2-core machine:
// the fat trees of issue 31 on the sequential engine at one core, and the
// actor engine on two. Each reads refConfigFile, which gives the buffers
// explicitly, so that both builds simulate the same network whatever
// their defaults.
var scenarios = []scenario{
	{"tree-8ary-3 0.7 sequential P1", []string{"run", "--config", refConfigFile, "--preset", "tree-8ary-3", "--load", "0.7",
		"--cycles", "6000", "--warmup", "1000", "--engine", "sequential"}, 1},
	{"tree-24ary-2 0.7 sequential P1", []string{"run", "--config", refConfigFile, "--preset", "tree-24ary-2", "--load", "0.7",
		"--cycles", "6000", "--warmup", "1000", "--engine", "sequential"}, 1},
	{"tree-8ary-3 0.7 actors P2", []string{"run", "--config", refConfigFile, "--preset", "tree-8ary-3", "--load", "0.7",
		"--cycles", "6000", "--warmup", "1000", "--engine", "actors"}, 2},
}

// refConfigFile is the scenarios' config, written into the directory the
// runs start in: seed 002's buffers (the defaults until seed 000's became
// them), which the baseline's reference figures were measured with.
const refConfigFile = "speedgate-buffers.yaml"

const refConfig = `switch:
  flits_per_credit: 4
  input_buffer_flits: 256
  output_buffer_flits: 256
  central_buffer_flits: 256
  exclusive_vl_flits: 16
  max_vl_flits: 48
nic:
  injection_buffer_flits: 256
  receive_buffer_flits: 256
`

// selectScenarios returns the scenarios whose names contain one of the
// comma-separated words of filter (all of them for an empty filter).
func selectScenarios(all []scenario, filter string) ([]scenario, error) {
	if strings.TrimSpace(filter) == "" {
		return all, nil
	}
	var out []scenario
	for _, sc := range all {
		for _, w := range strings.Split(filter, ",") {
			if w = strings.TrimSpace(w); w != "" && strings.Contains(sc.Name, w) {
				out = append(out, sc)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--scenarios %q matches none of the scenarios", filter)
	}
	return out, nil
}

// order says which side runs first in pair i: the baseline in even pairs,
// HEAD in odd ones, so that a drift of the machine's speed during the
// gate weighs on both sides alike.
func order(i int) (first, second string) {
	if i%2 == 0 {
		return "base", "head"
	}
	return "head", "base"
}

var digestRE = regexp.MustCompile(`(?m)\bdigest ([0-9a-f]{8,})\b`)

// parseDigest finds the digest a run printed ("" when none).
func parseDigest(out []byte) string {
	if m := digestRE.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

// childEnv is env with GOMAXPROCS set to procs (any earlier value
// dropped).
func childEnv(env []string, procs int) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if !strings.HasPrefix(e, "GOMAXPROCS=") {
			out = append(out, e)
		}
	}
	return append(out, "GOMAXPROCS="+strconv.Itoa(procs))
}

// runOnce runs bin with sc's arguments as a process of its own in dir and
// measures it: wall time from start to exit, peak RSS, digest.
func runOnce(ctx context.Context, bin, dir string, sc scenario) (sample, error) {
	cmd := exec.CommandContext(ctx, bin, sc.Args...)
	cmd.Dir = dir
	cmd.Env = childEnv(os.Environ(), sc.Procs)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(sc.Args, " "), err, lastLines(errOut.String(), 5))
	}
	ps := cmd.ProcessState
	return sample{Seconds: wall.Seconds(), CPU: (ps.UserTime() + ps.SystemTime()).Seconds(),
		RSSKiB: peakRSSKiB(ps), Digest: parseDigest(out.Bytes())}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// measure runs every scenario pairs times on both binaries, alternated
// (round by round, each scenario's pair in turn), and returns what each
// run measured. progress gets one line a run.
func measure(ctx context.Context, bins map[string]string, dir string, scs []scenario, pairs int, progress io.Writer) ([]outcome, error) {
	if err := os.WriteFile(filepath.Join(dir, refConfigFile), []byte(refConfig), 0o644); err != nil {
		return nil, err
	}
	outs := make([]outcome, len(scs))
	for j, sc := range scs {
		outs[j] = outcome{Scenario: sc.Name, Base: make([]sample, pairs), Head: make([]sample, pairs)}
	}
	for i := 0; i < pairs; i++ {
		for j, sc := range scs {
			first, second := order(i)
			for _, side := range []string{first, second} {
				s, err := runOnce(ctx, bins[side], dir, sc)
				if err != nil {
					return nil, err
				}
				if side == "base" {
					outs[j].Base[i] = s
				} else {
					outs[j].Head[i] = s
				}
				fmt.Fprintf(progress, "pair %d/%d  %-32s %-4s %6.2f s wall %6.2f s CPU %7s MiB\n",
					i+1, pairs, sc.Name, side, s.Seconds, s.CPU, mib(s.RSSKiB))
			}
		}
	}
	return outs, nil
}

// goBuild builds ./cmd/opasim of the module in src to out.
func goBuild(ctx context.Context, src, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/opasim")
	cmd.Dir = src
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errOut, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %v: %s", src, err, errOut.String())
	}
	return nil
}

// exportCommit writes the tree of commit (of the repository at repo) to
// dir with git archive, without touching the repository's work tree.
func exportCommit(ctx context.Context, repo, commit, dir string) error {
	var errOut bytes.Buffer
	if !hasCommit(ctx, repo, commit) {
		// A shallow clone: ask the origin for the one commit.
		fetch := exec.CommandContext(ctx, "git", "-C", repo, "fetch", "--quiet", "--depth=1", "origin", commit)
		fetch.Stderr = &errOut
		if err := fetch.Run(); err != nil || !hasCommit(ctx, repo, commit) {
			return fmt.Errorf("baseline commit %s is not in the repository at %s, nor could it be fetched from origin (%v %s): deepen the clone",
				commit, repo, err, strings.TrimSpace(errOut.String()))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-C", repo, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	errOut.Reset()
	archive.Stderr, untar.Stderr = &errOut, &errOut
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		_ = untar.Wait()
		return fmt.Errorf("git archive %s: %v: %s", commit, err, errOut.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("tar -x into %s: %v: %s", dir, err, errOut.String())
	}
	return nil
}

// hasCommit reports whether the repository at repo holds commit.
func hasCommit(ctx context.Context, repo, commit string) bool {
	return exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "-e", commit+"^{commit}").Run() == nil
}

// buildMissing builds the sides that have no prebuilt binary in o: HEAD
// from the work tree at o.repo, the baseline from commit (exported with
// git archive), both into tmp. It returns the binaries it built by side.
func buildMissing(ctx context.Context, o options, commit, tmp string, log io.Writer) (map[string]string, error) {
	bins := map[string]string{}
	if o.headBin == "" {
		start := time.Now()
		bins["head"] = filepath.Join(tmp, "opasim-head")
		if err := goBuild(ctx, o.repo, bins["head"]); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "built HEAD (the work tree) in %.1f s\n", time.Since(start).Seconds())
	}
	if o.baseBin == "" {
		start := time.Now()
		src := filepath.Join(tmp, "base-src")
		bins["base"] = filepath.Join(tmp, "opasim-base")
		if err := exportCommit(ctx, o.repo, commit, src); err != nil {
			return nil, err
		}
		if err := goBuild(ctx, src, bins["base"]); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "built the baseline %s in %.1f s\n", commit[:12], time.Since(start).Seconds())
	}
	return bins, nil
}

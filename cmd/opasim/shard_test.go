package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shardedSweep is tinySweep (2 schedulers x 2 loads x 2 seeds of the paper
// mix on an 8-port switch, 3,000 cycles) as shard i/n into out.
func shardedSweep(cfg, out string, i, n int, extra ...string) []string {
	args := append(tinySweep(cfg, out), "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
	return append(args, extra...)
}

// runShardsCLI runs the n shards of tinySweep into dir/<i> and returns
// their directories.
func runShardsCLI(t *testing.T, cfg, dir string, n int, extra ...string) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		d := filepath.Join(dir, strconv.Itoa(i))
		stdout := mustSweep(t, shardedSweep(cfg, d, i, n, extra...))
		if !strings.Contains(stdout, "sweep shard "+strconv.Itoa(i)+"/"+strconv.Itoa(n)) {
			t.Errorf("shard %d: %s", i, stdout)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// TestSweepShardsMergeByteIdentical: the same grid run unsharded and as
// three shards (opasim sweep --shard 0/3, 1/3, 2/3) merged with opasim
// sweep merge give byte-identical summary.csv and summary.json, and the
// merge draws the plots; no shard writes a summary.
func TestSweepShardsMergeByteIdentical(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	whole := filepath.Join(dir, "whole")
	mustSweep(t, tinySweep(cfg, whole))
	shards := runShardsCLI(t, cfg, filepath.Join(dir, "shards"), 3)
	runs := 0
	for _, d := range shards {
		entries, _ := os.ReadDir(filepath.Join(d, "runs"))
		runs += len(entries)
		if _, err := os.Stat(filepath.Join(d, "shard.json")); err != nil {
			t.Errorf("%s: no manifest: %v", d, err)
		}
		if _, err := os.Stat(filepath.Join(d, "summary.csv")); err == nil {
			t.Errorf("%s: a shard wrote a summary", d)
		}
	}
	if runs != 8 {
		t.Errorf("the shards hold %d runs, want the grid's 8", runs)
	}
	merged := filepath.Join(dir, "merged")
	stdout, stderr, err := cli(t, append([]string{"sweep", "merge", "--out", merged}, shards...)...)
	if err != nil {
		t.Fatalf("merge: %v\n%s%s", err, stdout, stderr)
	}
	for _, f := range []string{"summary.csv", "summary.json"} {
		a, errA := os.ReadFile(filepath.Join(whole, f))
		b, errB := os.ReadFile(filepath.Join(merged, f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s of the merged shards differs from the unsharded sweep's (%v, %v)", f, errA, errB)
		}
	}
	for _, name := range []string{"latency", "throughput", "dtable_latency"} {
		checkPNG(t, filepath.Join(merged, "plots", name+".png"))
	}
}

// TestSweepShardBadInput: a bad --shard names the flag, the value and the
// allowed range (i 0-based in [0, N-1], N in [1, the grid's runs]), as bad
// input, before anything runs; from the binary, exit status 2, no panic.
func TestSweepShardBadInput(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	out := filepath.Join(dir, "sweep")
	form := "must be i/N: N shards in [1, 8] (the grid's runs), i the 0-based shard in [0, N-1]"
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"3/3", []string{`"3/3"`, "i = 3 must be in [0, 2]", "numbered from 0"}},
		{"-1/3", []string{`"-1/3"`, "i = -1 must be in [0, 2]"}},
		{"0/0", []string{`"0/0"`, "N = 0 must be in [1, 8]"}},
		{"0/9", []string{`"0/9"`, "N = 9 must be in [1, 8], the grid's runs"}},
		{"1", []string{`"1"`, form}},
		{"1/2/3", []string{`"1/2/3"`, form}},
		{"", []string{`""`, form}},
		{"one/three", []string{`"one/three"`, form}},
	} {
		_, _, err := cli(t, append(tinySweep(cfg, out), "--shard", tc.value)...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("--shard %q: error %v is not bad input", tc.value, err)
			continue
		}
		for _, w := range append(tc.want, "--shard: ") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("--shard %q: %q does not mention %q", tc.value, err, w)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input created the output directory")
	}
	expectRefused(t, "shard out of range", append(tinySweep(cfg, out), "--shard", "3/3"),
		[]string{"--shard: \"3/3\" is not allowed", "[0, 2]"})
	expectRefused(t, "shard not i/N", append(tinySweep(cfg, out), "--shard", "99999999999999999999999/2"),
		[]string{"--shard", "99999999999999999999999", form})
}

// TestSweepMergeRefuses: opasim sweep merge refuses, with exit status 2, a
// message naming what is wrong, and no output directory: shards of another
// config, of another grid, of another N, a shard missing, a shard given
// twice, a run missing, a directory that is not a shard, no --out, and no
// directory.
func TestSweepMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	s := runShardsCLI(t, cfg, filepath.Join(dir, "s"), 3)
	longer := runShardsCLI(t, cfg, filepath.Join(dir, "longer"), 3, "--cycles", "3500")
	transpose := runShardsCLI(t, cfg, filepath.Join(dir, "transpose"), 3, "--pattern", "transpose")
	seeds := runShardsCLI(t, cfg, filepath.Join(dir, "seeds"), 3, "--seeds", "1")
	halves := runShardsCLI(t, cfg, filepath.Join(dir, "halves"), 2)
	noRun := filepath.Join(dir, "no-run")
	if err := os.CopyFS(noRun, os.DirFS(s[0])); err != nil {
		t.Fatal(err)
	}
	lost := filepath.Join(noRun, "runs", "dtable_load0.9_seed1.json") // point 6 of rr,dtable x 0.3,0.9 x 1,2: shard 0/3
	if err := os.Remove(lost); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	mustSweep(t, tinySweep(cfg, plain))
	out := filepath.Join(dir, "merged")
	merge := func(dirs ...string) []string { return append([]string{"sweep", "merge", "--out", out}, dirs...) }
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"another config", merge(s[0], s[1], longer[2]), []string{"shards of different sweeps", "config cycles: 3000 vs 3500"}},
		{"another pattern", merge(transpose[0], s[1], s[2]),
			[]string{"shards of different sweeps", `config traffic.pattern: "transpose" vs "uniform"`}},
		{"other seeds", merge(s[0], seeds[1], s[2]), []string{"shards of different sweeps", "seeds: [1,2] vs [1]"}},
		{"another N", merge(s[0], halves[1], s[2]), []string{"is shard 0/3", "is shard 1/2", "same N"}},
		{"a shard missing", merge(s[0], s[2]), []string{"shards missing: 1 of 0..2", "(2 of 3 given)"}},
		{"a shard twice", merge(s[0], s[1], s[2], s[2]), []string{"shard 2/3 is given twice"}},
		{"a run missing", merge(noRun, s[1], s[2]), []string{"1 of the 8 runs cannot be used", lost + " is missing"}},
		{"not a shard", merge(s[0], s[1], s[2], plain), []string{plain, "no shard.json"}},
		{"no --out", []string{"sweep", "merge", s[0], s[1], s[2]}, []string{"--out: a directory is required"}},
		{"no directory", []string{"sweep", "merge", "--out", out}, []string{"want the directories of the shards", "got none"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge created its output directory")
	}
}

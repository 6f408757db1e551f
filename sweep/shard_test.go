package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// TestParseShard: "i/N" with N in [1, grid runs] and a 0-based i in
// [0, N-1]; anything else is refused with the value and the ranges.
func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/1": {0, 1}, "2/3": {2, 3}, " 4/12 ": {4, 12}, "11/12": {11, 12}} {
		if got, err := ParseShard(in, 12); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	form := "must be i/N: N shards in [1, 12] (the grid's runs), i the 0-based shard in [0, N-1]"
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{`""`, form}},
		{"3", []string{`"3"`, form}},
		{"1/2/3", []string{`"1/2/3"`, form}},
		{"a/3", []string{`"a/3"`, form}},
		{"1/", []string{`"1/"`, form}},
		{"99999999999999999999/3", []string{"99999999999999999999", form}},
		{"3/3", []string{`"3/3"`, "i = 3 must be in [0, 2]", "numbered from 0"}},
		{"-1/3", []string{`"-1/3"`, "i = -1 must be in [0, 2]"}},
		{"0/0", []string{`"0/0"`, "N = 0 must be in [1, 12]"}},
		{"0/13", []string{`"0/13"`, "N = 13 must be in [1, 12], the grid's runs"}},
	} {
		_, err := ParseShard(tc.in, 12)
		if err == nil {
			t.Errorf("ParseShard(%q) accepted", tc.in)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseShard(%q): %q does not mention %q", tc.in, err, w)
			}
		}
	}
}

// TestShardsPartitionGrid: for every grid size up to 40 and every N, each
// point belongs to exactly one shard and the shards' sizes differ by at
// most one; on a real grid, the shards' run files together are the grid's,
// each once.
func TestShardsPartitionGrid(t *testing.T) {
	for size := 1; size <= 40; size++ {
		for n := 1; n <= size; n++ {
			sizes := make([]int, n)
			for k := range size {
				owners := 0
				for i := range n {
					if (Shard{i, n}).Owns(k) {
						owners++
						sizes[i]++
					}
				}
				if owners != 1 {
					t.Fatalf("size %d, %d shards: point %d has %d shards", size, n, k, owners)
				}
			}
			if slices.Max(sizes)-slices.Min(sizes) > 1 {
				t.Errorf("size %d, %d shards: shard sizes %v", size, n, sizes)
			}
		}
	}
	g := tinyGrid(t)
	pts, err := g.Points(sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	var all, union []string
	for _, p := range pts {
		all = append(all, p.File())
	}
	for i := range 3 {
		r := newRunner(t, g, t.TempDir(), 1)
		r.Shard = Shard{i, 3}
		m, err := r.manifest()
		if err != nil {
			t.Fatal(err)
		}
		union = append(union, m.Runs...)
	}
	slices.Sort(all)
	slices.Sort(union)
	if !slices.Equal(all, union) {
		t.Errorf("the shards' runs %v are not the grid's %v", union, all)
	}
}

// runShards runs the n shards of g into dir/shard-<i> and returns the
// directories.
func runShards(t *testing.T, g Grid, dir string, n int) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		d := filepath.Join(dir, "shard-"+strconv.Itoa(i))
		r := newRunner(t, g, d, 2)
		r.Shard = Shard{i, n}
		var out bytes.Buffer
		if err := r.Run(context.Background(), &out); err != nil {
			t.Fatalf("shard %d/%d: %v\n%s", i, n, err, out.String())
		}
		want := "sweep shard " + strconv.Itoa(i) + "/" + strconv.Itoa(n) + ": "
		if !strings.Contains(out.String(), want) {
			t.Errorf("shard output lacks %q:\n%s", want, out.String())
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// TestShardedSweepMergesToUnsharded: the grid run whole and the same grid
// run as three shards, merged in any order, give byte-identical
// summary.csv and summary.json, the same run files (same digests), and
// the plots; a shard writes no summary and reuses its runs when run again;
// the whole sweep run again in the merged directory reuses every run.
func TestShardedSweepMergesToUnsharded(t *testing.T) {
	dir := t.TempDir()
	g := tinyGrid(t)
	whole := filepath.Join(dir, "whole")
	mustSweep(t, g, whole)
	shards := runShards(t, g, dir, 3)
	for i, d := range shards {
		if _, err := os.Stat(filepath.Join(d, "summary.json")); err == nil {
			t.Errorf("shard %d wrote a summary", i)
		}
		entries, _ := os.ReadDir(filepath.Join(d, "runs"))
		if want := []int{3, 3, 2}[i]; len(entries) != want { // points i, i+3, ... of 8
			t.Errorf("shard %d has %d runs, want %d", i, len(entries), want)
		}
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		merged := filepath.Join(dir, "merged"+strconv.Itoa(order[0]))
		var dirs []string
		for _, i := range order {
			dirs = append(dirs, shards[i])
		}
		var out, log bytes.Buffer
		if err := Merge(dirs, merged, sched.Default(), &out, &log); err != nil {
			t.Fatalf("merge %v: %v\n%s%s", order, err, out.String(), log.String())
		}
		for _, w := range []string{"merge: 3 shards of 8 runs (2 schedulers x 2 loads x 2 seeds)", "from 8 of 8 runs", "dtable_latency.png"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("merge output lacks %q:\n%s", w, out.String())
			}
		}
		for _, f := range []string{"summary.csv", "summary.json"} {
			a, errA := os.ReadFile(filepath.Join(whole, f))
			b, errB := os.ReadFile(filepath.Join(merged, f))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("merge %v: %s differs from the unsharded sweep's (%v, %v)", order, f, errA, errB)
			}
		}
		checkPlots(t, filepath.Join(merged, "plots"), []string{"latency", "throughput", "accepted", "dtable_latency"})
		entries, _ := os.ReadDir(filepath.Join(whole, "runs"))
		for _, e := range entries {
			a := readResults(t, filepath.Join(whole, "runs", e.Name()))
			b := readResults(t, filepath.Join(merged, "runs", e.Name()))
			if a.Digest != b.Digest {
				t.Errorf("%s: digest %s unsharded, %s merged", e.Name(), a.Digest, b.Digest)
			}
		}
	}
	if out := mustSweep(t, g, filepath.Join(dir, "merged0")); !strings.Contains(out, "reused 8 of 8") {
		t.Errorf("the sweep in the merged directory did not reuse every run:\n%s", out)
	}
	r := newRunner(t, g, shards[1], 1)
	r.Shard = Shard{1, 3}
	var out bytes.Buffer
	if err := r.Run(context.Background(), &out); err != nil || !strings.Contains(out.String(), "reused 3 of 3; nothing to run") {
		t.Errorf("shard 1/3 again: %v\n%s", err, out.String())
	}
}

// copyDir copies a shard's directory, to be spoiled by a test.
func copyDir(t *testing.T, src, dst string) string {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestMergeRefuses: each kind of mismatch is refused, wrapping ErrRefused,
// with a message naming the directories and what is wrong, before
// anything is written.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	g := tinyGrid(t)
	s := runShards(t, g, dir, 3)

	longer := g
	longer.Base.Cycles = 3500
	otherConfig := runShards(t, longer, filepath.Join(dir, "longer"), 3)
	sbt := g
	sbt.Schedulers = []string{"rr", "sbt"}
	otherAxis := runShards(t, sbt, filepath.Join(dir, "sbt"), 3)
	halves := runShards(t, g, filepath.Join(dir, "halves"), 2)

	noRun := copyDir(t, s[1], filepath.Join(dir, "no-run"))
	if err := os.Remove(filepath.Join(noRun, "runs", "rr_load0.3_seed2.json")); err != nil {
		t.Fatal(err)
	}
	cut := copyDir(t, s[2], filepath.Join(dir, "cut"))
	cutRun := filepath.Join(cut, "runs", "rr_load0.9_seed1.json")
	res := readResults(t, cutRun)
	res.Interrupted = true
	data, _ := json.Marshal(res)
	if err := os.WriteFile(cutRun, data, 0o644); err != nil {
		t.Fatal(err)
	}
	edited := copyDir(t, s[0], filepath.Join(dir, "edited"))
	manifest := filepath.Join(edited, ManifestFile)
	text, _ := os.ReadFile(manifest)
	if err := os.WriteFile(manifest, bytes.Replace(text, []byte(`"cycles": 3000`), []byte(`"cycles": 4000`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	format := copyDir(t, s[0], filepath.Join(dir, "format"))
	text, _ = os.ReadFile(filepath.Join(format, ManifestFile))
	os.WriteFile(filepath.Join(format, ManifestFile), bytes.Replace(text, []byte("shard v1"), []byte("shard v9"), 1), 0o644)
	plain := filepath.Join(dir, "whole")
	mustSweep(t, g, plain)

	for _, tc := range []struct {
		name string
		dirs []string
		want []string
	}{
		{"another config", []string{s[0], otherConfig[1], s[2]},
			[]string{s[0], otherConfig[1], "shards of different sweeps", "config cycles: 3000 vs 3500"}},
		{"another axis", []string{s[0], s[1], otherAxis[2]},
			[]string{"shards of different sweeps", `schedulers: ["rr","dtable"] vs ["rr","sbt"]`}},
		{"another N", []string{s[0], s[1], halves[1]}, []string{s[0], "is shard 0/3", halves[1], "is shard 1/2", "same N"}},
		{"a shard missing", []string{s[0], s[2]}, []string{"shards missing: 1 of 0..2", "(2 of 3 given)"}},
		{"two missing", []string{s[1]}, []string{"shards missing: 0, 2 of 0..2"}},
		{"a shard twice", []string{s[0], s[1], s[1], s[2]}, []string{"shard 1/3 is given twice", s[1]}},
		{"a shard twice, copied", []string{s[0], s[1], s[2], noRun}, []string{"shard 1/3 is given twice", s[1], noRun}},
		{"a run missing", []string{s[0], noRun, s[2]},
			[]string{"1 of the 8 runs cannot be used", filepath.Join(noRun, "runs", "rr_load0.3_seed2.json") + " is missing", "--shard"}},
		{"a run interrupted", []string{s[0], s[1], cut},
			[]string{"1 of the 8 runs cannot be used", cutRun + " is incomplete, unreadable or of another config"}},
		{"an edited manifest", []string{edited, s[1], s[2]}, []string{filepath.Join(edited, ManifestFile), "is not the digest of its grid"}},
		{"another format", []string{format, s[1], s[2]}, []string{`format "opasim sweep shard v9" is not allowed`}},
		{"not a shard", []string{s[0], plain, s[2]}, []string{plain, "no shard.json", "opasim sweep --shard"}},
		{"nothing", nil, []string{"no shard directory"}},
	} {
		out := filepath.Join(dir, "merged-"+strings.ReplaceAll(tc.name, " ", "-"))
		var stdout bytes.Buffer
		err := Merge(tc.dirs, out, sched.Default(), &stdout, &stdout)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: error %v is not a refusal", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused merge created %s", tc.name, out)
		}
	}
}

// TestRunnerRefusesBadShard: a Runner given a shard out of range refuses to
// run and creates nothing.
func TestRunnerRefusesBadShard(t *testing.T) {
	for _, sh := range []Shard{{3, 3}, {-1, 3}, {0, -2}, {1, 0}} {
		dir := filepath.Join(t.TempDir(), "out")
		r := newRunner(t, tinyGrid(t), dir, 1)
		r.Shard = sh
		err := r.Run(context.Background(), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "shard "+sh.String()+" is not allowed") {
			t.Errorf("shard %s: %v", sh, err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("shard %s: created %s", sh, dir)
		}
	}
}

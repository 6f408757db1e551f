package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

func TestMain(m *testing.M) { os.Exit(testlong.Main(m)) }

const hash = "2699abe0123456789abcdef0123456789abcdef0"

func TestParseBaseline(t *testing.T) {
	b, err := parseBaseline(strings.NewReader("# comment\n\n" + hash + "\nwhy: main before the\n  speed round.\n# end\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != hash || b.Why != "main before the speed round." {
		t.Errorf("got %+v", b)
	}
	for _, c := range []struct{ text, want string }{
		{"", "no commit hash"},
		{"# only a comment\n", "no commit hash"},
		{"2699abe\nwhy: short\n", `line 1: "2699abe" is not a full 40-digit`},
		{strings.ToUpper(hash) + "\nwhy: upper\n", "is not a full 40-digit lower-case"},
		{hash + "\n", "no why: line saying why 2699abe01234 is the baseline"},
		{hash + "\nwhy:\n", "no why: line"},
		{hash + "\nbecause\n", `line 2: "because": after the commit only a why: paragraph`},
		{hash + "\nwhy: a\n\nstray\n", `line 4: "stray"`},
	} {
		_, err := parseBaseline(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}

// TestCheckedInBaseline: the repository's baseline file parses.
func TestCheckedInBaseline(t *testing.T) {
	b, err := readBaseline("../../.ci/speed-baseline")
	if err != nil {
		t.Fatal(err)
	}
	if b.Why == "" {
		t.Error("no reason")
	}
}

func TestSelectScenarios(t *testing.T) {
	all := []scenario{{Name: "tree-8ary-3 seq"}, {Name: "tree-24ary-2 seq"}, {Name: "tree-8ary-3 actors"}}
	names := func(s []scenario) []string {
		var n []string
		for _, x := range s {
			n = append(n, x.Name)
		}
		return n
	}
	for _, c := range []struct {
		filter string
		want   []string
	}{
		{"", names(all)},
		{"24ary", []string{"tree-24ary-2 seq"}},
		{"actors, 24ary", []string{"tree-24ary-2 seq", "tree-8ary-3 actors"}},
		{"8ary", []string{"tree-8ary-3 seq", "tree-8ary-3 actors"}},
	} {
		got, err := selectScenarios(all, c.filter)
		if err != nil || !slices.Equal(names(got), c.want) {
			t.Errorf("%q: %v %v, want %v", c.filter, names(got), err, c.want)
		}
	}
	if _, err := selectScenarios(all, "torus"); err == nil {
		t.Error("a filter matching nothing was accepted")
	}
}

// TestScenariosFixed: the reference scenarios keep their engines and
// GOMAXPROCS (the sequential ones at one core, the actor one at two).
func TestScenariosFixed(t *testing.T) {
	if len(scenarios) != 3 {
		t.Fatalf("%d scenarios", len(scenarios))
	}
	for _, sc := range scenarios {
		engine := sc.Args[slices.Index(sc.Args, "--engine")+1]
		want := map[string]int{"sequential": 1, "actors": 2}[engine]
		if sc.Procs != want || !strings.Contains(sc.Name, engine) {
			t.Errorf("%s: engine %s at GOMAXPROCS %d", sc.Name, engine, sc.Procs)
		}
	}
}

func TestOrder(t *testing.T) {
	var got []string
	for i := 0; i < 4; i++ {
		a, b := order(i)
		got = append(got, a, b)
	}
	want := []string{"base", "head", "head", "base", "base", "head", "head", "base"}
	if !slices.Equal(got, want) {
		t.Errorf("order: %v, want %v", got, want)
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"A=1", "GOMAXPROCS=8", "B=2"}, 1)
	want := []string{"A=1", "B=2", "GOMAXPROCS=1"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv: %v, want %v", got, want)
	}
}

func TestParseDigest(t *testing.T) {
	out := "scheduler rr\nconservation ok, digest d7c3b04589d12bb0\nspeed 431 cycles/s\n"
	if got := parseDigest([]byte(out)); got != "d7c3b04589d12bb0" {
		t.Errorf("digest %q", got)
	}
	if got := parseDigest([]byte("no digest here\n")); got != "" {
		t.Errorf("digest %q from a run without one", got)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil || o.pairs != 5 || o.lim.Time != 1.10 || o.lim.RSS != 1.20 || o.baselineFile != ".ci/speed-baseline" {
		t.Errorf("defaults: %+v %v", o, err)
	}
	for _, args := range [][]string{{"--pairs", "0"}, {"--max-time-ratio", "0"}, {"--max-rss-ratio", "-1"}, {"extra"}, {"--nope"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if code := run(context.Background(), []string{"--pairs", "0"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad flags: exit %d, want 2", code)
	}
}

// git runs git in dir for a test.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestExportCommit: the baseline's tree is written as it was at the
// commit, whatever the work tree holds now; a commit the repository lacks
// is named.
func TestExportCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testlong.Skipf(t, "no git here")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "sub", "f.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "sub/f.txt")
	git(t, repo, "commit", "-q", "-m", "one")
	commit := git(t, repo, "rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(repo, "sub", "f.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := exportCommit(context.Background(), repo, commit, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sub", "f.txt"))
	if err != nil || string(b) != "old\n" {
		t.Errorf("exported %q %v, want the commit's \"old\\n\"", b, err)
	}
	err = exportCommit(context.Background(), repo, strings.Repeat("1", 40), filepath.Join(t.TempDir(), "x"))
	if err == nil || !strings.Contains(err.Error(), "is not in the repository") {
		t.Errorf("missing commit: %v", err)
	}
}

// TestMeasureRealBinary builds opasim from this work tree and measures a
// small run on both sides: every run has a time, a peak RSS and the same
// digest, and the gate passes a binary against itself with limits far
// above any noise.
func TestMeasureRealBinary(t *testing.T) {
	testlong.Skip(t, "builds opasim and runs it 4 times")
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "opasim")
	if err := goBuild(ctx, "../..", bin); err != nil {
		t.Fatal(err)
	}
	sc := scenario{Name: "single", Args: []string{"run", "--preset", "single-switch", "--load", "0.5",
		"--cycles", "3000", "--warmup", "500", "--engine", "sequential"}, Procs: 1}
	outs, err := measure(ctx, map[string]string{"base": bin, "head": bin}, t.TempDir(), []scenario{sc}, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o := outs[0]
	for _, s := range append(o.Base, o.Head...) {
		if s.Seconds <= 0 || s.RSSKiB < 1024 || s.Digest == "" {
			t.Errorf("sample %+v", s)
		}
	}
	v := judge(o, limits{Time: 100, RSS: 100})
	if !v.Pass() || !v.HasDigests || !v.DigestsAgree {
		t.Errorf("verdict %+v", v)
	}
	var out strings.Builder
	if code := run(ctx, []string{"--base-bin", bin, "--head-bin", bin, "--pairs", "1", "--scenarios", "24ary",
		"--max-time-ratio", "100", "--max-rss-ratio", "100"}, &out, &out); code != 0 {
		t.Errorf("gate of a binary against itself: exit %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "| tree-24ary-2 0.7 sequential P1 |") || !strings.Contains(out.String(), "| same | ok |") {
		t.Errorf("table:\n%s", out.String())
	}
}

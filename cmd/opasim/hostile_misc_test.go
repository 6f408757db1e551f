package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/workloads/vef"
)

// gzipMembers returns the gzip members of each text, one after the
// other: a multistream file, as gzip -c a b >> f writes. flushAt, when
// above 0, flushes the first member after that many bytes of its text, so
// that a cut at the returned offset leaves exactly that prefix readable.
func gzipMembers(t *testing.T, flushAt int, texts ...[]byte) (data []byte, flushed int) {
	t.Helper()
	var b bytes.Buffer
	for i, text := range texts {
		zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && flushAt > 0 {
			zw.Write(text[:flushAt])
			if err := zw.Flush(); err != nil {
				t.Fatal(err)
			}
			flushed = b.Len()
			text = text[flushAt:]
		}
		zw.Write(text)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes(), flushed
}

// TestHostileInputMisc: traces, trace generation, stress, SL names, YAML
// tabs, completion and output paths. Each refused with exit status 2
// before anything runs, naming the flag or key, the value and what is
// allowed, in under 5 seconds (expectRefused).
func TestHostileInputMisc(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A gzip bomb: 64 members of 1 MiB of newlines, 64 MiB from a file of
	// a few KiB, read with a limit of 16 MiB: refused at line 2^24 + 1,
	// having inflated 16 MiB only.
	mib := bytes.Repeat([]byte{'\n'}, 1<<20)
	members := make([][]byte, 64)
	for i := range members {
		members[i] = mib
	}
	bombData, _ := gzipMembers(t, 0, members...)
	bomb := write("bomb.vef.gz", bombData)
	limit16 := write("limit16.yaml", []byte("trace:\n  max_inflated_mb: 16\n"))
	limit0 := write("limit0.yaml", []byte("trace:\n  max_inflated_mb: 0\n"))
	// A trace cut inside its header, after "VEF 4 4 2 1 4 FAL": the read
	// stops at an unexpected EOF in the compressed data.
	head := strings.Index(vef.Example, "FALSE") + 3
	whole, flushed := gzipMembers(t, head, []byte(vef.Example))
	cut := write("cut.vef.gz", whole[:flushed])
	// The same cut in the body, after four records and half a fifth.
	body := strings.Index(vef.Example, "G0 0 2 1")
	whole, flushed = gzipMembers(t, body, []byte(vef.Example))
	cutBody := write("cutbody.vef.gz", whole[:flushed])
	ring := filepath.Join(dir, "ring.vef")
	if _, stderr, code := opasim(t, "trace", "gen", "ring", "--tasks", "8", "--iterations", "1", "--out", ring); code != 0 {
		t.Fatal(stderr)
	}

	twoA := write("twoA.yaml", []byte("qos:\n  sls:\n    - {name: A, scs: [0], share: 0.5}\n    - {name: A, scs: [1], share: 0.5}\n  sc2vl: [0, 1]\n"))
	tabbed := write("tab.yaml", []byte("traffic:\n\tload: 0.5\n"))
	tabbedLater := write("tab3.yaml", []byte("cycles: 3000\ntraffic:\n    load: 0.5\n\tpattern: uniform\n"))
	tabbedFirst := write("tab1.yaml", []byte("\tcycles: 3000\n"))
	request := write("req.yaml", []byte("entries: 128\ngmtu: 16\nw: 8\nk: 2\nsls:\n  - {name: VO, distance: 2, mtu: 2, share: 1}\n"))
	config := write("run.yaml", []byte("cycles: 3000\n"))
	same := filepath.Join(dir, "same.json")
	stressOut := filepath.Join(dir, "stress")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"a gzip bomb past trace.max_inflated_mb", []string{"run", "--trace", bomb, "--config", limit16},
			[]string{"trace.file", "bomb.vef.gz", "line 16777217", "more than 16777216 bytes decompressed", "16 MiB", "trace.max_inflated_mb"}},
		{"a gzip bomb in trace sweep", []string{"trace", "sweep", "--config", limit16, "--out", filepath.Join(dir, "ts"), bomb},
			[]string{"trace", "bomb.vef.gz", "more than 16777216 bytes decompressed", "trace.max_inflated_mb"}},
		{"trace.max_inflated_mb 0", []string{"run", "--trace", ring, "--config", limit0},
			[]string{"trace.max_inflated_mb", "0", "[1, 1048576]"}},
		{"a gzip trace cut in its header", []string{"run", "--trace", cut},
			[]string{"trace.file", "cut.vef.gz", "line 1", "unexpected EOF", "truncated or corrupt"}},
		{"a gzip trace cut in its body", []string{"run", "--trace", cutBody},
			[]string{"trace.file", "cutbody.vef.gz", "line 8", "unexpected EOF", "truncated or corrupt"}},
		{"a cut gzip trace in trace sweep", []string{"trace", "sweep", "--out", filepath.Join(dir, "ts"), cut},
			[]string{"cut.vef.gz", "line 1", "unexpected EOF", "truncated or corrupt"}},
		{"a cut gzip trace at flow level", []string{"flow", "dynamic", "--preset", "tree-8ary-2", "--trace", cutBody},
			[]string{"trace.file", "cutbody.vef.gz", "unexpected EOF", "truncated or corrupt"}},
		{"a tab-indented config", []string{"run", "--config", tabbed},
			[]string{"--config", "tab.yaml", "line 2", "a tab in the indentation", "spaces only"}},
		{"a tab-indented line after spaces", []string{"run", "--config", tabbedLater},
			[]string{"--config", "tab3.yaml", "line 4", "a tab in the indentation"}},
		{"a tab on the first line", []string{"run", "--config", tabbedFirst},
			[]string{"--config", "tab1.yaml", "line 1", "a tab in the indentation"}},
		{"randomaccess updates 0", []string{"trace", "gen", "randomaccess", "--updates", "0"},
			[]string{"--updates", "0 is not allowed", "[1, 1048576]", "without the flag: 16"}},
		{"randomaccess updates -5", []string{"trace", "gen", "randomaccess", "--updates", "-5"},
			[]string{"--updates", "-5 is not allowed", "[1, 1048576]"}},
		{"stencil3d allreduce every 0", []string{"trace", "gen", "stencil3d", "--allreduce-every", "0"},
			[]string{"--allreduce-every", "0 is not allowed", "at least 1", "without the flag: 1"}},
		{"two SLs named A", []string{"run", "--config", twoA},
			[]string{"qos.sls[1].name", `"A"`, "must be unique", "qos.sls[0]"}},
		{"stress tolerance NaN", []string{"stress", "--tolerance", "NaN", "--out", stressOut},
			[]string{"--tolerance", "NaN", "[0, 100]"}},
		{"stress tolerance Inf", []string{"stress", "--tolerance", "Inf", "--out", stressOut},
			[]string{"--tolerance", "+Inf", "[0, 100]"}},
		{"stress tolerance 101", []string{"stress", "--tolerance", "101", "--out", stressOut},
			[]string{"--tolerance", "101", "[0, 100]"}},
		{"stress bound NaN", []string{"stress", "--property", "p99", "--sl", "VO", "--bound", "NaN", "--out", stressOut},
			[]string{"--bound", "NaN", "at least 1 cycle"}},
		{"stress bound Inf", []string{"stress", "--property", "p99", "--sl", "VO", "--bound", "Inf", "--out", stressOut},
			[]string{"--bound", "+Inf", "[1, 9223372036854775807]"}},
		{"stress target NaN", []string{"stress", "--targets", "VO=NaN,VI=1,CL=1,BE=1,BK=1", "--out", stressOut},
			[]string{"--targets", "VO=NaN", "a finite number at least 0"}},
		{"completion klingon", []string{"completion", "klingon"},
			[]string{"klingon", "opasim completion", "bash, fish, powershell, zsh"}},
		{"completion of no shell", []string{"completion"},
			[]string{"opasim completion needs a shell", "bash, fish, powershell, zsh"}},
		{"out and cpuprofile the same file", []string{"run", "--out", same, "--cpuprofile", same},
			[]string{"--out", "--cpuprofile", "same.json", "name the same file"}},
		{"memprofile and exectrace the same file by two spellings", []string{"run", "--memprofile", same, "--exectrace", filepath.Join(dir, "x", "..", "same.json")},
			[]string{"--memprofile", "--exectrace", "name the same file"}},
		{"flow out and cpuprofile the same file", []string{"flow", "static", "--out", same, "--cpuprofile", same},
			[]string{"--out", "--cpuprofile", "name the same file"}},
		{"results over the config", []string{"run", "--config", config, "--out", config},
			[]string{"--out", "--config", "run.yaml", "overwrite its input"}},
		{"a DTable over its request", []string{"qos", "dtable", "--file", request, "--out", request},
			[]string{"--out", "--file", "req.yaml", "overwrite its input"}},
	} {
		expectRefused(t, tc.name, tc.args, tc.want)
	}
	if _, err := os.Stat(same); !os.IsNotExist(err) {
		t.Errorf("a refused command wrote %s (%v)", same, err)
	}
	if data, err := os.ReadFile(config); err != nil || string(data) != "cycles: 3000\n" {
		t.Errorf("the config refused as --out changed: %q %v", data, err)
	}
	if _, err := os.Stat(stressOut); !os.IsNotExist(err) {
		t.Errorf("a refused stress made %s (%v)", stressOut, err)
	}
}

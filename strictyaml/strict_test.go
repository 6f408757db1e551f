package strictyaml

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sample is a config of another shape than the run config: what the flow
// engine's or a tool's file may be.
type sample struct {
	Name  string `yaml:"name"`
	Size  int    `yaml:"size"`
	Inner struct {
		Rate  float64 `yaml:"rate"`
		Flags []bool  `yaml:"flags"`
	} `yaml:"inner"`
}

// TestDecodeNamesEachProblem: every problem of a file is named by its key
// path and line, an unknown key with the closest allowed one, and nothing
// is decoded when one is found.
func TestDecodeNamesEachProblem(t *testing.T) {
	var s sample
	s.Name = "kept"
	err := Decode([]byte("size: many\ninner:\n  rat: 2\n  flags: [true, 3]\n"), &s)
	var kp KeyProblems
	if !errors.As(err, &kp) {
		t.Fatalf("error %v, want KeyProblems", err)
	}
	for _, want := range []string{"size (line 1)", "inner.rat (line 3)", "did you mean rate?", "inner.flags[1] (line 4)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
	if len(kp) != 3 || s.Name != "kept" || s.Size != 0 {
		t.Errorf("%d problems, decoded %+v; want 3 and nothing decoded", len(kp), s)
	}
}

// TestDecodeKeepsUnnamed: keys the file does not name keep their value.
func TestDecodeKeepsUnnamed(t *testing.T) {
	s := sample{Name: "a", Size: 3}
	if err := Decode([]byte("inner:\n  rate: 0.5\n"), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "a" || s.Size != 3 || s.Inner.Rate != 0.5 {
		t.Errorf("decoded %+v", s)
	}
}

// TestFilesRefused: Load and ReadChecked refuse what is not a small
// regular file, and a second document.
func TestFilesRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# pad\n", MaxFileBytes/6+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(two, []byte("size: 1\n---\nsize: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s sample
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"a directory", Load(dir, &s), "not a regular file"},
		{"a file over the limit", Load(big, &s), "more than the limit of 1048576"},
		{"two documents", Load(two, &s), "more than one YAML document"},
		{"no path", Load("", &s), "empty path"},
		{"ReadChecked of a directory", func() error { _, err := ReadChecked(dir, reflect.TypeOf(s)); return err }(), "not a regular file"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, c.err, c.want)
		}
	}
}

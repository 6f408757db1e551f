package clidoc

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// toy builds a small tree: tool, with a visible subcommand go (flags of
// every kind, a hidden one, a pipe in a meaning), a hidden subcommand
// ghost and a deprecated one old. speed is go's --speed default.
func toy(speed string) func() *cobra.Command {
	return func() *cobra.Command {
		root := &cobra.Command{Use: "tool", Short: "A tool"}
		root.PersistentFlags().String("log", "info", "log level")
		g := &cobra.Command{
			Use:     "go PLACE",
			Short:   "Go somewhere",
			Long:    "Go somewhere, fast or slow.\n\nPLACE is where.",
			Example: "  tool go home --speed 5",
			RunE:    func(*cobra.Command, []string) error { return nil },
		}
		n, _ := strconv.Atoi(speed)
		g.Flags().Int("speed", n, "how fast | in steps")
		g.Flags().StringP("name", "n", "", "who goes")
		g.Flags().Bool("verbose", false, "say more")
		g.Flags().Bool("secret", true, "not shown")
		_ = g.Flags().MarkHidden("secret")
		g.Flags().Int("jobs", runtime.GOMAXPROCS(0), "runs at once")
		ghost := &cobra.Command{Use: "ghost", Hidden: true, Run: func(*cobra.Command, []string) {}}
		old := &cobra.Command{Use: "old", Deprecated: "use go", Run: func(*cobra.Command, []string) {}}
		root.AddCommand(g, ghost, old)
		return root
	}
}

// TestRenderPage: the page of `tool go`, worked out by hand from the
// tree above.
func TestRenderPage(t *testing.T) {
	pages := Render(toy("3"), "`make docs`")
	want := "# tool go\n\n" +
		"<!-- Generated from the code: do not edit. Regenerate with `make docs` -->\n\n" +
		"Go somewhere\n\n" +
		"```\nGo somewhere, fast or slow.\n\nPLACE is where.\n```\n\n" +
		"## Usage\n\n```\ntool go PLACE [flags]\n```\n\n" +
		"## Examples\n\n```\n  tool go home --speed 5\n```\n\n" +
		"## Flags\n\n" +
		"| flag | type | default | meaning |\n|---|---|---|---|\n" +
		"| `--jobs` | int | the cores (GOMAXPROCS) | runs at once |\n" +
		"| `-n`, `--name` | string | — | who goes |\n" +
		"| `--speed` | int | `3` | how fast \\| in steps |\n" +
		"| `--verbose` | bool | — | say more |\n\n" +
		"## Flags of the parent commands\n\n" +
		"| flag | type | default | meaning |\n|---|---|---|---|\n" +
		"| `--log` | string | `info` | log level |\n\n" +
		"Up: [tool](tool.md)"
	if got := string(pages["tool_go.md"]); got != want {
		t.Errorf("tool_go.md:\n%s\n\nwant:\n%s", got, want)
	}
}

// TestRenderTree: one page per visible command, none for the hidden, the
// deprecated or help; the index lists and links the visible ones.
func TestRenderTree(t *testing.T) {
	pages := Render(toy("3"), "x")
	var names []string
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"tool.md", "tool_go.md"}) {
		t.Fatalf("pages %v, want tool.md and tool_go.md", names)
	}
	index := string(pages["tool.md"])
	for _, s := range []string{"| [tool go](tool_go.md) | Go somewhere |", "- [tool go](tool_go.md)", "tool [command]"} {
		if !strings.Contains(index, s) {
			t.Errorf("index lacks %q:\n%s", s, index)
		}
	}
	for _, s := range []string{"ghost", "old", "help"} {
		if strings.Contains(index, s) {
			t.Errorf("index names %q:\n%s", s, index)
		}
	}
	if IndexName(toy("3")()) != "tool.md" {
		t.Errorf("IndexName = %q", IndexName(toy("3")()))
	}
}

// TestWriteCheck: a written reference checks clean; a changed default, a
// page gone and a page of no command are each reported by name, and
// Write puts it right.
func TestWriteCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Render(toy("3"), "x")); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, Render(toy("3"), "x")); err != nil {
		t.Fatalf("fresh reference: %v", err)
	}
	err := Check(dir, Render(toy("4"), "x"))
	if err == nil || !strings.Contains(err.Error(), "tool_go.md: differs from the code (line 31:") ||
		!strings.Contains(err.Error(), "`3`") || !strings.Contains(err.Error(), "`4`") {
		t.Errorf("changed default: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "tool_go.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool_gone.md"), []byte("# tool gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Check(dir, Render(toy("3"), "x"))
	if err == nil || !strings.Contains(err.Error(), "tool_go.md: missing") || !strings.Contains(err.Error(), "tool_gone.md: no such command any more") {
		t.Errorf("missing and stale pages: %v", err)
	}
	if err := Write(dir, Render(toy("3"), "x")); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, Render(toy("3"), "x")); err != nil {
		t.Errorf("after Write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tool_gone.md")); !os.IsNotExist(err) {
		t.Errorf("Write left the stale page: %v", err)
	}
}

// TestCoresNotMachineDependent: the pages are the same whatever
// GOMAXPROCS the process runs with.
func TestCoresNotMachineDependent(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	one := Render(toy("3"), "x")
	runtime.GOMAXPROCS(5)
	five := Render(toy("3"), "x")
	runtime.GOMAXPROCS(prev)
	if string(one["tool_go.md"]) != string(five["tool_go.md"]) {
		t.Errorf("pages differ with GOMAXPROCS 1 and 5:\n%s\n---\n%s", one["tool_go.md"], five["tool_go.md"])
	}
}

// Package clidoc renders the command-line reference of a cobra command
// tree as Markdown: one page per command (its description, usage,
// examples, flags with their defaults, subcommands) and an index of them
// all. The pages are what `COMMAND --help` prints, laid out for reading,
// so a reference generated from the code cannot drift from it.
//
// Render is deterministic: the same tree gives the same bytes (commands
// in name order, no dates). Hidden and deprecated commands, and cobra's
// help command, are left out. Write puts the pages in a directory and
// removes the pages of commands that no longer exist; Check compares a
// directory with what Render gives now.
package clidoc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// IndexName is the index page's file name: the root command's page.
func IndexName(root *cobra.Command) string { return fileName(root) }

// Render returns the pages of the tree build makes, by file name. A
// flag whose default follows the number of cores the process may use
// (GOMAXPROCS: build is called with 1 and with 3) is given as "the
// cores (GOMAXPROCS)", so that the pages do not depend on the machine.
func Render(build func() *cobra.Command, regenerate string) map[string][]byte {
	cores := coreDependent(build)
	root := build()
	pages := map[string][]byte{}
	var all []*cobra.Command
	walk(root, func(c *cobra.Command) { all = append(all, c) })
	for _, c := range all {
		pages[fileName(c)] = page(c, root, all, regenerate, cores)
	}
	return pages
}

// coreDependent names (command path, space, flag name) the flags whose
// default differs between trees built with GOMAXPROCS 1 and 3.
func coreDependent(build func() *cobra.Command) map[string]bool {
	defaults := func(procs int) map[string]string {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		out := map[string]string{}
		walk(build(), func(c *cobra.Command) {
			c.Flags().VisitAll(func(f *pflag.Flag) { out[c.CommandPath()+" "+f.Name] = f.DefValue })
		})
		return out
	}
	one, three := defaults(1), defaults(3)
	cores := map[string]bool{}
	for k, v := range one {
		if three[k] != v {
			cores[k] = true
		}
	}
	return cores
}

// walk calls fn on c and on every visible command under it, depth first,
// children in name order.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range children(c) {
		walk(s, fn)
	}
}

// children are c's visible subcommands in name order.
func children(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.Hidden || s.Deprecated != "" || s.Name() == "help" {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// fileName is the page of c: its full path joined by underscores.
func fileName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

func page(c, root *cobra.Command, all []*cobra.Command, regenerate string, cores map[string]bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", c.CommandPath())
	fmt.Fprintf(&b, "<!-- Generated from the code: do not edit. Regenerate with %s -->\n\n", regenerate)
	if c.Short != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(c.Short))
	}
	if long := strings.TrimSpace(c.Long); long != "" && long != strings.TrimSpace(c.Short) {
		fmt.Fprintf(&b, "```\n%s\n```\n\n", long)
	}
	if c.Runnable() || c.HasAvailableSubCommands() {
		b.WriteString("## Usage\n\n```\n")
		if c.Runnable() {
			fmt.Fprintf(&b, "%s\n", c.UseLine())
		}
		if c.HasAvailableSubCommands() {
			fmt.Fprintf(&b, "%s [command]\n", c.CommandPath())
		}
		b.WriteString("```\n\n")
	}
	if ex := strings.TrimRight(c.Example, " \n"); ex != "" {
		fmt.Fprintf(&b, "## Examples\n\n```\n%s\n```\n\n", ex)
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Flags\n\n")
		flagTable(&b, c, fs, cores)
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Flags of the parent commands\n\n")
		flagTable(&b, c, fs, cores)
	}
	if subs := children(c); len(subs) > 0 {
		b.WriteString("## Commands\n\n| command | what |\n|---|---|\n")
		for _, s := range subs {
			fmt.Fprintf(&b, "| [%s](%s) | %s |\n", s.CommandPath(), fileName(s), cell(s.Short))
		}
		b.WriteString("\n")
	}
	if c == root {
		b.WriteString("## Every command\n\n")
		for _, s := range all[1:] {
			depth := strings.Count(s.CommandPath(), " ") - 1
			fmt.Fprintf(&b, "%s- [%s](%s)\n", strings.Repeat("  ", depth), s.CommandPath(), fileName(s))
		}
		b.WriteString("\n")
	}
	if p := c.Parent(); p != nil {
		fmt.Fprintf(&b, "Up: [%s](%s)\n", p.CommandPath(), fileName(p))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// flagTable writes fs, flags of c, as a table: flag, type, default,
// meaning.
func flagTable(b *bytes.Buffer, c *cobra.Command, fs *pflag.FlagSet, cores map[string]bool) {
	b.WriteString("| flag | type | default | meaning |\n|---|---|---|---|\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		typ, usage := pflag.UnquoteUsage(f)
		if typ == "" {
			typ = f.Value.Type() // bool, which --help leaves unnamed
		}
		def := "`" + f.DefValue + "`"
		switch {
		case cores[c.CommandPath()+" "+f.Name]:
			def = "the cores (GOMAXPROCS)"
		case zeroDefault(f):
			def = "—" // as --help: no default shown; the meaning may say what 0 or "" stands for
		}
		if f.Deprecated != "" {
			usage += " (deprecated: " + f.Deprecated + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, cell(typ), cell(def), cell(usage))
	})
	b.WriteString("\n")
}

// zeroDefault reports whether f's default is its type's zero value, which
// --help does not print either.
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]", "<nil>":
		return true
	}
	return false
}

// cell makes s safe inside a table cell: one line, no bare pipe.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// Write puts the pages in dir (made if need be) and removes the .md files
// there that are not among them.
func Write(dir string, pages map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, ok := pages[filepath.Base(f)]; !ok {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, data := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), append(slices.Clone(data), '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Check compares dir with pages: every page present with the same bytes,
// and no other .md file. The error names every difference.
func Check(dir string, pages map[string][]byte) error {
	var problems []string
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case errors.Is(err, os.ErrNotExist):
			problems = append(problems, n+": missing")
		case err != nil:
			problems = append(problems, n+": "+err.Error())
		case !bytes.Equal(got, append(slices.Clone(pages[n]), '\n')):
			problems = append(problems, n+": differs from the code ("+firstDiff(got, pages[n])+")")
		}
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, ok := pages[filepath.Base(f)]; !ok {
			problems = append(problems, filepath.Base(f)+": no such command any more")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// firstDiff names the first line where the checked-in page and the
// generated one differ.
func firstDiff(got, want []byte) string {
	g := strings.Split(strings.TrimRight(string(got), "\n"), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: checked in %q, from the code %q", i+1, clip(gl), clip(wl))
		}
	}
	return "same lines"
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// The flags, by name, whose value is a path a command writes, and those it
// reads. Every command's flags of these names are checked by
// distinctPaths.
var (
	outputFlags = []string{"out", "cpuprofile", "memprofile", "exectrace", "csv"}
	inputFlags  = []string{"config", "trace", "file", "stream", "token-file"}
)

// distinctPaths refuses, before a command runs, two output flags that
// name the same file (one output would overwrite the other: a results
// file over the CPU profile), and an output flag that names a file an
// input flag reads. Paths are the same when their cleaned absolute forms
// are, or when both exist and are one file (a link). "-" (stdout) and
// empty values are not paths.
func distinctPaths(cmd *cobra.Command, _ []string) error {
	type path struct {
		flag, value, abs string
		output           bool
	}
	var paths []path
	collect := func(names []string, output bool) {
		for _, name := range names {
			f := cmd.Flags().Lookup(name)
			if f == nil || !f.Changed || f.Value.Type() != "string" {
				continue
			}
			v := f.Value.String()
			if v == "" || v == "-" {
				continue
			}
			abs, err := filepath.Abs(v)
			if err != nil {
				abs = filepath.Clean(v)
			}
			paths = append(paths, path{"--" + name, v, abs, output})
		}
	}
	collect(outputFlags, true)
	collect(inputFlags, false)
	for i, a := range paths {
		if !a.output {
			continue
		}
		for _, b := range paths[:i] {
			if !samePath(a.abs, b.abs) {
				continue
			}
			return badInput(fmt.Errorf("%s %s and %s %s name the same file: each output needs a path of its own", b.flag, b.value, a.flag, a.value))
		}
		for _, b := range paths[i+1:] {
			if !b.output && samePath(a.abs, b.abs) {
				return badInput(fmt.Errorf("%s %s names the file %s %s reads: the output would overwrite its input", a.flag, a.value, b.flag, b.value))
			}
		}
	}
	return nil
}

// samePath reports whether two absolute paths name one file.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

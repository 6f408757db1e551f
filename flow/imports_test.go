package flow

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoCycleLevelImports checks that no file under flow/ imports a
// package of this module outside flow/ (the cycle-level fabric, actors
// and sim in particular) but the name registry every part of opasim uses
// and the VEF trace format and its collective lowering (workloads/vef,
// workloads/collective: the flow-level trace replay reads the traces the
// cycle-level replay reads, with the same algorithms) and the tests'
// long-suite switch (internal/testlong), which import the standard
// library only: the flow engine stands alone.
func TestNoCycleLevelImports(t *testing.T) {
	const module = "github.com/opasim/opasim/"
	allowed := map[string]bool{module + "registry": true, module + "workloads/vef": true, module + "workloads/collective": true,
		module + "internal/testlong": true}
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) && !strings.HasPrefix(p, module+"flow") && !allowed[p] {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d Go files found under flow/", n)
	}
}

// TestAllowedImportsStandAlone checks that the packages outside flow/ that
// flow/ may import import nothing of this module but each other.
func TestAllowedImportsStandAlone(t *testing.T) {
	const module = "github.com/opasim/opasim/"
	for _, dir := range []string{"../workloads/vef", "../workloads/collective", "../internal/testlong"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(p, module) && p != module+"workloads/vef" {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
	}
}

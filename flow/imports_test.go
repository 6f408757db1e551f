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
// and sim in particular) but the name registry every part of opasim uses:
// the flow engine stands alone.
func TestNoCycleLevelImports(t *testing.T) {
	const module = "github.com/opasim/opasim/"
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
			if strings.HasPrefix(p, module) && !strings.HasPrefix(p, module+"flow") && p != module+"registry" {
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

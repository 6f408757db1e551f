package main

import (
	"flag"
	"testing"

	"github.com/opasim/opasim/internal/clidoc"
)

var updateReference = flag.Bool("update-reference", false, "write docs/reference from the command tree instead of checking it")

// referenceDir is the checked-in CLI reference, from this package's
// directory.
const referenceDir = "../../docs/reference"

// regenerate is the command that writes the reference again, as the pages
// and the failure below name it.
const regenerate = "`go generate ./cmd/opasim`"

// TestCLIReference: docs/reference is what the command tree gives now,
// page for page and byte for byte, so a flag added, removed, renamed or
// given another default or meaning without the reference regenerated
// fails here, naming the page and the first line that differs.
func TestCLIReference(t *testing.T) {
	pages := clidoc.Render(newRootCmd, regenerate)
	if *updateReference {
		if err := clidoc.Write(referenceDir, pages); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d pages to %s", len(pages), referenceDir)
		return
	}
	if err := clidoc.Check(referenceDir, pages); err != nil {
		t.Fatalf("docs/reference is not what the commands give now:\n%v\nregenerate it with: go generate ./cmd/opasim", err)
	}
}

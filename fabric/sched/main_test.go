package sched

import (
	"os"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

// TestMain runs the quick suite, or the long one with OPASIM_LONG=1, and
// says what the quick suite skipped.
func TestMain(m *testing.M) { os.Exit(testlong.Main(m)) }

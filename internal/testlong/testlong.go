// Package testlong gates the project's long test suites behind one switch,
// the environment variable OPASIM_LONG.
//
// `go test ./...` runs the quick suite: every package's behaviour checked on
// small cases, a few minutes on two cores. The long suites (drains of every
// preset under every allocator and scheduler, agreement of the engines over
// every config, the studies and cross-validations that simulate hundreds of
// thousands of cycles) run only with OPASIM_LONG=1, which CI sets:
//
//	OPASIM_LONG=1 go test -timeout 60m ./...
//
// A test that belongs to a long suite calls Skip first. A package that has
// such tests runs them through Main from its TestMain, which tells the
// user's terminal what was skipped and why: `go test` prints nothing of a
// passing package's output without -v.
package testlong

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Env is the environment variable that turns the long suites on.
const Env = "OPASIM_LONG"

// Enabled reports whether the long suites run: OPASIM_LONG is 1 or true.
func Enabled() bool {
	switch strings.ToLower(os.Getenv(Env)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

var (
	mu      sync.Mutex
	skipped = map[string][]string{} // reason → tests
)

// Skip skips t unless the long suites are on, and records it for Main's
// summary.
func Skip(t testing.TB) {
	t.Helper()
	if Enabled() {
		return
	}
	Skipf(t, "long test: set %s=1 to run it", Env)
}

// Skipf skips t for the reason given (a missing tool, the long suites off)
// and records it for Main's summary.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	mu.Lock()
	skipped[reason] = append(skipped[reason], t.Name())
	mu.Unlock()
	t.Skip(reason)
}

// Main runs the package's tests and then reports the tests Skip and Skipf
// skipped, grouped by reason, on the terminal when there is one (standard
// output otherwise, which `go test -v` shows). It returns the exit code for
// os.Exit.
func Main(m *testing.M) int {
	code := m.Run()
	report(terminal())
	return code
}

// terminal is the user's terminal, where a summary reaches them past
// `go test`'s capture of a passing package's output, or standard output.
func terminal() io.Writer {
	if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return f
	}
	return os.Stdout
}

func report(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return
	}
	reasons := make([]string, 0, len(skipped))
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	pkg := packageName()
	for _, r := range reasons {
		names := skipped[r]
		sort.Strings(names)
		list := strings.Join(names, ", ")
		if len(list) > 160 {
			list = list[:157] + "..."
		}
		fmt.Fprintf(w, "%s: %d skipped (%s): %s\n", pkg, len(names), r, list)
	}
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		f.Close()
	}
}

// packageName is the test binary's package, from its name (pkg.test).
func packageName() string {
	name := os.Args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(name, ".test")
}

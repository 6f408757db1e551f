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
	"slices"
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

// longReason is the summary's reason for the tests Skip skipped.
const longReason = "long tests: set " + Env + "=1 to run them"

// Skip skips t unless the long suites are on (and always under -short, the
// race detector's run), and records it for Main's summary. what says what
// makes the test long ("a saturated 8x8 torus, 200,000 cycles").
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Quick() {
		return
	}
	record(longReason, t.Name())
	t.Skipf("long test (%s): set %s=1 to run it", what, Env)
}

// Quick reports whether the quick suite runs: the long suites are off, or
// -short is set. A test that runs a reduced set of cases when Quick calls
// Reduced to have that said in Main's summary.
func Quick() bool { return testing.Short() || !Enabled() }

// Reduced reports Quick, and records t as running a reduced set of cases
// when it is.
func Reduced(t testing.TB) bool {
	t.Helper()
	if !Quick() {
		return false
	}
	record("run a reduced set of cases: set "+Env+"=1 for all", t.Name())
	return true
}

// Skipf skips t for the reason given (a missing tool) and records it for
// Main's summary.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	record(reason, t.Name())
	t.Skip(reason)
}

func record(reason, test string) {
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(skipped[reason], test) {
		skipped[reason] = append(skipped[reason], test)
	}
}

// Main runs the package's tests and then reports the tests Skip and Skipf
// skipped and those Reduced cut short, grouped by reason, on the terminal when there is one (standard
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
		fmt.Fprintf(w, "%s: %d %s: %s\n", pkg, len(names), r, list)
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

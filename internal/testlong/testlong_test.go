package testlong

import (
	"bytes"
	"strings"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{{"", false}, {"0", false}, {"no", false}, {"1", true}, {"true", true}, {"TRUE", true}} {
		t.Setenv(Env, c.v)
		if got := Enabled(); got != c.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, c.v, got, c.want)
		}
	}
}

// TestSkipRecords: Skip skips only when the switch is off, and the summary
// names each skipped test under its reason.
func TestSkipRecords(t *testing.T) {
	mu.Lock()
	saved := skipped
	skipped = map[string][]string{}
	mu.Unlock()
	defer func() { mu.Lock(); skipped = saved; mu.Unlock() }()

	t.Setenv(Env, "")
	var ran bool
	t.Run("off", func(t *testing.T) { Skip(t, "test"); ran = true })
	if ran {
		t.Error("Skip did not skip with the switch off")
	}
	t.Setenv(Env, "1")
	if testing.Short() {
		t.Skip("-short skips every long test: the rest needs the long suites on")
	}
	t.Run("on", func(t *testing.T) { Skip(t, "test"); ran = true })
	if !ran {
		t.Error("Skip skipped with the switch on")
	}
	t.Run("tool", func(t *testing.T) { Skipf(t, "no %s here", "promtool") })

	var b bytes.Buffer
	report(&b)
	out := b.String()
	for _, want := range []string{"1 long tests: set OPASIM_LONG=1 to run them: TestSkipRecords/off",
		"1 no promtool here: TestSkipRecords/tool"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "TestSkipRecords/on") {
		t.Errorf("summary %q names a test that ran", out)
	}
}

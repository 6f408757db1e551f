package sim

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// goWords are what a message about a config file must never show: Go's
// names for the config's types rather than the file's keys.
var goWords = regexp.MustCompile(`fabric\.|sim\.|\bu?int(8|16|32|64)?\b|float(32|64)|\[\]|\bstruct\b|!!`)

// FuzzConfig: decoding any YAML never panics; a refusal never speaks of Go
// types or YAML tags; a file that decodes either validates or gets a list
// of Problems; a config that validates also builds.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"cycles: 3000\ntraffic:\n  load: 0.2\n",
		"switch:\n  latency:\n    at: 1\n",
		"qos:\n  sls:\n  - name: A\n    scs: [0]\n    mtu_bytes: 64\n    share: 1\n  sc2vl: [0]\n",
		"topology: {ports: 12}\nswitch: {vls: 2, max_vl_flits: 16, exclusive_vl_flits: 4}\n",
		"traffic:\n  laod: 0.5\n",
		"cycles: abc\nseed: -1\ntraffic: {drop_backlog: 1, load: [x]}\n",
		"qos:\n  sls:\n  - {name: A, scs: [0]}\n  - name: B\n    mtu_byts: 3\n",
		"qos: {sc2vl: &a [*a]}\n",
		"a: &a [1, 1]\nb: &b [*a, *a]\nqos: {sc2vl: *b}\n",
		"<<: {cycles: 5}\ntopology: &t {kind: tree}\n",
		"cycles: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n",
		"cycles: 2000\nwarmup: 0\nqos: {scheduler: dtable, decision_cycles: 30, counter_bits: 5, counter_overflow: wrap, table_entries: 3}\n",
		"cycles: 2000\nwarmup: 0\nqos: {scheduler: drr, decision_cycles: 3, counter_bits: 63, counter_overflow: saturate}\n",
	} {
		f.Add([]byte(s))
	}
	schedulers := sched.Default()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := fabric.Default()
		if err := DecodeConfig(data, &cfg); err != nil {
			for _, w := range goWords.FindAllString(err.Error(), -1) {
				if !bytes.Contains(data, []byte(w)) { // a word the file wrote may be quoted back
					t.Fatalf("message speaks of %q: %v", w, err)
				}
			}
			return
		}
		err := cfg.Validate(schedulers)
		var p fabric.Problems
		if err != nil && !errors.As(err, &p) {
			t.Fatalf("Validate gave %T, not Problems: %v", err, err)
		}
		if err != nil || cfg.NumNICs() > 256 || cfg.Switch.VLs > 16 {
			return // refused, or valid but too big to build in a fuzz iteration
		}
		if _, err := fabric.Build(cfg, sched.Default()); err != nil {
			t.Errorf("validated config does not build: %v", err)
		}
	})
}

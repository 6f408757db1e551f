package sweep

import (
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// TestSchedulerGlyphs: every registered scheduler has its own marker, no two
// alike and none the marker of an unlisted name, so every scheduler of a
// sweep can be told apart in its figures.
func TestSchedulerGlyphs(t *testing.T) {
	owner := map[any]string{otherGlyph: "(unlisted)"}
	for _, name := range sched.Default().Names() {
		g := schedulerGlyph(name)
		if g == otherGlyph {
			t.Errorf("%s has no marker in its registration", name)
			continue
		}
		if prev, taken := owner[g]; taken {
			t.Errorf("%s has the glyph of %s (%#v)", name, prev, g)
		}
		owner[g] = name
	}
}

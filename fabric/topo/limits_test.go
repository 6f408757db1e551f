package topo

import (
	"strings"
	"testing"
)

// TestSizeLimits: a topology far larger than any simulation is refused
// before anything is allocated.
func TestSizeLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"single switch ports", Spec{Kind: KindSingle, Ports: 100_000_000}, "ports: 100000000 is not allowed: must be a multiple of 4 in [8, 1048576]"},
		{"torus NICs", Spec{Kind: KindTorus, Dims: []int{1024, 1024}, NICsPerSwitch: 2, Trunk: 1},
			"torus nics_per_switch: 2 is not allowed: 1048576 switches would have more than 1048576 NICs"},
		{"torus trunk", Spec{Kind: KindTorus, Dims: []int{16, 16}, NICsPerSwitch: 1, Trunk: 1 << 30},
			"torus trunk: 1073741824 is not allowed: 256 switches would have more than 1048576 links in a direction"},
	} {
		_, err := tc.spec.Build()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

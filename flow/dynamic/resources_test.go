package dynamic

import (
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/route"
)

// withDevice is a 4-ring (ring, capacity 1) with a fifth endpoint, a
// device on server 0 of capacity 1/4: resource L (after the ring's L
// links) on every path from it, then the ring's path from server 0.
type withDevice struct {
	route.Router
	caps []float64
}

func (w *withDevice) Endpoints() int32      { return 5 }
func (w *withDevice) Capacities() []float64 { return w.caps }
func (w *withDevice) Route(src, dst int32, fn route.PathFunc) error {
	if src != 4 {
		return w.Router.Route(src, dst, fn)
	}
	dev := int32(len(w.caps) - 1)
	if dst == 0 {
		fn([]int32{dev}, 1)
		return nil
	}
	return w.Router.Route(0, dst, func(links []int32, share float64) {
		fn(append([]int32{dev}, links...), share)
	})
}

// TestResources: flows from the device (endpoint 4) cross its resource
// of 1/4. A (device → 1, size 1) and B (0 → 1, size 1) share server
// 0's link: A is held to 1/4 by the device, B takes 3/4 and completes at
// 4/3; A alone then still runs at 1/4: done at 4. C (device → 0, size
// 1/2, the device only) starts at 4 and takes 2: 6. An endpoint past
// the fifth is refused.
func TestResources(t *testing.T) {
	r := ring(t, 1)
	w := &withDevice{Router: r, caps: append(slices.Clone(r.Graph().Capacities()), 0.25)}
	res := run(t, w, []Flow{{Src: 4, Dst: 1, Size: 1}, {Src: 0, Dst: 1, Size: 1}, {Src: 4, Dst: 0, Size: 0.5, Deps: []int{0}}})
	expectTimes(t, res, []float64{0, 0, 4}, []float64{4, 4.0 / 3, 6})
	_, err := Run(w, []Flow{{Src: 0, Dst: 5, Size: 1}})
	if err == nil || !strings.Contains(err.Error(), "dynamic flow 0 dst: 5 is not allowed: must be a server, in [0, 5)") {
		t.Errorf("endpoint 5: %v", err)
	}
}

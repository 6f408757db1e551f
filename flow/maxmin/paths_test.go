package maxmin

import (
	"math"
	"slices"
	"testing"
)

// TestPathStoreRoundTrip stores paths of links below and above 2^15 (one
// and two 16-bit units), up to the largest link id a solver allows, in
// pools short and long, frees some and stores others in their slots, and
// checks that every live path decodes as it was stored and takes the
// units it should.
func TestPathStoreRoundTrip(t *testing.T) {
	var p pathStore
	x := uint64(3)
	next := func(n int) int { x = x*6364136223846793005 + 1442695040888963407; return int(x>>33) % n }
	ids := []int32{0, 1, wideLink - 1, wideLink, wideLink + 1, 1 << 16, 1<<16 - 1, 123456789, math.MaxInt32/2 - 1}
	type stored struct {
		path  []int32
		slot  int32
		units uint16
	}
	var live []stored
	var buf []int32
	for step := range 5000 {
		if next(3) > 0 || len(live) == 0 {
			path := make([]int32, next(80))
			units := 0
			for k := range path {
				if next(2) == 0 {
					path[k] = ids[next(len(ids))]
				} else {
					path[k] = int32(next(1 << 20))
				}
				units++
				if path[k] >= wideLink {
					units++
				}
			}
			slot, n := p.put(path)
			if int(n) != units {
				t.Fatalf("step %d: %v takes %d units, want %d", step, path, n, units)
			}
			live = append(live, stored{path, slot, n})
		} else {
			i := next(len(live))
			p.release(live[i].units, live[i].slot)
			live = slices.Delete(live, i, i+1)
		}
		for _, s := range live {
			if buf = p.get(s.units, s.slot, buf); !slices.Equal(buf, s.path) {
				t.Fatalf("step %d: path decodes as %v, want %v", step, buf, s.path)
			}
		}
		if step%64 == 0 {
			p.fit()
		}
	}
}

// TestMaxPathLinks: a path of MaxPathLinks links, all above 2^15, is
// accepted and read back; one link more is not.
func TestMaxPathLinks(t *testing.T) {
	caps := make([]float64, 40000)
	for l := range caps {
		caps[l] = 1
	}
	s, err := New(caps)
	if err != nil {
		t.Fatal(err)
	}
	path := make([]int32, MaxPathLinks+1)
	for k := range path {
		path[k] = int32(39999 - k%7000)
	}
	if _, err := s.AddFlow(path, NoCap); err == nil {
		t.Fatalf("a path of %d links accepted", len(path))
	}
	id, err := s.AddFlow(path[:MaxPathLinks], NoCap)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Path(id); !slices.Equal(got, path[:MaxPathLinks]) {
		t.Fatalf("path of %d links read back as %d links", MaxPathLinks, len(got))
	}
	s.Solve()
	// 39999 appears ceil(32767/7000) = 5 times: the rate is 1/5.
	if r := s.Rate(id); r != 0.2 {
		t.Fatalf("rate %v, want 0.2", r)
	}
}

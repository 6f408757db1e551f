package fabric

import "testing"

// TestSpace: a buffer of 16 credits over 2 VLs, each guaranteed 4 and
// allowed at most 10. A VL may take shared space only while the other
// VL's unused guarantee stays free.
func TestSpace(t *testing.T) {
	type op struct {
		take bool // take, else free
		vl   int
		n    int32
	}
	for _, tc := range []struct {
		name  string
		ops   []op
		fits  [2]int32 // the largest n that Fits for VL 0 and 1 afterwards
		total int32
	}{
		// Empty: VL 0 may take 16 − 4 (VL 1's guarantee) = 12, capped at 10.
		{"empty", nil, [2]int32{10, 10}, 0},
		// VL 0 holds 10 (its maximum): nothing more for it; VL 1 has 6 left.
		{"VL 0 at its maximum", []op{{true, 0, 10}}, [2]int32{0, 6}, 10},
		// VL 0 holds 8: 8 free, VL 1's 4 reserved, so VL 0 may take 2 more
		// (its maximum also allows 2), VL 1 may take 8.
		{"VL 0 holds 8", []op{{true, 0, 8}}, [2]int32{2, 8}, 8},
		// Both hold 3 (inside their guarantees): 10 free, of which VL 1's
		// unused guarantee (1) is reserved, leaving 9; the maximum caps VL 0
		// at 10 − 3 = 7. The same for VL 1.
		{"both inside the guarantee", []op{{true, 0, 3}, {true, 1, 3}}, [2]int32{7, 7}, 6},
		// Taken and freed again: as empty.
		{"freed", []op{{true, 0, 8}, {true, 1, 2}, {false, 0, 8}, {false, 1, 2}}, [2]int32{10, 10}, 0},
	} {
		s := newSpace(2, 16, 4, 10)
		for _, o := range tc.ops {
			if o.take {
				s.Take(o.vl, o.n)
			} else {
				s.Free(o.vl, o.n)
			}
		}
		for vl := 0; vl < 2; vl++ {
			largest := int32(0)
			for n := int32(1); n <= 16; n++ {
				if s.Fits(vl, n) {
					largest = n
				}
			}
			if largest != tc.fits[vl] {
				t.Errorf("%s: VL %d fits up to %d credits, want %d", tc.name, vl, largest, tc.fits[vl])
			}
		}
		if s.Total() != tc.total || s.FreeCredits() != 16-tc.total {
			t.Errorf("%s: total %d, free %d; want %d, %d", tc.name, s.Total(), s.FreeCredits(), tc.total, 16-tc.total)
		}
	}
}

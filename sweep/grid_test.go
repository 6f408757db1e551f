package sweep

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseLoads(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
	}{
		{"0.1:1:0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"0.9, 0.1,0.5", []float64{0.1, 0.5, 0.9}},
		{"0.2:0.5:0.2,1", []float64{0.2, 0.4, 1}},
		{"0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
	} {
		got, err := ParseLoads(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseLoads(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestGridLimits: an axis or a grid too large to hold, and ranges that
// are empty, reversed, not numbers or with a step that is not positive,
// are refused with the value and the limit, quickly and without building
// the axis.
func TestGridLimits(t *testing.T) {
	manySeeds := strings.Repeat("1,", MaxPoints) + "1"
	manyLoads := strings.Repeat("0.5,", MaxPoints) + "0.5"
	for _, tc := range []struct {
		name  string
		parse func() error
		want  []string
	}{
		{"tiny step", loadsErr("0.1:1:0.000000001"), []string{`"0.1:1:0.000000001"`, "900000002 loads", "at most 10000 runs"}},
		{"step below the float resolution", loadsErr("0.1:1:1e-300"), []string{"1e-300", "at most 10000 runs"}},
		{"ranges adding up", loadsErr("0.0001:1:0.0002,0.0002:1:0.0002,0.00015:1:0.0002"), []string{"0.00015:1:0.0002", "at most 10000 runs"}},
		{"too many loads listed", loadsErr(manyLoads), []string{"more than 10000 loads"}},
		{"step zero", loadsErr("0.1:1:0"), []string{`"0.1:1:0"`, "STEP > 0"}},
		{"negative step", loadsErr("0.1:1:-0.1"), []string{"STEP > 0"}},
		{"reversed range", loadsErr("1:0.1:0.1"), []string{"FROM <= TO"}},
		{"NaN", loadsErr("0.1:NaN:0.1"), []string{`"NaN" is not a number`}},
		{"Inf", loadsErr("Inf"), []string{`"Inf" is not a number`}},
		{"two fields", loadsErr("0.1:1"), []string{"FROM:TO:STEP"}},
		{"a billion seeds", seedsErr(1_000_000_000), []string{"1000000000", "[1, 10000]"}},
		{"no seeds", seedsErr(0), []string{"0 is not allowed", "[1, 10000]"}},
		{"seed list too long", func() error { _, err := ParseSeedList(manySeeds); return err }, []string{"10001 seeds", "at most 10000"}},
		{"grid too large", gridErr(4, 100, 26), []string{"10400 runs (4 schedulers x 100 loads x 26 seeds)", "at most 10000"}},
	} {
		start := time.Now()
		err := tc.parse()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
	}
	if _, err := SeedRange(MaxPoints); err != nil {
		t.Errorf("SeedRange(MaxPoints): %v", err)
	}
	if l, err := ParseLoads("0.0001:1:0.0001"); err != nil || len(l) != MaxPoints {
		t.Errorf("10000 loads: %d, %v", len(l), err)
	}
}

func loadsErr(s string) func() error {
	return func() error { _, err := ParseLoads(s); return err }
}

func seedsErr(n int) func() error {
	return func() error { _, err := SeedRange(n); return err }
}

// gridErr checks a grid's size, then asks for its points, which must be
// refused the same way before any config is copied.
func gridErr(schedulers, loads, seeds int) func() error {
	return func() error {
		g := Grid{Schedulers: make([]string, schedulers), Loads: make([]float64, loads), Seeds: make([]uint64, seeds)}
		if err := g.CheckSize(); err == nil {
			return nil
		}
		_, err := g.Points(nil)
		return err
	}
}

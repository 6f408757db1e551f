package dtable

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every expected number in this file is worked out by hand from seed 000
// (Tables 5, 9 and 10), not taken from a run of the code.

// table5 is seed 000 Table 5 with the printed shares (MODEL.md section 8).
var table5 = Request{Entries: 128, GMTU: 3, W: 4, K: 3, SLs: []SLRequest{
	{Name: "0", Distance: 2, MTU: 1, Share: 0.33334},
	{Name: "1", Distance: 4, MTU: 2, Share: 0.33333},
	{Name: "2", Distance: 4, MTU: 3, Share: 0.33333},
}}

// table9 is seed 000 Tables 9 and 10 (MTUs 128, 256, 512, 1024 B in 64 B credits).
var table9 = Request{Entries: 128, GMTU: 16, W: 8, K: 2, SLs: []SLRequest{
	{Name: "VO", Distance: 2, MTU: 2, Share: 0.1},
	{Name: "VI", Distance: 4, MTU: 4, Share: 0.3},
	{Name: "CL", Distance: 8, MTU: 8, Share: 0.5},
	{Name: "BE", Distance: 16, MTU: 16, Share: 0.05},
	{Name: "BK", Distance: 16, MTU: 16, Share: 0.05},
}}

// row is the hand-derived expectation for one SL.
type row struct {
	n, ew, sum, dw, fw   int
	minPhi, maxPhi, rPhi float64
	fPhi                 float64
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", what, got, want, tol)
	}
}

func checkRows(t *testing.T, r *Result, want []row, tolR float64) {
	t.Helper()
	for i, w := range want {
		s := r.SLs[i]
		if s.Entries != w.n || s.EntryWeight != w.ew || s.WeightSum != w.sum || s.DWeight != w.dw || s.FWeight != w.fw {
			t.Errorf("SL %s: n=%d E.W.=%d Σweight=%d Dweight=%d Fweight=%d, want %d %d %d %d %d",
				s.Name, s.Entries, s.EntryWeight, s.WeightSum, s.DWeight, s.FWeight, w.n, w.ew, w.sum, w.dw, w.fw)
		}
		near(t, "SL "+s.Name+" minφ", s.MinPhi, w.minPhi, 5e-6)
		near(t, "SL "+s.Name+" maxφ", s.MaxPhi, w.maxPhi, 5e-6)
		near(t, "SL "+s.Name+" Rφ", s.RPhi, w.rPhi, tolR)
		near(t, "SL "+s.Name+" Fφ", s.FPhi, w.fPhi, 5e-6)
	}
}

func TestTable5(t *testing.T) {
	r, err := Configure(table5)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pool != 1152 || r.M != 12 || r.WeightSum != 1216 || r.FWeight != 1215 {
		t.Errorf("pool=%d M=%d Σweight=%d Fweight=%d, want 1152 12 1216 1215", r.Pool, r.M, r.WeightSum, r.FWeight)
	}
	checkRows(t, r, []row{
		{64, 7, 448, -43, 405, 0.05556, 0.66667, 0.36842, 0.33333},
		{32, 12, 384, 21, 405, 0.05556, 0.33333, 0.31579, 0.33333},
		{32, 12, 384, 21, 405, 0.08333, 0.33333, 0.31579, 0.33333},
	}, 5e-6)
	// Walk from the end: SL0's last 43 entries lose 1 (21×7 + 43×6 = 405),
	// SL1's and SL2's last 21 entries gain 1 (11×12 + 21×13 = 405).
	checkWeights(t, r.SLs[0].EntryWeights, 7, 21, 6, 43)
	checkWeights(t, r.SLs[1].EntryWeights, 12, 11, 13, 21)
	checkWeights(t, r.SLs[2].EntryWeights, 12, 11, 13, 21)
	// 13 > M = 12 for SL1 and SL2: allowed, one warning each.
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "SL 1: entry weight 13 is above M 12 by 1") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

// checkWeights wants c1 entries of weight w1 followed by c2 of weight w2.
func checkWeights(t *testing.T, got []int, w1, c1, w2, c2 int) {
	t.Helper()
	want := append(slices.Repeat([]int{w1}, c1), slices.Repeat([]int{w2}, c2)...)
	if !slices.Equal(got, want) {
		t.Errorf("entry weights = %v, want %d×%d then %d×%d", got, w1, c1, w2, c2)
	}
}

func TestTables9And10(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pool != 4096 || r.M != 128 || r.WeightSum != 4160 || r.FWeight != 4160 || len(r.Table) != 128 {
		t.Errorf("pool=%d M=%d Σweight=%d Fweight=%d len=%d, want 4096 128 4160 4160 128",
			r.Pool, r.M, r.WeightSum, r.FWeight, len(r.Table))
	}
	// Rφ as Table 10 prints it, to 2 decimals.
	checkRows(t, r, []row{
		{64, 7, 448, -32, 416, 0.03125, 2, 0.11, 0.1},
		{32, 39, 1248, 0, 1248, 0.03125, 1, 0.3, 0.3},
		{16, 128, 2048, 32, 2080, 0.03125, 0.5, 0.49, 0.5},
		{8, 26, 208, 0, 208, 0.03125, 0.25, 0.05, 0.05},
		{8, 26, 208, 0, 208, 0.03125, 0.25, 0.05, 0.05},
	}, 0.005)
	// VO's Dweight -32 walks back from slot 126 over its last 32 entries
	// (slots 126, 124, …, 64), so its first 32 entries (slots 0..62) keep 7:
	// "the first 32 table entries have a weight of 7 and the next 32 have 6".
	checkWeights(t, r.SLs[0].EntryWeights, 7, 32, 6, 32)
	if r.SLs[0].Slots[31] != 62 || r.SLs[0].Slots[32] != 64 {
		t.Errorf("VO slots 31, 32 = %d, %d, want 62, 64", r.SLs[0].Slots[31], r.SLs[0].Slots[32])
	}
	// CL's +32 over 16 entries is two whole passes: every entry 130.
	checkWeights(t, r.SLs[2].EntryWeights, 130, 16, 0, 0)
	checkWeights(t, r.SLs[1].EntryWeights, 39, 32, 0, 0)
	checkWeights(t, r.SLs[3].EntryWeights, 26, 8, 0, 0)
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "SL CL: entry weight 130 is above M 128 by 2") {
		t.Errorf("warnings = %q, want one about CL's 130 > 128", r.Warnings)
	}
}

// TestTable9Layout: VO takes the even slots, VI 1 mod 4, CL 3 mod 8,
// BE 7 mod 16, BK 15 mod 16; all 128 slots are used.
func TestTable9Layout(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	for s, e := range r.Table {
		if want := table9SL(s); e.SL != want {
			t.Fatalf("slot %d holds SL %d, want %d", s, e.SL, want)
		}
	}
	if got := r.File.Entries[64]; got != (TableEntry{SL: "VO", Weight: 6}) {
		t.Errorf("file entry 64 = %+v, want {VO 6}", got)
	}
}

func table9SL(slot int) int {
	switch {
	case slot%2 == 0:
		return 0
	case slot%4 == 1:
		return 1
	case slot%8 == 3:
		return 2
	case slot%16 == 7:
		return 3
	}
	return 4
}

// TestUnusedEntries: N=8, GMTU=2, w=2, k=1; A distance 2 MTU 1 share 0.5,
// B distance 4 MTU 2 share 0.5. pool=16, E.W. A=⌈16·0.5/4⌉=2, B=⌈8/2⌉=4,
// Rφ 8/16 each, Dweight 0. A takes slots 0,2,4,6, B 1,5; 3 and 7 are
// unused and left out: the table is A2 B4 A2 A2 B4 A2.
func TestUnusedEntries(t *testing.T) {
	r, err := Configure(Request{Entries: 8, GMTU: 2, W: 2, K: 1, SLs: []SLRequest{
		{Name: "A", Distance: 2, MTU: 1, Share: 0.5}, {Name: "B", Distance: 4, MTU: 2, Share: 0.5}}})
	if err != nil {
		t.Fatal(err)
	}
	want := tab(0, 2, 1, 4, 0, 2, 0, 2, 1, 4, 0, 2)
	if !slices.Equal(r.Table, want) || r.UsedEntries != 6 || r.SLs[0].DWeight != 0 || r.SLs[1].DWeight != 0 {
		t.Errorf("table = %v used=%d, want %v used=6", r.Table, r.UsedEntries, want)
	}
	if !strings.Contains(r.Text(), "entries used: 6 of 8 (2 unused, left out of the table)") {
		t.Errorf("Text does not report the unused entries:\n%s", r.Text())
	}
}

func TestTextTable10(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{
		"N = 128, GMTU = 16, w = 8, k = 2, M = GMTU·w = 128, pool = N·GMTU·k = 4096",
		"7×32, 6×32", "0.10769", "-32", "+32", "2080",
		"warning: SL CL: entry weight 130 is above M 128 by 2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Text lacks %q:\n%s", want, text)
		}
	}
	lines := strings.Split(text, "\n")
	if utf8.RuneCountInString(lines[3]) != utf8.RuneCountInString(lines[4]) {
		t.Errorf("header and first row differ in width:\n%s\n%s", lines[3], lines[4])
	}
}

func TestRuns(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{39, 39, 39}, "39"},
		{[]int{4, 3, 3, 3}, "4, 3×3"},
		{[]int{7, 7, 6, 6}, "7×2, 6×2"},
		{[]int{5}, "5"},
	} {
		if got := runs(c.in); got != c.want {
			t.Errorf("runs(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJSONKeys(t *testing.T) {
	r, err := Configure(table9)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"used_entries":128`, `"min_phi":0.03125`, `"entry_weight":7`, `"weight_sum":448`,
		`"r_phi":`, `"dweight":-32`, `"fweight":416`, `"f_phi":`, `"table":{"sls":[{"name":"VO","mtu":2}`, `"warnings":["SL CL`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// TestTable5ExactThirds: with φ = 1/3 each (MODEL.md section 8) the entry
// weights 1152/3/64 = 6 and 1152/3/32 = 12 are exact, so there is no error
// to correct; float noise in pool·φ must not bump 6 to 7.
func TestTable5ExactThirds(t *testing.T) {
	req := table5
	req.SLs = []SLRequest{{"0", 2, 1, 1.0 / 3}, {"1", 4, 2, 1.0 / 3}, {"2", 4, 3, 1.0 / 3}}
	r, err := Configure(req)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{6, 12, 12} {
		if s := r.SLs[i]; s.EntryWeight != want || s.DWeight != 0 || s.FWeight != 384 {
			t.Errorf("SL %s: E.W.=%d Dweight=%d Fweight=%d, want %d 0 384", s.Name, s.EntryWeight, s.DWeight, s.FWeight, want)
		}
	}
}

// TestConfigurePlacementRefused: N=12, w=2, k=1; A distance 2 (n=6, φ 0.6 in
// [0.5, 1]), B distance 3 (n=4, φ 0.4 in [1/3, 2/3]). A takes the even
// slots and every class mod 3 holds one.
func TestConfigurePlacementRefused(t *testing.T) {
	_, err := Configure(Request{Entries: 12, GMTU: 1, W: 2, K: 1, SLs: []SLRequest{
		{"A", 2, 1, 0.6}, {"B", 3, 1, 0.4}}})
	if err == nil || !strings.Contains(err.Error(), "SL B: distance 3 cannot be placed") ||
		!strings.Contains(err.Error(), "slot 4 is taken by SL A") {
		t.Errorf("err = %v", err)
	}
}

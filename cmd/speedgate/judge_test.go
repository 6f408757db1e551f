package main

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5}, // (2+3)/2
		{[]float64{10, 10, 1, 100, 10}, 10},
		{[]float64{1.2, 0.9}, 1.05},
	} {
		in := append([]float64(nil), c.xs...)
		if got := median(c.xs); !near(got, c.want) {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Fatalf("median reordered its input: %v, was %v", c.xs, in)
			}
		}
	}
}

func secs(xs ...float64) []sample {
	s := make([]sample, len(xs))
	for i, x := range xs {
		s[i] = sample{Seconds: x, CPU: x / 2, RSSKiB: 100 * 1024, Digest: "abcdef0123456789"}
	}
	return s
}

func TestPairRatios(t *testing.T) {
	got := pairRatios(secs(2, 4, 5), secs(3, 2, 5, 9)) // the fourth head has no pair
	want := []float64{1.5, 0.5, 1}
	if len(got) != len(want) {
		t.Fatalf("pairRatios = %v, want %v", got, want)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("ratio %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestJudgeMedianOfPairs: the ratio is the median of the per-pair ratios,
// not the ratio of the medians. Base 10,10,10,10,10 and head
// 9,11,12,30,8: pair ratios 0.9,1.1,1.2,3.0,0.8, median 1.1 (passes at
// the limit 1.10); the medians are 10 and 11.
func TestJudgeMedianOfPairs(t *testing.T) {
	v := judge(outcome{Scenario: "s", Base: secs(10, 10, 10, 10, 10), Head: secs(9, 11, 12, 30, 8)}, limits{Time: 1.10, RSS: 1.20})
	if !near(v.BaseMedian, 10) || !near(v.HeadMedian, 11) || !near(v.Ratio, 1.1) {
		t.Errorf("medians %v %v ratio %v, want 10 11 1.1", v.BaseMedian, v.HeadMedian, v.Ratio)
	}
	if !v.Pass() {
		t.Errorf("ratio 1.1 at limit 1.10 failed: %+v", v)
	}
	if !near(v.CPURatio, 1.1) { // CPU is half the wall time on both sides
		t.Errorf("CPU ratio %v, want 1.1", v.CPURatio)
	}
	// The CPU ratio is shown, never judged: twice the CPU passes.
	o := outcome{Scenario: "c", Base: secs(1, 1, 1), Head: secs(1, 1, 1)}
	for i := range o.Head {
		o.Head[i].CPU = 2 * o.Base[i].CPU
	}
	if v := judge(o, limits{Time: 1.1, RSS: 1.2}); !near(v.CPURatio, 2) || !v.Pass() {
		t.Errorf("CPU ratio %v pass %v, want 2 true", v.CPURatio, v.Pass())
	}
	// Pairs 4,4,4,4 against 4.2,4.5,4.6,5: ratios 1.05,1.125,1.15,1.25,
	// median (1.125+1.15)/2 = 1.1375 > 1.10.
	v = judge(outcome{Scenario: "s", Base: secs(4, 4, 4, 4), Head: secs(4.2, 4.5, 4.6, 5)}, limits{Time: 1.10, RSS: 1.20})
	if !near(v.Ratio, 1.1375) || !v.SlowerFail || v.RSSFail {
		t.Errorf("ratio %v slower %v rss %v, want 1.1375 true false", v.Ratio, v.SlowerFail, v.RSSFail)
	}
}

// TestJudgeThresholdEdges: a ratio equal to a limit passes, one just above
// fails, for time and memory alike.
func TestJudgeThresholdEdges(t *testing.T) {
	lim := limits{Time: 1.25, RSS: 1.5} // exact in binary floating point
	for _, c := range []struct {
		name                 string
		base, head           float64 // seconds, every pair
		baseRSS, headRSS     int64
		wantSlower, wantRSS  bool
		wantRatio, wantRSSRt float64
	}{
		{"equal", 4, 4, 1000, 1000, false, false, 1, 1},
		{"time at the limit", 4, 5, 1000, 1000, false, false, 1.25, 1},
		{"time just above", 4, 5.0001, 1000, 1000, true, false, 1.250025, 1},
		{"faster", 4, 2, 1000, 1000, false, false, 0.5, 1},
		{"memory at the limit", 4, 4, 1000, 1500, false, false, 1, 1.5},
		{"memory just above", 4, 4, 1000, 1501, false, true, 1, 1.501},
		{"both", 4, 6, 1000, 2000, true, true, 1.5, 2},
	} {
		o := outcome{Scenario: c.name}
		for i := 0; i < 5; i++ {
			o.Base = append(o.Base, sample{Seconds: c.base, RSSKiB: c.baseRSS})
			o.Head = append(o.Head, sample{Seconds: c.head, RSSKiB: c.headRSS})
		}
		v := judge(o, lim)
		if v.SlowerFail != c.wantSlower || v.RSSFail != c.wantRSS || !near(v.Ratio, c.wantRatio) || !near(v.RSSRatio, c.wantRSSRt) {
			t.Errorf("%s: ratio %v rss ratio %v slower %v rss %v, want %v %v %v %v",
				c.name, v.Ratio, v.RSSRatio, v.SlowerFail, v.RSSFail, c.wantRatio, c.wantRSSRt, c.wantSlower, c.wantRSS)
		}
		if v.Pass() != (!c.wantSlower && !c.wantRSS) {
			t.Errorf("%s: Pass() = %v", c.name, v.Pass())
		}
	}
}

// TestJudgeRSSMedian: the memory ratio is that of the median peaks (KiB):
// base 100,102,98 → 100; head 119,125,121 → 121; 1.21 > 1.20.
func TestJudgeRSSMedian(t *testing.T) {
	o := outcome{Scenario: "m"}
	for _, kib := range [][2]int64{{100, 119}, {102, 125}, {98, 121}} {
		o.Base = append(o.Base, sample{Seconds: 1, RSSKiB: kib[0]})
		o.Head = append(o.Head, sample{Seconds: 1, RSSKiB: kib[1]})
	}
	v := judge(o, limits{Time: 1.1, RSS: 1.2})
	if v.BaseRSS != 100 || v.HeadRSS != 121 || !near(v.RSSRatio, 1.21) || !v.RSSFail || v.SlowerFail {
		t.Errorf("rss %d %d ratio %v fail %v slower %v, want 100 121 1.21 true false", v.BaseRSS, v.HeadRSS, v.RSSRatio, v.RSSFail, v.SlowerFail)
	}
}

func TestDigests(t *testing.T) {
	same := outcome{Base: secs(1, 1), Head: secs(1, 1)}
	if all, agree := digests(same); !all || !agree {
		t.Errorf("same digests: %v %v", all, agree)
	}
	diff := outcome{Base: secs(1, 1), Head: secs(1, 1)}
	diff.Head[1].Digest = "0000000000000000"
	if all, agree := digests(diff); !all || agree {
		t.Errorf("a different digest: %v %v", all, agree)
	}
	missing := outcome{Base: secs(1), Head: []sample{{Seconds: 1}}}
	if all, _ := digests(missing); all {
		t.Error("a run without a digest counted as printed")
	}
}

func TestWriteTable(t *testing.T) {
	lim := limits{Time: 1.10, RSS: 1.20}
	ok := judge(outcome{Scenario: "fast", Base: secs(2, 2, 2), Head: secs(1.8, 1.8, 1.8)}, lim)
	slow := judge(outcome{Scenario: "slow", Base: secs(2, 2, 2), Head: secs(3, 3, 3)}, lim)
	var b strings.Builder
	writeTable(&b, []verdict{ok, slow}, lim)
	out := b.String()
	for _, want := range []string{
		"| fast | 2.00 | 1.80 | 0.900 | 0.900 | 100.0 / 100.0 (1.00) | same | ok |",
		"| slow | 2.00 | 3.00 | 1.500 | 1.500 | 100.0 / 100.0 (1.00) | same | FAIL: 50% slower (limit 10%) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// limits are the gate's thresholds: HEAD fails a scenario when its median
// time ratio or its peak-memory ratio to the baseline exceeds them.
type limits struct {
	Time float64 // largest median of the per-pair wall-time ratios allowed (1.10: 10% slower)
	RSS  float64 // largest ratio of the median peak RSS allowed (1.20: 20% more)
}

// sample is one process's measurement.
type sample struct {
	Seconds float64 // wall time from start to exit
	CPU     float64 // user + system CPU seconds of the process
	RSSKiB  int64   // peak resident set size
	Digest  string  // the run's digest as printed, "" when not found
}

// outcome is one scenario's measurements: Base[i] and Head[i] ran one
// after the other (pair i).
type outcome struct {
	Scenario   string
	Base, Head []sample
}

// verdict is one scenario's figures and the gate's decision.
type verdict struct {
	Scenario            string
	BaseMedian          float64 // seconds
	HeadMedian          float64 // seconds
	Ratio               float64 // median of the per-pair ratios head/base
	CPURatio            float64 // the same of CPU time (shown, not judged)
	BaseRSS, HeadRSS    int64   // median peak RSS, KiB
	RSSRatio            float64 // HeadRSS / BaseRSS
	SlowerFail, RSSFail bool
	HasDigests          bool // every run printed a digest
	DigestsAgree        bool // and all of them are the same
}

// Pass reports whether the scenario passed both limits.
func (v verdict) Pass() bool { return !v.SlowerFail && !v.RSSFail }

// median is the middle value of xs (the mean of the two middle values for
// an even count); 0 for none. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// pairRatios is head[i]/base[i] of wall time for every complete pair.
func pairRatios(base, head []sample) []float64 {
	return ratios(seconds(base), seconds(head))
}

// ratios is head[i]/base[i] for every complete pair with base[i] > 0.
func ratios(base, head []float64) []float64 {
	n := min(len(base), len(head))
	r := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if base[i] > 0 {
			r = append(r, head[i]/base[i])
		}
	}
	return r
}

func cpu(s []sample) []float64 {
	x := make([]float64, len(s))
	for i, v := range s {
		x[i] = v.CPU
	}
	return x
}

func seconds(s []sample) []float64 {
	x := make([]float64, len(s))
	for i, v := range s {
		x[i] = v.Seconds
	}
	return x
}

func rss(s []sample) []float64 {
	x := make([]float64, len(s))
	for i, v := range s {
		x[i] = float64(v.RSSKiB)
	}
	return x
}

// judge computes o's figures and decides it against lim. A ratio equal to
// its limit passes; only one above it fails.
func judge(o outcome, lim limits) verdict {
	v := verdict{
		Scenario:   o.Scenario,
		BaseMedian: median(seconds(o.Base)),
		HeadMedian: median(seconds(o.Head)),
		Ratio:      median(pairRatios(o.Base, o.Head)),
		CPURatio:   median(ratios(cpu(o.Base), cpu(o.Head))),
		BaseRSS:    int64(median(rss(o.Base))),
		HeadRSS:    int64(median(rss(o.Head))),
	}
	if v.BaseRSS > 0 {
		v.RSSRatio = float64(v.HeadRSS) / float64(v.BaseRSS)
	}
	v.SlowerFail = v.Ratio > lim.Time
	v.RSSFail = v.RSSRatio > lim.RSS
	v.HasDigests, v.DigestsAgree = digests(o)
	return v
}

// digests reports whether every run printed a digest and, if so, whether
// they are all the same (the model did not change between base and head).
func digests(o outcome) (all, agree bool) {
	var first string
	agree = true
	for _, s := range append(slices.Clone(o.Base), o.Head...) {
		if s.Digest == "" {
			return false, false
		}
		if first == "" {
			first = s.Digest
		} else if s.Digest != first {
			agree = false
		}
	}
	return first != "", agree
}

// text is the verdict column: ok, or what failed with its limit.
func (v verdict) text(lim limits) string {
	var fails []string
	if v.SlowerFail {
		fails = append(fails, fmt.Sprintf("FAIL: %.0f%% slower (limit %.0f%%)", (v.Ratio-1)*100, (lim.Time-1)*100))
	}
	if v.RSSFail {
		fails = append(fails, fmt.Sprintf("FAIL: %.0f%% more memory (limit %.0f%%)", (v.RSSRatio-1)*100, (lim.RSS-1)*100))
	}
	if len(fails) == 0 {
		return "ok"
	}
	return strings.Join(fails, "; ")
}

func (v verdict) digestText() string {
	switch {
	case !v.HasDigests:
		return "not printed"
	case v.DigestsAgree:
		return "same"
	}
	return "differs"
}

// mib formats KiB as MiB with one decimal.
func mib(kib int64) string { return fmt.Sprintf("%.1f", float64(kib)/1024) }

// writeTable prints the verdicts as a Markdown table.
func writeTable(w io.Writer, vs []verdict, lim limits) {
	fmt.Fprintln(w, "| scenario | base median s | head median s | head/base (median of pairs) | CPU head/base | peak RSS MiB base / head (ratio) | digest | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, v := range vs {
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.3f | %.3f | %s / %s (%.2f) | %s | %s |\n",
			v.Scenario, v.BaseMedian, v.HeadMedian, v.Ratio, v.CPURatio, mib(v.BaseRSS), mib(v.HeadRSS), v.RSSRatio,
			v.digestText(), v.text(lim))
	}
}

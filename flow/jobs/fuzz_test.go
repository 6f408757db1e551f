package jobs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/workload"
)

// FuzzReadStream reads any text as a job stream, within a bound on its
// jobs as a memory budget would set one: no panic; a refusal names the
// file and its line; a stream accepted has valid jobs, reads back the
// same once written out, and every policy and allocation runs it on as
// many servers as its largest job to the end: every job ends, none
// starts before it arrives or runs other than its runtime, and no more
// servers are busy than there are.
func FuzzReadStream(f *testing.F) {
	for _, s := range []string{
		"0 2 10\n1 4 5 8\n",
		"# x\n1e3 1 0\n",
		"0 2 1 0 nbody,size=3,iterations=2\n",
		"5 3 2\n0 3 7 7\n0 1 1 2 bench,pattern=shift\n",
		"0 2 10 0 klingon\n",
		"0 0 1\n", "x 1 1\n", "\n1 1 -3\n", "1 1 1 Inf\n", "1 1 1 1 nbody,iterations=0\n", "1 2\n",
		"0 1 1e308 1e308\n1e308 1 0\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		limit := func(n int64) error {
			if n > 1<<12 {
				return errors.New("too many jobs for the fuzzer's budget")
			}
			return nil
		}
		jobs, err := ReadStreamWith(strings.NewReader(src), "s.jobs", limit, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s.jobs:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		largest := 0
		var b strings.Builder
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		for i, j := range jobs {
			if j.Size < 1 || !(j.Arrival >= 0) || !(j.Runtime >= 0) || !(j.Estimate >= 0) ||
				math.IsInf(j.Arrival, 0) || math.IsInf(j.Runtime, 0) || math.IsInf(j.Estimate, 0) {
				t.Fatalf("job %d accepted: %+v", i, j)
			}
			if j.App != "" {
				if _, err := JobApp(j.App, workload.App{}); err != nil {
					t.Fatalf("job %d accepted with application %q: %v", i, j.App, err)
				}
			}
			largest = max(largest, j.Size)
			fmt.Fprintf(&b, "%s %d %s %s %s\n", g(j.Arrival), j.Size, g(j.Runtime), g(j.Estimate), j.App)
		}
		again, err := ReadStream(strings.NewReader(b.String()), "again.jobs")
		if err != nil || !slices.Equal(again, jobs) {
			t.Fatalf("written back: %v, %v; want %v", again, err, jobs)
		}
		if len(jobs) == 0 || largest > 1<<12 || len(jobs) > 64 {
			return
		}
		for _, policy := range Policies() {
			for _, alloc := range Allocations() {
				res, err := Simulate(Config{Servers: largest, Policy: policy, Allocation: alloc, Seed: 1}, jobs)
				if err != nil {
					t.Fatalf("%s, %s: %v", policy, alloc, err)
				}
				for i, p := range res.Jobs {
					j := jobs[i]
					if !p.Ended() || p.Start < j.Arrival || p.End-p.Start != j.Runtime && !(math.Abs(p.End-p.Start-j.Runtime) <= 1e-9*p.End) {
						t.Fatalf("%s, %s: job %d %+v placed %+v", policy, alloc, i, j, p)
					}
				}
				for k, n := range res.Busy {
					if n < 0 || n > largest {
						t.Fatalf("%s, %s: %d servers busy at %v, of %d", policy, alloc, n, res.Times[k], largest)
					}
				}
			}
		}
	})
}

// TestConservativeZeroEstimates: two jobs of the whole machine with no
// runtime (estimate 0), arriving at 1 while a one-server job runs until
// 10, start at 10 one after the other (both at 10: the first ends as it
// starts), never two on the same servers. Conservative backfilling once
// planned both at 10 in one pass (a plan of no length reserves nothing)
// and gave the second servers that did not exist (found by
// FuzzReadStream).
func TestConservativeZeroEstimates(t *testing.T) {
	jobs := []Job{{Arrival: 0, Size: 1, Runtime: 10}, {Arrival: 1, Size: 4}, {Arrival: 1, Size: 4}}
	for _, alloc := range Allocations() {
		res, err := Simulate(Config{Servers: 4, Policy: Conservative, Allocation: alloc, Seed: 1}, jobs)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range [][2]float64{{0, 10}, {10, 10}, {10, 10}} {
			if p := res.Jobs[i]; p.Start != want[0] || p.End != want[1] {
				t.Errorf("%s: job %d runs [%v, %v], want [%v, %v]", alloc, i, p.Start, p.End, want[0], want[1])
			}
		}
		for k, n := range res.Busy {
			if n > 4 {
				t.Errorf("%s: %d servers busy at %v", alloc, n, res.Times[k])
			}
		}
	}
}

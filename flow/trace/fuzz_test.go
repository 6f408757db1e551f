package trace

import (
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/workloads/vef"
)

// FuzzReplay feeds any text through the VEF reader and the flow-level
// replay: no panic; a trace accepted runs to an execution time at least
// every independent record's time, and every task ends by it.
func FuzzReplay(f *testing.F) {
	f.Add(vef.Example, 1.0)
	f.Add(directionTrace, 0.5)
	f.Add("VEF 2 1 1 1 2 TRUE\nC0 0 1\n0 0 1 5 0 7 -1\nG0 0 6 0 0 0 1 0 0\nG0 0 6 1 0 0 0 3 -1\n", 2.0)
	f.Add("VEF 3 0 1 1 3 FALSE\nC0 0 1 2\nG0 0 0 1 9 0 0 0 -1\nG0 0 0 0 0 9 0 0 -1\nG0 0 0 2 0 9 0 4 -1\n", 1.0)
	f.Fuzz(func(t *testing.T, text string, factor float64) {
		if len(text) > 4096 {
			return
		}
		rd, err := vef.NewReader(strings.NewReader(text))
		if err != nil {
			return
		}
		if h := rd.Header(); h.Tasks > 64 || h.P2PMessages > 256 || h.CollectiveParts > 256 {
			return
		}
		for _, serial := range []bool{false, true} {
			rd, err := vef.NewReader(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Build(rd, 4, Options{CPUFactor: factor, SerialSends: serial})
			if err != nil {
				return
			}
			res, err := p.Run(star(t, 4), dynamic.Options{})
			if err != nil {
				t.Fatalf("an accepted trace failed to run: %v", err)
			}
			if math.IsNaN(res.Execution) || math.IsInf(res.Execution, 0) || res.Execution < 0 {
				t.Fatalf("execution %v", res.Execution)
			}
			for i, f := range p.Flows {
				if len(f.Deps) == 0 && f.Start > res.Execution {
					t.Fatalf("flow %d starts at %v, after the end %v", i, f.Start, res.Execution)
				}
			}
			for task, end := range res.TaskEnds {
				if end > res.Execution {
					t.Fatalf("task %d ends at %v, after the end %v", task, end, res.Execution)
				}
			}
			if serial {
				checkSerial(t, p)
			}
		}
	})
}

// checkSerial: with SerialSends, a server's messages that cross a link
// never overlap: each starts once the one before it in the trace has
// completed.
func checkSerial(t *testing.T, p *Plan) {
	t.Helper()
	r, err := dynamic.RunWith(star(t, 4), p.Flows, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := map[int32]int32{}
	for _, i := range p.Msg {
		f := p.Flows[i]
		if f.Src == f.Dst || f.Size == 0 {
			continue
		}
		if j, ok := last[f.Src]; ok && r.Start[i] < r.Finish[j] {
			t.Fatalf("server %d: message flow %d starts at %v, before its previous one (%d) completed at %v", f.Src, i, r.Start[i], j, r.Finish[j])
		}
		last[f.Src] = i
	}
}

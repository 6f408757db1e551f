package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// TestTraceStudy: the points are, per trace and SL, the baseline (the
// trace alone in that SL, baseline scheduler, no background) and a run per
// load with all the offered load in the other SL under the scheduler;
// each execution time is normalized to its own baseline; the files and the
// bar chart are written.
func TestTraceStudy(t *testing.T) {
	base := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&base, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	s := &TraceStudy{Base: base, Traces: []string{"a.vef", "b.vef.gz"}, SLs: []int{2, 3}, Background: map[int]int{2: 3, 3: 2},
		Loads: []float64{0.1, 0.2}, Scheduler: "dtable", Baseline: "rr"}
	pts := s.Points()
	if len(pts) != 2*2*3 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	for i, p := range pts {
		c := p.Config
		if p.Baseline != (i%3 == 0) || c.Trace.File != s.Traces[i/6] || c.Trace.SL != s.SLs[i/3%2] {
			t.Fatalf("point %d: %+v", i, p)
		}
		if p.Baseline {
			if c.QoS.Scheduler != "rr" || c.Traffic.Load != 0 {
				t.Errorf("baseline %d: scheduler %s, load %g", i, c.QoS.Scheduler, c.Traffic.Load)
			}
			continue
		}
		bg := s.Background[c.Trace.SL]
		for sl, x := range c.QoS.SLs {
			if (sl == bg) != (x.Share == 1) || (sl != bg && x.Share != 0) {
				t.Errorf("point %d: SL %s share %g; the background is in %d", i, x.Name, x.Share, bg)
			}
		}
		if c.QoS.Scheduler != "dtable" || c.Traffic.Load != s.Loads[(i%3)-1] || c.Traffic.Process != "cbr" {
			t.Errorf("point %d: scheduler %s, load %g, process %s", i, c.QoS.Scheduler, c.Traffic.Load, c.Traffic.Process)
		}
	}
	if base.QoS.SLs[3].Share != 0.05 {
		t.Errorf("the study changed the base config's shares: BE %g", base.QoS.SLs[3].Share)
	}
	// A fake simulation: alone 1000 cycles in CL and 2000 in BE, then
	// 1000·(1+load) and 2000·(1+2·load): 110 and 120 % at 0.1, 120 and 140 % at 0.2.
	simulate := func(_ context.Context, c fabric.Config) (*sim.Results, error) {
		ex := int64(1000)
		if c.Trace.SL == 3 {
			ex = 2000 + int64(4000*c.Traffic.Load)
		} else {
			ex += int64(1000 * c.Traffic.Load)
		}
		return &sim.Results{Digest: "d", Trace: &sim.TraceResult{Finished: true, ExecutionCycles: ex}}, nil
	}
	rows, err := s.Run(context.Background(), 2, simulate, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{100, 110, 120, 100, 120, 140}
	for i, r := range rows[:6] {
		if r.Normalized == nil {
			t.Errorf("row %d (%s %s %g): no normalized time", i, r.Trace, r.TraceSL, r.Load)
		} else if d := *r.Normalized - want[i]; d > 1e-9 || d < -1e-9 {
			t.Errorf("row %d (%s %s %g): %.3f %%, want %g", i, r.Trace, r.TraceSL, r.Load, *r.Normalized, want[i])
		}
	}
	dir := t.TempDir()
	files, err := SaveTraceStudy(dir, "test", rows, len(pts))
	if err != nil || len(files) != 4 {
		t.Fatalf("files %v, error %v", files, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "traces.csv"))
	if !strings.Contains(string(data), "a,false,BE,CL,0.2,dtable,2800,140.000,d") {
		t.Errorf("traces.csv lacks the BE row at 0.2:\n%s", data)
	}
	stall := func(context.Context, fabric.Config) (*sim.Results, error) {
		return &sim.Results{Trace: &sim.TraceResult{Stalled: true, Blocking: []string{"task 3 waits"}}}, nil
	}
	if _, err := s.Run(context.Background(), 1, stall, io.Discard); err == nil || !strings.Contains(err.Error(), "it stalled: task 3 waits") {
		t.Errorf("a stalled trace: error %v", err)
	}
}

// TestTraceStudyInterrupted: a study stopped while its baseline runs
// keeps the run that finished, unnormalized (its baseline did not end),
// returns the context's error, and traces.json says interrupted, 1 of
// 6 runs; with the baseline finished first, the rows are normalized.
func TestTraceStudyInterrupted(t *testing.T) {
	base := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&base, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	s := &TraceStudy{Base: base, Traces: []string{"a.vef"}, SLs: []int{2, 3}, Background: map[int]int{2: 3, 3: 2},
		Loads: []float64{0.1, 0.2}, Scheduler: "dtable", Baseline: "rr"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Two jobs: the baseline (point 0) waits for the stop; the run at 0.1
	// (point 1) ends, then stops the study.
	simulate := func(ctx context.Context, c fabric.Config) (*sim.Results, error) {
		if c.Traffic.Load == 0 {
			<-ctx.Done()
			return &sim.Results{Interrupted: true, Trace: &sim.TraceResult{}}, nil
		}
		cancel()
		return &sim.Results{Digest: "d", Trace: &sim.TraceResult{Finished: true, ExecutionCycles: 1100}}, nil
	}
	rows, err := s.Run(ctx, 2, simulate, io.Discard)
	if !errors.Is(err, context.Canceled) || len(rows) != 1 || rows[0].Load != 0.1 || rows[0].Normalized != nil || rows[0].ExecutionCycles != 1100 {
		t.Fatalf("rows %+v, error %v; want the run at 0.1 unnormalized and context.Canceled", rows, err)
	}
	dir := t.TempDir()
	files, err := SaveTraceStudy(dir, "test", rows, len(s.Points()))
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, error %v; want the csv and json, no plot", files, err)
	}
	var f TraceFile
	data, _ := os.ReadFile(filepath.Join(dir, "traces.json"))
	if err := json.Unmarshal(data, &f); err != nil || !f.Interrupted || f.RunsExpected != 6 || f.RunsDone != 1 || len(f.Rows) != 1 {
		t.Errorf("traces.json: %+v (%v)", f, err)
	}
	// The baseline first (one job), then a stop during the run at 0.2:
	// the baseline and the run at 0.1 (110 %) are kept.
	ctx, cancel = context.WithCancel(context.Background())
	calls := 0
	simulate = func(ctx context.Context, c fabric.Config) (*sim.Results, error) {
		if calls++; calls == 3 {
			cancel()
			return &sim.Results{Interrupted: true, Trace: &sim.TraceResult{}}, nil
		}
		return &sim.Results{Trace: &sim.TraceResult{Finished: true, ExecutionCycles: 1000 + int64(1000*c.Traffic.Load)}}, nil
	}
	rows, err = s.Run(ctx, 1, simulate, io.Discard)
	if !errors.Is(err, context.Canceled) || len(rows) != 2 || rows[1].Normalized == nil || *rows[1].Normalized != 110 {
		t.Fatalf("rows %+v, error %v", rows, err)
	}
}

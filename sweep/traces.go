package sweep

// Seed 000 section 4.3's experiment (Figs. 5 and 6): traces replayed with
// background traffic in another SL under a QoS scheduler, each execution
// time normalized to the same trace alone without QoS.

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/opasim/opasim/fabric"
)

// TraceStudy is the experiment for a set of traces on one network: for
// each trace and each SL of SLs, a baseline (the trace alone in that SL,
// scheduler Baseline, no background) and, for each background load, the
// trace in that SL with CBR background at the load in Background[that SL],
// under Scheduler.
type TraceStudy struct {
	Base       fabric.Config // the network and QoS (trace.file is set per trace)
	Traces     []string      // trace files
	SLs        []int         // the SLs that carry the trace, in turn
	Background map[int]int   // per trace SL, the SL of the background traffic
	Loads      []float64     // background loads, flits/cycle/NIC
	Scheduler  string        // with background (seed 000: dtable)
	Baseline   string        // alone (seed 000: rr, "without QoS")
}

// TracePoint is one run of a TraceStudy.
type TracePoint struct {
	Trace        string  `json:"trace"`
	Baseline     bool    `json:"baseline"`
	TraceSL      string  `json:"trace_sl"`
	BackgroundSL string  `json:"background_sl,omitempty"`
	Load         float64 `json:"background_load"`
	Config       fabric.Config
}

// TraceRow is a point's outcome.
type TraceRow struct {
	TracePoint
	ExecutionCycles int64 `json:"execution_cycles"`
	// Normalized is 100 × execution / the execution of the trace alone in
	// the same SL; nil when that baseline did not run (an interrupted study).
	Normalized *float64 `json:"normalized_percent"`
	Finished   bool     `json:"finished"`
	Digest     string   `json:"digest"`
}

// TraceFile is traces.json: the rows of the runs that finished, and
// whether the study was interrupted before all of RunsExpected ran.
type TraceFile struct {
	Interrupted  bool       `json:"interrupted"`
	RunsExpected int        `json:"runs_expected"`
	RunsDone     int        `json:"runs_done"`
	Rows         []TraceRow `json:"rows"`
}

// errInterrupted marks a run that ended because the study was stopped.
var errInterrupted = errors.New("it was interrupted")

// Points lists the study's runs: for each trace and each of its SLs the
// baseline (the trace alone in that SL), then the runs with background.
// Each SL has its own baseline, so that what the SL itself changes (its
// MTU) does not enter the comparison.
func (s *TraceStudy) Points() []TracePoint {
	var pts []TracePoint
	for _, tr := range s.Traces {
		base := s.Base
		base.Trace.File = tr
		for _, sl := range s.SLs {
			b := base
			b.QoS.Scheduler, b.Traffic.Load, b.Trace.SL = s.Baseline, 0, sl
			pts = append(pts, TracePoint{Trace: tr, Baseline: true, TraceSL: slName(&b, sl), Config: b})
			bg := s.Background[sl]
			for _, load := range s.Loads {
				c := base
				c.QoS.Scheduler, c.Traffic.Load, c.Traffic.Process, c.Trace.SL = s.Scheduler, load, "cbr", sl
				c.QoS.SLs = append([]fabric.SLConfig(nil), base.QoS.SLs...)
				for i := range c.QoS.SLs {
					c.QoS.SLs[i].Share = 0
				}
				c.QoS.SLs[bg].Share = 1
				pts = append(pts, TracePoint{Trace: tr, TraceSL: slName(&c, sl), BackgroundSL: slName(&c, bg), Load: load, Config: c})
			}
		}
	}
	return pts
}

func slName(c *fabric.Config, sl int) string { return c.QoS.SLs[sl].Name }

// Run runs every point, jobs at a time, and normalizes each execution
// time to its trace's baseline. A run that did not finish its trace (it
// stalled or reached cycles) is an error. When ctx ends first, Run
// returns the rows of the runs that finished, in point order, with ctx's
// error; runs in flight are abandoned.
func (s *TraceStudy) Run(ctx context.Context, jobs int, simulate SimulateFunc, log io.Writer) ([]TraceRow, error) {
	pts := s.Points()
	rows := make([]TraceRow, len(pts))
	errs := make([]error, len(pts))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(pts) || ctx.Err() != nil {
					return
				}
				rows[i], errs[i] = runTracePoint(ctx, pts[i], simulate)
				mu.Lock()
				fmt.Fprintf(log, "%s\n", describeRow(&rows[i], errs[i]))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	stopped := ctx.Err() != nil
	var failed []error
	for _, err := range errs {
		if err != nil && !(stopped && (errors.Is(err, errInterrupted) || errors.Is(err, context.Canceled))) {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return nil, errors.Join(append(failed, ctx.Err())...)
	}
	done := rows[:0]
	for _, r := range rows {
		if r.Finished {
			done = append(done, r)
		}
	}
	base := map[[2]string]int64{}
	for _, r := range done {
		if r.Baseline {
			base[[2]string{r.Trace, r.TraceSL}] = r.ExecutionCycles
		}
	}
	for i := range done {
		if b, ok := base[[2]string{done[i].Trace, done[i].TraceSL}]; ok {
			v := 100 * float64(done[i].ExecutionCycles) / float64(b)
			done[i].Normalized = &v
		}
	}
	return done, ctx.Err()
}

func runTracePoint(ctx context.Context, p TracePoint, simulate SimulateFunc) (TraceRow, error) {
	row := TraceRow{TracePoint: p}
	r, err := simulate(ctx, p.Config)
	if err != nil {
		return row, fmt.Errorf("%s: %w", pointLabel(&p), err)
	}
	if r.Trace == nil || !r.Trace.Finished {
		why := "it reached cycles"
		switch {
		case r.Trace != nil && r.Trace.Stalled:
			why = "it stalled: " + strings.Join(r.Trace.Blocking, "; ")
		case r.Interrupted:
			return row, fmt.Errorf("%s: the trace did not finish: %w", pointLabel(&p), errInterrupted)
		}
		return row, fmt.Errorf("%s: the trace did not finish: %s", pointLabel(&p), why)
	}
	row.ExecutionCycles, row.Finished, row.Digest = r.Trace.ExecutionCycles, true, r.Digest
	return row, nil
}

func pointLabel(p *TracePoint) string {
	if p.Baseline {
		return fmt.Sprintf("%s alone (%s, SL %s)", filepath.Base(p.Trace), p.Config.QoS.Scheduler, p.TraceSL)
	}
	return fmt.Sprintf("%s in %s, background %s at %s (%s)", filepath.Base(p.Trace), p.TraceSL, p.BackgroundSL, FormatLoad(p.Load), p.Config.QoS.Scheduler)
}

func describeRow(r *TraceRow, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s: execution %d cycles", pointLabel(&r.TracePoint), r.ExecutionCycles)
}

// TraceLabel is the name a trace goes by in tables and plots: its file
// name without .vef or .vef.gz.
func TraceLabel(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimSuffix(b, ".gz"), ".vef")
}

// WriteTraceTable writes rows as a table to w.
func WriteTraceTable(w io.Writer, rows []TraceRow) {
	fmt.Fprintf(w, "%-24s %-5s %-5s %10s %16s %12s\n", "trace", "SL", "bg", "bg load", "execution (cyc)", "normalized")
	for _, r := range rows {
		bg, load := r.BackgroundSL, FormatLoad(r.Load)
		if r.Baseline {
			bg, load = "-", "alone"
		}
		norm := "-"
		if r.Normalized != nil {
			norm = fmt.Sprintf("%.2f%%", *r.Normalized)
		}
		fmt.Fprintf(w, "%-24s %-5s %-5s %10s %16d %12s\n", TraceLabel(r.Trace), r.TraceSL, bg, load, r.ExecutionCycles, norm)
	}
}

// SaveTraceStudy writes rows to dir/traces.csv and dir/traces.json and
// draws dir/traces.{png,svg}: per trace and SL a group of bars, one per
// background load, of the normalized execution time (Figs. 5 and 6).
// expected is the study's number of runs: with fewer rows, the study was
// interrupted, and traces.json and the plot's title say so (a study
// stopped before any run with background and its baseline ended has no
// plot).
func SaveTraceStudy(dir, title string, rows []TraceRow, expected int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var csvBuf strings.Builder
	cw := csv.NewWriter(&csvBuf)
	_ = cw.Write([]string{"trace", "baseline", "trace_sl", "background_sl", "background_load", "scheduler", "execution_cycles", "normalized_percent", "digest"})
	for _, r := range rows {
		norm := ""
		if r.Normalized != nil {
			norm = strconv.FormatFloat(*r.Normalized, 'f', 3, 64)
		}
		_ = cw.Write([]string{TraceLabel(r.Trace), strconv.FormatBool(r.Baseline), r.TraceSL, r.BackgroundSL, FormatLoad(r.Load),
			r.Config.QoS.Scheduler, strconv.FormatInt(r.ExecutionCycles, 10), norm, r.Digest})
	}
	cw.Flush()
	file := TraceFile{Interrupted: len(rows) < expected, RunsExpected: expected, RunsDone: len(rows), Rows: rows}
	if file.Rows == nil {
		file.Rows = []TraceRow{}
	}
	js, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return nil, err
	}
	files := []string{filepath.Join(dir, "traces.csv"), filepath.Join(dir, "traces.json")}
	if err := errors.Join(writeFileAtomic(files[0], []byte(csvBuf.String())), writeFileAtomic(files[1], js)); err != nil {
		return nil, err
	}
	if file.Interrupted {
		title += fmt.Sprintf(" (interrupted: %d of %d runs)", len(rows), expected)
	}
	p, err := traceBars(title, rows)
	if errors.Is(err, errNoBars) && file.Interrupted {
		return files, nil
	}
	if err != nil {
		return files, err
	}
	plots, err := savePlot(p, filepath.Join(dir, "traces"))
	return append(files, plots...), err
}

var errNoBars = errors.New("no run with background traffic and its baseline to draw")

// traceBars draws the bars: a group per trace and SL on x (the trace's
// name over the SL's), a bar per load.
func traceBars(title string, rows []TraceRow) (*plot.Plot, error) {
	var groups []string
	var loads []float64
	val := map[string]map[float64]float64{}
	for _, r := range rows {
		if r.Baseline || r.Normalized == nil {
			continue
		}
		g := TraceLabel(r.Trace) + "\n" + r.TraceSL
		if val[g] == nil {
			val[g] = map[float64]float64{}
			groups = append(groups, g)
		}
		if !containsLoad(loads, r.Load) {
			loads = append(loads, r.Load)
		}
		val[g][r.Load] = *r.Normalized
	}
	if len(groups) == 0 {
		return nil, errNoBars
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "Normalized execution time (%)"
	w := vg.Points(float64(min(18, 300/(len(loads)*len(groups)+1))))
	for i, l := range loads {
		vs := make(plotter.Values, len(groups))
		for j, g := range groups {
			vs[j] = val[g][l]
		}
		b, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return nil, err
		}
		b.Color = slColor(i)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(i)-float64(len(loads)-1)/2)
		p.Add(b)
		p.Legend.Add(FormatLoad(l)+" flits/cycle/NIC", b)
	}
	top := 0.0
	for _, g := range groups {
		for _, v := range val[g] {
			top = max(top, v)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(groups...)
	if len(groups) > 6 {
		p.X.Tick.Label.Font.Size = vg.Points(9)
	}
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	p.Y.Min, p.Y.Max = 0, top*1.3 // room for the legend above the bars
	return p, nil
}

func containsLoad(ls []float64, l float64) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/opasim/opasim/sim"
)

// Summary is summary.json: the grid and, per (scheduler, load), one row
// per SL in config order and an "all" row.
type Summary struct {
	Topology     string    `json:"topology"`
	Traffic      string    `json:"traffic"`
	Engine       string    `json:"engine"`
	Cycles       int64     `json:"cycles"`
	Warmup       int64     `json:"warmup"`
	CycleNs      float64   `json:"cycle_ns"`
	Schedulers   []string  `json:"schedulers"`
	Loads        []float64 `json:"loads"`
	Seeds        []uint64  `json:"seeds"`
	SLs          []SL      `json:"sls"`
	RunsExpected int       `json:"runs_expected"`
	RunsFound    int       `json:"runs_found"`
	// Interrupted: the sweep was stopped (a signal) before every run was
	// stored; the figures are of the RunsFound runs stored.
	Interrupted        bool   `json:"interrupted"`
	ConservationFailed int    `json:"conservation_failed"`
	CI                 string `json:"ci"`
	Rows               []Row  `json:"rows"`
}

// SL is a service level of the sweep's config.
type SL struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"` // configured fraction of the offered load
}

// Row is the estimates of every metric at one (scheduler, load, SL).
type Row struct {
	Scheduler string              `json:"scheduler"`
	Load      float64             `json:"load"`
	SL        string              `json:"sl"`    // an SL name or "all"
	Seeds     int                 `json:"seeds"` // runs found for this point
	Metrics   map[string]Estimate `json:"metrics"`
}

// Estimate is a metric's mean over seeds and the half-width of its 95%
// confidence interval. Mean is nil with no run, CI95 with fewer than two.
type Estimate struct {
	Mean *float64 `json:"mean"`
	CI95 *float64 `json:"ci95"`
	N    int      `json:"n"`
}

const ciMethod = "95% confidence interval half-width over seeds: t(0.975, n-1) * s / sqrt(n), " +
	"s the sample standard deviation (n-1); null when n < 2"

// EstimateOf is the mean of xs and t(0.975, n-1)·s/√n, with gonum's
// sample standard deviation and Student t quantile.
func EstimateOf(xs []float64) Estimate {
	e := Estimate{N: len(xs)}
	if len(xs) == 0 {
		return e
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	e.Mean = &mean
	if n := float64(len(xs)); n > 1 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
		half := t * sd / math.Sqrt(n)
		e.CI95 = &half
	}
	return e
}

// slMeasure is what one run measured for one SL, or for all of them.
type slMeasure struct {
	offered, accepted, normalized float64
	lat, net                      sim.LatencySummary
}

// measureOf picks SL sl of r; sl < 0 is the whole traffic, whose normalized
// throughput is the sum over SLs (1 once anything was delivered).
func measureOf(r *sim.Results, sl int) slMeasure {
	if sl >= 0 {
		s := r.PerSL[sl]
		return slMeasure{s.OfferedLoad, s.AcceptedThroughput, s.NormalizedThroughput, s.Latency, s.NetworkLatency}
	}
	m := slMeasure{offered: r.OfferedLoad, accepted: r.AcceptedThroughput, lat: r.Latency, net: r.NetworkLatency}
	for _, s := range r.PerSL {
		m.normalized += s.NormalizedThroughput
	}
	return m
}

// metric is one column of the summary. A latency metric counts only the
// runs in which the SL delivered a message: a run without one has no
// latency, not a latency of zero.
type metric struct {
	name    string
	latency bool
	value   func(m *slMeasure) float64
}

var metrics = []metric{
	{"offered_load", false, func(m *slMeasure) float64 { return m.offered }},
	{"accepted_throughput", false, func(m *slMeasure) float64 { return m.accepted }},
	{"normalized_throughput", false, func(m *slMeasure) float64 { return m.normalized }},
	{"latency_cycles", true, func(m *slMeasure) float64 { return m.lat.MeanCycles }},
	{"latency_ns", true, func(m *slMeasure) float64 { return m.lat.MeanNs }},
	{"latency_p99_cycles", true, func(m *slMeasure) float64 { return float64(m.lat.P99Cycles) }},
	{"network_latency_cycles", true, func(m *slMeasure) float64 { return m.net.MeanCycles }},
	{"network_latency_ns", true, func(m *slMeasure) float64 { return m.net.MeanNs }},
	{"network_latency_p99_cycles", true, func(m *slMeasure) float64 { return float64(m.net.P99Cycles) }},
}

// summary aggregates the runs available now. Points come in groups of one
// (scheduler, load) over every seed, in grid order.
func (s *Runner) summary() *Summary {
	g := &s.Grid
	sum := &Summary{Topology: g.Topology, Traffic: g.Traffic, Engine: g.Base.Engine, Cycles: g.Base.Cycles,
		Warmup: g.Base.Warmup, CycleNs: g.Base.CycleNs(), Schedulers: g.Schedulers, Loads: g.Loads, Seeds: g.Seeds,
		RunsExpected: len(s.Points), CI: ciMethod, Rows: []Row{}, Interrupted: s.interrupted}
	for _, sl := range g.Base.QoS.SLs {
		sum.SLs = append(sum.SLs, SL{Name: sl.Name, Share: sl.Share})
	}
	for first := 0; first < len(s.Points); first += len(g.Seeds) {
		var runs []*sim.Results
		for _, r := range s.results[first : first+len(g.Seeds)] {
			if r != nil {
				runs = append(runs, r)
				if !r.ConservationOK {
					sum.ConservationFailed++
				}
			}
		}
		sum.RunsFound += len(runs)
		p := &s.Points[first]
		for i, sl := range sum.SLs {
			sum.Rows = append(sum.Rows, aggregateRow(p.Scheduler, p.Load, sl.Name, i, runs))
		}
		sum.Rows = append(sum.Rows, aggregateRow(p.Scheduler, p.Load, "all", -1, runs))
	}
	return sum
}

func aggregateRow(scheduler string, load float64, name string, sl int, runs []*sim.Results) Row {
	row := Row{Scheduler: scheduler, Load: load, SL: name, Seeds: len(runs), Metrics: map[string]Estimate{}}
	measures := make([]slMeasure, len(runs))
	for i, r := range runs {
		measures[i] = measureOf(r, sl)
	}
	for _, m := range metrics {
		var xs []float64
		for i := range measures {
			if !m.latency || measures[i].lat.Messages > 0 {
				xs = append(xs, m.value(&measures[i]))
			}
		}
		row.Metrics[m.name] = EstimateOf(xs)
	}
	return row
}

// WriteSummary writes dir/summary.json and dir/summary.csv, each replacing
// the old file at once.
func WriteSummary(dir string, sum *Summary) error {
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "summary.json"), append(data, '\n')); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "summary.csv"), summaryCSV(sum))
}

// ReadSummary reads dir/summary.json.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sum Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sum.Schedulers) == 0 || len(sum.SLs) == 0 {
		return nil, fmt.Errorf("%s: not the summary of a sweep (no schedulers or SLs)", path)
	}
	return &sum, nil
}

// summaryCSV has a column pair <metric>_mean, <metric>_ci95 per metric; an
// undefined value is an empty cell. latency_seeds counts the runs that
// delivered a message of the SL, the ones the latency columns average.
func summaryCSV(sum *Summary) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"scheduler", "load", "sl", "seeds", "latency_seeds"}
	for _, m := range metrics {
		head = append(head, m.name+"_mean", m.name+"_ci95")
	}
	_ = w.Write(head)
	for _, r := range sum.Rows {
		rec := []string{r.Scheduler, FormatLoad(r.Load), r.SL, strconv.Itoa(r.Seeds), strconv.Itoa(r.Metrics["latency_cycles"].N)}
		for _, m := range metrics {
			e := r.Metrics[m.name]
			rec = append(rec, csvFloat(e.Mean), csvFloat(e.CI95))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

func csvFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

package monitor

import (
	"math"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"

	"github.com/opasim/opasim/fabric"
)

// DefaultSeriesLimit is the most series (samples of one scrape) a run's
// metrics may have unless told otherwise (opasim run --metrics-max-series):
// the port-detail metrics of the largest preset, torus3d-8x8x4, fit.
const DefaultSeriesLimit = 100_000

// Series is what a Metrics of a network exports in one scrape, counted in
// series as Prometheus counts them (a histogram is one series per bucket,
// +Inf included, and its _sum and _count).
type Series struct {
	Total   int64 // all of them
	Ports   int64 // the per-port ones (PortDetail)
	PerPort int64 // series of one port with PortDetail
	Runtime int64 // the Go runtime's and the process's
	Ported  int64 // switches whose ports have series (PortDetail)
	Radix   int64 // ports of a switch
	// Switch is what the same metrics would be without PortDetail.
	Switch int64
	// PerSwitch is what PortDetail adds for one more switch selected.
	PerSwitch int64
}

// EstimateSeries counts the series a Metrics with options o (PortDetail
// and PortSwitches; every group watched) exports for cfg's network, from
// the network's size (switches, ports, NICs, SLs, VLs) without building
// it. The count is exact for the opasim_ series of a valid cfg, and the Go
// runtime and process series are counted from a gather of their
// collectors.
func EstimateSeries(cfg fabric.Config, o MetricsOptions) Series {
	spec := cfg.TopologySpec()
	switches, radix, nics := spec.Size()
	sls, vls := int64(len(cfg.QoS.SLs)), int64(max(cfg.Switch.VLs, 0))
	hist := func(bounds int) int64 { return int64(bounds) + 3 } // buckets, +Inf, _sum, _count
	kinds := int64(0)
	if switches > 0 {
		kinds++
	}
	if nics > 0 {
		kinds++
	}
	wall, lat := hist(wallBuckets), hist(len(fabric.LatencyBounds))
	var s Series
	s.Runtime = runtimeSeries()
	run := 8 + wall + sls // settings, clock and gathers, barrier, configured shares
	classes := spec.LinkClasses()
	totals := sls*(4+2*lat+3) + 3*vls + kinds*(wall+5) + classes*(1+vls) // per SL, per stage and VL, per group kind, per link class (and VL)
	s.Switch = add(s.Runtime, run, totals, mul(switches, 7))
	s.Radix, s.PerPort = radix, 8+sls
	s.PerSwitch = mul(radix, s.PerPort)
	if o.PortDetail {
		s.Ported = switches
		if o.PortSwitches != nil {
			s.Ported = 0
			for sw, on := range o.PortSwitches {
				if on && int64(sw) < switches {
					s.Ported++
				}
			}
		}
		s.Ports = mul(s.Ported, s.PerSwitch)
	}
	s.Total = add(s.Switch, s.Ports)
	return s
}

// runtimeSeries counts the series of the Go runtime and process
// collectors, once.
var runtimeSeries = sync.OnceValue(func() int64 {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mfs, err := reg.Gather()
	if err != nil {
		return 0
	}
	return countSeries(mfs)
})

// countSeries counts gathered families' series as Prometheus does.
func countSeries(mfs []*dto.MetricFamily) int64 {
	var n int64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.Histogram != nil:
				n += int64(len(m.Histogram.GetBucket())) + 2
				if b := m.Histogram.GetBucket(); len(b) == 0 || !math.IsInf(b[len(b)-1].GetUpperBound(), 1) {
					n++ // +Inf
				}
			case m.Summary != nil:
				n += int64(len(m.Summary.GetQuantile())) + 2
			default:
				n++
			}
		}
	}
	return n
}

// mul and add saturate at the largest int64: a network too large to
// build still gets a count above any limit.
func mul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func add(xs ...int64) int64 {
	var s int64
	for _, x := range xs {
		if x > 0 && s > math.MaxInt64-x {
			return math.MaxInt64
		}
		s += x
	}
	return s
}

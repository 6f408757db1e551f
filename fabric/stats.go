package fabric

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// Stats accumulates what NICs measure in the measurement window. Adding to
// it commutes, so NICs stepped in any order give the same Stats; engines
// give each group of NICs its own Stats and merge them at the end.
type Stats struct {
	Offered        []int64 // flits generated in the window, per SL
	Delivered      []int64 // flits whose tail arrived in the window, per SL
	Lat            []*hdrhistogram.Histogram
	NetLat         []*hdrhistogram.Histogram
	LatSum         []int64
	NetLatSum      []int64
	Msgs           []int64     // messages generated in the window and delivered before the end
	Series         [][]int64   // per SL, flits delivered in each interval of SeriesInterval cycles (whole run)
	SeriesInterval clock.Cycle // series_cycles, doubled whenever the series would pass maxSeriesBins intervals

	// Cumulative over the whole run (warm-up included), for live metrics.
	InjectedFlits, InjectedMsgs     []int64 // generated
	DeliveredFlits, DeliveredMsgs   []int64
	LatencyBuckets                  [][]int64 // per SL, per LatencyBounds bucket (last: above all bounds)
	NetLatencyBuckets               [][]int64
	LatencyCycles, NetLatencyCycles []int64 // sums, for the histograms' _sum
}

// LatencyBounds are the upper bounds, in cycles, of the live latency
// histogram buckets: 100 to 102,400 cycles by powers of two.
var LatencyBounds = func() []int64 {
	var b []int64
	for v := int64(100); v <= 102400; v *= 2 {
		b = append(b, v)
	}
	return b
}()

func bucketOf(v int64) int {
	for i, b := range LatencyBounds {
		if v <= b {
			return i
		}
	}
	return len(LatencyBounds)
}

// maxLatency bounds what the histograms track exactly (3 significant digits).
const maxLatency = 1 << 40

// NewStats makes empty statistics for sls service levels.
func NewStats(sls int) *Stats {
	s := &Stats{Offered: make([]int64, sls), Delivered: make([]int64, sls), LatSum: make([]int64, sls),
		NetLatSum: make([]int64, sls), Msgs: make([]int64, sls),
		InjectedFlits: make([]int64, sls), InjectedMsgs: make([]int64, sls), DeliveredFlits: make([]int64, sls),
		DeliveredMsgs: make([]int64, sls), LatencyCycles: make([]int64, sls), NetLatencyCycles: make([]int64, sls)}
	for i := 0; i < sls; i++ {
		s.LatencyBuckets = append(s.LatencyBuckets, make([]int64, len(LatencyBounds)+1))
		s.NetLatencyBuckets = append(s.NetLatencyBuckets, make([]int64, len(LatencyBounds)+1))
		s.Lat = append(s.Lat, hdrhistogram.New(1, maxLatency, 3))
		s.NetLat = append(s.NetLat, hdrhistogram.New(1, maxLatency, 3))
	}
	return s
}

// Merge adds o into s.
func (s *Stats) Merge(o *Stats) {
	for i := range s.Offered {
		s.Offered[i] += o.Offered[i]
		s.Delivered[i] += o.Delivered[i]
		s.LatSum[i] += o.LatSum[i]
		s.NetLatSum[i] += o.NetLatSum[i]
		s.Msgs[i] += o.Msgs[i]
		s.Lat[i].Merge(o.Lat[i])
		s.NetLat[i].Merge(o.NetLat[i])
	}
	if o.SeriesInterval > 0 {
		if s.SeriesInterval == 0 {
			s.SeriesInterval = o.SeriesInterval
		}
		for s.SeriesInterval < o.SeriesInterval {
			s.coarsen()
		}
		scale := int(s.SeriesInterval / o.SeriesInterval)
		for sl, bins := range o.Series {
			for b, f := range bins {
				s.addBin(sl, b/scale, f)
			}
		}
	}
}

// maxSeriesBins bounds the series of a run: past it, the interval doubles.
const maxSeriesBins = 4096

// addSeries adds flits of SL sl delivered at cycle at, the first interval
// being base cycles long.
func (s *Stats) addSeries(sl int, at, base clock.Cycle, flits int64) {
	if s.SeriesInterval == 0 {
		s.SeriesInterval = base
	}
	for at/s.SeriesInterval >= maxSeriesBins {
		s.coarsen()
	}
	s.addBin(sl, int(at/s.SeriesInterval), flits)
}

// coarsen doubles the series interval, adding up pairs of intervals.
func (s *Stats) coarsen() {
	for sl, bins := range s.Series {
		for b, f := range bins {
			if b > 0 {
				bins[b/2] += f
				bins[b] = 0
			}
		}
		s.Series[sl] = bins[:(len(bins)+1)/2]
	}
	s.SeriesInterval *= 2
}

func (s *Stats) addBin(sl, bin int, flits int64) {
	for len(s.Series) <= sl {
		s.Series = append(s.Series, nil)
	}
	for len(s.Series[sl]) <= bin {
		s.Series[sl] = append(s.Series[sl], 0)
	}
	s.Series[sl][bin] += flits
}

func (s *Stats) delivered(p *params, pkt *messages.Packet, tail clock.Cycle) {
	if p.inWindow(tail) {
		s.Delivered[pkt.SL] += int64(pkt.Flits)
	}
	s.DeliveredFlits[pkt.SL] += int64(pkt.Flits)
	if p.series > 0 {
		s.addSeries(int(pkt.SL), tail, p.series, int64(pkt.Flits))
	}
	if !pkt.Last {
		return
	}
	lat, net := int64(tail-pkt.GenAt), int64(tail-pkt.InjAt)
	s.DeliveredMsgs[pkt.SL]++
	s.LatencyBuckets[pkt.SL][bucketOf(lat)]++
	s.NetLatencyBuckets[pkt.SL][bucketOf(net)]++
	s.LatencyCycles[pkt.SL] += lat
	s.NetLatencyCycles[pkt.SL] += net
	if pkt.GenAt < p.warmup {
		return
	}
	s.Msgs[pkt.SL]++
	s.LatSum[pkt.SL] += lat
	s.NetLatSum[pkt.SL] += net
	_ = s.Lat[pkt.SL].RecordValue(max(lat, 1))
	_ = s.NetLat[pkt.SL].RecordValue(max(net, 1))
}

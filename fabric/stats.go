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
	Offered    []int64 // flits generated in the window, per SL
	Delivered  []int64 // flits whose tail arrived in the window, per SL
	Lat        []*hdrhistogram.Histogram
	NetLat     []*hdrhistogram.Histogram
	LatSum     []int64
	NetLatSum  []int64
	Msgs       []int64 // messages generated in the window and delivered before the end
	StallCycle int64   // cycles an output link had a packet but no credits (not yet used)
}

// maxLatency bounds what the histograms track exactly (3 significant digits).
const maxLatency = 1 << 40

// NewStats makes empty statistics for sls service levels.
func NewStats(sls int) *Stats {
	s := &Stats{Offered: make([]int64, sls), Delivered: make([]int64, sls), LatSum: make([]int64, sls),
		NetLatSum: make([]int64, sls), Msgs: make([]int64, sls)}
	for i := 0; i < sls; i++ {
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
	s.StallCycle += o.StallCycle
}

func (s *Stats) delivered(p *params, pkt *messages.Packet, tail clock.Cycle) {
	if p.inWindow(tail) {
		s.Delivered[pkt.SL] += int64(pkt.Flits)
	}
	if !pkt.Last || pkt.GenAt < p.warmup {
		return
	}
	lat, net := int64(tail-pkt.GenAt), int64(tail-pkt.InjAt)
	s.Msgs[pkt.SL]++
	s.LatSum[pkt.SL] += lat
	s.NetLatSum[pkt.SL] += net
	_ = s.Lat[pkt.SL].RecordValue(max(lat, 1))
	_ = s.NetLat[pkt.SL].RecordValue(max(net, 1))
}

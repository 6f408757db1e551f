package fabric

import (
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/fabric/topo"
)

// What a network costs in memory, per piece, for EstimateBytes. The sizes
// of the model's own structures come from the compiler; perPortBytes is
// what a switch port holds besides them (its queues' first slots, the
// schedulers' tables, the allocators' maps), measured on built networks
// (TestEstimateBytes keeps it honest).
const (
	perPortBytes = 24 << 10
	perNICBytes  = 8 << 10
)

var histBytes = func() int64 { return int64(hdrhistogram.New(1, maxLatency, 3).ByteSize()) }

// EstimateBytes estimates the memory the network of cfg takes, built and
// then run until its buffers are full and each NIC's application queues
// hold traffic.max_queued_packets: the structures of every switch port
// (an output port keeps a request slot for every input and central buffer
// of its switch, so a switch costs radix² of them), the latency
// histograms (two per SL per switch with NICs), and the buffered packets. It needs no
// network: only the arithmetic of the topology.
func EstimateBytes(cfg Config) int64 {
	built, run := estimate(cfg)
	return add(built, run)
}

// estimate splits EstimateBytes into what Build allocates and what a run
// adds to it at most.
func estimate(cfg Config) (built, run int64) {
	spec := cfg.TopologySpec()
	switches, radix, nics := spec.Size()
	sls := int64(max(len(cfg.QoS.SLs), 1))
	withNICs := switches // switches with NICs: each has the latency histograms of its NICs
	if spec.Kind == topo.KindTree {
		withNICs = nics / int64(max(spec.K, 1))
	}
	slot := int64(unsafe.Sizeof(pending{}) + unsafe.Sizeof([]pending{}))
	perPort := perPortBytes + int64(outputSlots(mportsOf(int(radix))))*slot
	built = add(sat(sat(switches, radix), perPort), sat(sat(withNICs, 2*sls), histBytes()))
	built = add(built, sat(nics, perNICBytes))
	s := &cfg.Switch
	minPacket := int64(1 << 30)
	for i := range cfg.QoS.SLs {
		minPacket = min(minPacket, int64(max(cfg.MTUFlits(i), 1)))
	}
	minPacket = min(minPacket, int64(max(cfg.Traffic.MessageFlits, 1)))
	entry := int64(unsafe.Sizeof(entry{}))
	buffered := (int64(s.InputBufferFlits) + int64(s.OutputBufferFlits) + int64(s.CentralBufferFlits)/2) / minPacket * entry
	run = add(sat(sat(switches, radix), buffered), sat(nics, sat(int64(cfg.MaxQueuedPackets()), entry)))
	return built, run
}

// sat multiplies, saturating at the largest int64.
func sat(a, b int64) int64 {
	const most = int64(^uint64(0) >> 1)
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > most/b {
		return most
	}
	return a * b
}

func add(a, b int64) int64 {
	const most = int64(^uint64(0) >> 1)
	if a > most-b {
		return most
	}
	return a + b
}

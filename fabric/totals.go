package fabric

import "github.com/opasim/opasim/clock"

// Totals are the whole-network counters a run's results are made of. Read
// them only when no engine is running the network.
type Totals struct {
	Stats              *Stats // the measurements of every NIC group, merged
	NICs               []NICTotals
	DeliveredFlits     int64 // whole run, warm-up included
	UndeliveredPackets int64 // generated, not dropped, not delivered
	DroppedPackets     int64 // dropped from application queues at traffic.stop_cycle
	CreditStallCycles  int64
	// Output scheduler decisions over the whole run, and the wasted ones
	// (a pick whose head could not send; WastedNotReady: on a head not
	// ready yet).
	SwitchDecisions, SwitchWasted, WastedNotReady int64
	NICDecisions, NICWasted                       int64
	// Link cycles idled by the schedulers (decision.go: free link, a head
	// eligible, no decision sending), and the schedulers counted: switch
	// output ports and NICs.
	SwitchSchedulerIdle, NICSchedulerIdle int64
	Schedulers                            int
	// Messages NICs did not queue (traffic.max_queued_packets), their
	// flits, and the first cycle one was (-1: none).
	ThrottledMessages, ThrottledFlits int64
	FirstThrottle                     clock.Cycle
	// Packet preemption (qos.preemption), on switch and NIC links: packets
	// interrupted, by [preempting SL][interrupted SL], and link cycles held
	// by a packet whose next flit had not arrived (txLink.HoleCycles).
	Preemptions       int64
	PreemptionsByPair [][]int64
	HoleCycles        int64
	// The islip allocator's rounds over the whole run, summed over the
	// switches' input and central buffers (islipRound).
	IslipIterations, IslipMatches, IslipLost, IslipDeclined int64
	// LinkFlits counts, per link and VL, the flits sent in the
	// measurement window: the links of Network.Links, in that order.
	LinkFlits [][]int64
}

func (t *Totals) addIslip(r *islipRound) {
	t.IslipIterations += r.Iterations
	t.IslipMatches += r.Matches
	t.IslipLost += r.Lost
	t.IslipDeclined += r.Declined
}

// addLink adds a link sender's preemption counters.
func (t *Totals) addLink(l *txLink) {
	t.Preemptions += l.Preemptions
	t.HoleCycles += l.HoleCycles
	if l.ByPair == nil {
		return
	}
	if t.PreemptionsByPair == nil {
		t.PreemptionsByPair = make([][]int64, len(l.ByPair))
		for i := range t.PreemptionsByPair {
			t.PreemptionsByPair[i] = make([]int64, len(l.ByPair))
		}
	}
	for a := range l.ByPair {
		for b, c := range l.ByPair[a] {
			t.PreemptionsByPair[a][b] += c
		}
	}
}

// NICTotals is what one NIC contributes to the run's digest: the hash of
// its delivery sequence and its packet counts.
type NICTotals struct {
	DeliveryHash         uint64
	Generated, Delivered int64
}

// Totals sums the network's counters.
func (n *Network) Totals() Totals {
	t := Totals{Stats: NewStats(len(n.Config.QoS.SLs)), FirstThrottle: -1}
	var links [][]int64 // the switch ports' links; the NICs' come first
	for _, g := range n.Groups {
		if g.Stats != nil {
			t.Stats.Merge(g.Stats)
		}
	}
	for _, sp := range n.switches {
		for _, m := range sp.MPorts {
			for i := range m.ibuf {
				t.addIslip(&m.ibuf[i].isl)
			}
		}
		for b := range sp.Central.buf {
			t.addIslip(&sp.Central.buf[b].isl)
		}
		for _, op := range sp.Outputs {
			links = append(links, op.load.window)
			t.CreditStallCycles += op.StallCycles
			t.SwitchDecisions, t.SwitchWasted = t.SwitchDecisions+op.Decisions, t.SwitchWasted+op.WastedDecisions
			t.WastedNotReady += op.WastedNotReady
			t.addLink(&op.lk)
			t.SwitchSchedulerIdle += op.dec.IdleCycles
			t.Schedulers++
		}
	}
	for _, nic := range n.nics {
		t.LinkFlits = append(t.LinkFlits, append([]int64(nil), nic.load.window...))
		t.NICs = append(t.NICs, NICTotals{DeliveryHash: nic.digest, Generated: nic.GenPackets, Delivered: nic.DeliveredPackets})
		t.UndeliveredPackets += nic.GenPackets - nic.DeliveredPackets - nic.DroppedPackets
		t.DroppedPackets += nic.DroppedPackets
		t.DeliveredFlits += nic.DeliveredFlits
		t.NICDecisions, t.NICWasted = t.NICDecisions+nic.Decisions, t.NICWasted+nic.WastedDecisions
		t.addLink(&nic.lk)
		t.NICSchedulerIdle += nic.dec.IdleCycles
		t.Schedulers++
		if nic.Throttled > 0 {
			t.ThrottledMessages, t.ThrottledFlits = t.ThrottledMessages+nic.Throttled, t.ThrottledFlits+nic.ThrottledFlits
			if t.FirstThrottle < 0 || nic.FirstThrottle < t.FirstThrottle {
				t.FirstThrottle = nic.FirstThrottle
			}
		}
	}
	for _, l := range links {
		t.LinkFlits = append(t.LinkFlits, append([]int64(nil), l...))
	}
	return t
}

// HitRate is the share of decisions that sent a packet: 1 - wasted/decisions
// (seed 000 section 4.2's "hit rate"); 1 when there was no decision.
func HitRate(decisions, wasted int64) float64 {
	if decisions == 0 {
		return 1
	}
	return 1 - float64(wasted)/float64(decisions)
}

// HashOffset starts an FNV-1a running hash (HashWords).
const HashOffset uint64 = fnvOffset

// HashWords folds words into an FNV-1a running hash, byte by byte: the hash
// NICs keep of their deliveries, and the run's digest.
func HashWords(h uint64, words ...uint64) uint64 { return fnvMix(h, words...) }

// MaxLatency bounds what the latency histograms of Stats track exactly.
const MaxLatency clock.Cycle = maxLatency

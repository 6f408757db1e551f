package fabric_test

import (
	"math"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestDecisionCyclesUtilization: with (x+1) mod n traffic no two packets
// compete for a link (TestNeighbourAcceptsOffered), so at load 1.0 (CBR)
// each NIC's link is limited by its scheduler alone. Packets of F = 16
// flits, decisions of D cycles: the link sends F flits every max(F, D)
// cycles (decision.go), so it accepts min(1, F/D) flits/cycle: 1 for
// D = 16, 0.8 for D = 20, 0.5 for D = 32. Each NIC's link then idles
// D − F cycles per packet after the first (D − 1 before it), so the NICs'
// scheduler-idle cycles are (D − F) × (decisions − NICs) + (D − 1) × NICs.
func TestDecisionCyclesUtilization(t *testing.T) {
	const f = 16
	for _, d := range []int{16, 20, 32} {
		cfg := fabric.Default()
		cfg.Traffic.Pattern, cfg.Traffic.Load, cfg.Traffic.Process = "neighbour", 1.0, "cbr"
		cfg.Cycles, cfg.Warmup, cfg.QoS.DecisionCycles = 20000, 5000, d
		cfg.Engine = "sequential"
		n, r := run(t, cfg)
		want := math.Min(1, float64(f)/float64(d))
		if math.Abs(r.AcceptedThroughput-want) > 0.005 {
			t.Errorf("D = %d: accepted %.4f flits/cycle/NIC; want %.4f = min(1, %d/%d)", d, r.AcceptedThroughput, want, f, d)
		}
		nics := int64(r.NICs)
		nicDecisions := n.Totals().NICDecisions
		wantIdle := int64(max(d-f, 0))*(nicDecisions-nics) + int64(d-1)*nics
		t.Logf("D = %d: accepted %.4f; NICs idled %d link cycles, formula %d", d, r.AcceptedThroughput, r.NICSchedulerIdleCycles, wantIdle)
		if abs(r.NICSchedulerIdleCycles-wantIdle) > int64(d)*nics {
			t.Errorf("D = %d: NICs idled %d link cycles; want %d within one decision per NIC", d, r.NICSchedulerIdleCycles, wantIdle)
		}
	}
}

func abs(x int64) int64 { return max(x, -x) }

package monitor

import (
	"context"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/sim"
)

// TestSnapshotPortsAddUp: a switch snapshot's per-port figures (all the
// per-port series read) add up to its switch-wide ones, after a run that
// leaves packets in the buffers.
func TestSnapshotPortsAddUp(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine = "sequential"
	n := build(t, cfg)
	sim.RunSequential(context.Background(), n, sim.Hooks{})
	var buffered int64
	var sn fabric.Snapshot
	for g := range n.Groups {
		n.Snapshot(g, &sn)
		if sn.Kind != "switch" {
			if len(sn.Ports) != 0 {
				t.Errorf("group %d (%s): %d ports", g, sn.Kind, len(sn.Ports))
			}
			continue
		}
		var in, out, stall, decisions, wasted int64
		grants := make([]int64, len(sn.GrantsBySL))
		for _, p := range sn.Ports {
			in, out, stall = in+p.InputFlits, out+p.OutputFlits, stall+p.StallCycles
			decisions, wasted = decisions+p.Decisions, wasted+p.WastedDecisions
			for sl, c := range p.GrantsBySL {
				grants[sl] += c
			}
		}
		if in != sn.Occupancy[fabric.StageInput] || out != sn.Occupancy[fabric.StageOutput] {
			t.Errorf("switch %d: ports hold %d input and %d output flits; the switch %d and %d",
				sn.Switch, in, out, sn.Occupancy[fabric.StageInput], sn.Occupancy[fabric.StageOutput])
		}
		if stall != sn.StallCycles || decisions != sn.Decisions || wasted != sn.WastedDecisions {
			t.Errorf("switch %d: ports %d stall cycles, %d decisions, %d wasted; the switch %d, %d, %d",
				sn.Switch, stall, decisions, wasted, sn.StallCycles, sn.Decisions, sn.WastedDecisions)
		}
		for sl := range grants {
			if grants[sl] != sn.GrantsBySL[sl] {
				t.Errorf("switch %d, SL %d: ports granted %d, the switch %d", sn.Switch, sl, grants[sl], sn.GrantsBySL[sl])
			}
		}
		buffered += in + out
	}
	if buffered == 0 {
		t.Error("no flit left in any port buffer: the check proved nothing")
	}
}

package fabric

import (
	"testing"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/messages"
)

// builtNetwork builds a preset ("" for Default's single switch) with
// its default buffers.
func builtNetwork(t *testing.T, preset string) *Network {
	t.Helper()
	cfg := Default()
	cfg.Topology.Preset = preset
	n, err := Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLayoutNumbering: every component's ID is its index in Comps, in the
// order NICs, then per switch MPorts, central crossbar, output ports.
func TestLayoutNumbering(t *testing.T) {
	for _, preset := range []string{"", "tree-8ary-2", "torus2d-4x4"} {
		n := builtNetwork(t, preset)
		l := newLayout(n.Topology)
		for i, c := range n.Comps {
			if c.ID() != messages.CompID(i) {
				t.Fatalf("%s: component %d has ID %d", preset, i, c.ID())
			}
		}
		for i, nic := range n.nics {
			if nic.ID() != l.nic(i) {
				t.Errorf("%s: NIC %d is %d, layout says %d", preset, i, nic.ID(), l.nic(i))
			}
		}
		for s, sp := range n.switches {
			for m, mp := range sp.MPorts {
				if mp.ID() != l.mport(s, m) {
					t.Errorf("%s: switch %d MPort %d is %d, layout says %d", preset, s, m, mp.ID(), l.mport(s, m))
				}
			}
			if sp.Central.ID() != l.central(s) {
				t.Errorf("%s: switch %d central crossbar is %d, layout says %d", preset, s, sp.Central.ID(), l.central(s))
			}
			for q, o := range sp.Outputs {
				if o.ID() != l.output(s, q) {
					t.Errorf("%s: switch %d output %d is %d, layout says %d", preset, s, q, o.ID(), l.output(s, q))
				}
			}
		}
		if want := len(n.nics) + countSwitchComps(n.Topology); len(n.Comps) != want {
			t.Errorf("%s: %d components, want %d", preset, len(n.Comps), want)
		}
	}
}

func countSwitchComps(t *topo.Topology) int {
	c := 0
	for _, r := range t.Radix {
		c += r/4 + 1 + r
	}
	return c
}

// TestWiringBothWays: every link a sender names leads back to it: an output
// port's receiver names the port as the sender on that input (an MPort's
// upComp, a NIC's dnComp), and each credit mirror has the receiver's
// capacity; a NIC's switch input buffer names the NIC as its sender.
func TestWiringBothWays(t *testing.T) {
	for _, preset := range []string{"", "tree-8ary-2", "torus2d-4x4"} {
		n := builtNetwork(t, preset)
		p := n.p
		for s, sp := range n.switches {
			for q, o := range sp.Outputs {
				checkOutputLink(t, n, p, s, q, o)
			}
			for _, mp := range sp.MPorts {
				if mp.central != sp.Central.ID() || len(mp.outComp) != len(sp.Outputs) {
					t.Errorf("%s: switch %d MPort %d: central %d, %d outputs", preset, s, mp.index, mp.central, len(mp.outComp))
				}
			}
			for q, id := range sp.Central.outComp {
				if id != sp.Outputs[q].ID() {
					t.Errorf("%s: switch %d central crossbar: output %d is %d, want %d", preset, s, q, id, sp.Outputs[q].ID())
				}
			}
		}
		for i, nic := range n.nics {
			at := n.Topology.NICPort[i]
			mp := n.switches[at.Switch].MPorts[at.Port/4]
			if nic.upComp != mp.ID() || nic.upSlot != int32(at.Port%4) || mp.upComp[at.Port%4] != nic.ID() {
				t.Errorf("%s: NIC %d sends to %d slot %d; its input names %d", preset, i, nic.upComp, nic.upSlot, mp.upComp[at.Port%4])
			}
			if nic.down.FreeCredits() != p.inCap {
				t.Errorf("%s: NIC %d mirrors %d credits, the input buffer has %d", preset, i, nic.down.FreeCredits(), p.inCap)
			}
		}
	}
}

func checkOutputLink(t *testing.T, n *Network, p *params, s, q int, o *outputPort) {
	t.Helper()
	switch peer := n.Topology.Wiring[s][q]; peer.Kind {
	case topo.PeerNIC:
		nic := n.nics[peer.NIC]
		if o.downComp != nic.ID() || o.downSlot != 0 || nic.dnComp != o.ID() || o.down.FreeCredits() != p.rxCap {
			t.Errorf("switch %d port %d -> NIC %d: down %d slot %d, %d credits; the NIC's feeder is %d",
				s, q, peer.NIC, o.downComp, o.downSlot, o.down.FreeCredits(), nic.dnComp)
		}
	case topo.PeerSwitch:
		mp := n.switches[peer.Port.Switch].MPorts[peer.Port.Port/4]
		slot := peer.Port.Port % 4
		if o.downComp != mp.ID() || o.downSlot != int32(slot) || mp.upComp[slot] != o.ID() || !mp.wired[slot] ||
			o.down.FreeCredits() != p.inCap {
			t.Errorf("switch %d port %d -> %v: down %d slot %d, %d credits; that input's sender is %d",
				s, q, peer.Port, o.downComp, o.downSlot, o.down.FreeCredits(), mp.upComp[slot])
		}
	}
}

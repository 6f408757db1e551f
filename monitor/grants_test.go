package monitor

import (
	"testing"

	"github.com/opasim/opasim/fabric"
)

// mixedPackets is smallTree with SLs whose packets differ in size: VO
// sends 16-flit messages as two 8-flit packets (64-byte MTU), BE 32-flit
// messages as one 32-flit packet (256-byte MTU), the others 16-flit
// messages as one 16-flit packet (packetFlits). A share of packets is
// then not a share of flits: at the same flit load VO sends four packets
// for each of BE's.
func mixedPackets(cycles int64) fabric.Config {
	c := smallTree(cycles)
	c.Traffic.Load = 0.5
	for i := range c.QoS.SLs {
		switch sl := &c.QoS.SLs[i]; sl.Name {
		case "VO":
			sl.MTUBytes, sl.MessageBytes = 64, 128
		case "BE":
			sl.MTUBytes, sl.MessageBytes = 256, 256
		}
	}
	return c
}

// packetFlits are the flits of every packet of each SL of mixedPackets.
var packetFlits = map[string]float64{"VO": 8, "VI": 16, "CL": 16, "BE": 32, "BK": 16}

// TestGrantedFlits: the fabric-wide grants in flits are, per SL, the
// grants in packets times the SL's packet size (every packet of an SL of
// mixedPackets has the same size), so the grant share the fabric
// dashboard compares with the configured shares is a share of flits, as
// they are.
func TestGrantedFlits(t *testing.T) {
	cfg := mixedPackets(4000)
	cfg.Engine = "sequential"
	m, _ := observedRun(t, cfg, MetricsOptions{})
	got := simulated(t, m)
	for sl, size := range packetFlits {
		packets := got[`opasim_scheduler_grants_total{scheduler=rr,sl=`+sl+`}`]
		flits, ok := got[`opasim_scheduler_granted_flits_total{scheduler=rr,sl=`+sl+`}`]
		if !ok {
			t.Fatalf("no opasim_scheduler_granted_flits_total for SL %s", sl)
		}
		if packets < 100 {
			t.Errorf("SL %s: %g packets granted, too few to tell", sl, packets)
		}
		if flits != size*packets {
			t.Errorf("SL %s: %g flits granted in %g packets, want %g (packets of %g flits)", sl, flits, packets, size*packets, size)
		}
	}
}

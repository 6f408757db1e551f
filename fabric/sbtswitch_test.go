package fabric_test

import (
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// switchTableView is what an sbt_switch scheduler tells of itself: the
// table of its switch and the column it reads and writes.
type switchTableView interface {
	Table() (*sched.SBTSwitchTable, int)
}

// TestBuildSBTSwitchTables: with sbt_switch every switch has one table,
// one column per output port, each port's scheduler a view on its own
// column; no two switches share a table; each NIC has a table of its own
// with one column.
func TestBuildSBTSwitchTables(t *testing.T) {
	cfg := paperMix(t, "sbt_switch", 0.5)
	cfg.Topology.Preset = "tree-8ary-2"
	n, err := fabric.Build(cfg, sched.Default())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*sched.SBTSwitchTable]string{}
	for s := 0; s < n.NumSwitches(); s++ {
		ports := fabric.NumOutputs(n, s)
		first, _ := fabric.OutputScheduler(n, s, 0).(switchTableView).Table()
		if first.Ports() != ports {
			t.Errorf("switch %d: table of %d ports, the switch has %d", s, first.Ports(), ports)
		}
		if who, ok := seen[first]; ok {
			t.Fatalf("switch %d has the table of %s", s, who)
		}
		seen[first] = "a switch"
		for q := 0; q < ports; q++ {
			tab, col := fabric.OutputScheduler(n, s, q).(switchTableView).Table()
			if tab != first || col != q {
				t.Errorf("switch %d port %d: column %d of table %p, want column %d of %p", s, q, col, tab, q, first)
			}
		}
	}
	for i := 0; i < n.NumNICs(); i++ {
		tab, col := fabric.NICScheduler(n, i).(switchTableView).Table()
		if _, ok := seen[tab]; ok || tab.Ports() != 1 || col != 0 {
			t.Errorf("NIC %d: column %d of a table of %d ports (shared: %v), want its own table of one", i, col, tab.Ports(), ok)
		}
		seen[tab] = "a NIC"
	}
}

// TestSBTSwitchDigest: sbt_switch makes sbt's decisions, so a run gives
// sbt's digest, on a two-level tree with the paper mix, in the eligible and
// table_feedback views (the latter calls Miss).
func TestSBTSwitchDigest(t *testing.T) {
	for _, view := range []string{fabric.ViewEligible, fabric.ViewTableFeedback} {
		digest := map[string]string{}
		for _, s := range []string{"sbt", "sbt_switch"} {
			cfg := paperMix(t, s, 0.9)
			cfg.Topology.Preset, cfg.QoS.SchedulerView = "tree-8ary-2", view
			cfg.Cycles, cfg.Warmup = 3000, 500
			_, r := run(t, cfg)
			digest[s] = r.Digest
			t.Logf("%s %s: %d flits, digest %s", view, s, r.DeliveredFlits, r.Digest)
		}
		if digest["sbt"] != digest["sbt_switch"] {
			t.Errorf("%s view: sbt_switch digest %s, sbt %s", view, digest["sbt_switch"], digest["sbt"])
		}
	}
}

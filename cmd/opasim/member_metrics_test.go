package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/opasim/opasim/distrib"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/monitor"
)

// TestMemberMetricsOptions: a member's port detail covers the switches
// of the groups it runs (and of those, the ones --metrics-switches names);
// past --metrics-max-series, or with switches the network does not have,
// it serves switch detail and a warning says why.
func TestMemberMetricsOptions(t *testing.T) {
	cfg := fabric.Default()
	cfg.Topology = fabric.TopologyConfig{Preset: "tree-8ary-2"}
	n, err := buildNetwork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	switches := n.NumSwitches()
	// The member runs the groups of the even switches (and no NIC bank).
	owned := make([]bool, len(n.Groups))
	want := make([]bool, switches)
	mine := 0
	for g, grp := range n.Groups {
		if grp.Kind == "switch" && grp.Switch%2 == 0 {
			owned[g], want[grp.Switch] = true, true
			mine++
		}
	}
	if mine == 0 || mine == switches {
		t.Fatalf("%d of %d switches owned: the case needs some of them", mine, switches)
	}
	part := distrib.MemberPart{Index: 1, RunID: "r", Owned: owned}
	full := monitor.EstimateSeries(n.Config, monitor.MetricsOptions{PortDetail: true, PortSwitches: want})
	if full.Ported != int64(mine) {
		t.Fatalf("estimate covers %d switches, want the member's %d", full.Ported, mine)
	}

	for _, tc := range []struct {
		name     string
		mm       memberMetrics
		detail   bool
		selected []bool
		warning  string
	}{
		{"switch detail", memberMetrics{maxSeries: monitor.DefaultSeriesLimit}, false, nil, ""},
		{"port detail of its own switches", memberMetrics{portDetail: true, maxSeries: full.Total}, true, want, ""},
		{"the named switches of its own", memberMetrics{portDetail: true, switches: "0-3", maxSeries: full.Total}, true, []bool{true, false, true, false}, ""},
		{"one series past the limit", memberMetrics{portDetail: true, maxSeries: full.Total - 1}, false, nil, "more than the limit of"},
		{"a switch the network lacks", memberMetrics{portDetail: true, switches: "0-999", maxSeries: full.Total}, false, nil, "switch 999 is out of range"},
	} {
		var warn bytes.Buffer
		tc.mm.warn = &warn
		o := tc.mm.options(n, part)
		if o.PortDetail != tc.detail || o.Labels["member"] != "1" || len(o.Groups) != len(owned) {
			t.Errorf("%s: port detail %v (want %v), labels %v, %d groups", tc.name, o.PortDetail, tc.detail, o.Labels, len(o.Groups))
		}
		if tc.selected != nil && len(o.PortSwitches) != switches {
			t.Errorf("%s: %d switches in the selection, want %d", tc.name, len(o.PortSwitches), switches)
			continue
		}
		for sw, on := range tc.selected {
			if o.PortSwitches[sw] != on {
				t.Errorf("%s: switch %d selected %v, want %v", tc.name, sw, o.PortSwitches[sw], on)
			}
		}
		if tc.selected != nil {
			got := 0
			for _, on := range o.PortSwitches {
				if on {
					got++
				}
			}
			wantN := 0
			for _, on := range tc.selected {
				if on {
					wantN++
				}
			}
			if len(tc.selected) == switches && got != wantN {
				t.Errorf("%s: %d switches selected, want %d", tc.name, got, wantN)
			}
		}
		if (tc.warning == "") != (warn.Len() == 0) || !strings.Contains(warn.String(), tc.warning) {
			t.Errorf("%s: warning %q, want one containing %q", tc.name, warn.String(), tc.warning)
		}
	}
}

package fabric_test

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// TestSchedulerViewHitRate: on a 16-port switch under seed 000's mix at
// load 1.0, every decision of the eligible view sends (hit rate exactly 1,
// nothing wasted), while in the table and table_feedback views the
// schedulers pick heads that cannot send (hit rate below 1). In every view
// each decision that was not wasted put one packet on a link: decisions -
// wasted = packets sent by the output ports and the NICs.
func TestSchedulerViewHitRate(t *testing.T) {
	for _, s := range []string{"rr", "rr_burst", "sbt", "dtable"} {
		for _, view := range fabric.SchedulerViews() {
			cfg := paperMix(t, s, 1.0)
			cfg.Topology.Ports = 16
			cfg.Cycles, cfg.Warmup = 10000, 2000
			cfg.QoS.SchedulerView = view
			n, r := run(t, cfg)
			sent := fabric.PacketsSent(n)
			t.Logf("%s, %s view: %d decisions, %d wasted, hit rate %.4f (switch %.4f, NICs %.4f), accepted %.4f",
				s, view, r.SchedulerDecisions, r.SchedulerWasted, r.SchedulerHitRate, r.SwitchHitRate, r.NICHitRate,
				r.AcceptedThroughput)
			if r.SchedulerDecisions-r.SchedulerWasted != sent || sent == 0 {
				t.Errorf("%s, %s view: %d decisions - %d wasted, but %d packets sent", s, view,
					r.SchedulerDecisions, r.SchedulerWasted, sent)
			}
			switch view {
			case fabric.ViewEligible:
				if r.SchedulerWasted != 0 || r.SchedulerHitRate != 1 || r.SwitchHitRate != 1 || r.NICHitRate != 1 {
					t.Errorf("%s, eligible view: %d wasted, hit rate %g (switch %g, NICs %g), want 0 and exactly 1",
						s, r.SchedulerWasted, r.SchedulerHitRate, r.SwitchHitRate, r.NICHitRate)
				}
			case fabric.ViewTable, fabric.ViewTableFeedback:
				if !(r.SchedulerHitRate < 1) || r.SchedulerWasted == 0 {
					t.Errorf("%s, %s view: hit rate %g with %d wasted, want below 1", s, view, r.SchedulerHitRate, r.SchedulerWasted)
				}
			}
		}
	}
}

// TestSchedulerViewValidation: a bad qos.scheduler_view names the field,
// the value and the allowed values; "" means eligible.
func TestSchedulerViewValidation(t *testing.T) {
	cfg := fabric.Default()
	cfg.QoS.SchedulerView = "hardware"
	err := cfg.Validate(sched.Default())
	want := `qos.scheduler_view: "hardware" is not allowed: must be one of: eligible, table, table_feedback`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	for _, v := range []string{"", fabric.ViewEligible, fabric.ViewTable, fabric.ViewTableFeedback} {
		cfg.QoS.SchedulerView = v
		if err := cfg.Validate(sched.Default()); err != nil {
			t.Errorf("scheduler_view %q: %v", v, err)
		}
	}
}

// TestSchedulerViewFeedback: table_feedback shows the schedulers what the
// table view shows and differs only in what a wasted pick does to them.
// rr's Miss is its Commit, so for rr the two views give the same run, digest
// included; for sbt and dtable, which learn from the miss, the runs differ.
// Each run of the view is repeatable (the same digest twice).
func TestSchedulerViewFeedback(t *testing.T) {
	for _, s := range []string{"rr", "sbt", "dtable"} {
		var digests [2]string
		for k, view := range []string{fabric.ViewTable, fabric.ViewTableFeedback} {
			cfg := paperMix(t, s, 1.0)
			cfg.Topology.Ports = 16
			cfg.Cycles, cfg.Warmup = 6000, 1000
			cfg.QoS.SchedulerView = view
			_, r := run(t, cfg)
			_, again := run(t, cfg)
			if r.Digest != again.Digest {
				t.Errorf("%s, %s view: digest %s then %s", s, view, r.Digest, again.Digest)
			}
			digests[k] = r.Digest
		}
		if same := digests[0] == digests[1]; same != (s == "rr") {
			t.Errorf("%s: table digest %s, table_feedback digest %s: same = %v, want %v",
				s, digests[0], digests[1], same, s == "rr")
		}
	}
}

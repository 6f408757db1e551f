package fabric

import (
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// TestVLArbConfigValidate: the vlarb keys are checked whatever the
// scheduler, each problem naming the key path, the value and what is
// allowed; absent keys (the default tables) and the default high limit are
// accepted on the default config and on the paper mix.
func TestVLArbConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*QoSConfig)
		want []string // problems, one a line; none: accepted
	}{
		{"defaults", func(q *QoSConfig) {}, nil},
		{"vlarb with the defaults", func(q *QoSConfig) { q.Scheduler = "vlarb" }, nil},
		{"tables and no limit", func(q *QoSConfig) {
			q.Scheduler = "vlarb"
			q.VLArbHigh = []VLArbEntry{{0, 8}, {1, 0}}
			q.VLArbLow = []VLArbEntry{{1, 16}, {2, 16}, {0, 4}}
			q.VLArbHighLimit = VLArbUnlimited
		}, nil},
		{"low table only", func(q *QoSConfig) { q.VLArbLow = []VLArbEntry{{4, 1}} }, nil},
		{"SL out of range", func(q *QoSConfig) { q.VLArbLow = []VLArbEntry{{1, 4}, {5, 4}, {-1, 4}} }, []string{
			"qos.vlarb_low[1].sl: 5 is not allowed: must be an SL in [0, 5) (an index of qos.sls)",
			"qos.vlarb_low[2].sl: -1 is not allowed: must be an SL in [0, 5) (an index of qos.sls)",
		}},
		{"negative weight", func(q *QoSConfig) { q.VLArbHigh = []VLArbEntry{{0, -4}, {1, 2}} }, []string{
			"qos.vlarb_high[0].weight: -4 is not allowed: must be at least 0 (credits; 0 skips the entry)",
		}},
		{"every weight 0", func(q *QoSConfig) {
			q.VLArbHigh, q.VLArbLow = []VLArbEntry{{0, 0}}, []VLArbEntry{{1, 0}, {2, 0}}
		}, []string{
			"qos.vlarb_high, qos.vlarb_low: every weight 0 is not allowed: at least one entry must weigh more than 0 credits " +
				"(or give neither table: SL 0 high, the others low, each one MTU)",
		}},
		{"limit below -1", func(q *QoSConfig) { q.Scheduler, q.VLArbHighLimit = "vlarb", -2 }, []string{
			"qos.vlarb_high_limit: -2 is not allowed: must be -1 (no limit) or at least 0 " +
				"(credits the high-priority table sends in a row; 0: one packet)",
		}},
	} {
		for _, preset := range []string{"", "paper-mix"} {
			cfg := Default()
			if preset != "" {
				if err := ApplyTrafficPreset(&cfg, preset); err != nil {
					t.Fatal(err)
				}
			}
			tc.edit(&cfg.QoS)
			err := cfg.Validate(sched.Default())
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s (%q): got %q, want %q", tc.name, preset, got, tc.want)
			}
		}
	}
}

// TestVLArbConfigReachesScheduler: the keys become the schedulers' Config
// (entries as given, weight 0 included), and a config without tables
// leaves them empty for vlarb to fill in with its defaults.
func TestVLArbConfigReachesScheduler(t *testing.T) {
	cfg := Default()
	cfg.QoS.Scheduler = "vlarb"
	p, _, err := prepare(cfg, sched.Default(), Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	if v := p.schedCfg.VLArb; len(v.High) != 0 || len(v.Low) != 0 || v.HighLimit != 0 {
		t.Errorf("default config: %+v, want no tables and limit 0", v)
	}
	cfg.QoS.VLArbHigh = []VLArbEntry{{2, 12}}
	cfg.QoS.VLArbLow = []VLArbEntry{{0, 4}, {3, 0}}
	cfg.QoS.VLArbHighLimit = VLArbUnlimited
	if p, _, err = prepare(cfg, sched.Default(), Inputs{}); err != nil {
		t.Fatal(err)
	}
	v := p.schedCfg.VLArb
	if !slices.Equal(v.High, []sched.Entry{{SL: 2, Weight: 12}}) || !slices.Equal(v.Low, []sched.Entry{{SL: 0, Weight: 4}, {SL: 3, Weight: 0}}) ||
		v.HighLimit != sched.VLArbUnlimited {
		t.Errorf("got %+v", v)
	}
	// CL high without limit: CL, then CL again whatever else is offered.
	s := p.newScheduler()
	heads := []sched.Head{{VL: 0, SC: 0, SL: 0, Credits: 4}, {VL: 4, SC: 4, SL: 2, Credits: 4}, {VL: 6, SC: 6, SL: 3, Credits: 4}}
	for k := 0; k < 3; k++ {
		i := s.Pick(heads)
		if heads[i].SL != 2 {
			t.Fatalf("decision %d: SL %d sent, want 2 (CL, the only high SL, no limit)", k, heads[i].SL)
		}
		s.Commit(heads, i)
	}
}

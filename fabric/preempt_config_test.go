package fabric

import (
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/sched"
)

// TestPreemptionConfigValidate: qos.preemption is refused key by key, each
// problem naming the key, the value and what is allowed.
func TestPreemptionConfigValidate(t *testing.T) {
	const known = "must name an SL of qos.sls: VO, VI, CL, BE, BK"
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []string // problems, one a line; none: accepted
	}{
		{"none", func(c *Config) {}, nil},
		{"VO over the rest", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"VI", "CL", "BE", "BK"}, "VI": {"BE"}}, MinFlits: 8}
		}, nil},
		{"min_flits without preempts", func(c *Config) { c.QoS.Preemption.MinFlits = 4 }, []string{
			"qos.preemption.min_flits: 4 is not allowed: must be 0 when qos.preemption.preempts is empty"}},
		{"unknown SLs", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"XX": {"BE"}, "VO": {"BE", "YY"}}, MinFlits: 1}
		}, []string{
			`qos.preemption.preempts.VO[1]: "YY" is not allowed: ` + known,
			`qos.preemption.preempts: "XX" is not allowed: ` + known}},
		{"itself", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"VO"}}, MinFlits: 1}
		}, []string{`qos.preemption.preempts.VO[0]: "VO" is not allowed: must be another SL than VO (an SL does not preempt itself)`}},
		{"cycle", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"VI"}, "VI": {"CL"}, "CL": {"VO"}}, MinFlits: 1}
		}, []string{"qos.preemption.preempts: VO > VI > CL > VO is not allowed: must have no cycle " +
			"(SLs preempting each other in turn could interrupt a packet for ever)"}},
		{"min_flits 0", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"BE"}}}
		}, []string{"qos.preemption.min_flits: 0 is not allowed: must be at least 1 (flits an interrupted packet has sent)"}},
		{"with decisions of several cycles", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"BE"}}, MinFlits: 1}
			c.QoS.DecisionCycles = 4
		}, []string{"qos.decision_cycles: 4 is not allowed: must be 1 (or absent) with qos.preemption: how long a preemption decision takes is not modelled"}},
		{"latencies too short for the news", func(c *Config) {
			c.QoS.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"BE"}}, MinFlits: 1}
			c.Switch.Latency = LatencyConfig{RT: 7, SBIn: 1, SBOut: 13, AT: 10, XMPort: 3, XCentral: 1, Fly: 3}
		}, []string{"switch.latency: at 10, sb_in 1, x_mport 3, x_central 1, sb_out 13 is not allowed: " +
			"with qos.preemption, floor(at/2) must be at most sb_in + x_mport, and twice it at most sb_in + x_mport + x_central + sb_out " +
			"(news of a late tail must overtake the tail)"}},
	} {
		cfg := Default()
		tc.edit(&cfg)
		err := cfg.Validate(sched.Default())
		var got []string
		if err != nil {
			got = strings.Split(err.Error(), "\n")
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestPreemptionMatrix: the names become the matrix the links read.
func TestPreemptionMatrix(t *testing.T) {
	q := Default().QoS
	q.Preemption = PreemptionConfig{Preempts: map[string][]string{"VO": {"BE", "BK"}, "VI": {"BK"}}, MinFlits: 2}
	m, can := q.preemptionMatrix()
	for a := range m {
		for b := range m[a] {
			want := a == 0 && (b == 3 || b == 4) || a == 1 && b == 4
			if m[a][b] != want {
				t.Errorf("SL %d preempts SL %d: %v, want %v", a, b, m[a][b], want)
			}
		}
	}
	if !slices.Equal(can, []bool{false, false, false, true, true}) {
		t.Errorf("preemptable: %v", can)
	}
}

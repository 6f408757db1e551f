package fabric

import (
	"fmt"
	"math"
	"strings"

	"github.com/opasim/opasim/workloads"
)

// Config is a whole run: every key has its default in Default() and is
// checked by Validate. YAML keys are snake_case; unknown keys are errors.
type Config struct {
	Seed     uint64         `yaml:"seed" json:"seed"`
	Cycles   int64          `yaml:"cycles" json:"cycles"` // total, warm-up included
	Warmup   int64          `yaml:"warmup" json:"warmup"`
	Engine   string         `yaml:"engine" json:"engine"`     // actors | sequential
	Window   int64          `yaml:"window" json:"window"`     // cycles per clock window; 0 = the largest allowed
	Topology TopologyConfig `yaml:"topology" json:"topology"` //
	Switch   SwitchConfig   `yaml:"switch" json:"switch"`
	NIC      NICConfig      `yaml:"nic" json:"nic"`
	QoS      QoSConfig      `yaml:"qos" json:"qos"`
	Traffic  TrafficConfig  `yaml:"traffic" json:"traffic"`
}

// TopologyConfig chooses the network.
type TopologyConfig struct {
	Kind  string `yaml:"kind" json:"kind"`   // single_switch
	Ports int    `yaml:"ports" json:"ports"` // single_switch: ports (one NIC each)
}

// LatencyConfig holds the stage latencies of seed 002 Table 1, in cycles.
type LatencyConfig struct {
	RT       int64 `yaml:"rt" json:"rt"`               // routing
	SBIn     int64 `yaml:"sb_in" json:"sb_in"`         // store in input buffer
	SBOut    int64 `yaml:"sb_out" json:"sb_out"`       // store in output buffer
	AT       int64 `yaml:"at" json:"at"`               // arbitration (request + grant)
	XMPort   int64 `yaml:"x_mport" json:"x_mport"`     // MPort crossbar
	XCentral int64 `yaml:"x_central" json:"x_central"` // central crossbar
	Fly      int64 `yaml:"fly" json:"fly"`             // link
}

// SwitchConfig describes every switch (and the buffer rules NICs share).
type SwitchConfig struct {
	BytesPerFlit       int           `yaml:"bytes_per_flit" json:"bytes_per_flit"`
	FlitsPerCredit     int           `yaml:"flits_per_credit" json:"flits_per_credit"`
	VLs                int           `yaml:"vls" json:"vls"`
	InputBufferFlits   int           `yaml:"input_buffer_flits" json:"input_buffer_flits"`
	OutputBufferFlits  int           `yaml:"output_buffer_flits" json:"output_buffer_flits"`
	CentralBufferFlits int           `yaml:"central_buffer_flits" json:"central_buffer_flits"` // each of the 2 per MPort
	ExclusiveVLFlits   int           `yaml:"exclusive_vl_flits" json:"exclusive_vl_flits"`
	MaxVLFlits         int           `yaml:"max_vl_flits" json:"max_vl_flits"`
	MPortSpeedup       int           `yaml:"mport_speedup" json:"mport_speedup"`     // flits/cycle on MPort crossbar links
	CentralSpeedup     int           `yaml:"central_speedup" json:"central_speedup"` // flits/cycle out of the central crossbar
	Latency            LatencyConfig `yaml:"latency" json:"latency"`
}

// NICConfig describes the NICs.
type NICConfig struct {
	InjectionBufferFlits int `yaml:"injection_buffer_flits" json:"injection_buffer_flits"`
	ReceiveBufferFlits   int `yaml:"receive_buffer_flits" json:"receive_buffer_flits"`
}

// SLConfig is one service level: its SCs, MTU and share of the offered load.
type SLConfig struct {
	Name      string  `yaml:"name" json:"name"`
	SCs       []int   `yaml:"scs" json:"scs"`
	MTUBytes  int     `yaml:"mtu_bytes" json:"mtu_bytes"`
	Share     float64 `yaml:"share" json:"share"`           // fraction of the offered load
	SBTWeight int     `yaml:"sbt_weight" json:"sbt_weight"` // packets, for sbt schedulers
}

// QoSConfig holds the SL/SC/VL tables and the output scheduler.
type QoSConfig struct {
	Scheduler string     `yaml:"scheduler" json:"scheduler"`
	SLs       []SLConfig `yaml:"sls" json:"sls"`
	SC2VL     []int      `yaml:"sc2vl" json:"sc2vl"`
}

// TrafficConfig describes the synthetic traffic every NIC generates.
type TrafficConfig struct {
	Pattern             string  `yaml:"pattern" json:"pattern"`
	Load                float64 `yaml:"load" json:"load"`       // flits/cycle/NIC offered
	Process             string  `yaml:"process" json:"process"` // bernoulli | cbr
	MessageFlits        int     `yaml:"message_flits" json:"message_flits"`
	ShortMessageFlits   int     `yaml:"short_message_flits" json:"short_message_flits"`
	LongMessageFlits    int     `yaml:"long_message_flits" json:"long_message_flits"`
	ShortMessagePercent int     `yaml:"short_message_percent" json:"short_message_percent"`
	HotSpot             int     `yaml:"hot_spot" json:"hot_spot"`                 // hot_spot: the hot NIC
	HotSpotPercent      int     `yaml:"hot_spot_percent" json:"hot_spot_percent"` // hot_spot: share sent to it
}

// Default is seed 002's single 48-port switch under uniform traffic at load
// 0.5, with the SL/SC/VL tables of seed 000 Table 7 and 16-flit packets.
func Default() Config {
	return Config{
		Seed: 1, Cycles: 20000, Warmup: 5000, Engine: "actors",
		Topology: TopologyConfig{Kind: "single_switch", Ports: 48},
		Switch: SwitchConfig{
			BytesPerFlit: 8, FlitsPerCredit: 4, VLs: 8,
			InputBufferFlits: 256, OutputBufferFlits: 256, CentralBufferFlits: 256,
			ExclusiveVLFlits: 16, MaxVLFlits: 48, MPortSpeedup: 3, CentralSpeedup: 4,
			Latency: LatencyConfig{RT: 32, SBIn: 50, SBOut: 50, AT: 16, XMPort: 2, XCentral: 2, Fly: 8},
		},
		NIC: NICConfig{InjectionBufferFlits: 256, ReceiveBufferFlits: 256},
		QoS: QoSConfig{Scheduler: "rr", SLs: Table7SLs(128, 0.2, 20), SC2VL: []int{0, 1, 2, 3, 4, 5, 6, 7, 6, 7}},
		Traffic: TrafficConfig{Pattern: "uniform", Load: 0.5, Process: "bernoulli", MessageFlits: 16,
			ShortMessagePercent: 100, HotSpotPercent: 10},
	}
}

// Table7SLs returns the five SLs of seed 000 Table 7 (VO, VI, CL, BE, BK
// over SC0-SC9), all with the same MTU, load share and SBT weight.
func Table7SLs(mtuBytes int, share float64, weight int) []SLConfig {
	names := []string{"VO", "VI", "CL", "BE", "BK"}
	sls := make([]SLConfig, len(names))
	for i, n := range names {
		sls[i] = SLConfig{Name: n, SCs: []int{2 * i, 2*i + 1}, MTUBytes: mtuBytes, Share: share, SBTWeight: weight}
	}
	return sls
}

// Problems collects every validation problem; it is an error when non-empty.
type Problems []string

func (p Problems) Error() string { return strings.Join(p, "\n") }

func (p *Problems) add(field string, value any, allowed string) {
	*p = append(*p, fmt.Sprintf("%s: %v is not allowed: %s", field, value, allowed))
}

func (p *Problems) atLeast(field string, v, min int64) {
	if v < min {
		p.add(field, v, fmt.Sprintf("must be at least %d", min))
	}
}

// Validate returns every problem at once, each naming the field, the value
// and what is allowed; nil when the config is usable.
func (c *Config) Validate(schedulers []string) error {
	var p Problems
	c.validateRun(&p)
	c.validateTopology(&p)
	c.validateSwitch(&p)
	c.validateQoS(&p, schedulers)
	c.validateTraffic(&p)
	if len(p) == 0 {
		c.validateBuffers(&p)
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

func (c *Config) validateRun(p *Problems) {
	p.atLeast("cycles", c.Cycles, 1)
	if c.Warmup < 0 || c.Warmup >= c.Cycles {
		p.add("warmup", c.Warmup, fmt.Sprintf("must be in [0, cycles=%d)", c.Cycles))
	}
	if c.Engine != "actors" && c.Engine != "sequential" {
		p.add("engine", fmt.Sprintf("%q", c.Engine), "must be one of: actors, sequential")
	}
	if c.Window < 0 || c.Window > c.MaxWindow() {
		p.add("window", c.Window, fmt.Sprintf("must be in [0, %d] (0 = the largest, the minimum latency between components)", c.MaxWindow()))
	}
}

func (c *Config) validateTopology(p *Problems) {
	if c.Topology.Kind != "single_switch" {
		p.add("topology.kind", fmt.Sprintf("%q", c.Topology.Kind), "must be one of: single_switch")
	}
	if c.Topology.Ports < 8 || c.Topology.Ports%4 != 0 {
		p.add("topology.ports", c.Topology.Ports, "must be a multiple of 4 and at least 8 (MPorts of 4 ports, at least two MPorts)")
	}
}

func (c *Config) validateSwitch(p *Problems) {
	s := &c.Switch
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"switch.bytes_per_flit", s.BytesPerFlit, 1}, {"switch.flits_per_credit", s.FlitsPerCredit, 1},
		{"switch.input_buffer_flits", s.InputBufferFlits, 1}, {"switch.output_buffer_flits", s.OutputBufferFlits, 1},
		{"switch.central_buffer_flits", s.CentralBufferFlits, 1}, {"switch.exclusive_vl_flits", s.ExclusiveVLFlits, 0},
		{"switch.max_vl_flits", s.MaxVLFlits, 1}, {"switch.mport_speedup", s.MPortSpeedup, 1},
		{"switch.central_speedup", s.CentralSpeedup, 1},
		{"nic.injection_buffer_flits", c.NIC.InjectionBufferFlits, 1}, {"nic.receive_buffer_flits", c.NIC.ReceiveBufferFlits, 1},
	} {
		p.atLeast(f.name, int64(f.v), int64(f.min))
	}
	if s.VLs < 1 || s.VLs > 32 {
		p.add("switch.vls", s.VLs, "must be in [1, 32]")
	}
	l := &s.Latency
	for _, f := range []struct {
		name string
		v    int64
		min  int64
	}{
		{"switch.latency.rt", l.RT, 0}, {"switch.latency.sb_in", l.SBIn, 0}, {"switch.latency.sb_out", l.SBOut, 0},
		{"switch.latency.at", l.AT, 2}, {"switch.latency.x_mport", l.XMPort, 0}, {"switch.latency.x_central", l.XCentral, 0},
		{"switch.latency.fly", l.Fly, 1},
	} {
		if f.v < f.min {
			why := fmt.Sprintf("must be at least %d", f.min)
			if f.name == "switch.latency.at" {
				why += " (the request and the grant of an arbitration take at least one cycle each)"
			}
			p.add(f.name, f.v, why)
		}
	}
}

func (c *Config) validateQoS(p *Problems, schedulers []string) {
	q := &c.QoS
	if !contains(schedulers, q.Scheduler) {
		p.add("qos.scheduler", fmt.Sprintf("%q", q.Scheduler), "must be one of: "+strings.Join(schedulers, ", "))
	}
	if len(q.SLs) == 0 || len(q.SLs) > 32 {
		p.add("qos.sls", len(q.SLs), "must list 1 to 32 service levels")
	}
	if len(q.SC2VL) == 0 || len(q.SC2VL) > 32 {
		p.add("qos.sc2vl", len(q.SC2VL), "must map 1 to 32 service channels")
	}
	for sc, vl := range q.SC2VL {
		if vl < 0 || vl >= c.Switch.VLs {
			p.add(fmt.Sprintf("qos.sc2vl[%d]", sc), vl, fmt.Sprintf("must be a VL in [0, %d)", c.Switch.VLs))
		}
	}
	owner := map[int]string{}
	sum := 0.0
	for i, sl := range q.SLs {
		f := fmt.Sprintf("qos.sls[%d]", i)
		if sl.Name == "" {
			p.add(f+".name", `""`, "must be a non-empty name")
		}
		if len(sl.SCs) == 0 {
			p.add(f+".scs", "[]", "must list at least one SC")
		}
		for _, sc := range sl.SCs {
			if sc < 0 || sc >= len(q.SC2VL) {
				p.add(f+".scs", sc, fmt.Sprintf("must be an SC in [0, %d) (the length of qos.sc2vl)", len(q.SC2VL)))
			} else if o, taken := owner[sc]; taken {
				p.add(f+".scs", sc, "SC already belongs to SL "+o+" (an SC carries one SL)")
			} else {
				owner[sc] = sl.Name
			}
		}
		p.atLeast(f+".mtu_bytes", int64(sl.MTUBytes), 1)
		if sl.Share < 0 || sl.Share > 1 || math.IsNaN(sl.Share) {
			p.add(f+".share", sl.Share, "must be in [0, 1]")
		}
		if sl.SBTWeight < 0 {
			p.add(f+".sbt_weight", sl.SBTWeight, "must be at least 0")
		}
		sum += sl.Share
	}
	if len(q.SLs) > 0 && math.Abs(sum-1) > 1e-6 {
		p.add("qos.sls[*].share", fmt.Sprintf("sum %.6g", sum), "the shares of the offered load must sum to 1")
	}
}

func (c *Config) validateTraffic(p *Problems) {
	t := &c.Traffic
	if !contains(workloads.PatternNames(), t.Pattern) {
		p.add("traffic.pattern", fmt.Sprintf("%q", t.Pattern), "must be one of: "+strings.Join(workloads.PatternNames(), ", "))
	}
	if !(t.Load > 0 && t.Load <= 1) {
		p.add("traffic.load", t.Load, "must be in (0, 1] flits/cycle/NIC")
	}
	if t.Process != "bernoulli" && t.Process != "cbr" {
		p.add("traffic.process", fmt.Sprintf("%q", t.Process), "must be one of: bernoulli, cbr")
	}
	p.atLeast("traffic.message_flits", int64(t.MessageFlits), 1)
	if t.ShortMessagePercent < 0 || t.ShortMessagePercent > 100 {
		p.add("traffic.short_message_percent", t.ShortMessagePercent, "must be in [0, 100]")
	}
	if t.ShortMessagePercent < 100 || t.ShortMessageFlits != 0 || t.LongMessageFlits != 0 {
		p.atLeast("traffic.short_message_flits", int64(t.ShortMessageFlits), 1)
		p.atLeast("traffic.long_message_flits", int64(t.LongMessageFlits), 1)
	}
	if t.HotSpot < 0 || t.HotSpot >= c.NumNICs() {
		p.add("traffic.hot_spot", t.HotSpot, fmt.Sprintf("must be a NIC in [0, %d)", c.NumNICs()))
	}
	if t.HotSpotPercent < 0 || t.HotSpotPercent > 100 {
		p.add("traffic.hot_spot_percent", t.HotSpotPercent, "must be in [0, 100]")
	}
}

// validateBuffers checks that every VL of every buffer can hold the largest
// packet and that the exclusive space fits.
func (c *Config) validateBuffers(p *Problems) {
	s := &c.Switch
	maxPkt := c.credits(c.MaxPacketFlits())
	excl, maxVL := c.credits(s.ExclusiveVLFlits), s.MaxVLFlits/s.FlitsPerCredit
	if maxVL < maxPkt {
		p.add("switch.max_vl_flits", s.MaxVLFlits, fmt.Sprintf("must hold the largest packet: at least %d flits", maxPkt*s.FlitsPerCredit))
	}
	if excl > maxVL {
		p.add("switch.exclusive_vl_flits", s.ExclusiveVLFlits, fmt.Sprintf("must not exceed switch.max_vl_flits=%d", s.MaxVLFlits))
	}
	for _, b := range []struct {
		name  string
		flits int
	}{
		{"switch.input_buffer_flits", s.InputBufferFlits}, {"switch.output_buffer_flits", s.OutputBufferFlits},
		{"switch.central_buffer_flits", s.CentralBufferFlits}, {"nic.injection_buffer_flits", c.NIC.InjectionBufferFlits},
		{"nic.receive_buffer_flits", c.NIC.ReceiveBufferFlits},
	} {
		capC := b.flits / s.FlitsPerCredit
		if need := excl*s.VLs + maxPkt - min(excl, maxPkt); capC < max(need, maxPkt) {
			p.add(b.name, b.flits, fmt.Sprintf("must hold the exclusive space of %d VLs plus the largest packet: at least %d flits",
				s.VLs, max(need, maxPkt)*s.FlitsPerCredit))
		}
	}
}

// credits converts flits to credits, rounding up.
func (c *Config) credits(flits int) int {
	return (flits + c.Switch.FlitsPerCredit - 1) / c.Switch.FlitsPerCredit
}

// MTUFlits is SL i's MTU in flits (bytes rounded up).
func (c *Config) MTUFlits(i int) int {
	b := c.Switch.BytesPerFlit
	return (c.QoS.SLs[i].MTUBytes + b - 1) / b
}

// MaxPacketFlits is the largest packet any SL can send.
func (c *Config) MaxPacketFlits() int {
	m := 0
	for i := range c.QoS.SLs {
		m = max(m, c.MTUFlits(i))
	}
	return m
}

// NumNICs is the number of NICs of the configured topology.
func (c *Config) NumNICs() int { return c.Topology.Ports }

// MaxWindow is the largest clock window: the smallest latency of any
// message between components (links, requests, grants).
func (c *Config) MaxWindow() int64 {
	l := c.Switch.Latency
	return max(1, min(l.Fly, l.AT/2, l.AT-l.AT/2))
}

// CycleNs is the length of a cycle in nanoseconds at 12.5 GB/s per port.
func (c *Config) CycleNs() float64 { return float64(c.Switch.BytesPerFlit) / 12.5 }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package fabric

import (
	"fmt"
	"strings"

	"github.com/opasim/opasim/workloads"
)

// The traffic itself (patterns, processes, sizes, scenarios, each NIC's
// source) is package workloads'. Here: reading it from a Config, and what
// a scenario sets in the hardware.

// TrafficPresets lists the names ApplyTrafficPreset knows: the scenarios of
// package workloads.
func TrafficPresets() []string { return workloads.ScenarioNames() }

// ApplyTrafficPreset rewrites cfg for a named traffic scenario: its traffic
// (workloads.LookupScenario) into the SLs of Table 7 and traffic.process and
// pattern, then the hardware that goes with it.
//
// paper-mix is seed 000 section 4: Table 8's CBR flows (workloads.PaperMix)
// of one MTU each, Table 10's SBT weights and DTable distances, 64-byte
// credits, and section 4.1's buffers: 64 KiB per switch input and output
// port, 32 KiB at NICs, 128 KiB of central buffer per MPort (two buffers of
// 64 KiB). The paper gives no per-VL limits: each VL is guaranteed one
// GMTU (1 KiB) and may take half of a buffer.
func ApplyTrafficPreset(cfg *Config, name string) error {
	sc, err := workloads.LookupScenario(name)
	if err != nil {
		return fmt.Errorf("traffic: %q is not allowed: must be one of: %s", name, strings.Join(TrafficPresets(), ", "))
	}
	sls := Table7SLs(DefaultMTUBytes, 0, 0)
	if len(sc.SLs) != len(sls) {
		return fmt.Errorf("traffic: scenario %q has %d SLs, Table 7 has %d", name, len(sc.SLs), len(sls))
	}
	for i, s := range sc.SLs {
		sls[i].MessageBytes, sls[i].Share = s.MessageBytes, s.Share
	}
	cfg.QoS.SLs = sls
	cfg.Traffic.Process, cfg.Traffic.Pattern = sc.Process, sc.Pattern
	seed000Hardware(cfg)
	return nil
}

// seed000Hardware sets what seed 000 section 4 gives beside the traffic:
// every message is one MTU, Table 10's SBT weights and DTable parameters,
// section 4.1's buffers and credits.
func seed000Hardware(cfg *Config) {
	bpf := cfg.Switch.BytesPerFlit
	flits := func(bytes int) int { return (bytes + bpf - 1) / bpf }
	for i := range cfg.QoS.SLs {
		cfg.QoS.SLs[i].MTUBytes = cfg.QoS.SLs[i].MessageBytes
		cfg.QoS.SLs[i].SBTWeight = []int{10, 30, 50, 5, 5}[i]
	}
	cfg.QoS.DTable = DTableConfig{Entries: 128, GMTU: 16, W: 8, K: 2}
	cfg.Switch.FlitsPerCredit = flits(64)
	seed000Buffers(cfg)
}

// Hardware presets: the buffer configurations of the source documents.
const (
	HardwareSeed000 = "seed000" // seed 000 section 4.1 (the default's buffers)
	HardwareSeed002 = "seed002" // seed 002 section 3: 256-flit buffers, VLs of 16 to 48 flits
)

// HardwarePresets lists the hardware presets (ApplyHardwarePreset).
func HardwarePresets() []string { return []string{HardwareSeed000, HardwareSeed002} }

// ApplyHardwarePreset sets cfg's buffers and credits to a named source's:
// seed000, section 4.1's buffers (what Default has; the credits stay as
// they are), or seed002, the single switch of seed 002 section 3: 256-flit
// buffers at switches and NICs, 4-flit credits, 16 flits guaranteed and at
// most 48 a VL. With seed002 one VL carries at most 48 flits per credit
// loop (0.4 of a link with the default latencies: docs/model.md).
func ApplyHardwarePreset(cfg *Config, name string) error {
	switch name {
	case HardwareSeed000:
		seed000Buffers(cfg)
	case HardwareSeed002:
		s := &cfg.Switch
		s.FlitsPerCredit = 4
		s.InputBufferFlits, s.OutputBufferFlits, s.CentralBufferFlits = 256, 256, 256
		cfg.NIC.InjectionBufferFlits, cfg.NIC.ReceiveBufferFlits = 256, 256
		s.ExclusiveVLFlits, s.MaxVLFlits = 16, 48
	default:
		return fmt.Errorf("hardware: %q is not allowed: must be one of: %s", name, strings.Join(HardwarePresets(), ", "))
	}
	return nil
}

// seed000Buffers sets section 4.1's buffers: 64 KiB per switch input and
// output port, 32 KiB at NICs, 128 KiB of central buffer per MPort (two
// buffers of 64 KiB); each VL guaranteed one GMTU (1 KiB) and allowed half
// a buffer (the paper gives no per-VL limits).
func seed000Buffers(cfg *Config) {
	bpf := cfg.Switch.BytesPerFlit
	flits := func(bytes int) int { return (bytes + bpf - 1) / bpf }
	s := &cfg.Switch
	s.InputBufferFlits, s.OutputBufferFlits, s.CentralBufferFlits = flits(64<<10), flits(64<<10), flits(64<<10)
	cfg.NIC.InjectionBufferFlits, cfg.NIC.ReceiveBufferFlits = flits(32<<10), flits(32<<10)
	s.ExclusiveVLFlits, s.MaxVLFlits = flits(1024), flits(32<<10)
}

// newTraffic is the run's traffic as package workloads takes it: the
// pattern over the network's nics NICs, and per SL its share and message
// sizes: the SL's own qos.sls[].message_bytes (rounded up to flits), else
// the short/long mix when traffic.short_message_flits is set, else
// traffic.message_flits.
func newTraffic(cfg *Config, nics int) (*workloads.Traffic, error) {
	t := &cfg.Traffic
	pattern, err := workloads.NewPattern(t.Pattern, workloads.Options{HotSpot: t.HotSpot, HotSpotPercent: t.HotSpotPercent})
	if err != nil {
		return nil, fmt.Errorf("traffic.pattern: %w", err)
	}
	sizes := workloads.Sizes{Short: t.MessageFlits, ShortPercent: 100}
	if t.ShortMessageFlits > 0 {
		sizes = workloads.Sizes{Short: t.ShortMessageFlits, Long: t.LongMessageFlits, ShortPercent: t.ShortMessagePercent}
	}
	tr := &workloads.Traffic{Pattern: pattern, NICs: nics, Process: t.Process, Load: t.Load, Seed: cfg.Seed}
	for _, sl := range cfg.QoS.SLs {
		sz := sizes
		if sl.MessageBytes > 0 {
			b := cfg.Switch.BytesPerFlit
			sz = workloads.Sizes{Short: (sl.MessageBytes + b - 1) / b, ShortPercent: 100}
		}
		tr.SLs = append(tr.SLs, workloads.SLTraffic{Share: sl.Share, Sizes: sz})
	}
	return tr, nil
}

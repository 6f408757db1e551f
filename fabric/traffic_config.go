package fabric

import (
	"fmt"
	"strings"
)

// TrafficPresets lists the names ApplyTrafficPreset knows.
func TrafficPresets() []string { return []string{"paper-mix"} }

// ApplyTrafficPreset rewrites cfg for a named traffic scenario.
//
// paper-mix is seed 000 section 4: Table 8's CBR flows (VO 128 B, VI 256 B,
// CL 512 B, BE and BK 1024 B messages, one MTU each) carrying 10/30/50/5/5 %
// of the load to uniform destinations, Table 10's SBT weights and DTable
// distances, 64-byte credits, and section 4.1's buffers: 64 KiB per switch
// input and output port, 32 KiB at NICs, 128 KiB of central buffer per
// MPort (two buffers of 64 KiB). The paper gives no per-VL limits: each VL
// is guaranteed one GMTU (1 KiB) and may take half of a buffer.
func ApplyTrafficPreset(cfg *Config, name string) error {
	if name != "paper-mix" {
		return fmt.Errorf("traffic: %q is not allowed: must be one of: %s", name, strings.Join(TrafficPresets(), ", "))
	}
	bpf := cfg.Switch.BytesPerFlit
	flits := func(bytes int) int { return (bytes + bpf - 1) / bpf }
	sls := Table7SLs(128, 0, 0)
	for i, b := range []int{128, 256, 512, 1024, 1024} {
		sls[i].MTUBytes, sls[i].MessageBytes = b, b
		sls[i].Share = []float64{0.1, 0.3, 0.5, 0.05, 0.05}[i]
		sls[i].SBTWeight = []int{10, 30, 50, 5, 5}[i]
	}
	cfg.QoS.SLs = sls
	cfg.QoS.DTable = DTableConfig{Entries: 128, GMTU: 16, W: 8, K: 2}
	cfg.Traffic.Process, cfg.Traffic.Pattern = "cbr", "uniform"
	s := &cfg.Switch
	s.FlitsPerCredit = flits(64)
	s.InputBufferFlits, s.OutputBufferFlits, s.CentralBufferFlits = flits(64<<10), flits(64<<10), flits(64<<10)
	cfg.NIC.InjectionBufferFlits, cfg.NIC.ReceiveBufferFlits = flits(32<<10), flits(32<<10)
	s.ExclusiveVLFlits, s.MaxVLFlits = flits(1024), flits(32<<10)
	return nil
}

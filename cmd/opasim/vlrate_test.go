package main

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestPrintVLRate: the summary's VL rate line, one figure when every SL
// has the same MTU (seed 002's buffers: 48 flits over 120 cycles; the
// default buffers: the link's rate), one per SL when not (VO's MTU of 256
// bytes: one 32-flit packet in 48 flits, over a 125-cycle loop).
func TestPrintVLRate(t *testing.T) {
	cfg := fabric.Default()
	var b strings.Builder
	printVLRate(&b, &cfg)
	if want := "vl rate   at most 1.000 flits/cycle a VL into a switch (space over a 120-cycle credit loop"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("defaults: %q, want it to begin %q", b.String(), want)
	}
	if err := fabric.ApplyHardwarePreset(&cfg, fabric.HardwareSeed002); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	printVLRate(&b, &cfg)
	if want := "vl rate   at most 0.400 flits/cycle a VL into a switch (space over a 120-cycle credit loop"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("defaults: %q, want it to begin %q", b.String(), want)
	}
	cfg.QoS.SLs[0].MTUBytes = 256
	b.Reset()
	printVLRate(&b, &cfg)
	if want := "flits/cycle a VL into a switch: VO 0.256, VI 0.400, CL 0.400, BE 0.400, BK 0.400 "; !strings.Contains(b.String(), want) {
		t.Errorf("VO's MTU 256 bytes: %q, want it to hold %q", b.String(), want)
	}
}

// TestLoneStreamReachesLinkRate: one stream of one SL, NIC 0 to NIC 63 of
// the 8-ary 2-tree (three switches, two links between them), messages of
// 4 KiB replayed alone, 16 and then 32 of them: the 16 more take the
// stream's rate, the path's latency cancelling out. With the default
// buffers (seed 000's, 4,096 flits a VL over a 120-cycle credit loop) it is
// at least 0.95 of a link; with seed 002's (48 flits a VL, 0.4 of a link a
// VL, the NIC alternating the SL's two SCs) under 0.5.
func TestLoneStreamReachesLinkRate(t *testing.T) {
	const size = 4096
	dir := t.TempDir()
	one := func(s, _ int) int {
		if s == 0 {
			return xvNICs - 1
		}
		return s
	}
	short := writeVEF(t, dir, "short.vef", xvNICs, 16, size, one)
	long := writeVEF(t, dir, "long.vef", xvNICs, 32, size, one)
	flits := float64(16 * size / fabric.Default().Switch.BytesPerFlit)
	rate := func(cfg fabric.Config) float64 {
		a, _ := replay(t, short, cfg)
		b, _ := replay(t, long, cfg)
		return flits / (b - a)
	}
	deep := fabric.Default()
	deep.Topology = fabric.TopologyConfig{Preset: "tree-8ary-2"}
	got, small := rate(deep), rate(xvTree(0))
	t.Logf("one stream: %.3f flits/cycle with the default buffers, %.3f with seed 002's", got, small)
	if got < 0.95 {
		t.Errorf("default buffers: %.3f flits/cycle, want at least 0.95", got)
	}
	if small >= 0.5 {
		t.Errorf("seed 002's buffers: %.3f flits/cycle, want under 0.5", small)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestPrintVLRate: the summary's VL rate line, one figure when every SL
// has the same MTU (48 flits over 120 cycles), one per SL when not (VO's
// MTU of 256 bytes: one 32-flit packet in 48 flits, over a 125-cycle
// loop).
func TestPrintVLRate(t *testing.T) {
	cfg := fabric.Default()
	var b strings.Builder
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

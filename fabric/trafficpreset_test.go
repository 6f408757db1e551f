package fabric_test

import (
	"reflect"
	"testing"

	"github.com/opasim/opasim/fabric"
)

// TestTrafficPresetPaperMix: --traffic paper-mix sets seed 000's scenario
// (the values the preset has always set, written out by hand at 8 bytes
// per flit), and an unknown name is refused with the known ones.
func TestTrafficPresetPaperMix(t *testing.T) {
	cfg := fabric.Default()
	if err := fabric.ApplyTrafficPreset(&cfg, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	want := fabric.Default()
	bytes := []int{128, 256, 512, 1024, 1024}
	want.QoS.SLs = fabric.Table7SLs(128, 0, 0)
	for i := range want.QoS.SLs {
		sl := &want.QoS.SLs[i]
		sl.MTUBytes, sl.MessageBytes = bytes[i], bytes[i]
		sl.Share = []float64{0.1, 0.3, 0.5, 0.05, 0.05}[i]
		sl.SBTWeight = []int{10, 30, 50, 5, 5}[i]
	}
	want.QoS.DTable = fabric.DTableConfig{Entries: 128, GMTU: 16, W: 8, K: 2}
	want.Traffic.Process, want.Traffic.Pattern = "cbr", "uniform"
	s := &want.Switch
	s.FlitsPerCredit, s.InputBufferFlits, s.OutputBufferFlits, s.CentralBufferFlits = 8, 8192, 8192, 8192
	want.NIC.InjectionBufferFlits, want.NIC.ReceiveBufferFlits = 4096, 4096
	s.ExclusiveVLFlits, s.MaxVLFlits = 128, 4096
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("paper-mix gives\n%+v\nwant\n%+v", cfg, want)
	}
	err := fabric.ApplyTrafficPreset(&cfg, "paper_mix")
	if want := `traffic: "paper_mix" is not allowed: must be one of: paper-mix`; err == nil || err.Error() != want {
		t.Errorf("unknown preset: %v, want %s", err, want)
	}
}

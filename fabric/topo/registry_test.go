package topo

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := DefaultRegistry()
	if got := strings.Join(r.Names(), ","); got != "direct,dor,updown" {
		t.Errorf("names %s", got)
	}
	if err := r.Register("dor", nil); err == nil {
		t.Error("registered dor twice")
	}
	torus, _, _ := Preset("torus2d-4x4")
	_, err := r.New("minimal", torus, paperSC)
	if err == nil || !strings.Contains(err.Error(), "known: direct, dor, updown") {
		t.Errorf("unknown routing: error %v", err)
	}
	if !r.Has("updown") || r.Has("minimal") {
		t.Error("Has is wrong")
	}
	if NewRegistry().Has("dor") {
		t.Error("NewRegistry is not empty")
	}
}

// TestRoutingNeedsItsKind: each routing refuses topologies it cannot route.
func TestRoutingNeedsItsKind(t *testing.T) {
	r := DefaultRegistry()
	for _, preset := range PresetNames() {
		topo, spec, err := Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range r.Names() {
			_, err := r.New(name, topo, paperSC)
			if (err == nil) != (name == spec.Routing) {
				t.Errorf("%s on %s: error %v", name, preset, err)
			}
		}
	}
}

func TestDirectNeedsNICnOnPortn(t *testing.T) {
	topo, _, err := SingleSwitch(8)
	if err != nil {
		t.Fatal(err)
	}
	topo.NICPort[0], topo.NICPort[1] = topo.NICPort[1], topo.NICPort[0]
	if _, err := NewDirect(topo); err == nil {
		t.Error("direct accepted NIC 0 on port 1")
	}
}

package fabric

import (
	"math"
	"testing"
)

// TestVLRate checks CreditLoop and VLRate against hand computations: seed
// 002's buffers' 3 packets of 16 flits over 8+50+32+16+⌈16/3⌉+8 = 120
// cycles, then one term changed at a time; and the default buffers, whose
// 4,096 flits a VL cover the loop many times over.
func TestVLRate(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Config)
		loop int64
		rate float64
	}{
		{"seed 002's buffers", func(*Config) {}, 120, 48.0 / 120},
		{"max_vl_flits 72: 4 whole packets", func(c *Config) { c.Switch.MaxVLFlits = 72 }, 120, 64.0 / 120},
		{"max_vl_flits 128: over the link", func(c *Config) { c.Switch.MaxVLFlits = 128 }, 120, 1},
		{"fly 18", func(c *Config) { c.Switch.Latency.Fly = 18 }, 140, 48.0 / 140},
		{"sb_in 60", func(c *Config) { c.Switch.Latency.SBIn = 60 }, 130, 48.0 / 130},
		{"sb_out and x_mport not in the loop", func(c *Config) { c.Switch.Latency.SBOut, c.Switch.Latency.XMPort = 80, 12 }, 120, 48.0 / 120},
		{"mport_speedup 2", func(c *Config) { c.Switch.MPortSpeedup = 2 }, 122, 48.0 / 122},
		{"MTU 256 bytes: one packet of 32 flits in 48", func(c *Config) { c.QoS.SLs[0].MTUBytes = 256 }, 8 + 50 + 32 + 16 + 11 + 8, 32.0 / 125},
		{"44 flits in credits of 8: 5 credits, 2 packets", func(c *Config) { c.Switch.MaxVLFlits, c.Switch.FlitsPerCredit = 44, 8 }, 120, 32.0 / 120},
		{"input buffer of 32 flits", func(c *Config) { c.Switch.InputBufferFlits = 32 }, 120, 32.0 / 120},
	}
	for _, c := range cases {
		cfg := Default()
		if err := ApplyHardwarePreset(&cfg, HardwareSeed002); err != nil {
			t.Fatal(err)
		}
		c.set(&cfg)
		if loop, rate := cfg.CreditLoop(0), cfg.VLRate(0); loop != c.loop || math.Abs(rate-c.rate) > 1e-15 {
			t.Errorf("%s: loop %d, rate %v; want %d and %v", c.name, loop, rate, c.loop, c.rate)
		}
	}
	if cfg := Default(); cfg.CreditLoop(0) != 120 || cfg.VLRate(0) != 1 {
		t.Errorf("defaults: loop %d, rate %v; want 120 and 1 (4,096 flits a VL)", cfg.CreditLoop(0), cfg.VLRate(0))
	}
}

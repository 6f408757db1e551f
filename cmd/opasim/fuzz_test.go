package main

import (
	"testing"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/sim"
)

// FuzzConfig: decoding and validating any YAML never panics, and a config
// that validates also builds.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("cycles: 3000\ntraffic:\n  load: 0.2\n"))
	f.Add([]byte("switch:\n  latency:\n    at: 1\n"))
	f.Add([]byte("qos:\n  sls:\n  - name: A\n    scs: [0]\n    mtu_bytes: 64\n    share: 1\n  sc2vl: [0]\n"))
	f.Add([]byte("topology: {ports: 12}\nswitch: {vls: 2, max_vl_flits: 16, exclusive_vl_flits: 4}\n"))
	names := sched.Default().Names()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := fabric.Default()
		if err := sim.DecodeConfig(data, &cfg); err != nil {
			return
		}
		if cfg.Validate(names) != nil {
			return
		}
		if cfg.Topology.Ports > 256 || cfg.Switch.VLs > 16 {
			return // valid, but too big to build in a fuzz iteration
		}
		if _, err := fabric.Build(cfg, sched.Default()); err != nil {
			t.Errorf("validated config does not build: %v", err)
		}
	})
}

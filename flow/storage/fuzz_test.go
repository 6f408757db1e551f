package storage

import (
	"bytes"
	"math"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/flow/maxmin"
)

// FuzzConfig: storage and apps sections as opasim flow dynamic reads
// them (strict YAML). Whatever the input, validation returns an error or
// a run on an 8-node star that ends: no panic, every flow completes (the
// star is connected), and each application's phases partition its
// runtime.
func FuzzConfig(f *testing.F) {
	f.Add([]byte(`storage: {pcie: 2, device: 0.5, cache_hit: 0.25, san: {servers: 2}}
apps:
  - markov: {tasks: 3, read_size: 1, write_size: 2, matrix: [[0,0,0,1,0,0],[0,0,0,0,0,1],[0,0,0,0,0,1],[0,0,0,0.5,0.5,0],[0,0,0,0,0,1],[0,0,0,0,0,1]]}
    storage: {policy: external, devices: 2}
  - first: 5
    markov: {tasks: 3, comm: {name: uniform}, comm_size: 1, comp_mean: 1, read_size: 1, matrix: [[0,1,0,0,0,0],[0,0,0.5,0.3,0,0.2],[0,1,0,0,0,0],[0,0,0,0,0,1],[0,0,0,0,0,1],[0,0,0,0,0,1]]}
    storage: {policy: internal, nodes: [6]}
`))
	f.Add([]byte("apps:\n  - markov: {tasks: 2}\n    storage: {policy: san}\n"))
	f.Add([]byte("storage: {device: -1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg struct {
			Storage Config `yaml:"storage"`
			Apps    []App  `yaml:"apps"`
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil || cfg.Storage.Check() != nil || len(cfg.Apps) == 0 || len(cfg.Apps) > 8 {
			return
		}
		for i := range cfg.Apps {
			m := &cfg.Apps[i].Markov
			if m.MaxPhases == 0 || m.MaxPhases > 30 {
				m.MaxPhases = 30 // bounds the run, not the check
			}
			if m.Comm.FlowsPerServer > 4 {
				m.Comm.FlowsPerServer = 4
			}
		}
		res, err := Run(star(t, 8), cfg.Storage, cfg.Apps, 1, maxmin.Policy{Kind: maxmin.FP}, nil)
		if err != nil {
			return
		}
		if res.Unfinished != 0 {
			t.Fatalf("%d flows unfinished on a connected star", res.Unfinished)
		}
		for _, a := range res.Apps {
			sum := a.IOTime + a.CommTime + a.CompTime
			if math.IsInf(a.Runtime, 0) || math.IsNaN(a.Runtime) || math.Abs(sum-a.Runtime) > 1e-9*math.Max(1, a.Runtime) {
				t.Fatalf("%s: runtime %v, phases %v", a.Name, a.Runtime, sum)
			}
		}
	})
}

package sched

import (
	"strings"
	"testing"
)

// TestFactoryErrors: each factory refuses what leaves its algorithm
// undefined, naming the field at fault.
func TestFactoryErrors(t *testing.T) {
	for _, tc := range []struct {
		name, sched string
		edit        func(*Config)
		want        string // "" means the config is accepted
	}{
		{"dtable empty table", "dtable", func(c *Config) { c.Table = nil }, "Config.Table is empty"},
		{"dtable MTU 0", "dtable", func(c *Config) { c.SLs[2].MTUCredits = 0 }, "SLs[2].MTUCredits = 0"},
		{"dtable entry SL", "dtable", func(c *Config) { c.Table[3].SL = 9 }, "Table[3].SL = 9"},
		{"dtable negative weight", "dtable", func(c *Config) { c.Table[1].Weight = -1 }, "Table[1].Weight = -1"},
		{"dtable SL without entry", "dtable", func(c *Config) { c.Table = c.Table[:15] }, "SL 4 (BK) has SCs but no entry"},
		{"dtable SC out of SC2VL", "dtable", func(c *Config) { c.SL2SC[0] = []int{0, 12} }, "SL2SC[0] has SC 12"},
		{"dtable SC2SL out of range", "dtable", func(c *Config) { c.SC2SL[9] = 5 }, "SC2SL[9] = 5"},
		{"dtable weight below MTU is legal", "dtable", func(c *Config) { c.Table[0].Weight = 1 }, ""},
		{"dtable_sc empty table", "dtable_sc", func(c *Config) { c.Table = nil }, "dtable_sc: Config.Table is empty"},
		{"dtable_sc SL without entry", "dtable_sc", func(c *Config) { c.Table = c.Table[:15] }, "dtable_sc: SL 4 (BK) has SCs but no entry"},
		{"dtable_sc weight below MTU is legal", "dtable_sc", func(c *Config) { c.Table[0].Weight = 1 }, ""},
		{"sbt negative weight", "sbt", func(c *Config) { c.SLs[1].SBTWeight = -3 }, "SLs[1].SBTWeight = -3"},
		{"sbt all zero", "sbt", zeroSBT, "every SLs[].SBTWeight is 0"},
		{"sbt_strict all zero", "sbt_strict", zeroSBT, "every SLs[].SBTWeight is 0"},
		{"sbt_strict no VLs", "sbt_strict", func(c *Config) { c.NumVLs = 0 }, "NumVLs = 0"},
		{"sbt no SLs", "sbt", func(c *Config) { c.SLs = nil }, "len(SLs) = 0"},
		{"strict no VLs", "strict", func(c *Config) { c.NumVLs = 0 }, "NumVLs = 0"},
		{"wrr all zero", "wrr", zeroSBT, "wrr: every SLs[].SBTWeight is 0"},
		{"wrr negative weight", "wrr", func(c *Config) { c.SLs[3].SBTWeight = -1 }, "SLs[3].SBTWeight = -1"},
		{"wrr no VLs", "wrr", func(c *Config) { c.NumVLs = 0 }, "wrr: NumVLs = 0"},
		{"drr all zero", "drr", zeroSBT, "drr: every SLs[].SBTWeight is 0"},
		{"drr no MTU", "drr", func(c *Config) {
			for i := range c.SLs {
				c.SLs[i].MTUCredits = 0
			}
		}, "drr: the largest SLs[].MTUCredits is 0"},
		{"strict SC2SL out of range", "strict", func(c *Config) { c.SC2SL[9] = 5 }, "SC2SL[9] = 5"},
		{"vlarb default tables", "vlarb", func(c *Config) {}, ""},
		{"vlarb entry SL", "vlarb", func(c *Config) { c.VLArb.Low = []Entry{{1, 4}, {5, 4}} }, "vlarb: VLArb.Low[1].SL = 5, want 0..4"},
		{"vlarb negative weight", "vlarb", func(c *Config) { c.VLArb.High = []Entry{{0, -1}} }, "vlarb: VLArb.High[0].Weight = -1, want >= 0"},
		{"vlarb all zero", "vlarb", func(c *Config) {
			c.VLArb.High, c.VLArb.Low = []Entry{{0, 0}}, []Entry{{1, 0}}
		}, "vlarb: every VLArb.High[] and VLArb.Low[] entry has weight 0"},
		{"vlarb limit", "vlarb", func(c *Config) { c.VLArb.HighLimit = -2 }, "vlarb: VLArb.HighLimit = -2, want -1 (no limit) or >= 0"},
		{"vlarb unlimited", "vlarb", func(c *Config) { c.VLArb.HighLimit = VLArbUnlimited }, ""},
		{"vlarb no VLs", "vlarb", func(c *Config) { c.NumVLs = 0 }, "vlarb: NumVLs = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := paperConfig()
			tc.edit(&cfg)
			_, err := Default().New(tc.sched, cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func zeroSBT(c *Config) {
	for i := range c.SLs {
		c.SLs[i].SBTWeight = 0
	}
}

// TestDTableListsEveryProblem: the error names all problems at once.
func TestDTableListsEveryProblem(t *testing.T) {
	cfg := paperConfig()
	cfg.SLs[0].MTUCredits = 0
	cfg.Table[5].Weight = -2
	_, err := NewDTable(cfg)
	for _, want := range []string{"SLs[0].MTUCredits = 0", "Table[5].Weight = -2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}

// TestRegistered: the default registry knows the built-in schedulers.
func TestRegistered(t *testing.T) {
	reg := Default()
	for _, name := range []string{"rr", "sbt", "sbt_strict", "dtable", "dtable_sc", "strict", "wrr", "drr", "vlarb"} {
		if !reg.Has(name) {
			t.Errorf("Default() lacks %q (has %v)", name, reg.Names())
		}
	}
}

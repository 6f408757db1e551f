package sched

import "github.com/opasim/opasim/registry"

// Default returns a registry with every built-in scheduler. Adding a
// scheduler is one file and one line here; a scheduler that reads an
// arbitration table says so in its registration (NeedsTable), one whose
// output ports share a table per switch too (PerSwitch).
func Default() *Registry {
	r := NewRegistry()
	must(r.Register("rr", Registration{New: NewRR}))
	must(r.Register("rr_vl", Registration{New: NewRRVL}))
	must(r.Register("rr_burst", Registration{New: NewRRBurst}))
	must(r.Register("sbt", Registration{New: NewSBT}))
	must(r.Register("sbt_switch", Registration{New: NewSBTSwitch, PerSwitch: NewSBTSwitchPorts}))
	must(r.Register("sbt_strict", Registration{New: NewSBTStrict}))
	must(r.Register("dtable", Registration{New: NewDTable, NeedsTable: true}))
	must(r.Register("dtable_sc", Registration{New: NewDTableSC, NeedsTable: true}))
	must(r.Register("strict", Registration{New: NewStrict}))
	must(r.Register("wrr", Registration{New: NewWRR}))
	must(r.Register("drr", Registration{New: NewDRR}))
	must(r.Register("vlarb", Registration{New: NewVLArb}))
	return r
}

func must(err error) { registry.Must(err) }

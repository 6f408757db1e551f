package sched

import "github.com/opasim/opasim/registry"

// Default returns a registry with every built-in scheduler. Adding a
// scheduler is one file and one line here: the registration carries all
// there is to know of the name — its constructor, whether it reads an
// arbitration table (NeedsTable) or builds a switch's ports together
// (PerSwitch), its state's size (StateBits, written beside it in its file
// or in state.go), and how plots show it (Label, Mark).
func Default() *Registry {
	r := NewRegistry()
	must(r.Register("rr", Registration{New: NewRR, StateBits: rrBits, Label: "RR", Mark: Mark{Shape: ShapeCross}}))
	must(r.Register("rr_vl", Registration{New: NewRRVL, StateBits: rrVLBits, Label: "RR per VL", Mark: Mark{Shape: ShapePlus}}))
	must(r.Register("rr_burst", Registration{New: NewRRBurst, StateBits: sbtBits, Label: "RR as SBT", Mark: Mark{Shape: ShapeTriangle, Filled: true}}))
	must(r.Register("sbt", Registration{New: NewSBT, StateBits: sbtBits, Label: "SBT", Mark: Mark{Shape: ShapeSquare}}))
	must(r.Register("sbt_switch", Registration{New: NewSBTSwitch, PerSwitch: NewSBTSwitchPorts, StateBits: sbtSwitchBits, Label: "SBT per switch",
		Mark: Mark{Shape: ShapeDiamond, Over: ShapePlus}})) // a plus, as sbt per switch: the same decisions
	must(r.Register("sbt_strict", Registration{New: NewSBTStrict, StateBits: sbtStrictBits, Label: "SBT strict", Mark: Mark{Shape: ShapeTriangle}}))
	must(r.Register("dtable", Registration{New: NewDTable, NeedsTable: true, StateBits: dtableBits, Label: "DTable (DT)", Mark: Mark{Shape: ShapeCircle, Filled: true}}))
	must(r.Register("dtable_sc", Registration{New: NewDTableSC, NeedsTable: true, StateBits: dtableSCBits, Label: "DTable per SC",
		Mark: Mark{Shape: ShapeCircle, Over: ShapePlus}}))
	must(r.Register("strict", Registration{New: NewStrict, StateBits: strictBits, Mark: Mark{Shape: ShapeSquare, Filled: true}}))
	must(r.Register("wrr", Registration{New: NewWRR, StateBits: wrrBits, Mark: Mark{Shape: ShapeCircle}}))
	must(r.Register("drr", Registration{New: NewDRR, StateBits: drrBits, Mark: Mark{Shape: ShapeSquare, Over: ShapeCross}}))
	must(r.Register("vlarb", Registration{New: NewVLArb, StateBits: vlarbBits, Mark: Mark{Shape: ShapeSquare, Filled: true, Over: ShapePlus}}))
	return r
}

func must(err error) { registry.Must(err) }

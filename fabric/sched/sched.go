// Package sched holds the output schedulers (seed 000 section 3) that pick
// which VL sends next on a link. Every switch output port and every NIC owns
// one scheduler instance, built by name from a Registry.
//
// A scheduler sees the head packets of its port, one Head per VL. In the
// eligible view (the default) they are only the heads that can leave now
// (ready and fitting in the downstream buffer); in the table view they are
// the heads of every VL that holds a packet, each flagged Eligible or not,
// and the scheduler decides blind to the flag, as the hardware's table
// walk would. Pick chooses among them without changing any state; Commit
// applies the decision (Decide does both and tells whether it can send).
// The table_feedback view shows the same heads, but tells the scheduler
// after the fact that its pick could not send: Miss instead of Commit
// (DecideFeedback).
//
// Imports: fabric/qos, problem and registry only (no goroutines, no wall clock, no RNG).
package sched

import (
	"fmt"

	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/registry"
)

// Head describes the head packet of one VL at a decision.
type Head struct {
	VL      int // virtual lane of the packet (index into the port's VLs)
	SC      int // service channel carried in the packet header
	SL      int // service level, SC2SL[SC]
	Credits int // packet size in flow-control credits
	// Eligible: the packet can leave now (its header is ready and it fits
	// downstream). The port sets it; schedulers must not read it (the
	// conformance test checks that flipping it changes no pick). In the
	// eligible view every head passed is eligible.
	Eligible bool
}

// Scheduler is the per-port output scheduler.
//
// heads is never empty, lists each VL at most once, and is sorted by VL.
// Pick returns an index into heads. It must not change the scheduler's
// state: calling Pick twice with the same heads gives the same answer.
// Commit(heads, i) applies the decision that picked heads[i] (i is normally
// what Pick returned for the same heads): in the eligible view once the
// packet has been granted the link; in the table view for every decision,
// also one whose head cannot send (a wasted decision: the algorithm's state
// moves as it would in hardware, which does not know the send failed).
//
// Miss(heads, i) replaces Commit in the table_feedback view when heads[i]
// was picked and could not send: the scheduler learns that its pick failed
// and takes the path its algorithm has for an SL (or VL) that has nothing
// to send, without charging it for a transmission (each scheduler documents
// what that is). Like Commit it must not read Head.Eligible (the port calls
// it only on a head that is not eligible, so reading the flag adds nothing),
// must not allocate, and must leave Pick pure (conformance property (f)).
type Scheduler interface {
	Pick(heads []Head) int
	Commit(heads []Head, i int)
	Miss(heads []Head, i int)
}

// Decide makes one decision of the eligible and table views: Pick, then
// Commit of the same head, whether it can send or not. It returns the head
// picked and whether it is eligible (a hit; a miss is a wasted decision).
// The caller guarantees that some head is eligible: with none, the link
// cannot be used and no decision is made.
func Decide(s Scheduler, heads []Head) (i int, hit bool) {
	i = s.Pick(heads)
	s.Commit(heads, i)
	return i, heads[i].Eligible
}

// DecideFeedback makes one decision of the table_feedback view: Pick, then
// Commit if the head picked is eligible (it is sent, a hit) or Miss if it
// is not (a wasted decision the scheduler is told about). The port, not the
// scheduler, reads Eligible. When every head is eligible (the eligible
// view) it is Decide.
func DecideFeedback(s Scheduler, heads []Head) (i int, hit bool) {
	i = s.Pick(heads)
	if hit = heads[i].Eligible; hit {
		s.Commit(heads, i)
	} else {
		s.Miss(heads, i)
	}
	return i, hit
}

// SL describes one service level as the schedulers need it (its SCs are
// Config.SL2SC).
type SL struct {
	Name       string
	MTUCredits int // per-SL MTU in credits (DTable charges this per transmission)
	SBTWeight  int // SBT weight (packets); the SBT column of seed 000 Table 10
}

// Entry is one DTable arbitration table entry.
type Entry struct {
	SL     int
	Weight int // credits
}

// Config is everything a scheduler may need; each scheduler reads what it
// uses. The SL/SC/VL tables (SC2VL, SC2SL, SL2SC) are the run's qos.Tables.
type Config struct {
	NumVLs int
	SLs    []SL
	qos.Tables
	Table []Entry     // DTable arbitration table (seed 000 Table 6 / Table 10 form); see Registration.NeedsTable
	VLArb VLArbConfig // the vlarb scheduler's tables and high-priority limit
	// Counters: the width of the weight and deficit counters and their
	// overflow (the zero value: unlimited). TableEntries: the most entries
	// an arbitration table may have (0: no limit); a scheduler whose table
	// is longer refuses the Config. docs/schedulers.md, "Hardware constraints".
	Counters     Counters
	TableEntries int
}

// checkTable refuses a table of n entries (field names it) longer than
// cfg.TableEntries.
func checkTable(name, field string, n int, cfg Config) error {
	if cfg.TableEntries > 0 && n > cfg.TableEntries {
		return fmt.Errorf("%s: %s has %d entries, more than the %d the hardware holds (qos.table_entries)", name, field, n, cfg.TableEntries)
	}
	return nil
}

// VLArbConfig configures vlarb (InfiniBand-style VL arbitration): two
// arbitration tables of (SL, weight in credits) entries and the limit of
// the high-priority table in credits. With both tables empty vlarb uses
// VLArbDefaultTables.
type VLArbConfig struct {
	High, Low []Entry
	HighLimit int // credits; VLArbUnlimited: no limit; 0: one high-priority packet at a time
}

// VLArbUnlimited is the VLArbConfig.HighLimit that never lets the low-priority
// table interrupt the high-priority one (InfiniBand's Limit of High-Priority 255).
const VLArbUnlimited = -1

// Factory builds a scheduler for one port.
type Factory func(cfg Config) (Scheduler, error)

// Registration is one scheduler of a Registry: its factory and what the
// caller must put in its Config beyond the SL/SC/VL tables.
type Registration struct {
	New Factory
	// NeedsTable: the scheduler reads Config.Table, the arbitration table,
	// which the caller fills in before New (fabric derives it from
	// qos.dtable, or takes the table qos.dtable_file names).
	NeedsTable bool
	// PerSwitch, when set, builds the schedulers of one switch's output
	// ports together, from one state per switch (sbt_switch: seed 000
	// Table 3); the caller builds each switch's output ports with it
	// (Registry.NewSwitch) and everything else (a NIC) with New.
	PerSwitch SwitchFactory
	// StateBits is the scheduler's storage, in bits, per output port and
	// shared by a switch's ports, in a switch of d (Registry.StateSize);
	// TestStateSizes wants one for every registered scheduler.
	StateBits func(d Dims) (port, shared int)
	// Label names the scheduler in plots ("": its name).
	Label string
	// Mark is its marker in the sweep's plots; no two registered
	// schedulers may share one (TestSchedulerGlyphs).
	Mark Mark
}

// Mark is a plot marker: a shape, filled or not, with another shape drawn
// over it (Over; ShapeNone for none).
type Mark struct {
	Shape  Shape
	Filled bool
	Over   Shape
}

// Shape is a marker's shape.
type Shape uint8

// The marker shapes.
const (
	ShapeNone Shape = iota
	ShapeCircle
	ShapeSquare
	ShapeTriangle
	ShapeDiamond
	ShapeCross
	ShapePlus
)

// SwitchFactory builds the schedulers of a switch's ports output ports,
// element j for port j. They may share what none of them writes (the
// configuration); each port's mutable state must be its own, so that a
// port decides the same whatever the other ports do and in whatever order
// an engine steps them (each output port is a component of its own).
type SwitchFactory func(cfg Config, ports int) ([]Scheduler, error)

// Registry maps scheduler names to registrations (Register, Names, Has,
// Get). Build it explicitly with NewRegistry or Default; registering a
// taken name is an error.
type Registry struct {
	*registry.Registry[Registration]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{registry.New[Registration]("scheduler")} }

// NeedsTable reports whether the scheduler called name reads
// Config.Table (false for an unknown name).
func (r *Registry) NeedsTable(name string) bool {
	reg, err := r.Get(name)
	return err == nil && reg.NeedsTable
}

// PerSwitch reports whether the scheduler called name builds a switch's
// output ports together (Registration.PerSwitch; false for an unknown name).
func (r *Registry) PerSwitch(name string) bool {
	reg, err := r.Get(name)
	return err == nil && reg.PerSwitch != nil
}

// NewSwitch builds the schedulers of the ports output ports of one switch:
// with Registration.PerSwitch from one state for the switch, otherwise ports
// independent instances of New.
func (r *Registry) NewSwitch(name string, cfg Config, ports int) ([]Scheduler, error) {
	reg, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if reg.PerSwitch != nil {
		return reg.PerSwitch(cfg, ports)
	}
	s := make([]Scheduler, ports)
	for j := range s {
		if s[j], err = reg.New(cfg); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Label is how plots name the scheduler called name (its registration's
// Label, else the name).
func (r *Registry) Label(name string) string {
	if reg, err := r.Get(name); err == nil && reg.Label != "" {
		return reg.Label
	}
	return name
}

// New builds the scheduler called name.
func (r *Registry) New(name string, cfg Config) (Scheduler, error) {
	reg, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	return reg.New(cfg)
}

package sched

import (
	"fmt"
	"math/bits"
	"slices"
)

// Dims are the sizes a scheduler's storage grows with (docs/schedulers.md,
// "State size").
type Dims struct {
	SLs         int // N
	VLs         int // V
	SCs         int // S: SCs (each carries one SL)
	SCsPerSL    int // C: the most SCs one SL has
	Ports       int // p: output ports of the switch
	Entries     int // E: entries of the DTable arbitration table
	HighEntries int // E_H: entries of vlarb's high-priority table
	LowEntries  int // E_L: entries of vlarb's low-priority table
	CounterBits int // B: bits of every weight, deficit, credit count and MTU (sign included)
}

// DimsOf is the Dims of cfg on a switch of ports output ports with
// counters of counterBits bits. vlarb's tables are VLArbDefaultTables when
// cfg gives neither.
func DimsOf(cfg Config, ports, counterBits int) Dims {
	d := Dims{SLs: len(cfg.SLs), VLs: cfg.NumVLs, SCs: len(cfg.SC2SL), Ports: ports,
		Entries: len(cfg.Table), CounterBits: counterBits}
	perSL := make([]int, len(cfg.SLs))
	for _, sl := range cfg.SC2SL {
		if sl >= 0 && sl < len(perSL) {
			perSL[sl]++
		}
	}
	for sl, scs := range cfg.SL2SC {
		if sl < len(perSL) {
			perSL[sl] = max(perSL[sl], len(scs))
		}
	}
	if len(perSL) > 0 {
		d.SCsPerSL = slices.Max(perSL)
	}
	high, low := cfg.VLArb.High, cfg.VLArb.Low
	if len(high) == 0 && len(low) == 0 {
		high, low = VLArbDefaultTables(cfg.SLs)
	}
	d.HighEntries, d.LowEntries = len(high), len(low)
	return d
}

// StateBits is the storage of a scheduler in bits: the configuration it
// reads (weights, tables, quanta, MTUs; not the SC/SL/VL tables, which
// the port keeps for its queues whatever the scheduler) and the state it
// writes, as the code keeps them. Rows indexed by SL or entry carry no
// index column.
type StateBits struct {
	Port   int // each output port's own (a NIC's, too)
	Shared int // one per switch, shared by its output ports: sbt_switch's Weight column
	Switch int // Ports · Port + Shared
}

// lg is the bits of an index into x things, ⌈log2 x⌉ (0 for one thing).
func lg(x int) int {
	if x <= 1 {
		return 0
	}
	return bits.Len(uint(x - 1))
}

// lgNone is the bits of an index into x things or "none" (a pointer that
// starts at -1, before the first packet): ⌈log2 (x + 1)⌉.
func lgNone(x int) int { return lg(x + 1) }

// rrBits: lastSL (or none), nextVL per SL
func rrBits(d Dims) (int, int) {
	return lgNone(d.SLs) + d.SLs*lg(d.VLs), 0
}

// rrVLBits: last (or none)
func rrVLBits(d Dims) (int, int) {
	return lgNone(d.VLs), 0
}

// sbtSwitchBits: per port its column and last_vl_selec; per switch the Weight column
func sbtSwitchBits(d Dims) (int, int) {
	return d.SLs*d.CounterBits + lg(d.VLs), d.SLs * d.CounterBits
}

// sbtStrictBits: initial, weights, cur, lastVL per SL (or none)
func sbtStrictBits(d Dims) (int, int) {
	return 2*d.SLs*d.CounterBits + lg(d.SLs) + d.SLs*lgNone(d.VLs), 0
}

// dtableBits: table (SL, weight), mtu, deficit, acc, lastSL (or none), cur (or
// none), scNext per SL
func dtableBits(d Dims) (int, int) {
	return d.Entries*(lg(d.SLs)+d.CounterBits) + 2*d.SLs*d.CounterBits + d.CounterBits +
		lgNone(d.SLs) + lgNone(d.Entries) + d.SLs*lg(d.SCsPerSL), 0
}

// dtableSCBits: table (SL, weight), acc per SC, lastSL (or none), cur (or none),
// scNext and remNext per SL
func dtableSCBits(d Dims) (int, int) {
	return d.Entries*(lg(d.SLs)+d.CounterBits) + d.SCs*d.CounterBits +
		lgNone(d.SLs) + lgNone(d.Entries) + 2*d.SLs*lg(d.SCsPerSL), 0
}

// strictBits: lastVL per SL (or none)
func strictBits(d Dims) (int, int) {
	return d.SLs * lgNone(d.VLs), 0
}

// wrrBits: weights, cur (or none), sent, lastVL per SL (or none)
func wrrBits(d Dims) (int, int) {
	return d.SLs*d.CounterBits + lgNone(d.SLs) + d.CounterBits + d.SLs*lgNone(d.VLs), 0
}

// drrBits: quantum, deficit, cur (or none), open, lastVL per SL (or none)
func drrBits(d Dims) (int, int) {
	return 2*d.SLs*d.CounterBits + lgNone(d.SLs) + 1 + d.SLs*lgNone(d.VLs), 0
}

// vlarbBits: both tables (SL, weight), each table's cur (or none) and rem, limit,
// highRun, lastFree (or none), lastVL per SL (or none)
func vlarbBits(d Dims) (int, int) {
	return (d.HighEntries+d.LowEntries)*(lg(d.SLs)+d.CounterBits) +
		lgNone(d.HighEntries) + lgNone(d.LowEntries) + 2*d.CounterBits +
		2*d.CounterBits + lgNone(d.SLs) + d.SLs*lgNone(d.VLs), 0
}

// sbtBits: initial and weights per SL, last_vl_selec (starts at 0).
func sbtBits(d Dims) (int, int) { return 2*d.SLs*d.CounterBits + lg(d.VLs), 0 }

// StateSize is the storage of the scheduler called name in a switch of
// d.Ports output ports (its registration's StateBits).
func (r *Registry) StateSize(name string, d Dims) (StateBits, error) {
	reg, err := r.Get(name)
	if err != nil || reg.StateBits == nil {
		return StateBits{}, fmt.Errorf("scheduler %q: no state size known", name)
	}
	port, shared := reg.StateBits(d)
	return StateBits{Port: port, Shared: shared, Switch: d.Ports*port + shared}, nil
}

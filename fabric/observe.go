package fabric

import "github.com/opasim/opasim/clock"

// Stage names a buffer stage of a switch.
type Stage int

// The buffer stages, in the order a packet meets them.
const (
	StageInput Stage = iota
	StageCentral
	StageOutput
	Stages
)

func (s Stage) String() string { return [...]string{"input", "central", "output"}[s] }

// Snapshot is what a group holds now (live metrics read it between
// windows, through sim.Observer). For a switch group: buffer occupancy
// in flits per stage (and per stage and VL), credit-stall cycles and the
// packets each output scheduler sent per SL, all cumulative where they are
// counts, for the switch and for each of its ports. For a NIC group: its
// Stats (cumulative counters per SL). For both: their output schedulers'
// decisions and wasted decisions.
type Snapshot struct {
	Group        int
	Kind         string // "switch" or "nics"
	Switch       int
	Occupancy    [Stages]int64   // flits buffered now
	OccupancyVL  [Stages][]int64 // flits buffered now, per VL
	Capacity     [Stages]int64   // flits of buffer space
	StallCycles  int64
	GrantsBySL   []int64 // packets granted the link, per SL
	GrantedFlits []int64 // their flits, per SL
	Stats        *Stats  // NIC groups only; read it during GroupDone only
	ReachedCycle clock.Cycle
	// Output scheduler decisions and wasted ones (table view), and the link
	// cycles the schedulers idled (decision.go), summed over the switch's
	// output ports or over the group's NICs.
	Decisions, WastedDecisions, SchedulerIdleCycles int64
	// Packets interrupted on the group's links (qos.preemption), and link
	// cycles held waiting for a late flit (Totals.HoleCycles).
	Preemptions, HoleCycles int64
	// Ports holds a switch's ports, by port number (empty for NIC groups).
	Ports []PortSnapshot
	// ClassFlits[c][vl] counts the flits the group's links (a switch's
	// output ports, or the NICs' links) carried over the whole run, per
	// link class (Network.LinkClasses) and VL.
	ClassFlits [][]int64
}

// PortSnapshot is what port q of a switch holds now: the flits in its input
// buffer and in its output buffer, and its output port's cumulative counts.
type PortSnapshot struct {
	InputFlits, OutputFlits    int64
	StallCycles                int64
	Decisions, WastedDecisions int64
	Preemptions                int64
	SchedulerIdleCycles        int64 // link cycles its output scheduler idled (decision.go)
	LinkFlits                  int64 // flits its output link carried over the whole run
	GrantsBySL                 []int64
}

// Snapshot fills s with group g's current state (see Observer).
func (n *Network) Snapshot(g int, s *Snapshot) {
	grp := &n.Groups[g]
	s.Group, s.Kind, s.Stats, s.Switch = g, grp.Kind, grp.Stats, grp.Switch
	s.clearClassFlits(len(n.linkClasses), n.p.vls)
	s.Decisions, s.WastedDecisions, s.SchedulerIdleCycles = 0, 0, 0
	s.Preemptions, s.HoleCycles = 0, 0
	if grp.Kind != "switch" {
		n.snapshotNICs(grp, s)
		return
	}
	n.snapshotSwitch(grp, s)
}

// snapshotNICs fills s with the counts of NIC group grp's NICs.
func (n *Network) snapshotNICs(grp *Group, s *Snapshot) {
	s.Ports = s.Ports[:0]
	for _, id := range grp.Members {
		if nic, ok := n.Comps[id].(*nicComp); ok {
			s.Decisions, s.WastedDecisions = s.Decisions+nic.Decisions, s.WastedDecisions+nic.WastedDecisions
			s.Preemptions, s.HoleCycles = s.Preemptions+nic.lk.Preemptions, s.HoleCycles+nic.lk.HoleCycles
			s.SchedulerIdleCycles += nic.dec.IdleCycles
			addClassFlits(s.ClassFlits, n.nicClass, &nic.load)
		}
	}
}

// snapshotSwitch fills s with switch group grp's buffers, stalls, grants
// and ports.
func (n *Network) snapshotSwitch(grp *Group, s *Snapshot) {
	p := n.p
	for st := range s.OccupancyVL {
		if len(s.OccupancyVL[st]) != p.vls {
			s.OccupancyVL[st] = make([]int64, p.vls)
		}
		clear(s.OccupancyVL[st])
		s.Occupancy[st], s.Capacity[st] = 0, 0
	}
	if len(s.GrantsBySL) != len(p.slSCs) {
		s.GrantsBySL = make([]int64, len(p.slSCs))
	}
	clear(s.GrantsBySL)
	if len(s.GrantedFlits) != len(p.slSCs) {
		s.GrantedFlits = make([]int64, len(p.slSCs))
	}
	clear(s.GrantedFlits)
	s.StallCycles = 0
	sp := &n.switches[grp.Switch]
	for _, m := range sp.MPorts {
		for i := range m.occ {
			s.add(StageInput, &m.occ[i], p)
		}
	}
	for b := range sp.Central.buf {
		s.add(StageCentral, &sp.Central.buf[b].space, p)
	}
	if len(s.Ports) != len(sp.Outputs) {
		s.Ports = make([]PortSnapshot, len(sp.Outputs))
	}
	for q, o := range sp.Outputs {
		s.add(StageOutput, &o.space, p)
		s.StallCycles += o.StallCycles
		s.Decisions, s.WastedDecisions = s.Decisions+o.Decisions, s.WastedDecisions+o.WastedDecisions
		s.Preemptions, s.HoleCycles = s.Preemptions+o.lk.Preemptions, s.HoleCycles+o.lk.HoleCycles
		s.SchedulerIdleCycles += o.dec.IdleCycles
		for sl, c := range o.SentBySL {
			s.GrantsBySL[sl] += c
			s.GrantedFlits[sl] += o.SentFlitsBySL[sl]
		}
		ps := &s.Ports[q]
		ps.InputFlits, ps.OutputFlits = n.PortOccupancy(grp.Switch, q)
		ps.StallCycles, ps.Decisions, ps.WastedDecisions = o.StallCycles, o.Decisions, o.WastedDecisions
		ps.Preemptions = o.lk.Preemptions
		ps.SchedulerIdleCycles = o.dec.IdleCycles
		addClassFlits(s.ClassFlits, n.portClass[grp.Switch][q], &o.load)
		ps.LinkFlits = 0
		for _, f := range o.load.total {
			ps.LinkFlits += f
		}
		ps.GrantsBySL = append(ps.GrantsBySL[:0], o.SentBySL...)
	}
}

// clearClassFlits makes ClassFlits classes rows of vls zeros.
func (s *Snapshot) clearClassFlits(classes, vls int) {
	if len(s.ClassFlits) != classes {
		s.ClassFlits = make([][]int64, classes)
	}
	for c := range s.ClassFlits {
		if len(s.ClassFlits[c]) != vls {
			s.ClassFlits[c] = make([]int64, vls)
		}
		clear(s.ClassFlits[c])
	}
}

func (s *Snapshot) add(st Stage, sp *Space, p *params) {
	f := int64(p.fpc)
	vls := len(s.OccupancyVL[st])
	for lane := range sp.used { // a central buffer has lanes class·VLs + VL
		s.OccupancyVL[st][lane%vls] += int64(sp.Used(lane)) * f
	}
	s.Occupancy[st] += int64(sp.Total()) * f
	s.Capacity[st] += int64(sp.capacity) * f
}

// PortOccupancy returns the flits buffered now in the input buffer and in
// the output buffer of port q of switch sw (live per-port metrics). Like
// Snapshot, call it only during GroupDone of that switch's group.
func (n *Network) PortOccupancy(sw, q int) (input, output int64) {
	sp := &n.switches[sw]
	f := int64(n.p.fpc)
	return int64(sp.MPorts[portNum(q).mport()].occ[portNum(q).index()].Total()) * f, int64(sp.Outputs[q].space.Total()) * f
}

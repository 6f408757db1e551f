package fabric

import (
	"fmt"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/workloads"
)

// switchParts are the components of one switch.
type switchParts struct {
	MPorts  []*mport
	Central *centralXbar
	Outputs []*outputPort
}

// Network is a built network: every component, indexed by CompID, plus the
// grouping engines use (one group per switch, one per switch's NICs).
type Network struct {
	Config   Config
	Topology *topo.Topology
	Comps    []Component
	cores    []*core // Comps' event loops, by CompID (Deliver)
	nics     []*nicComp
	switches []switchParts
	Groups   []Group
	Window   clock.Cycle
	// Workload is the run's traffic beyond the synthetic (Inputs.Workload),
	// nil when none: engines ask it between windows whether the run is over.
	Workload workloads.Workload
	p        *params

	queueBase []int // per switch: the index of its first queue (watchdog)

	linkClasses []string // LinkClasses
	nicClass    int      // the class of the NICs' links
	portClass   [][]int  // per switch and port: its link's class (-1: unused)
}

// Group is a set of components an engine runs together; Stats is shared by
// the NICs of the group (nil for switch groups).
type Group struct {
	Name    string
	Kind    string // "switch" or "nics"
	Switch  int    // the switch it is, or whose NICs it holds
	Members []messages.CompID
	Stats   *Stats
}

// NumSwitches is the number of switches of the network.
func (n *Network) NumSwitches() int { return len(n.switches) }

// NumNICs is the number of NICs of the network.
func (n *Network) NumNICs() int { return len(n.nics) }

// Inputs are what a config names in files, read by the run layer (package
// sim) before Build: fabric reads no file.
type Inputs struct {
	DTable   *dtable.Table      // the table qos.dtable_file names
	Workload workloads.Workload // traffic beyond the synthetic: the trace trace.file names (package workloads/replay)
}

// Build validates cfg and wires up its network. A config that names a file
// needs BuildWith.
func Build(cfg Config, reg *sched.Registry) (*Network, error) { return BuildWith(cfg, reg, Inputs{}) }

// BuildWith is Build with the contents of the files cfg names.
func BuildWith(cfg Config, reg *sched.Registry, in Inputs) (*Network, error) {
	p, traffic, err := prepare(cfg, reg, in)
	if err != nil {
		return nil, err
	}
	n := &Network{Config: cfg, Topology: p.topo, p: p, Workload: in.Workload}
	n.Window = clock.Cycle(cfg.Window)
	if n.Window == 0 {
		n.Window = clock.Cycle(cfg.MaxWindow())
	}
	n.build(traffic)
	n.classifyLinks()
	return n, nil
}

// prepare validates cfg and derives what every component shares: the
// parameters (topology, routing, allocator, scheduler) and the traffic.
// Components can be built from them alone (the component tests).
func prepare(cfg Config, reg *sched.Registry, in Inputs) (*params, *workloads.Traffic, error) {
	if err := cfg.Validate(reg); err != nil {
		return nil, nil, err
	}
	spec := cfg.TopologySpec()
	t, err := spec.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("topology: %w", err)
	}
	tables := cfg.SCTables()
	r, err := topo.DefaultRegistry().NewWith(spec.Routing, t, tables, spec.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("topology.routing: %w", err)
	}
	p := newParams(&cfg, reg, tables, t, r)
	classOf, classes, err := topo.CentralClasses(t, cfg.Switch.CentralClasses)
	if err != nil {
		return nil, nil, fmt.Errorf("switch.central_classes: %w", err)
	}
	p.classOf, p.lanes = classOf, classes*p.vls
	alloc, err := lookupAllocator(cfg.Switch.Allocator)
	if err != nil {
		return nil, nil, fmt.Errorf("switch.allocator: %w", err)
	}
	p.pipelined, p.lookahead, p.depth = alloc.pipelined, p.requestLatency+p.grantLatency, cfg.Switch.AllocatorDepth
	if alloc.islip {
		p.islip, p.islipIters = true, int32(cfg.Switch.IslipIterations)
		p.phase = clock.Cycle(islipPhase(cfg.Switch.Latency.AT, cfg.Switch.IslipIterations))
	}
	if err := checkCentralLanes(&cfg, classes); err != nil {
		return nil, nil, err
	}
	if reg.NeedsTable(cfg.QoS.Scheduler) {
		if p.schedCfg.Table, err = dtableFor(&cfg, in.DTable); err != nil {
			return nil, nil, err
		}
	}
	if _, err := reg.New(cfg.QoS.Scheduler, p.schedCfg); err != nil {
		return nil, nil, fmt.Errorf("qos.scheduler: %w", err)
	}
	traffic, err := newTraffic(p.cfg, t.NumNICs())
	if err != nil {
		return nil, nil, err
	}
	return p, traffic, nil
}

// checkCentralLanes checks that a central buffer can reserve the exclusive
// space of every lane (classes · VLs of them) and still take the largest
// packet: the reservation is what keeps the lanes, and so the rings of a
// torus, from blocking each other (docs/model.md, "Deadlock freedom").
func checkCentralLanes(cfg *Config, classes int) error {
	s := &cfg.Switch
	maxPkt := cfg.credits(cfg.MaxPacketFlits())
	excl := cfg.credits(s.ExclusiveVLFlits)
	lanes := classes * s.VLs
	need := max(excl*lanes+maxPkt-min(excl, maxPkt), maxPkt)
	if s.CentralBufferFlits/s.FlitsPerCredit >= need {
		return nil
	}
	var p Problems
	p.NotAllowed("switch.central_buffer_flits", s.CentralBufferFlits, fmt.Sprintf(
		"with switch.central_classes %s this topology gives each central buffer %d lanes (%d link classes x %d VLs); "+
			"reserving switch.exclusive_vl_flits=%d for each and taking the largest packet needs at least %d flits "+
			"(the default buffers, seed 000's, have 8192; switch.central_classes: vl fits but can deadlock this topology)",
		s.CentralClasses, lanes, classes, s.VLs, s.ExclusiveVLFlits, need*s.FlitsPerCredit))
	return p
}

// SCTables are the SL/SC/VL tables of the config (qos.sls[].scs and
// qos.sc2vl), derived once for the routing, the schedulers and the
// components.
func (cfg *Config) SCTables() qos.Tables {
	sl2sc := make([][]int, len(cfg.QoS.SLs))
	for i, sl := range cfg.QoS.SLs {
		sl2sc[i] = sl.SCs
	}
	return qos.NewTables(sl2sc, cfg.QoS.SC2VL)
}

// dtableFor returns the DTable arbitration table of the run: the file
// given, or the configuration methodology applied to the SLs' distances,
// MTUs and shares (seed 000 Tables 9 and 10 for the paper mix).
func dtableFor(cfg *Config, file *dtable.Table) ([]sched.Entry, error) {
	q := &cfg.QoS
	if q.DTableFile != "" {
		if file == nil {
			return nil, fmt.Errorf("qos.dtable_file %s: not read (the run layer reads it: sim.Build)", q.DTableFile)
		}
		for i, sl := range file.SLs {
			if i >= len(q.SLs) || q.SLs[i].Name != sl.Name {
				return nil, fmt.Errorf("qos.dtable_file %s: SL %d is %q, but qos.sls[%d] is not", q.DTableFile, i, sl.Name, i)
			}
		}
		return file.Sched(), nil
	}
	res, err := dtable.Configure(cfg.DTableRequest())
	if err != nil {
		return nil, fmt.Errorf("qos.dtable (the DTable configuration of the SLs' distances, MTUs and shares): %w", err)
	}
	return res.Table, nil
}

// DTableRequest is what the DTable configuration methodology takes from
// cfg: qos.dtable's parameters and each SL's distance, MTU (in credits)
// and share of the offered load.
func (cfg *Config) DTableRequest() dtable.Request {
	q := &cfg.QoS
	req := dtable.Request{Entries: q.DTable.Entries, GMTU: q.DTable.GMTU, W: q.DTable.W, K: q.DTable.K}
	for i, sl := range q.SLs {
		req.SLs = append(req.SLs, dtable.SLRequest{Name: sl.Name, Distance: sl.Distance,
			MTU: cfg.credits(cfg.MTUFlits(i)), Share: sl.Share})
	}
	return req
}

// add appends c, which must carry the ID the layout gave it.
func (n *Network) add(c Component) {
	if c.ID() != messages.CompID(len(n.Comps)) {
		panic(fmt.Sprintf("network: component %d added as number %d", c.ID(), len(n.Comps)))
	}
	n.Comps = append(n.Comps, c)
	n.cores = append(n.cores, c.(interface{ base() *core }).base())
}

// Deliver hands message m to the component it is for, as
// Comps[m.Dst].Deliver would, without the interface call or a copy into a
// slice first. An engine may call it only while that component is not
// advancing.
func (n *Network) Deliver(m *messages.Msg) { n.cores[m.Dst].in.Push(m) }

// ShareMessageStore makes the inboxes of all components store their
// messages in one place (each group's share one from Build), so that a
// message is stored in the slot another has just left, still in the
// cache. Only for an engine that runs every component on one goroutine.
// Once messages have been delivered the stores stay as they are.
func (n *Network) ShareMessageStore() {
	for _, c := range n.cores {
		if c.in.st != nil && len(c.in.st.msgs) > 0 {
			return
		}
	}
	st := new(msgStore)
	for _, c := range n.cores {
		c.in.st = st
	}
}

func (n *Network) build(traffic *workloads.Traffic) {
	p, t := n.p, n.Topology
	l := newLayout(t)
	sls := len(p.cfg.QoS.SLs)
	nicStats := make([]*Stats, t.NumSwitches()) // only switches with NICs have any
	for i := 0; i < t.NumNICs(); i++ {
		if sw := t.NICPort[i].Switch; nicStats[sw] == nil {
			nicStats[sw] = NewStats(sls)
		}
		syn := traffic.Source(i)
		var src workloads.Source = syn
		if n.Workload != nil {
			if w := n.Workload.Source(i); w != nil {
				src = workloads.Merge(syn, w)
			}
		}
		nic := newNIC(p, l.nic(i), i, nicStats[t.NICPort[i].Switch], src, l.nicLinks(p, i))
		n.nics = append(n.nics, nic)
		n.add(nic)
	}
	for s := 0; s < t.NumSwitches(); s++ {
		n.switches = append(n.switches, n.buildSwitch(s, l))
	}
	n.group(nicStats)
}

// buildSwitch builds switch s's components, each with its links.
func (n *Network) buildSwitch(s int, l *layout) switchParts {
	p := n.p
	mports := mportsOf(n.Topology.Radix[s])
	outputs := l.outputs(s)
	var sp switchParts
	for m := 0; m < mports; m++ {
		mp := newMPort(p, l.mport(s, m), s, m, l.mportLinks(s, m))
		sp.MPorts = append(sp.MPorts, mp)
		n.add(mp)
	}
	sp.Central = newCentralCrossbar(p, l.central(s), s, mports, outputs)
	n.add(sp.Central)
	for q := range outputs {
		o := newOutputPort(p, outputs[q], s, q, mports, l.downstream(p, s, q))
		sp.Outputs = append(sp.Outputs, o)
		n.add(o)
	}
	p.shareSchedulers(sp.Outputs)
	return sp
}

func (n *Network) group(nicStats []*Stats) {
	for s, sp := range n.switches {
		g := Group{Name: fmt.Sprintf("switch%d", s), Kind: "switch", Switch: s}
		for _, m := range sp.MPorts {
			g.Members = append(g.Members, m.ID())
		}
		g.Members = append(g.Members, sp.Central.ID())
		for _, o := range sp.Outputs {
			g.Members = append(g.Members, o.ID())
		}
		n.Groups = append(n.Groups, g)
		n.shareStore(g.Members)
		ng := Group{Name: fmt.Sprintf("nics%d", s), Kind: "nics", Switch: s, Stats: nicStats[s]}
		for i, ref := range n.Topology.NICPort {
			if ref.Switch == s {
				ng.Members = append(ng.Members, n.nics[i].ID())
			}
		}
		if len(ng.Members) > 0 {
			n.Groups = append(n.Groups, ng)
			n.shareStore(ng.Members)
		}
	}
}

// shareStore gives the components of a group one message store: an engine
// runs a group's components one at a time.
func (n *Network) shareStore(members []messages.CompID) {
	st := new(msgStore)
	for _, id := range members {
		n.cores[id].in.st = st
	}
}

package mpirec

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/workloads/vef"
)

// Clock is the clock computation is measured on.
type Clock int

// The clocks.
const (
	CPU  Clock = iota // CPU time of the rank's thread outside MPI calls
	Wall              // wall time outside MPI calls
	None              // no computation: every delay 0
)

// ClockNames are the clocks' names, as ParseClock reads them.
var ClockNames = []string{"cpu", "wall", "none"}

func (c Clock) String() string {
	if c >= 0 && int(c) < len(ClockNames) {
		return ClockNames[c]
	}
	return fmt.Sprintf("Clock(%d)", int(c))
}

// ParseClock reads a clock's name.
func ParseClock(s string) (Clock, error) {
	if i := slices.Index(ClockNames, s); i >= 0 {
		return Clock(i), nil
	}
	return 0, fmt.Errorf("%q: expected one of %s", s, strings.Join(ClockNames, ", "))
}

// MaxScale bounds Options.Scale.
const MaxScale = 1e6

// Options are Merge's choices.
type Options struct {
	Compute Clock   // the clock of the delays
	Scale   float64 // delays are the computation times this, 0 to MaxScale (0: 1)
	// From and To keep a section of the run (the package doc's
	// "Sections"): they begin marker lines the recorder noted. From ""
	// keeps the whole run; To "" keeps to the end.
	From, To string
}

// DefaultOptions are CPU time, scale 1, the whole run.
func DefaultOptions() Options { return Options{Compute: CPU, Scale: 1} }

// Report is what a merge wrote and what it could not.
type Report struct {
	Ranks           int
	Messages        int64            // point-to-point records
	MessageBytes    int64            // their bytes
	Collectives     int64            // collective operations
	Parts           int64            // collective records
	ByOp            map[string]int64 // collectives by VEF op name
	OnReceive       int64            // records that depend on a receipt (dep 2)
	Receives        int64            // receives matched to their message
	Calls           map[string]int64 // MPI calls made, all ranks
	Unsupported     map[string]int64 // calls and cases a VEF trace cannot express, all ranks
	ComputeNS       int64            // computation on the chosen clock, all ranks (in the section), unscaled
	SectionDropped  int64            // records outside the section
	CutDependencies int64            // records whose dependency the section cut off
}

// ref is an event: its rank and index.
type ref struct{ rank, ev int32 }

// instance is a collective: its parts, one a member in rank order.
type instance struct {
	comm    int64
	vcomm   int // its VEF communicator
	op      vef.Op
	members []int
	parts   []ref
	gid     int64 // -1 until its first part is written
	ready   []int // members whose part is next and may be written
	split   bool  // written part by part
	kept    bool
}

type merger struct {
	opt      Options
	ranks    []*rankFile
	world    []int
	comms    map[int64][]int
	sendEv   [][]int32   // rank → send ordinal → event
	partEv   [][]int32   // rank → part ordinal → event
	recvMsg  [][]ref     // rank → receive → the message event
	instOf   [][]int32   // rank → event → instance (G events)
	insts    []*instance // in first-part order of rank 0, 1, …
	vcomms   [][]int     // VEF communicators
	lo, hi   []int32     // the section: events [lo, hi) of each rank
	start    *instance   // the section's first collective
	ids      [][]int64   // rank → event → message id or gid, -1: not written
	rep      *Report
	maxEvent int
}

// Merge reads the ranks' files in dir and writes one VEF trace to w.
func Merge(dir string, w io.Writer, opt Options) (*Report, error) {
	ranks, err := readDir(dir)
	if err != nil {
		return nil, err
	}
	return mergeRanks(ranks, w, opt)
}

func mergeRanks(ranks []*rankFile, w io.Writer, opt Options) (*Report, error) {
	if opt.Scale == 0 {
		opt.Scale = 1
	}
	if opt.Scale < 0 || opt.Scale > MaxScale || math.IsNaN(opt.Scale) {
		return nil, fmt.Errorf("scale %g: expected 0 to %g", opt.Scale, float64(MaxScale))
	}
	if opt.Compute < CPU || opt.Compute > None {
		return nil, fmt.Errorf("clock %d: expected cpu, wall or none", opt.Compute)
	}
	m := &merger{opt: opt, ranks: ranks, rep: &Report{Ranks: len(ranks), ByOp: map[string]int64{}, Calls: map[string]int64{}, Unsupported: map[string]int64{}}}
	steps := []func() error{m.communicators, m.index, m.match, m.collectives, m.section, m.keep}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return m.rep, m.write(w)
}

// communicators gathers the ranks' communicators, checking that the
// members of each agree on it.
func (m *merger) communicators() error {
	n := len(m.ranks)
	m.world = make([]int, n)
	for i := range m.world {
		m.world[i] = i
	}
	m.comms = map[int64][]int{commWorld: m.world}
	seen := map[int64]string{}
	for _, rf := range m.ranks {
		for _, id := range sortedKeys(rf.comms) {
			members := rf.comms[id]
			if id == commWorld || id == commSelf {
				return fmt.Errorf("%s: communicator %d is the predefined %s's id", rf.path, id, map[int64]string{0: "MPI_COMM_WORLD", 1: "MPI_COMM_SELF"}[id])
			}
			if !slices.Contains(members, rf.rank) {
				return fmt.Errorf("%s: communicator %d does not list rank %d, which wrote it", rf.path, id, rf.rank)
			}
			if old, ok := m.comms[id]; ok {
				if !slices.Equal(old, members) {
					return fmt.Errorf("%s: communicator %d has members %v; %s says %v", rf.path, id, members, seen[id], old)
				}
				continue
			}
			m.comms[id] = members
			seen[id] = rf.path
		}
		for k, v := range rf.calls {
			m.rep.Calls[k] += v
		}
		for k, v := range rf.unsup {
			m.rep.Unsupported[k] += v
		}
	}
	return nil
}

func sortedKeys[K cmp.Ordered, V any](mp map[K]V) []K {
	keys := make([]K, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// membersOf is the members of communicator id, as rank r uses it.
func (m *merger) membersOf(id int64, r int) ([]int, bool) {
	if id == commSelf {
		return []int{r}, true
	}
	c, ok := m.comms[id]
	return c, ok
}

// index numbers each rank's sends and parts.
func (m *merger) index() error {
	m.sendEv = make([][]int32, len(m.ranks))
	m.partEv = make([][]int32, len(m.ranks))
	for r, rf := range m.ranks {
		if len(rf.events) > math.MaxInt32 {
			return fmt.Errorf("%s: %d records: at most %d a rank", rf.path, len(rf.events), math.MaxInt32)
		}
		m.maxEvent = max(m.maxEvent, len(rf.events))
		for i, e := range rf.events {
			if e.kind == 'S' {
				m.sendEv[r] = append(m.sendEv[r], int32(i))
			} else {
				m.partEv[r] = append(m.partEv[r], int32(i))
			}
			if _, ok := m.membersOf(e.comm, r); !ok {
				return fmt.Errorf("%s:%d: communicator %d: no rank's file describes it", rf.path, e.line, e.comm)
			}
		}
	}
	return nil
}

// channel is what MPI matches a receive to a message by.
type channel struct {
	src, dst int32
	comm     int64
	tag      int32
}

// match gives each receive its message: on each channel, the k-th
// receive posted gets the k-th message sent.
func (m *merger) match() error {
	sends := map[channel][]int32{}
	for r, rf := range m.ranks {
		for i, e := range rf.events {
			if e.kind == 'S' {
				c := channel{int32(r), e.peer, e.comm, e.tag}
				sends[c] = append(sends[c], int32(i))
			}
		}
	}
	m.recvMsg = make([][]ref, len(m.ranks))
	for d, rf := range m.ranks {
		m.recvMsg[d] = make([]ref, len(rf.recvs))
		order := make([]int, len(rf.recvs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rf.recvs[a].post, rf.recvs[b].post) })
		next := map[channel]int{}
		for _, i := range order {
			rv := rf.recvs[i]
			c := channel{rv.src, int32(d), rv.comm, rv.tag}
			k := next[c]
			next[c]++
			if k >= len(sends[c]) {
				return fmt.Errorf("%s:%d: rank %d received a message from rank %d (communicator %d, tag %d) that rank %d never sent: it sent %d on that channel",
					rf.path, rv.line, d, rv.src, rv.comm, rv.tag, rv.src, len(sends[c]))
			}
			ev := sends[c][k]
			if sent := m.ranks[rv.src].events[ev].bytes; sent != rv.bytes {
				return fmt.Errorf("%s:%d: rank %d received %d bytes from rank %d (communicator %d, tag %d), but the matching message (%s:%d) has %d",
					rf.path, rv.line, d, rv.bytes, rv.src, rv.comm, rv.tag, m.ranks[rv.src].path, m.ranks[rv.src].events[ev].line, sent)
			}
			m.recvMsg[d][i] = ref{rv.src, ev}
		}
		m.rep.Receives += int64(len(rf.recvs))
	}
	return nil
}

// instKey names a collective: its communicator and how many collectives
// on it came before (for MPI_COMM_SELF, also the rank).
type instKey struct {
	comm int64
	self int
	seq  int
}

// collectives groups the parts into collectives: the k-th part of each
// member on a communicator.
func (m *merger) collectives() error {
	byKey := map[instKey]*instance{}
	m.instOf = make([][]int32, len(m.ranks))
	index := map[*instance]int32{}
	for r, rf := range m.ranks {
		m.instOf[r] = make([]int32, len(rf.events))
		seq := map[int64]int{}
		for i, e := range rf.events {
			m.instOf[r][i] = -1
			if e.kind != 'G' {
				continue
			}
			k := instKey{comm: e.comm, seq: seq[e.comm], self: -1}
			seq[e.comm]++
			if e.comm == commSelf {
				k.self = r
			}
			in := byKey[k]
			members, _ := m.membersOf(e.comm, r)
			if in == nil {
				in = &instance{comm: e.comm, op: e.op, members: members, parts: make([]ref, len(members)), gid: -1}
				for j := range in.parts {
					in.parts[j] = ref{-1, -1}
				}
				byKey[k] = in
				index[in] = int32(len(m.insts))
				m.insts = append(m.insts, in)
			}
			if in.op != e.op {
				first := in.parts[slices.IndexFunc(in.parts, func(p ref) bool { return p.rank >= 0 })]
				return fmt.Errorf("%s:%d: rank %d's collective number %d on communicator %d is a %s; rank %d's (%s:%d) is a %s",
					rf.path, e.line, r, k.seq+1, e.comm, e.op, first.rank, m.ranks[first.rank].path, m.ranks[first.rank].events[first.ev].line, in.op)
			}
			pos := slices.Index(members, r)
			in.parts[pos] = ref{int32(r), int32(i)}
			m.instOf[r][i] = index[in]
		}
	}
	for _, in := range m.insts {
		for j, p := range in.parts {
			if p.rank < 0 {
				have := in.parts[slices.IndexFunc(in.parts, func(p ref) bool { return p.rank >= 0 })]
				return fmt.Errorf("rank %d has no part in a %s on communicator %d that rank %d has (%s:%d): the ranks did not call the same collectives",
					in.members[j], in.op, in.comm, have.rank, m.ranks[have.rank].path, m.ranks[have.rank].events[have.ev].line)
			}
		}
		m.normalize(in)
	}
	return nil
}

// normalize sets the sizes VEF requires to be sums of the parts': a
// gather's root receives, a scatter's root sends, and every allgather
// part receives the sum of the blocks.
func (m *merger) normalize(in *instance) {
	ev := func(p ref) *event { return &m.ranks[p.rank].events[p.ev] }
	var sumSend, sumRecv int64
	for _, p := range in.parts {
		sumSend += ev(p).bytes
		sumRecv += ev(p).recv
	}
	for _, p := range in.parts {
		e := ev(p)
		switch in.op {
		case vef.Gather:
			if e.recv != 0 {
				e.recv = sumSend
			}
		case vef.Scatter:
			if e.bytes != 0 {
				e.bytes = sumRecv
			}
		case vef.Allgather:
			e.recv = sumSend
		}
	}
}

// target is what kept event i of rank r waits on: its anchor, when the
// event it names is in the trace (false: none, or cut off).
func (m *merger) target(r int, i int32) (anchor, bool) {
	e := &m.ranks[r].events[i]
	if e.anchor < 0 {
		return anchor{}, false
	}
	a := m.ranks[r].anchors[e.anchor]
	switch a.kind {
	case 's':
		return a, m.kept(r, m.sendEv[r][a.idx])
	case 'g':
		return a, m.kept(r, m.partEv[r][a.idx])
	}
	t := m.recvMsg[r][a.idx]
	return a, m.kept(int(t.rank), t.ev)
}

// clock reads the chosen clock off a record or an anchor.
func (m *merger) clock(cpu, wcomp int64) int64 {
	switch m.opt.Compute {
	case CPU:
		return cpu
	case Wall:
		return wcomp
	}
	return 0
}

func (m *merger) delay(from, to int64) int64 {
	d := to - from
	if d <= 0 {
		return 0
	}
	if m.opt.Scale == 1 {
		return d
	}
	return int64(math.Round(float64(d) * m.opt.Scale))
}

// dep is the VEF dependency of kept event i of rank r; ok is false when
// what it waits on has not been written yet (the message it depends on).
func (m *merger) dep(r int, i int32) (d vef.Dep, wait ref, ok bool) {
	e := &m.ranks[r].events[i]
	now := m.clock(e.cpu, e.wcomp)
	a, in := m.target(r, i)
	if !in {
		if m.start == nil || m.start.parts[slices.Index(m.start.members, r)].ev == i {
			if m.start != nil {
				now = 0 // the section's first collective starts it
			}
			return vef.Dep{Kind: vef.Independent, TimeNS: m.delay(0, now), ID: -1}, ref{}, true
		}
		p := m.start.parts[slices.Index(m.start.members, r)]
		pe := &m.ranks[r].events[p.ev]
		return vef.Dep{Kind: vef.AfterCollective, TimeNS: m.delay(m.clock(pe.cpu, pe.wcomp), now), ID: m.start.gid}, ref{}, true
	}
	t := m.delay(m.clock(a.cpu, a.wcomp), now)
	switch a.kind {
	case 's':
		return vef.Dep{Kind: vef.AfterSend, TimeNS: t, ID: m.ids[r][m.sendEv[r][a.idx]]}, ref{}, true
	case 'g':
		return vef.Dep{Kind: vef.AfterCollective, TimeNS: t, ID: m.insts[m.instOf[r][m.partEv[r][a.idx]]].gid}, ref{}, true
	}
	w := m.recvMsg[r][a.idx]
	id := m.ids[w.rank][w.ev]
	return vef.Dep{Kind: vef.AfterReceive, TimeNS: t, ID: id}, w, id >= 0
}

package mpirec

import (
	"cmp"
	"container/heap"
	"errors"
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

// section finds the events each rank keeps.
func (m *merger) section() error {
	n := len(m.ranks)
	m.lo, m.hi = make([]int32, n), make([]int32, n)
	for r, rf := range m.ranks {
		m.hi[r] = int32(len(rf.events))
	}
	if m.opt.From == "" {
		if m.opt.To != "" {
			return errors.New("a section's end needs its start")
		}
		return nil
	}
	from, fr, ok := m.firstMark(m.opt.From, -1, -1)
	if !ok {
		return fmt.Errorf("no rank printed a line starting with %q (the recorder notes the lines starting with the markers it was given: VEFREC_MARKS)", m.opt.From)
	}
	rf := m.ranks[fr]
	// start: the last collective of all ranks begun before the line,
	// else the first after it
	start := -1
	for i := range rf.events {
		if m.allRanks(fr, i) && (i < from.events || start < 0) {
			start = i
		}
		if i >= from.events && start >= 0 {
			break
		}
	}
	if start < 0 {
		return fmt.Errorf("%s:%d: rank %d printed the start line, but took part in no collective of all ranks: the section needs one to start at", rf.path, from.line, fr)
	}
	m.start = m.insts[m.instOf[fr][start]]
	for _, p := range m.start.parts {
		m.lo[p.rank] = p.ev
	}
	if m.opt.To == "" {
		return nil
	}
	to, _, ok := m.firstMark(m.opt.To, fr, from.line)
	if !ok {
		return fmt.Errorf("rank %d printed no line starting with %q after its line starting with %q", fr, m.opt.To, m.opt.From)
	}
	// end: before the first collective of all ranks begun after the line
	for i := to.events; i < len(rf.events); i++ {
		if m.allRanks(fr, i) {
			for _, p := range m.insts[m.instOf[fr][i]].parts {
				m.hi[p.rank] = p.ev
			}
			break
		}
	}
	return nil
}

// allRanks reports whether event i of rank r is a part in a collective on
// a communicator of all ranks (MPI_COMM_WORLD or one with its members).
func (m *merger) allRanks(r, i int) bool {
	e := &m.ranks[r].events[i]
	return e.kind == 'G' && len(m.insts[m.instOf[r][i]].members) == len(m.ranks)
}

// firstMark is the first mark starting with prefix on the lowest rank
// that printed one, or on rank only (≥ 0) after its file's line after.
func (m *merger) firstMark(prefix string, rank int, after int32) (mark, int, bool) {
	for r, rf := range m.ranks {
		if rank >= 0 && r != rank {
			continue
		}
		for _, mk := range rf.marks {
			if mk.line > after && strings.HasPrefix(mk.text, prefix) {
				return mk, r, true
			}
		}
	}
	return mark{}, -1, false
}

// kept reports whether event i of rank r is in the trace.
func (m *merger) kept(r int, i int32) bool {
	if i < m.lo[r] || i >= m.hi[r] {
		return false
	}
	e := &m.ranks[r].events[i]
	return e.kind == 'S' || m.insts[m.instOf[r][i]].kept
}

// keep marks the collectives in the section (all parts in) and counts
// what the trace will hold.
func (m *merger) keep() error {
	for _, in := range m.insts {
		in.kept = true
		for _, p := range in.parts {
			if p.ev < m.lo[p.rank] || p.ev >= m.hi[p.rank] {
				in.kept = false
			}
		}
		if in.kept {
			m.rep.Collectives++
			m.rep.ByOp[in.op.String()]++
		}
	}
	// the VEF communicators: the world, then the others by size and members
	var others [][]int
	seen := map[string]bool{fmt.Sprint(m.world): true}
	for _, in := range m.insts {
		if key := fmt.Sprint(in.members); in.kept && !seen[key] {
			seen[key] = true
			others = append(others, in.members)
		}
	}
	slices.SortFunc(others, func(a, b []int) int {
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return slices.Compare(a, b)
	})
	m.vcomms = append([][]int{m.world}, others...)
	vindex := map[string]int{}
	for i, c := range m.vcomms {
		vindex[fmt.Sprint(c)] = i
	}
	for _, in := range m.insts {
		in.vcomm = vindex[fmt.Sprint(in.members)]
	}
	m.ids = make([][]int64, len(m.ranks))
	for r, rf := range m.ranks {
		m.ids[r] = make([]int64, len(rf.events))
		for i := range rf.events {
			m.ids[r][i] = -1
			if !m.kept(r, int32(i)) {
				m.rep.SectionDropped++
				continue
			}
			e := &rf.events[i]
			if e.kind == 'S' {
				m.rep.Messages++
				m.rep.MessageBytes += e.bytes
			} else {
				m.rep.Parts++
			}
			if t, ok := m.target(r, int32(i)); ok && t.kind == 'r' {
				m.rep.OnReceive++
			} else if e.anchor >= 0 && !ok && m.start != nil && m.start.parts[slices.Index(m.start.members, r)].ev != int32(i) {
				m.rep.CutDependencies++
			}
		}
		// the computation: to MPI_Finalize, or from the section's first
		// record to its last
		first, last := int64(0), m.clock(rf.endCPU, rf.endWComp)
		if m.start != nil {
			e, l := &rf.events[m.lo[r]], &rf.events[m.hi[r]-1]
			first, last = m.clock(e.cpu, e.wcomp), m.clock(l.cpu, l.wcomp)
		}
		m.rep.ComputeNS += last - first
	}
	return nil
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

// rankHeap orders the ranks by the wall clock of their next record.
type rankHeap struct {
	m     *merger
	ranks []int
	head  []int32
}

func (h *rankHeap) Len() int { return len(h.ranks) }
func (h *rankHeap) key(r int) int64 {
	return h.m.ranks[r].events[h.head[r]].wall
}
func (h *rankHeap) Less(a, b int) bool {
	ra, rb := h.ranks[a], h.ranks[b]
	if ka, kb := h.key(ra), h.key(rb); ka != kb {
		return ka < kb
	}
	return ra < rb
}
func (h *rankHeap) Swap(a, b int) { h.ranks[a], h.ranks[b] = h.ranks[b], h.ranks[a] }
func (h *rankHeap) Push(x any)    { h.ranks = append(h.ranks, x.(int)) }
func (h *rankHeap) Pop() any {
	r := h.ranks[len(h.ranks)-1]
	h.ranks = h.ranks[:len(h.ranks)-1]
	return r
}

// write merges the ranks' kept records into w (the package doc's
// "Order").
func (m *merger) write(w io.Writer) error {
	hd := vef.Header{Tasks: len(m.ranks), P2PMessages: m.rep.Messages, Collectives: m.rep.Collectives,
		CollectiveParts: m.rep.Parts, OnlySend: m.rep.OnReceive == 0}
	for i, c := range m.vcomms {
		hd.Communicators = append(hd.Communicators, vef.Communicator{ID: i, Tasks: c})
	}
	vw, err := vef.NewWriter(w, hd)
	if err != nil {
		return err
	}
	h := &rankHeap{m: m, head: make([]int32, len(m.ranks))}
	// advance moves rank r's head to its next kept record and queues it.
	advance := func(r int, from int32) {
		i := from
		for i < m.hi[r] && !m.kept(r, i) {
			i++
		}
		h.head[r] = i
		if i < m.hi[r] {
			heap.Push(h, r)
		}
	}
	for r := range m.ranks {
		advance(r, m.lo[r])
	}
	parked := map[ref][]int{}
	var pending []*instance // collectives with parts ready, not all
	var nextMsg, nextGID int64
	emitPart := func(in *instance, r int) error {
		i := h.head[r]
		e := &m.ranks[r].events[i]
		if in.gid < 0 {
			in.gid = nextGID
			nextGID++
		}
		d, _, _ := m.dep(r, i)
		m.ids[r][i] = in.gid
		if err := vw.Write(vef.Record{Kind: vef.KindCollective, Part: vef.Part{GID: in.gid, Comm: in.vcomm, Op: in.op, Task: r,
			SendBytes: e.bytes, RecvBytes: e.recv, Dep: d}}); err != nil {
			return m.writeError(r, i, err)
		}
		advance(r, i+1)
		return nil
	}
	emitReady := func(in *instance) error {
		slices.SortFunc(in.ready, func(a, b int) int {
			return cmp.Compare(slices.Index(in.members, a), slices.Index(in.members, b))
		})
		ready := in.ready
		in.ready = nil
		for _, r := range ready {
			if err := emitPart(in, r); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		if h.Len() == 0 {
			if len(pending) == 0 {
				break
			}
			// the ranks wait on each other through these collectives:
			// write the one whose parts came first part by part
			first := slices.MinFunc(pending, func(a, b *instance) int { return m.compareReady(a, b, h) })
			pending = slices.DeleteFunc(pending, func(x *instance) bool { return x == first })
			first.split = true
			if err := emitReady(first); err != nil {
				return err
			}
			continue
		}
		r := heap.Pop(h).(int)
		i := h.head[r]
		e := &m.ranks[r].events[i]
		_, wait, ok := m.dep(r, i)
		if !ok {
			parked[wait] = append(parked[wait], r)
			continue
		}
		if e.kind == 'S' {
			d, _, _ := m.dep(r, i)
			m.ids[r][i] = nextMsg
			if err := vw.Write(vef.Record{Kind: vef.KindMessage, Message: vef.Message{ID: nextMsg, Src: r, Dst: int(e.peer), Bytes: e.bytes, Dep: d}}); err != nil {
				return m.writeError(r, i, err)
			}
			nextMsg++
			advance(r, i+1)
			me := ref{int32(r), i}
			for _, q := range parked[me] {
				heap.Push(h, q)
			}
			delete(parked, me)
			continue
		}
		in := m.insts[m.instOf[r][i]]
		if in.split {
			if err := emitPart(in, r); err != nil {
				return err
			}
			continue
		}
		in.ready = append(in.ready, r)
		if len(in.ready) == 1 {
			pending = append(pending, in)
		}
		if len(in.ready) == len(in.members) {
			pending = slices.DeleteFunc(pending, func(x *instance) bool { return x == in })
			if err := emitReady(in); err != nil {
				return err
			}
		}
	}
	if len(parked) > 0 {
		return m.stuck(parked, h)
	}
	return vw.Close()
}

// compareReady orders collectives by the wall clock of their first ready
// part, then its rank.
func (m *merger) compareReady(a, b *instance, h *rankHeap) int {
	first := func(in *instance) (int64, int) {
		var w int64 = math.MaxInt64
		rk := math.MaxInt
		for _, r := range in.ready {
			if k := h.key(r); k < w || (k == w && r < rk) {
				w, rk = k, r
			}
		}
		return w, rk
	}
	wa, ra := first(a)
	wb, rb := first(b)
	if c := cmp.Compare(wa, wb); c != 0 {
		return c
	}
	return cmp.Compare(ra, rb)
}

func (m *merger) writeError(r int, i int32, err error) error {
	rf := m.ranks[r]
	return fmt.Errorf("%s:%d: rank %d's record: %w", rf.path, rf.events[i].line, r, err)
}

// stuck explains records that can never be written: each waits on a
// message that waits, through its rank, on the first.
func (m *merger) stuck(parked map[ref][]int, h *rankHeap) error {
	keys := make([]ref, 0, len(parked))
	for k := range parked {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b ref) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.ev, b.ev)
	})
	var lines []string
	for _, k := range keys {
		for _, r := range parked[k] {
			rf := m.ranks[r]
			lines = append(lines, fmt.Sprintf("rank %d's record (%s:%d) waits on the message at %s:%d, not written",
				r, rf.path, rf.events[h.head[r]].line, m.ranks[k.rank].path, m.ranks[k.rank].events[k.ev].line))
		}
	}
	if len(lines) > 5 {
		lines = append(lines[:5], fmt.Sprintf("and %d more", len(lines)-5))
	}
	return errors.New("the ranks' records wait on each other, so no order writes them: " + strings.Join(lines, "; "))
}

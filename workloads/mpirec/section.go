package mpirec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

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
	m.keepCollectives()
	m.vefCommunicators()
	m.ids = make([][]int64, len(m.ranks))
	for r := range m.ranks {
		m.countRank(r)
	}
	return nil
}

// keepCollectives marks the collectives whose parts are all in the
// section and counts them.
func (m *merger) keepCollectives() {
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
}

// vefCommunicators numbers the VEF communicators: the world, then the
// others of kept collectives by size and members; and gives each
// collective its own.
func (m *merger) vefCommunicators() {
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
}

// countRank counts what rank r's kept records put in the trace, and its
// computation, and marks its records not written yet.
func (m *merger) countRank(r int) {
	rf := m.ranks[r]
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

package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// fixup is a flow whose dependency is the end of a collective part not
// yet lowered.
type fixup struct {
	flow int32
	gid  int64
	task int
}

// builder is Build's state while it reads a trace.
type builder struct {
	p     *Plan
	h     vef.Header
	opt   Options
	m     []int32 // task → server
	cpu   float64
	src   []int32 // per message, its sending task
	dst   []int32 // per message, its receiving task
	colls map[int64]*coll
	order []int64 // collectives in the order their first part came
	fix   []fixup
	last  []int32 // SerialSends: per server, its last message crossing a link (-1: none)
	lines []int32 // per flow before the collectives' rounds, the line of the record it comes from
	line  int     // the record being read
	// nextCheck is the number of flows at which Options.Limit is next asked.
	nextCheck int
}

// Build reads the whole trace rd gives (it does not close it) and turns it
// into flows on a network of servers servers. Errors name the line, the
// field, the value and what is allowed.
func Build(rd *vef.Reader, servers int, opt Options) (*Plan, error) {
	h := rd.Header()
	if err := opt.check(h.Tasks, servers); err != nil {
		return nil, err
	}
	b := newBuilder(h, servers, opt)
	if err := b.read(rd); err != nil {
		return nil, err
	}
	return b.finish()
}

// newBuilder starts the build of a trace with header h on servers servers.
func newBuilder(h vef.Header, servers int, opt Options) *builder {
	m := opt.Mapping
	if m == nil {
		m = Linear(h.Tasks, servers)
	}
	b := &builder{
		p:   &Plan{Tasks: h.Tasks, events: make([][]int32, h.Tasks)},
		h:   h,
		opt: opt,
		m:   m,
		cpu: opt.CPUFactor,

		colls:     map[int64]*coll{},
		nextCheck: 1 << 16,
	}
	if opt.SerialSends {
		b.last = make([]int32, servers)
		for i := range b.last {
			b.last[i] = -1
		}
	}
	return b
}

// add appends flow f, from the record being read, and returns its index.
func (b *builder) add(f dynamic.Flow) int32 {
	p := b.p
	p.Flows = append(p.Flows, f)
	b.lines = append(b.lines, int32(min(b.line, math.MaxInt32)))
	return int32(len(p.Flows) - 1)
}

// depend sets flow f's causality from a record of task task, read from
// line line.
func (b *builder) depend(f *dynamic.Flow, line, task int, d vef.Dep) error {
	t := float64(d.TimeNS) * b.cpu
	if d.Kind == vef.Independent {
		f.Start = t
		return nil
	}
	f.Delay = t
	switch d.Kind {
	case vef.AfterSend, vef.AfterReceive:
		who, role := b.src[d.ID], "sends"
		if d.Kind == vef.AfterReceive {
			who, role = b.dst[d.ID], "receives"
		}
		if int(who) != task {
			return &vef.Error{Line: line, Field: "dep_id", Value: fmt.Sprint(d.ID),
				Expected: fmt.Sprintf("a message task %d %s (message %d is task %d's; task %d would wait for ever)", task, role, d.ID, who, task)}
		}
		f.Deps = []int{int(b.p.Msg[d.ID])}
	case vef.AfterCollective:
		f.Deps = []int{-1} // set once the collective is lowered
	}
	return nil
}

// limit asks Options.Limit, if set, once the flows reach the next power
// of two it has not been asked at.
func (b *builder) limit() error {
	p := b.p
	if b.opt.Limit == nil || len(p.Flows) < b.nextCheck {
		return nil
	}
	for b.nextCheck <= len(p.Flows) {
		b.nextCheck *= 2
	}
	return b.opt.Limit(int64(len(p.Flows)))
}

// read reads rd's records up to the end of the trace.
func (b *builder) read(rd *vef.Reader) error {
	for records := 1; ; records++ {
		if b.opt.Stop != nil && records%4096 == 0 && b.opt.Stop() {
			return ErrStopped
		}
		if err := b.limit(); err != nil {
			return fmt.Errorf("line %d: %w", b.line, err)
		}
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		b.line = rec.Line
		if rec.Kind == vef.KindMessage {
			err = b.message(rec.Line, &rec.Message)
		} else {
			err = b.part(rec.Line, &rec.Part)
		}
		if err != nil {
			return err
		}
	}
}

// message adds the flow of message msg, read from line line (and, under
// SerialSends, the flow that issues it after its delay).
func (b *builder) message(line int, msg *vef.Message) error {
	p, last := b.p, b.last
	f := dynamic.Flow{Src: b.m[msg.Src], Dst: b.m[msg.Dst], Size: float64(msg.Bytes)}
	if b.opt.reversed {
		f.Src, f.Dst = f.Dst, f.Src
	}
	if err := b.depend(&f, line, msg.Src, msg.Dep); err != nil {
		return err
	}
	target := int32(-1) // the flow whose first dependency a collective's end fixes up
	serial := b.opt.SerialSends && f.Src != f.Dst && f.Size > 0
	chained := serial && last[f.Src] >= 0
	if chained {
		if len(f.Deps) > 0 && f.Delay > 0 {
			// Issued delay after its event: a flow of its own, so
			// the previous message is waited for without the delay.
			target = b.add(dynamic.Flow{Src: f.Src, Dst: f.Src, Deps: f.Deps, Delay: f.Delay})
			f.Deps, f.Delay = []int{int(target)}, 0
		}
		f.Deps = append(f.Deps, int(last[f.Src]))
	}
	if b.opt.SerialSends {
		p.chained = append(p.chained, chained)
	}
	i := b.add(f)
	if serial {
		last[f.Src] = i
	}
	if target < 0 {
		target = i
	}
	if msg.Dep.Kind == vef.AfterCollective {
		b.fix = append(b.fix, fixup{target, msg.Dep.ID, msg.Src})
	}
	p.Msg = append(p.Msg, i)
	b.src, b.dst = append(b.src, int32(msg.Src)), append(b.dst, int32(msg.Dst))
	p.events[msg.Src] = append(p.events[msg.Src], i)
	if msg.Dst != msg.Src {
		p.events[msg.Dst] = append(p.events[msg.Dst], i)
	}
	p.Messages++
	return nil
}

// part records collective part part, read from line line, and adds the
// zero-size flow of its start.
func (b *builder) part(line int, part *vef.Part) error {
	c := b.colls[part.GID]
	if c == nil {
		comm := b.h.Communicators[part.Comm].Tasks
		c = &coll{comm: comm, start: make([]int32, len(comm)), gid: part.GID,
			spec: collective.Spec{Op: part.Op, Algorithm: b.opt.Algorithms[part.Op], Size: len(comm),
				SendBytes: make([]int64, len(comm)), RecvBytes: make([]int64, len(comm))}}
		b.colls[part.GID] = c
		b.order = append(b.order, part.GID)
	}
	rank := slices.Index(c.comm, part.Task)
	c.spec.SendBytes[rank], c.spec.RecvBytes[rank] = part.SendBytes, part.RecvBytes
	if isRoot(part) {
		c.spec.Root = rank
		c.roots++
	}
	server := b.m[part.Task]
	f := dynamic.Flow{Src: server, Dst: server} // size 0: the part's start
	if err := b.depend(&f, line, part.Task, part.Dep); err != nil {
		return err
	}
	c.start[rank] = b.add(f)
	if part.Dep.Kind == vef.AfterCollective {
		b.fix = append(b.fix, fixup{c.start[rank], part.Dep.ID, part.Task})
	}
	b.p.Parts++
	return nil
}

// finish lowers the collectives, in the order their first parts came,
// sets the dependencies on their ends and rejects a plan that would wait
// for ever.
func (b *builder) finish() (*Plan, error) {
	p := b.p
	for _, gid := range b.order {
		c := b.colls[gid]
		if c.roots > 1 {
			return nil, fmt.Errorf("collective G%d (%s): %d parts in the root's role (sizes only the root has): a rooted collective has one", gid, c.spec.Op, c.roots)
		}
		if err := c.spec.Check(); err != nil {
			return nil, fmt.Errorf("collective G%d: %w", gid, err)
		}
		p.lower(c, b.m, b.opt.reversed)
		if err := b.limit(); err != nil {
			return nil, fmt.Errorf("collective G%d: %w", gid, err)
		}
	}
	for _, x := range b.fix {
		c := b.colls[x.gid]
		p.Flows[x.flow].Deps[0] = int(c.end[slices.Index(c.comm, x.task)])
	}
	if cycle := findCycle(p.Flows); cycle != nil {
		w := &why{p: p, lines: b.lines, src: b.src, dst: b.dst}
		for _, gid := range b.order {
			w.colls = append(w.colls, b.colls[gid])
		}
		return nil, w.cycleError(cycle)
	}
	return p, nil
}

package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/workloads"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// The sequence numbers of a trace's messages (workloads.MessageID.Seq):
// bit 39 marks a trace message (synthetic sources count from 1 and never
// reach it); bit 38 a message of a collective, whose low bits are its
// number among the run's collective messages; otherwise the low bits are
// the trace's message id.
const (
	traceBit = 1 << 39
	collBit  = 1 << 38
	idMask   = collBit - 1
)

// Options are how a trace is replayed on a network.
type Options struct {
	NICs         int   // NICs of the network
	Mapping      []int // task → NIC, one NIC per task (len = the trace's tasks); nil: task i on NIC i
	SL           int   // the SL of every trace message
	BytesPerFlit int   // a message of b bytes is max(1, ⌈b/BytesPerFlit⌉) flits
	// CyclesOf converts a delay or time in ns to cycles (rounded up).
	CyclesOf func(ns int64) clock.Cycle
	// Algorithms per collective op; an op not named takes its default
	// (collective.Algorithms).
	Algorithms map[vef.Op]string
}

// Open is how the replay reads the trace: each call opens it afresh
// (once for the checking pass, once for the replay).
type Open func() (*vef.Reader, error)

// Replay is a trace replayed on a network: a workloads.Workload whose
// sources are the trace's tasks, one per NIC the mapping gives them.
//
// The tasks share one reader of the trace (under mu): a task that needs
// records not read yet reads on, and hands each record it reads to the
// inbox of its task, which takes it when it next needs records. Which task
// reads what therefore depends on timing, but what each task sees when it
// needs it does not: a task needs the records that wait on one of its
// events when the event happens, and reads up to the last of them then
// (plan.msgLast, plan.collLast); every independent record is read before
// the run. So the replay is deterministic, whatever the engine.
type Replay struct {
	opt   Options
	plan  *plan
	tasks []*task
	byNIC []*host

	mu       sync.Mutex
	rd       *vef.Reader
	read     int64 // records read
	inbox    [][]record
	open     map[int64]*coll // collectives whose parts are not all read
	nextBase int64           // the number of the next collective's first message
	err      error           // a failed read during the run

	remaining atomic.Int64 // tasks not ended
	pending   atomic.Int64 // messages queued at a task or in flight
}

// record is a body record as replay keeps it until it is issued.
type record struct {
	pos   int64 // in the body, from 0
	line  int
	dep   vef.DepKind
	time  int64 // ns: the delay, or the absolute time of an independent record
	depID int64
	// a point-to-point message
	msg   int64
	dst   int
	bytes int64
	// a collective part
	coll *coll
	rank int
}

// coll is one collective: its parts as they are read, then, once every
// part is in, its lowering (spec) and the number of its first message.
type coll struct {
	gid      int64
	comm     []int // the communicator's tasks, by rank
	op       vef.Op
	spec     collective.Spec
	parts    int
	complete bool
	base     int64
	roots    int // parts in the root role seen (a rooted op has one)
}

// New checks the trace open gives (the whole of it, before anything
// runs) and prepares its replay: every independent record is read, and
// every task knows what it sends first.
func New(open Open, opt Options) (*Replay, error) {
	rd, err := open()
	if err != nil {
		return nil, err
	}
	p, err := check(rd)
	closeReader(rd)
	if err != nil {
		return nil, err
	}
	if err := opt.check(p.header.Tasks); err != nil {
		return nil, err
	}
	if opt.Mapping == nil {
		opt.Mapping = Linear(p.header.Tasks, opt.NICs)
	}
	if rd, err = open(); err != nil {
		return nil, err
	}
	r := &Replay{opt: opt, plan: p, rd: rd, open: map[int64]*coll{}, inbox: make([][]record, p.header.Tasks),
		byNIC: make([]*host, opt.NICs)}
	var hosts []*host
	for i := 0; i < p.header.Tasks; i++ {
		nic := opt.Mapping[i]
		h := r.byNIC[nic]
		if h == nil {
			h = newHost(r, nic)
			r.byNIC[nic] = h
			hosts = append(hosts, h)
		}
		t := newTask(h, i)
		h.tasks = append(h.tasks, t)
		r.tasks = append(r.tasks, t)
	}
	r.remaining.Store(int64(len(r.tasks)))
	r.mu.Lock()
	r.readTo(p.lastIndep)
	r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	for _, h := range hosts {
		h.start()
	}
	return r, nil
}

func closeReader(rd *vef.Reader) { _ = rd.Close() }

// Linear is the mapping of tasks tasks on nics NICs in blocks: ⌈tasks/nics⌉
// consecutive tasks a NIC (task i on NIC i when there are NICs enough), as
// consecutive MPI ranks share a node.
func Linear(tasks, nics int) []int {
	per := max(1, (tasks+nics-1)/max(nics, 1))
	m := make([]int, tasks)
	for i := range m {
		m[i] = i / per
	}
	return m
}

// check checks the options against a trace of tasks tasks.
func (o *Options) check(tasks int) error {
	if o.NICs < 1 {
		return fmt.Errorf("a network of %d NICs", o.NICs)
	}
	if o.Mapping != nil {
		if len(o.Mapping) != tasks {
			return fmt.Errorf("the mapping places %d tasks; the trace has %d", len(o.Mapping), tasks)
		}
		for t, nic := range o.Mapping {
			if nic < 0 || nic >= o.NICs {
				return fmt.Errorf("the mapping places task %d on NIC %d: must be a NIC in [0, %d)", t, nic, o.NICs)
			}
		}
	}
	for op, alg := range o.Algorithms {
		s := collective.Spec{Op: op, Algorithm: alg, Size: 1, SendBytes: []int64{0}, RecvBytes: []int64{0}}
		if err := s.Check(); err != nil {
			return err
		}
	}
	if o.BytesPerFlit < 1 || o.CyclesOf == nil {
		return errors.New("replay options: BytesPerFlit and CyclesOf must be set")
	}
	return nil
}

// Source implements workloads.Workload: the tasks mapped on nic, nil
// when none is.
func (r *Replay) Source(nic int) workloads.Source {
	if h := r.byNIC[nic]; h != nil {
		return h
	}
	return nil
}

// Status implements workloads.Workload. Called between windows.
func (r *Replay) Status() (workloads.Status, []string) {
	if r.remaining.Load() == 0 {
		return workloads.Finished, nil
	}
	if r.pending.Load() > 0 {
		return workloads.Running, nil
	}
	return workloads.Stalled, r.blocking(20)
}

// Close releases the trace file.
func (r *Replay) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rd == nil {
		return nil
	}
	err := r.rd.Close()
	r.rd = nil
	return err
}

// readTo reads records up to position pos (included), each into its
// task's inbox. mu is held.
func (r *Replay) readTo(pos int64) {
	for r.read <= pos && r.err == nil {
		r.readOne()
	}
}

// readUntil reads records until c is complete. mu is held.
func (r *Replay) readUntil(c *coll) {
	for !c.complete && r.err == nil {
		r.readOne()
	}
}

func (r *Replay) readOne() {
	if r.rd == nil {
		r.err = fmt.Errorf("the trace ended after %d records, before a record replay needed", r.read)
		return
	}
	rec, err := r.rd.Next()
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("the trace ended after %d records, before the record replay needed (did it change since it was checked?)", r.read)
	}
	if err != nil {
		r.err = err
		return
	}
	k := record{pos: r.read, line: rec.Line}
	r.read++
	if r.read == r.plan.records { // the last one: the file is no longer needed
		_ = r.rd.Close()
		r.rd = nil
	}
	var task int
	if rec.Kind == vef.KindMessage {
		m := &rec.Message
		task, k.dep, k.time, k.depID = m.Src, m.Dep.Kind, m.Dep.TimeNS, m.Dep.ID
		k.msg, k.dst, k.bytes = m.ID, m.Dst, m.Bytes
	} else {
		p := &rec.Part
		task, k.dep, k.time, k.depID = p.Task, p.Dep.Kind, p.Dep.TimeNS, p.Dep.ID
		k.coll, k.rank = r.addPart(p)
	}
	r.inbox[task] = append(r.inbox[task], k)
}

// addPart files part p in its collective, lowering the collective when it
// is the last part. It returns the collective and the part's rank.
func (r *Replay) addPart(p *vef.Part) (*coll, int) {
	c := r.open[p.GID]
	if c == nil {
		comm := r.plan.header.Communicators[p.Comm].Tasks
		c = &coll{gid: p.GID, comm: comm, op: p.Op, spec: collective.Spec{Op: p.Op, Algorithm: r.opt.Algorithms[p.Op], Size: len(comm),
			SendBytes: make([]int64, len(comm)), RecvBytes: make([]int64, len(comm))}}
		r.open[p.GID] = c
	}
	rank := slices.Index(c.comm, p.Task)
	c.spec.SendBytes[rank], c.spec.RecvBytes[rank] = p.SendBytes, p.RecvBytes
	if isRoot(p) {
		c.spec.Root = rank
		c.roots++
	}
	if c.parts++; c.parts == len(c.comm) {
		delete(r.open, p.GID)
		c.base = r.nextBase
		r.nextBase += int64(c.spec.Rounds()) * int64(c.spec.Size)
		c.complete = true
	}
	return c, rank
}

// isRoot tells the root's part of a rooted collective (VEF.md's op table):
// the one whose sizes only the root has. A broadcast or reduce of 0 bytes
// has no part that tells: its root is rank 0.
func isRoot(p *vef.Part) bool {
	switch p.Op {
	case vef.Broadcast, vef.Scatter: // root: X / 0 (broadcast), ΣX_i / X_i (scatter); others: 0 / …
		return p.SendBytes != 0
	case vef.Reduce, vef.Gather: // root: 0 / X (reduce), X_i / ΣX_i (gather); others: … / 0
		return p.RecvBytes != 0
	}
	return false
}

// take hands task t the records read for it. It reads on to position
// upTo first (-1: not at all), and until c is complete when c is not nil.
func (r *Replay) take(t int, upTo int64, c *coll, buf []record) ([]record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readTo(upTo)
	if c != nil {
		r.readUntil(c)
	}
	buf = append(buf, r.inbox[t]...)
	clear(r.inbox[t])
	r.inbox[t] = r.inbox[t][:0]
	return buf, r.err
}

// Results is what a replay measured.
type Results struct {
	Tasks    int
	Finished bool // every task ended
	// ExecutionCycle is the cycle the last task ended in (the
	// application's execution time, counted from cycle 0); valid when
	// Finished.
	ExecutionCycle clock.Cycle
	TaskEnds       []int64 // per task, the cycle it ended in; -1: it did not
	Messages       int64   // trace messages delivered through the network (point to point and of collectives; not those between tasks of a NIC)
	Flits          int64   // the flits of the trace messages sent into the network
	Records        int64   // trace records read
	// Latency is the distribution of the delivered trace messages' cycles
	// from generation to delivery.
	Latency *hdrhistogram.Histogram
}

// Results reports what the replay measured. Call it after the run.
func (r *Replay) Results() Results {
	res := Results{Tasks: len(r.tasks), Finished: r.remaining.Load() == 0, Records: r.read, Latency: newLatency()}
	for _, t := range r.tasks {
		end := int64(-1)
		if t.done {
			end = int64(t.end)
			res.ExecutionCycle = max(res.ExecutionCycle, t.end)
		}
		res.TaskEnds = append(res.TaskEnds, end)
	}
	for _, h := range r.byNIC {
		if h == nil {
			continue
		}
		res.Messages += h.received
		res.Flits += h.flits
		if h.latency != nil {
			res.Latency.Merge(h.latency)
		}
	}
	return res
}

// newLatency is a latency histogram: 1 cycle to 2^40, 3 significant digits.
func newLatency() *hdrhistogram.Histogram { return hdrhistogram.New(1, 1<<40, 3) }

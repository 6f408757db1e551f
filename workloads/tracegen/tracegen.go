package tracegen

import (
	"io"

	"github.com/opasim/opasim/registry"
	"github.com/opasim/opasim/workloads/vef"
)

// generator is one kind: what it imitates, its message size when none is
// asked for, its counts by formula (a header without communicators), the
// communicators it has beside C0 (nil: none), and the writing of its
// body.
type generator struct {
	imitates     string
	defaultBytes int64
	counts       func(p Params) vef.Header
	comms        func(p Params) []vef.Communicator
	write        func(e emitter, p Params) error
}

// header is the whole header of p's trace: its counts and communicators,
// C0 first.
func (g generator) header(p Params) vef.Header {
	h := g.counts(p)
	h.Communicators = []vef.Communicator{world(p.Tasks)}
	if g.comms != nil {
		h.Communicators = append(h.Communicators, g.comms(p)...)
	}
	return h
}

var generators = newGenerators()

func newGenerators() *registry.Registry[generator] {
	r := registry.New[generator]("trace kind")
	for name, g := range map[string]generator{
		"stencil3d":    {"molecular dynamics (NAMD, GROMACS): 3D halo exchange, allreduce every few steps", 8 << 10, stencilCounts, nil, writeStencil},
		"hpl":          {"HPL: panel broadcasts along the rows of a P×Q grid, row swaps along its columns", 64 << 10, hplCounts, hplCommunicators, writeHPL},
		"randomaccess": {"MPIRandomAccess (HPCC): small updates to random tasks, a barrier between iterations", 64, randomAccessCounts, nil, writeRandomAccess},
		"alltoall":     {"all-to-all phases (spectral codes, FFTs) with computation between", 4 << 10, alltoallCounts, nil, writeAlltoall},
		"ring":         {"a token shift round a ring of tasks", 4 << 10, ringCounts, nil, writeRing},
	} {
		registry.Must(r.Register(name, g))
	}
	return r
}

// Kinds lists the kinds of trace, sorted.
func Kinds() []string { return generators.Names() }

// Info describes a kind.
type Info struct {
	Name         string
	Imitates     string // the application whose communication it has
	DefaultBytes int64  // a typical Bytes for it
}

// Describe tells what kind imitates; an unknown kind is an error that
// lists the known ones.
func Describe(kind string) (Info, error) {
	g, err := generators.Get(kind)
	if err != nil {
		return Info{}, err
	}
	return Info{Name: kind, Imitates: g.imitates, DefaultBytes: g.defaultBytes}, nil
}

// Counts is the header a trace of p will have: its communicators and
// every count, by formula (the package doc gives them).
func Counts(p Params) (vef.Header, error) {
	if err := p.Check(); err != nil {
		return vef.Header{}, err
	}
	g, _ := generators.Get(p.Kind)
	return g.header(p), nil
}

// Write writes the trace of p to w through a vef.Writer, record by
// record, and returns its header. Errors are those of Check, or the
// writer's (*vef.Error, wrapping w's error when writing failed).
func Write(w io.Writer, p Params) (vef.Header, error) {
	h, err := Counts(p)
	if err != nil {
		return h, err
	}
	vw, err := vef.NewWriter(w, h)
	if err != nil {
		return h, err
	}
	g, _ := generators.Get(p.Kind)
	if err := g.write(emitter{vw}, p); err != nil {
		return h, err
	}
	return h, vw.Close()
}

// emitter writes records with their ids given by the generator's
// formulas; the vef.Writer checks each id against the messages before it.
type emitter struct{ w *vef.Writer }

func (e emitter) send(id int64, src, dst int, bytes int64, dep vef.Dep) error {
	return e.w.Write(vef.Record{Kind: vef.KindMessage,
		Message: vef.Message{ID: id, Src: src, Dst: dst, Bytes: bytes, Dep: dep}})
}

func (e emitter) part(gid int64, comm int, op vef.Op, task int, send, recv int64, dep vef.Dep) error {
	return e.w.Write(vef.Record{Kind: vef.KindCollective,
		Part: vef.Part{GID: gid, Comm: comm, Op: op, Task: task, SendBytes: send, RecvBytes: recv, Dep: dep}})
}

// The four dependencies.
func at(ns int64) vef.Dep { return vef.Dep{Kind: vef.Independent, TimeNS: ns, ID: -1} }
func afterSend(id, ns int64) vef.Dep {
	return vef.Dep{Kind: vef.AfterSend, TimeNS: ns, ID: id}
}
func afterReceive(id, ns int64) vef.Dep {
	return vef.Dep{Kind: vef.AfterReceive, TimeNS: ns, ID: id}
}
func afterCollective(gid, ns int64) vef.Dep {
	return vef.Dep{Kind: vef.AfterCollective, TimeNS: ns, ID: gid}
}

// world is C0: every task.
func world(n int) vef.Communicator {
	c := vef.Communicator{ID: 0, Tasks: make([]int, n)}
	for i := range c.Tasks {
		c.Tasks[i] = i
	}
	return c
}

// counts is a header without communicators.
func counts(n int, p2p, collectives, parts int64, onlySend bool) vef.Header {
	return vef.Header{Tasks: n, P2PMessages: p2p, Collectives: collectives, CollectiveParts: parts, OnlySend: onlySend}
}

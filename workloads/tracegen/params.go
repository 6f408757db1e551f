package tracegen

import (
	"fmt"
	"math"
	"strings"

	"github.com/opasim/opasim/problem"
)

// Limits of Params, beyond which a trace would not be worth writing (or
// its counts would not fit the header).
const (
	MaxTasks   = 1 << 20 // tasks of a trace
	MaxUpdates = 1 << 20 // randomaccess updates per task and iteration
	MaxRecords = 1 << 36 // messages and collective parts of a trace, about 69 billion
)

// The kind-specific defaults, taken when the field is 0.
const (
	DefaultAllreduceEvery = 1
	DefaultUpdates        = 16
)

// Params says which trace to write. What Bytes and Iterations stand for
// in each kind is in the package doc.
type Params struct {
	Kind       string // one of Kinds()
	Tasks      int    // MPI tasks: 2 to MaxTasks
	Bytes      int64  // message size, at least 0
	Iterations int    // at least 1
	ComputeNS  int64  // computation between communications, ns, at least 0
	Seed       uint64 // randomaccess's draws; the other kinds draw nothing

	// AllreduceEvery (stencil3d only): an allreduce after every
	// AllreduceEvery-th iteration; 0 means DefaultAllreduceEvery. Above
	// Iterations, there is none.
	AllreduceEvery int
	// Updates (randomaccess only): messages each task sends per
	// iteration, 1 to MaxUpdates; 0 means DefaultUpdates.
	Updates int
}

// allreduceEvery is AllreduceEvery with its default.
func (p Params) allreduceEvery() int {
	if p.AllreduceEvery == 0 {
		return DefaultAllreduceEvery
	}
	return p.AllreduceEvery
}

// updates is Updates with its default.
func (p Params) updates() int {
	if p.Updates == 0 {
		return DefaultUpdates
	}
	return p.Updates
}

// Check reports every field out of its range at once (a problem.List),
// each named as in the package's flags (snake_case) with its value and
// what is allowed; then, for fields in range, a trace of more than
// MaxRecords records.
func (p Params) Check() error {
	var l problem.List
	gen, known := generators.Get(p.Kind)
	if known != nil {
		l.NotAllowed("kind", fmt.Sprintf("%q", p.Kind), "must be one of: "+strings.Join(Kinds(), ", "))
	}
	if p.Tasks < 2 || p.Tasks > MaxTasks {
		l.NotAllowed("tasks", p.Tasks, fmt.Sprintf("must be in [2, %d]", MaxTasks))
	}
	l.AtLeast("bytes", p.Bytes, 0)
	l.AtLeast("iterations", int64(p.Iterations), 1)
	l.AtLeast("compute_ns", p.ComputeNS, 0)
	p.checkSpecific(&l)
	if len(l) == 0 {
		h := gen.counts(p)
		if n := h.P2PMessages + h.CollectiveParts; n > MaxRecords || n < 0 {
			l.NotAllowed("iterations", p.Iterations, fmt.Sprintf(
				"the trace would have %s records (%d messages, %d collective parts), more than the limit of %d: fewer iterations or tasks",
				recordCount(n), h.P2PMessages, h.CollectiveParts, int64(MaxRecords)))
		}
	}
	return l.Err()
}

// checkSpecific checks the kind-specific fields: in range, and given only
// to the kind that uses them.
func (p Params) checkSpecific(l *problem.List) {
	switch {
	case p.AllreduceEvery < 0:
		l.NotAllowed("allreduce_every", p.AllreduceEvery, fmt.Sprintf("must be at least 1 (0 for the default, %d)", DefaultAllreduceEvery))
	case p.AllreduceEvery != 0 && p.Kind != "stencil3d":
		l.NotAllowed("allreduce_every", p.AllreduceEvery, "only stencil3d has allreduces every few iterations; leave it 0")
	}
	switch {
	case p.Updates < 0 || p.Updates > MaxUpdates:
		l.NotAllowed("updates", p.Updates, fmt.Sprintf("must be in [1, %d] (0 for the default, %d)", MaxUpdates, DefaultUpdates))
	case p.Updates != 0 && p.Kind != "randomaccess":
		l.NotAllowed("updates", p.Updates, "only randomaccess sends updates; leave it 0")
	}
}

// recordCount writes a count that saturated as "more than 2^63".
func recordCount(n int64) string {
	if n < 0 || n == math.MaxInt64 {
		return "more than 2^63"
	}
	return fmt.Sprint(n)
}

// mul multiplies counts of at least 0, stopping at math.MaxInt64.
func mul(vs ...int64) int64 {
	p := int64(1)
	for _, v := range vs {
		if v != 0 && p > math.MaxInt64/v {
			return math.MaxInt64
		}
		p *= v
	}
	return p
}

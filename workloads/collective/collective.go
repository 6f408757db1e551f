package collective

import (
	"fmt"
	"math"
	"strings"

	"github.com/opasim/opasim/workloads/vef"
)

// Algorithm names.
const (
	Binomial          = "binomial"           // broadcast, reduce, gather, scatter
	Flat              = "flat"               // broadcast, reduce, gather, scatter: root talks to every rank in turn
	RecursiveDoubling = "recursive_doubling" // allreduce (any P: fold-in of the ranks above the largest power of two, before and after)
	Ring              = "ring"               // allreduce (reduce-scatter + allgather, chunks of ceil(X/P)), allgather
	ReduceBroadcast   = "reduce_broadcast"   // allreduce: binomial reduce to rank 0 then binomial broadcast
	Pairwise          = "pairwise"           // alltoall: round k (1..P-1), rank i sends to (i+k) mod P, receives from (i-k) mod P
	Dissemination     = "dissemination"      // barrier: round k, rank i sends to (i+2^k) mod P, receives from (i-2^k) mod P
)

// algorithm is one way of lowering an op: its number of rounds for a
// size of at least 2, and one rank's transfers in round order.
type algorithm struct {
	name   string
	rounds func(s *Spec) int
	part   func(s *Spec, rank int) []Transfer
}

// lowerings holds each op's algorithms, its default first. It is never
// written.
var lowerings = [...][]algorithm{
	vef.Broadcast: {{Binomial, log2Rounds, broadcastBinomial}, {Flat, othersRounds, broadcastFlat}},
	vef.Reduce:    {{Binomial, log2Rounds, reduceBinomial}, {Flat, othersRounds, reduceFlat}},
	vef.Allreduce: {
		{RecursiveDoubling, doublingRounds, allreduceDoubling},
		{Ring, allreduceRingRounds, allreduceRing},
		{ReduceBroadcast, reduceBroadcastRounds, allreduceReduceBroadcast},
	},
	vef.Gather:    {{Binomial, log2Rounds, gatherBinomial}, {Flat, othersRounds, gatherFlat}},
	vef.Scatter:   {{Binomial, log2Rounds, scatterBinomial}, {Flat, othersRounds, scatterFlat}},
	vef.Allgather: {{Ring, othersRounds, allgatherRing}},
	vef.Barrier:   {{Dissemination, log2Rounds, barrierDissemination}},
	vef.Alltoall:  {{Pairwise, othersRounds, alltoallPairwise}},
}

// Algorithms lists the algorithms allowed for op, the default first; nil
// for an op that is not a collective. The slice is the caller's.
// Defaults: broadcast binomial, reduce binomial, allreduce
// recursive_doubling, gather binomial, scatter binomial, allgather ring,
// barrier dissemination, alltoall pairwise.
func Algorithms(op vef.Op) []string {
	if int(op) >= len(lowerings) {
		return nil
	}
	names := make([]string, len(lowerings[op]))
	for i, a := range lowerings[op] {
		names[i] = a.name
	}
	return names
}

// Spec is one collective as a trace gives it.
type Spec struct {
	Op        vef.Op
	Algorithm string  // "" = the op's default
	Size      int     // ranks of the communicator, >= 1
	Root      int     // root rank for broadcast, reduce, gather, scatter (ignored otherwise)
	SendBytes []int64 // per rank, the send_bytes of its part (len Size)
	RecvBytes []int64 // per rank, the recv_bytes of its part (len Size); for alltoall the 0/1 vector flag
}

// algorithm is the spec's algorithm; false when the op has none of that
// name.
func (s *Spec) algorithm() (algorithm, bool) {
	if int(s.Op) >= len(lowerings) {
		return algorithm{}, false
	}
	all := lowerings[s.Op]
	if s.Algorithm == "" {
		return all[0], true
	}
	for _, a := range all {
		if a.name == s.Algorithm {
			return a, true
		}
	}
	return algorithm{}, false
}

// rooted tells whether the op has a root.
func rooted(op vef.Op) bool {
	return op == vef.Broadcast || op == vef.Reduce || op == vef.Gather || op == vef.Scatter
}

// Check returns an error naming every problem that keeps the spec from
// being lowered, nil if there is none: an op that is not a collective, an
// algorithm the op does not have (the error lists those it has), Size
// below 1, a Root outside [0, Size) for a rooted op, SendBytes or
// RecvBytes not of length Size, a size below 0, an alltoall flag other
// than 0 or 1. Rounds and Part expect a spec Check accepts.
func (s *Spec) Check() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if _, ok := s.algorithm(); !ok {
		if names := Algorithms(s.Op); names == nil {
			add("op %d is not a collective operation (0 .. %d)", uint8(s.Op), len(lowerings)-1)
		} else {
			add("algorithm %q is not one for a %s: allowed %s", s.Algorithm, s.Op, strings.Join(names, ", "))
		}
	}
	if s.Size < 1 {
		add("size %d: at least 1", s.Size)
	}
	if rooted(s.Op) && (s.Root < 0 || s.Root >= s.Size) {
		add("root %d: outside [0, %d)", s.Root, s.Size)
	}
	s.checkBytes("send_bytes", s.SendBytes, add)
	s.checkBytes("recv_bytes", s.RecvBytes, add)
	if problems == nil {
		return nil
	}
	return fmt.Errorf("collective %s: %s", s.Op, strings.Join(problems, "; "))
}

// checkBytes checks one of the per-rank size slices.
func (s *Spec) checkBytes(field string, b []int64, add func(string, ...any)) {
	if len(b) != s.Size {
		add("%s has %d entries, not the size %d", field, len(b), s.Size)
	}
	for i, v := range b {
		switch {
		case v < 0:
			add("%s[%d] is %d: at least 0", field, i, v)
			return
		case s.Op == vef.Alltoall && field == "recv_bytes" && v > 1:
			add("recv_bytes[%d] is %d: an alltoall's flag is 0 or 1", i, v)
			return
		}
	}
}

// Rounds is the number of rounds of the collective: 0 when Size is 1
// (nothing is sent), else at least 1.
func (s *Spec) Rounds() int {
	a, ok := s.algorithm()
	if !ok || s.Size < 2 {
		return 0
	}
	return a.rounds(s)
}

// Transfer is one message of the collective.
type Transfer struct {
	Round    int   // 0 .. Rounds()-1
	From, To int   // ranks
	Bytes    int64 // may be 0 (a zero-byte message still synchronizes; the replayer sends at least one flit)
}

// Index numbers a transfer within its collective: Round*Size + From. In
// every algorithm a rank sends at most one message per round and receives
// at most one per round, so indices are unique; they are < Rounds()*Size.
func (t Transfer) Index(size int) int64 {
	return int64(t.Round)*int64(size) + int64(t.From)
}

// Round is what one rank does in one round: at most one send and at most
// one receive.
type Round struct {
	Round int
	Send  *Transfer // nil: none
	Recv  *Transfer // nil: none
}

// Part returns the rounds in which rank takes part, in round order,
// skipping rounds where it neither sends nor receives; none for a rank
// outside [0, Size). buf is reused when it has room (append to buf[:0]);
// the *Transfer pointers point into one array allocated by the call,
// which the returned slice alone refers to.
func (s *Spec) Part(rank int, buf []Round) []Round {
	buf = buf[:0]
	a, ok := s.algorithm()
	if !ok || s.Size < 2 || rank < 0 || rank >= s.Size {
		return buf
	}
	ts := a.part(s, rank)
	for i := range ts {
		t := &ts[i]
		if n := len(buf); n == 0 || buf[n-1].Round != t.Round {
			buf = append(buf, Round{Round: t.Round})
		}
		r := &buf[len(buf)-1]
		if t.From == rank {
			r.Send = t
		} else {
			r.Recv = t
		}
	}
	return buf
}

// addSat adds sizes of at least 0, stopping at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ceilDiv is ⌈a/b⌉ for a >= 0, b >= 1, without overflow.
func ceilDiv(a int64, b int) int64 {
	q := a / int64(b)
	if a%int64(b) != 0 {
		q++
	}
	return q
}

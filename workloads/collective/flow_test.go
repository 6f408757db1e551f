package collective

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/opasim/opasim/workloads/vef"
)

var sizes = []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 64, 100}

// wantRounds is each algorithm's round count, counted out with loops
// rather than the package's bit tricks.
func wantRounds(op vef.Op, alg string, p int) int {
	lg := 0 // ⌈log2 p⌉
	for 1<<lg < p {
		lg++
	}
	pow, lgPow := 1, 0 // the largest power of two at most p, and its log
	for pow*2 <= p {
		pow, lgPow = pow*2, lgPow+1
	}
	switch {
	case alg == Binomial, alg == Dissemination:
		return lg
	case alg == Flat, alg == Pairwise, alg == Ring && op == vef.Allgather:
		return p - 1
	case alg == Ring:
		return 2 * (p - 1)
	case alg == ReduceBroadcast:
		return 2 * lg
	case alg == RecursiveDoubling && pow == p:
		return lgPow
	case alg == RecursiveDoubling:
		return lgPow + 2
	}
	panic("no round count for " + alg)
}

func roots(op vef.Op, p int) []int {
	if !rooted(op) {
		return []int{0}
	}
	rs := []int{0}
	for _, r := range []int{1, p / 2, p - 1} {
		if r < p && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	return rs
}

// TestEveryAlgorithm lowers every op with each of its algorithms, for
// sizes from 1 to 100 and several roots, and checks the parts agree
// (lower), the round count, and that the data gets where the collective
// says (flow).
func TestEveryAlgorithm(t *testing.T) {
	for op := vef.Broadcast; op <= vef.Alltoall; op++ {
		for _, alg := range Algorithms(op) {
			for _, p := range sizes {
				for _, root := range roots(op, p) {
					for _, variant := range []int64{0, 1}[:1+btoi(op == vef.Alltoall)] {
						s := makeSpec(op, alg, p, root, variant)
						if got, want := s.Rounds(), wantRounds(op, alg, p); got != want {
							t.Errorf("%s %s P=%d: Rounds() = %d, want %d", op, alg, p, got, want)
						}
						if err := flow(&s, lower(t, &s)); err != nil {
							t.Errorf("%s %s P=%d root %d variant %d: %v", op, alg, p, root, variant, err)
						}
					}
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDefaultAlgorithm: "" lowers as the first of Algorithms.
func TestDefaultAlgorithm(t *testing.T) {
	for op := vef.Broadcast; op <= vef.Alltoall; op++ {
		def := makeSpec(op, "", 13, 5, 0)
		named := makeSpec(op, Algorithms(op)[0], 13, 5, 0)
		if a, b := lower(t, &def), lower(t, &named); !slices.Equal(a, b) {
			t.Errorf("%s: \"\" lowers otherwise than %s", op, Algorithms(op)[0])
		}
	}
}

// flow runs the transfers round by round and checks what each rank holds
// at the end. A message carries what its sender held when the round
// began, never what the sender receives in the same round: this is the
// replay's order (a rank sends, then waits for its receive), so a rank
// that forwarded data before receiving it fails here.
func flow(s *Spec, ts []Transfer) error {
	switch s.Op {
	case vef.Broadcast:
		return broadcastFlow(s, ts)
	case vef.Reduce:
		return reduceFlow(s, ts, func(Transfer, set) int64 { return s.RecvBytes[s.Root] })
	case vef.Gather:
		return reduceFlow(s, ts, func(_ Transfer, held set) int64 { return held.sumOver(s.SendBytes) })
	case vef.Scatter:
		return scatterFlow(s, ts)
	case vef.Allreduce:
		if s.Algorithm == Ring {
			return ringFlow(s, ts)
		}
		return everyoneFlow(s, ts, s.SendBytes[0])
	case vef.Allgather:
		return allgatherFlow(s, ts)
	case vef.Barrier:
		return everyoneFlow(s, ts, 0)
	case vef.Alltoall:
		return alltoallFlow(s, ts)
	}
	return fmt.Errorf("no flow check for %s", s.Op)
}

// carry gives a message's payload from its sender's holding at the start
// of the round, or an error.
type carry func(t Transfer, held set) (set, error)

// simulate starts every rank with init(rank) and runs the rounds: in each,
// every payload is taken from the holdings as they were at the round's
// start, then added to the receivers'.
func simulate(p int, ts []Transfer, init func(rank int) set, c carry) ([]set, error) {
	held := make([]set, p)
	for i := range held {
		held[i] = init(i)
	}
	for start := 0; start < len(ts); {
		end := start
		for end < len(ts) && ts[end].Round == ts[start].Round {
			end++
		}
		payloads := make([]set, end-start)
		for i, t := range ts[start:end] {
			pl, err := c(t, held[t.From])
			if err != nil {
				return nil, fmt.Errorf("%+v: %w", t, err)
			}
			payloads[i] = pl.clone()
		}
		for i, t := range ts[start:end] {
			held[t.To].union(payloads[i])
		}
		start = end
	}
	return held, nil
}

func own(p int) func(int) set {
	return func(i int) set { s := newSet(p); s.add(i); return s }
}

func all(p int) set {
	s := newSet(p)
	for i := range p {
		s.add(i)
	}
	return s
}

// everyHolds checks that every rank ends with all p contributions.
func everyHolds(held []set, p int) error {
	for i, h := range held {
		if h.count() != p {
			return fmt.Errorf("rank %d ends with %d of %d contributions", i, h.count(), p)
		}
	}
	return nil
}

func broadcastFlow(s *Spec, ts []Transfer) error {
	if err := spreads(s, ts); err != nil {
		return err
	}
	x := s.SendBytes[s.Root]
	held, err := simulate(s.Size, ts, own(s.Size), func(t Transfer, h set) (set, error) {
		if !h.has(s.Root) {
			return nil, fmt.Errorf("rank %d sends before it has the root's data", t.From)
		}
		if t.Bytes != x {
			return nil, fmt.Errorf("%d bytes, want X = %d", t.Bytes, x)
		}
		return h, nil
	})
	if err != nil {
		return err
	}
	for i, h := range held {
		if !h.has(s.Root) {
			return fmt.Errorf("rank %d never gets the root's data", i)
		}
	}
	return nil
}

// reduceFlow checks a reduce or gather: a message carries everything its
// sender holds, of size(t, held) bytes, and the root ends with everything.
func reduceFlow(s *Spec, ts []Transfer, size func(Transfer, set) int64) error {
	if err := gathers(s, ts); err != nil {
		return err
	}
	held, err := simulate(s.Size, ts, own(s.Size), func(t Transfer, h set) (set, error) {
		if want := size(t, h); t.Bytes != want {
			return nil, fmt.Errorf("%d bytes, want %d for the %d contributions held", t.Bytes, want, h.count())
		}
		return h, nil
	})
	if err != nil {
		return err
	}
	if n := held[s.Root].count(); n != s.Size {
		return fmt.Errorf("the root ends with %d of %d contributions", n, s.Size)
	}
	return nil
}

// scatterFlow: the root holds every block; a message to rank w carries the
// blocks of w and of every rank w forwards to, directly or not (found by
// walking the transfers backwards), which its sender must hold.
func scatterFlow(s *Spec, ts []Transfer) error {
	if err := spreads(s, ts); err != nil {
		return err
	}
	p := s.Size
	below := make([]set, p)
	for i := range below {
		below[i] = own(p)(i)
	}
	payload := make(map[Transfer]set, len(ts))
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		payload[t] = below[t.To].clone()
		below[t.From].union(below[t.To])
	}
	held, err := simulate(p, ts, func(i int) set {
		if i == s.Root {
			return all(p)
		}
		return newSet(p)
	}, func(t Transfer, h set) (set, error) {
		pl := payload[t]
		if !pl.subsetOf(h) {
			return nil, fmt.Errorf("rank %d forwards blocks it does not hold yet", t.From)
		}
		if want := pl.sumOver(s.RecvBytes); t.Bytes != want {
			return nil, fmt.Errorf("%d bytes, want %d for the %d blocks of rank %d's subtree", t.Bytes, want, pl.count(), t.To)
		}
		return pl, nil
	})
	if err != nil {
		return err
	}
	for i, h := range held {
		if !h.has(i) {
			return fmt.Errorf("rank %d never gets its block", i)
		}
	}
	return nil
}

// spreads checks a broadcast's or scatter's shape: the root receives
// nothing, every other rank receives exactly once, before all its sends.
func spreads(s *Spec, ts []Transfer) error {
	recvRound := make([]int, s.Size)
	for i := range recvRound {
		recvRound[i] = -1
	}
	for _, t := range ts {
		if t.To == s.Root || recvRound[t.To] >= 0 {
			return fmt.Errorf("%+v: the root or a rank that already received receives", t)
		}
		recvRound[t.To] = t.Round
	}
	for _, t := range ts {
		if t.From != s.Root && (recvRound[t.From] < 0 || recvRound[t.From] >= t.Round) {
			return fmt.Errorf("%+v: rank %d sends in a round not after its receive (round %d)", t, t.From, recvRound[t.From])
		}
	}
	return nil
}

// gathers checks a reduce's or gather's shape: the root sends nothing,
// every other rank sends exactly once, after all its receives.
func gathers(s *Spec, ts []Transfer) error {
	sendRound := make([]int, s.Size)
	for i := range sendRound {
		sendRound[i] = -1
	}
	for _, t := range ts {
		if t.From == s.Root || sendRound[t.From] >= 0 {
			return fmt.Errorf("%+v: the root or a rank that already sent sends", t)
		}
		sendRound[t.From] = t.Round
	}
	for i, r := range sendRound {
		if i != s.Root && r < 0 {
			return fmt.Errorf("rank %d never sends", i)
		}
	}
	for _, t := range ts {
		if t.To != s.Root && sendRound[t.To] <= t.Round {
			return fmt.Errorf("%+v: rank %d receives in a round not before its send (round %d)", t, t.To, sendRound[t.To])
		}
	}
	return nil
}

// everyoneFlow: messages of x bytes carry all the sender holds, and every
// rank ends with every contribution (an allreduce; a barrier, where
// holding is having heard from).
func everyoneFlow(s *Spec, ts []Transfer, x int64) error {
	held, err := simulate(s.Size, ts, own(s.Size), func(t Transfer, h set) (set, error) {
		if t.Bytes != x {
			return nil, fmt.Errorf("%d bytes, want %d", t.Bytes, x)
		}
		return h, nil
	})
	if err != nil {
		return err
	}
	return everyHolds(held, s.Size)
}

// ringFlow follows the ring allreduce chunk by chunk. Chunk c of rank i
// holds a set of contributions, {i} at first. In reduce-scatter round k
// (k < P-1) rank i sends chunk (i-k) mod P to i+1, which adds it to its
// own; in allgather round P-1+k it sends chunk (i+1-k) mod P, by then
// complete. Every chunk of every rank must end complete.
func ringFlow(s *Spec, ts []Transfer) error {
	p := s.Size
	chunk := (s.SendBytes[0] + int64(p) - 1) / int64(p)
	held := make([][]set, p)
	for i := range held {
		held[i] = make([]set, p)
		for c := range held[i] {
			held[i][c] = own(p)(i)
		}
	}
	for start := 0; start < len(ts); start += p {
		round := ts[start:min(start+p, len(ts))]
		sent := make([]set, len(round))
		for j, t := range round {
			k := t.Round
			if t.To != (t.From+1)%p || t.Bytes != chunk || t.Round != round[0].Round {
				return fmt.Errorf("%+v: want rank+1, %d bytes, %d messages a round", t, chunk, p)
			}
			c := (t.From - k%(p-1) + btoi(k >= p-1) + 2*p) % p
			sent[j] = held[t.From][c].clone()
		}
		for j, t := range round {
			k := t.Round
			c := (t.From - k%(p-1) + btoi(k >= p-1) + 2*p) % p
			held[t.To][c].union(sent[j])
		}
	}
	for i := range held {
		if err := everyHolds(held[i], p); err != nil {
			return fmt.Errorf("rank %d: chunks: %w", i, err)
		}
	}
	return nil
}

// allgatherFlow: in round k rank i sends the block of rank (i-k) mod P,
// which it must hold, of that rank's size; every rank ends with every
// block.
func allgatherFlow(s *Spec, ts []Transfer) error {
	p := s.Size
	held, err := simulate(p, ts, own(p), func(t Transfer, h set) (set, error) {
		b := ((t.From-t.Round)%p + p) % p
		if !h.has(b) {
			return nil, fmt.Errorf("rank %d sends block %d before it has it", t.From, b)
		}
		if t.Bytes != s.SendBytes[b] {
			return nil, fmt.Errorf("%d bytes, want block %d's %d", t.Bytes, b, s.SendBytes[b])
		}
		return own(p)(b), nil
	})
	if err != nil {
		return err
	}
	return everyHolds(held, p)
}

// alltoallFlow: every rank receives exactly one message from each other
// rank, of the sender's size for one peer.
func alltoallFlow(s *Spec, ts []Transfer) error {
	p := s.Size
	got := make([]int, p*p)
	for _, t := range ts {
		want := s.SendBytes[t.From]
		if s.RecvBytes[t.From] == 1 {
			want = (want + int64(p) - 1) / int64(p)
		}
		if t.Bytes != want {
			return fmt.Errorf("%+v: want %d bytes", t, want)
		}
		got[t.To*p+t.From]++
	}
	for to := range p {
		for from := range p {
			if n := got[to*p+from]; n != btoi(from != to) {
				return fmt.Errorf("rank %d receives %d messages from rank %d", to, n, from)
			}
		}
	}
	return nil
}

// TestSaturatedSizes: sums of blocks stop at the largest int64, and a
// chunk of the largest size does not overflow.
func TestSaturatedSizes(t *testing.T) {
	big := int64(math.MaxInt64 - 1)
	g := Spec{Op: vef.Gather, Size: 4, SendBytes: []int64{1, 1, big, big}, RecvBytes: []int64{math.MaxInt64, 0, 0, 0}}
	part := g.Part(2, nil)
	if len(part) != 2 || part[1].Send == nil || part[1].Send.Bytes != math.MaxInt64 {
		t.Fatalf("rank 2's part = %+v, want its send of the largest int64 in round 1", part)
	}
	r := allreduceSpec(3, math.MaxInt64, Ring)
	if got, want := r.Part(0, nil)[0].Send.Bytes, int64(math.MaxInt64/3+1); got != want {
		t.Errorf("ring chunk of the largest size over 3 = %d, want %d", got, want)
	}
}

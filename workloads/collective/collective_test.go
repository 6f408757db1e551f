package collective

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/workloads/vef"
)

// tr is a transfer, written short for the tables.
func tr(round, from, to int, bytes int64) Transfer {
	return Transfer{Round: round, From: from, To: to, Bytes: bytes}
}

// ring lists, for rounds first .. first+n-1, rank i sending bytes(i, k) to
// (i+step(k)) mod p, k counting from 0.
func ring(p, first, n int, step func(k int) int, bytes func(i, k int) int64) []Transfer {
	var ts []Transfer
	for k := range n {
		for i := range p {
			ts = append(ts, tr(first+k, i, (i+step(k))%p, bytes(i, k)))
		}
	}
	return ts
}

func one(int) int { return 1 }

// bytesOf is every message the same size.
func bytesOf(x int64) func(int, int) int64 { return func(int, int) int64 { return x } }

// TestExactTransfers holds the transfers of small collectives, worked out
// by hand from the algorithms' definitions; each comment says how.
func TestExactTransfers(t *testing.T) {
	x4 := []int64{1, 2, 3, 4}
	x5 := []int64{1, 2, 3, 4, 5}
	tests := []struct {
		name string
		spec Spec
		want []Transfer
	}{
		{
			// Relative ranks are ranks. Round 0: 0→1; round 1: 0→2, 1→3.
			"broadcast binomial P=4 root 0",
			broadcastSpec(4, 0, 10, ""),
			[]Transfer{tr(0, 0, 1, 10), tr(1, 0, 2, 10), tr(1, 1, 3, 10)},
		},
		{
			// v = rank-2 mod 5, rank = v+2 mod 5. Round 0: v0→v1 (2→3);
			// round 1: v0→v2 (2→4), v1→v3 (3→0); round 2: v0→v4 (2→1).
			"broadcast binomial P=5 root 2",
			broadcastSpec(5, 2, 10, ""),
			[]Transfer{tr(0, 2, 3, 10), tr(1, 2, 4, 10), tr(1, 3, 0, 10), tr(2, 2, 1, 10)},
		},
		{
			// Relative rank k+1 (rank k+2 mod 4) in round k: 1→2, 1→3, 1→0.
			"broadcast flat P=4 root 1",
			broadcastSpec(4, 1, 5, Flat),
			[]Transfer{tr(0, 1, 2, 5), tr(1, 1, 3, 5), tr(2, 1, 0, 5)},
		},
		{
			// Round 0: odd ranks to the one below (1→0, 3→2); round 1: 2→0.
			"reduce binomial P=4 root 0",
			reduceSpec(4, 0, 10, ""),
			[]Transfer{tr(0, 1, 0, 10), tr(0, 3, 2, 10), tr(1, 2, 0, 10)},
		},
		{
			// v = rank-2 mod 5. Round 0: v1→v0 (3→2), v3→v2 (0→4); round 1:
			// v2→v0 (4→2); round 2: v4→v0 (1→2).
			"reduce binomial P=5 root 2",
			reduceSpec(5, 2, 10, ""),
			[]Transfer{tr(0, 0, 4, 10), tr(0, 3, 2, 10), tr(1, 4, 2, 10), tr(2, 1, 2, 10)},
		},
		{
			// Round 0: 0↔1, 2↔3; round 1: 0↔2, 1↔3; 8 bytes each.
			"allreduce recursive_doubling P=4",
			allreduceSpec(4, 8, ""),
			[]Transfer{
				tr(0, 0, 1, 8), tr(0, 1, 0, 8), tr(0, 2, 3, 8), tr(0, 3, 2, 8),
				tr(1, 0, 2, 8), tr(1, 1, 3, 8), tr(1, 2, 0, 8), tr(1, 3, 1, 8),
			},
		},
		{
			// p' = 4: rank 4 folds into 0 (round 0), 0..3 exchange as for
			// P=4 in rounds 1 and 2, 0 gives the result back to 4 (round 3).
			"allreduce recursive_doubling P=5",
			allreduceSpec(5, 8, ""),
			[]Transfer{
				tr(0, 4, 0, 8),
				tr(1, 0, 1, 8), tr(1, 1, 0, 8), tr(1, 2, 3, 8), tr(1, 3, 2, 8),
				tr(2, 0, 2, 8), tr(2, 1, 3, 8), tr(2, 2, 0, 8), tr(2, 3, 1, 8),
				tr(3, 0, 4, 8),
			},
		},
		{
			// 2(P-1) = 6 rounds of i→i+1, ⌈10/4⌉ = 3 bytes.
			"allreduce ring P=4",
			allreduceSpec(4, 10, Ring),
			ring(4, 0, 6, one, bytesOf(3)),
		},
		{
			// 8 rounds of i→i+1, ⌈10/5⌉ = 2 bytes.
			"allreduce ring P=5",
			allreduceSpec(5, 10, Ring),
			ring(5, 0, 8, one, bytesOf(2)),
		},
		{
			// Reduce to 0 in rounds 0-2 (1→0, 3→2; 2→0; 4→0), broadcast
			// from 0 in rounds 3-5 (0→1; 0→2, 1→3; 0→4).
			"allreduce reduce_broadcast P=5",
			allreduceSpec(5, 8, ReduceBroadcast),
			[]Transfer{
				tr(0, 1, 0, 8), tr(0, 3, 2, 8), tr(1, 2, 0, 8), tr(2, 4, 0, 8),
				tr(3, 0, 1, 8), tr(4, 0, 2, 8), tr(4, 1, 3, 8), tr(5, 0, 4, 8),
			},
		},
		{
			// Round 0: 1→0 with X1 = 2, 3→2 with X3 = 4; round 1: 2→0
			// with X2+X3 = 3+4 = 7. The root ends with 1+2+7 = 10 = ΣX.
			"gather binomial P=4 root 0",
			gatherSpec(x4, 0, ""),
			[]Transfer{tr(0, 1, 0, 2), tr(0, 3, 2, 4), tr(1, 2, 0, 7)},
		},
		{
			// Round 0: 1→0 (2), 3→2 (4); round 1: 2→0 (3+4 = 7); round
			// 2: 4→0 (5). The root ends with 1+2+7+5 = 15.
			"gather binomial P=5 root 0",
			gatherSpec(x5, 0, ""),
			[]Transfer{tr(0, 1, 0, 2), tr(0, 3, 2, 4), tr(1, 2, 0, 7), tr(2, 4, 0, 5)},
		},
		{
			// v = rank-3 mod 5: v0..v4 are ranks 3, 4, 0, 1, 2. Round 0:
			// v1→v0 (4→3, X4 = 5), v3→v2 (1→0, X1 = 2); round 1: v2→v0
			// (0→3, X0+X1 = 3); round 2: v4→v0 (2→3, X2 = 3). The root
			// ends with 4+5+3+3 = 15.
			"gather binomial P=5 root 3",
			gatherSpec(x5, 3, ""),
			[]Transfer{tr(0, 1, 0, 2), tr(0, 4, 3, 5), tr(1, 0, 3, 3), tr(2, 2, 3, 3)},
		},
		{
			// Rank k+1 sends its X in round k.
			"gather flat P=5 root 0",
			gatherSpec(x5, 0, Flat),
			[]Transfer{tr(0, 1, 0, 2), tr(1, 2, 0, 3), tr(2, 3, 0, 4), tr(3, 4, 0, 5)},
		},
		{
			// Round 0: 0→1 with the blocks of 1 and 3 (2+4 = 6); round 1:
			// 0→2 with block 2 (3), 1→3 with block 3 (4).
			"scatter binomial P=4 root 0",
			scatterSpec(x4, 0, ""),
			[]Transfer{tr(0, 0, 1, 6), tr(1, 0, 2, 3), tr(1, 1, 3, 4)},
		},
		{
			// Round 0: 0→1 with blocks 1, 3 (2+4 = 6; 1 forwards to 3 in
			// round 1 and to 5 in round 2, which does not exist); round 1:
			// 0→2 (3), 1→3 (4); round 2: 0→4 (5).
			"scatter binomial P=5 root 0",
			scatterSpec(x5, 0, ""),
			[]Transfer{tr(0, 0, 1, 6), tr(1, 0, 2, 3), tr(1, 1, 3, 4), tr(2, 0, 4, 5)},
		},
		{
			// Round k: i→i+1 with the block of rank i-k mod 4.
			"allgather ring P=4",
			allgatherSpec(x4, ""),
			[]Transfer{
				tr(0, 0, 1, 1), tr(0, 1, 2, 2), tr(0, 2, 3, 3), tr(0, 3, 0, 4),
				tr(1, 0, 1, 4), tr(1, 1, 2, 1), tr(1, 2, 3, 2), tr(1, 3, 0, 3),
				tr(2, 0, 1, 3), tr(2, 1, 2, 4), tr(2, 2, 3, 1), tr(2, 3, 0, 2),
			},
		},
		{
			// Round k: i→i+1 with the block of rank i-k mod 5.
			"allgather ring P=5",
			allgatherSpec(x5, ""),
			[]Transfer{
				tr(0, 0, 1, 1), tr(0, 1, 2, 2), tr(0, 2, 3, 3), tr(0, 3, 4, 4), tr(0, 4, 0, 5),
				tr(1, 0, 1, 5), tr(1, 1, 2, 1), tr(1, 2, 3, 2), tr(1, 3, 4, 3), tr(1, 4, 0, 4),
				tr(2, 0, 1, 4), tr(2, 1, 2, 5), tr(2, 2, 3, 1), tr(2, 3, 4, 2), tr(2, 4, 0, 3),
				tr(3, 0, 1, 3), tr(3, 1, 2, 4), tr(3, 2, 3, 5), tr(3, 3, 4, 1), tr(3, 4, 0, 2),
			},
		},
		{
			// Round 0: i→i+1; round 1: i→i+2 (mod 4).
			"barrier dissemination P=4",
			barrierSpec(4),
			ring(4, 0, 2, func(k int) int { return 1 << k }, bytesOf(0)),
		},
		{
			// Rounds 0, 1, 2: i→i+1, i+2, i+4 (mod 5).
			"barrier dissemination P=5",
			barrierSpec(5),
			ring(5, 0, 3, func(k int) int { return 1 << k }, bytesOf(0)),
		},
		{
			// Round k-1: i→i+k with its send_bytes.
			"alltoall pairwise P=4",
			alltoallSpec([]int64{10, 20, 30, 40}, 0),
			ring(4, 0, 3, func(k int) int { return k + 1 }, func(i, _ int) int64 { return []int64{10, 20, 30, 40}[i] }),
		},
		{
			// Vector: ⌈[9 10 11 0 1]/5⌉ = 2 2 3 0 1 to each peer.
			"alltoall pairwise vector P=5",
			alltoallSpec([]int64{9, 10, 11, 0, 1}, 1),
			ring(5, 0, 4, func(k int) int { return k + 1 }, func(i, _ int) int64 { return []int64{2, 2, 3, 0, 1}[i] }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lower(t, &tt.spec)
			want := slices.Clone(tt.want)
			slices.SortFunc(want, byRoundFrom)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("transfers\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestAlgorithms(t *testing.T) {
	want := map[vef.Op][]string{
		vef.Broadcast: {Binomial, Flat},
		vef.Reduce:    {Binomial, Flat},
		vef.Allreduce: {RecursiveDoubling, Ring, ReduceBroadcast},
		vef.Gather:    {Binomial, Flat},
		vef.Scatter:   {Binomial, Flat},
		vef.Allgather: {Ring},
		vef.Barrier:   {Dissemination},
		vef.Alltoall:  {Pairwise},
	}
	for op := vef.Broadcast; op <= vef.Alltoall; op++ {
		if got := Algorithms(op); !reflect.DeepEqual(got, want[op]) {
			t.Errorf("Algorithms(%s) = %v, want %v", op, got, want[op])
		}
	}
	if got := Algorithms(vef.Alltoall + 1); got != nil {
		t.Errorf("Algorithms(8) = %v, want nil", got)
	}
	Algorithms(vef.Broadcast)[0] = "changed"
	if Algorithms(vef.Broadcast)[0] != Binomial {
		t.Error("a caller's change to Algorithms' slice changed the next answer")
	}
}

func TestCheck(t *testing.T) {
	ok := broadcastSpec(4, 1, 10, "")
	tests := []struct {
		name  string
		edit  func(s *Spec)
		wants []string // substrings of the error; none: no error
	}{
		{"valid", func(*Spec) {}, nil},
		{"valid flat", func(s *Spec) { s.Algorithm = Flat }, nil},
		{"algorithm of another op", func(s *Spec) { s.Algorithm = Ring }, []string{`"ring"`, "broadcast", "allowed binomial, flat"}},
		{"unknown algorithm", func(s *Spec) { s.Algorithm = "tree" }, []string{`"tree"`, "allowed binomial, flat"}},
		{"unknown op", func(s *Spec) { s.Op = 8 }, []string{"op 8 is not a collective"}},
		{"size 0", func(s *Spec) { s.Size, s.SendBytes, s.RecvBytes = 0, nil, nil }, []string{"size 0: at least 1"}},
		{"root too high", func(s *Spec) { s.Root = 4 }, []string{"root 4: outside [0, 4)"}},
		{"root negative", func(s *Spec) { s.Root = -1 }, []string{"root -1"}},
		{"short send_bytes", func(s *Spec) { s.SendBytes = s.SendBytes[:3] }, []string{"send_bytes has 3 entries, not the size 4"}},
		{"long recv_bytes", func(s *Spec) { s.RecvBytes = append(s.RecvBytes, 0) }, []string{"recv_bytes has 5 entries"}},
		{"negative size", func(s *Spec) { s.RecvBytes[2] = -1 }, []string{"recv_bytes[2] is -1"}},
		{"every problem", func(s *Spec) { s.Algorithm, s.Root = "x", 9 }, []string{`"x"`, "root 9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			s.SendBytes, s.RecvBytes = slices.Clone(ok.SendBytes), slices.Clone(ok.RecvBytes)
			tt.edit(&s)
			err := s.Check()
			if tt.wants == nil {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check() = nil, want an error with %q", tt.wants)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check() = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestCheckOpSpecific(t *testing.T) {
	a := alltoallSpec([]int64{1, 2, 3}, 0)
	a.RecvBytes[1] = 2
	if err := a.Check(); err == nil || !strings.Contains(err.Error(), "flag is 0 or 1") {
		t.Errorf("alltoall with flag 2: Check() = %v", err)
	}
	b := barrierSpec(3)
	b.Root = 7 // not rooted: ignored
	if err := b.Check(); err != nil {
		t.Errorf("barrier with root 7: Check() = %v, want nil", err)
	}
	r := allreduceSpec(4, 8, Binomial)
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), "allowed recursive_doubling, ring, reduce_broadcast") {
		t.Errorf("allreduce binomial: Check() = %v", err)
	}
}

func TestSizeOne(t *testing.T) {
	for op := vef.Broadcast; op <= vef.Alltoall; op++ {
		for _, alg := range Algorithms(op) {
			s := makeSpec(op, alg, 1, 0, 0)
			if err := s.Check(); err != nil {
				t.Fatalf("%s %s P=1: %v", op, alg, err)
			}
			if r := s.Rounds(); r != 0 {
				t.Errorf("%s %s P=1: Rounds() = %d, want 0", op, alg, r)
			}
			if part := s.Part(0, nil); len(part) != 0 {
				t.Errorf("%s %s P=1: Part(0) = %v, want none", op, alg, part)
			}
		}
	}
}

func TestZeroByteBroadcast(t *testing.T) {
	// No part of the trace tells the root apart; the given root serves.
	s := broadcastSpec(4, 3, 0, "")
	want := []Transfer{tr(0, 3, 0, 0), tr(1, 3, 1, 0), tr(1, 0, 2, 0)}
	slices.SortFunc(want, byRoundFrom)
	if got := lower(t, &s); !reflect.DeepEqual(got, want) {
		t.Errorf("transfers\n got %v\nwant %v", got, want)
	}
}

func TestPartReusesBuf(t *testing.T) {
	s := alltoallSpec(make([]int64, 8), 0)
	buf := make([]Round, 3, 16)
	buf[0].Send = &Transfer{Round: 99}
	got := s.Part(2, buf)
	if len(got) != 7 || &got[0] != &buf[:1][0] {
		t.Fatalf("Part did not append to buf[:0]: len %d", len(got))
	}
	if got[0].Send.Round != 0 || got[0].Recv == nil {
		t.Errorf("round 0 = %+v, want a fresh send and receive", got[0])
	}
	if p := s.Part(-1, buf); len(p) != 0 {
		t.Errorf("Part(-1) = %v, want none", p)
	}
	if p := s.Part(8, buf); len(p) != 0 {
		t.Errorf("Part(8) = %v, want none", p)
	}
}

func TestPartAllocatesOnce(t *testing.T) {
	for _, s := range []Spec{
		alltoallSpec(make([]int64, 512), 1),
		allreduceSpec(512, 1<<20, ""),
		allreduceSpec(500, 1<<20, ""),
		allreduceSpec(512, 1<<20, Ring),
		allgatherSpec(make([]int64, 512), ""),
		barrierSpec(512),
	} {
		buf := make([]Round, 0, 2*s.Size)
		if n := testing.AllocsPerRun(10, func() { buf = s.Part(s.Size-1, buf) }); n > 1 {
			t.Errorf("%s %s: Part allocates %v times, want at most 1", s.Op, s.Algorithm, n)
		}
	}
}

func TestIndex(t *testing.T) {
	if got := tr(3, 5, 1, 0).Index(7); got != 26 {
		t.Errorf("Index = %d, want 3*7+5 = 26", got)
	}
	if got := tr(1<<20, 1<<20-1, 0, 0).Index(1 << 20); got != 1<<40+1<<20-1 {
		t.Errorf("Index does not hold 2^40: %d", got)
	}
}

// TestSizeSources: X comes from the one field VEF.md's op table gives it
// in: the root's send_bytes for a broadcast, the root's recv_bytes for a
// reduce, rank 0's send_bytes for an allreduce; the other ranks' fields
// do not count.
func TestSizeSources(t *testing.T) {
	b := Spec{Op: vef.Broadcast, Size: 3, Root: 1, SendBytes: []int64{7, 5, 7}, RecvBytes: []int64{9, 9, 9}}
	r := Spec{Op: vef.Reduce, Size: 3, Root: 1, SendBytes: []int64{7, 7, 7}, RecvBytes: []int64{9, 5, 9}}
	a := Spec{Op: vef.Allreduce, Size: 3, SendBytes: []int64{5, 7, 7}, RecvBytes: []int64{9, 9, 9}}
	for _, s := range []Spec{b, r, a} {
		for _, tr := range lower(t, &s) {
			if tr.Bytes != 5 {
				t.Errorf("%s: %+v, want 5 bytes", s.Op, tr)
			}
		}
	}
}

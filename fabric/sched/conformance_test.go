package sched

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

// randomHeads draws n decisions of eligible heads for cfg from a fixed seed:
// each VL is eligible with probability 0.6 (at least one always is), with a
// head of one of the SCs mapped to it.
func randomHeads(cfg Config, n int, seed uint64) [][]Head {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	vlSCs := make([][]int, cfg.NumVLs)
	for sc, vl := range cfg.SC2VL {
		vlSCs[vl] = append(vlSCs[vl], sc)
	}
	seq := make([][]Head, n)
	for d := range seq {
		for vl, scs := range vlSCs {
			if len(scs) > 0 && rng.Float64() < 0.6 {
				seq[d] = append(seq[d], headOfSC(cfg, vl, scs[rng.IntN(len(scs))]))
			}
		}
		if len(seq[d]) == 0 {
			sc := rng.IntN(len(cfg.SC2VL))
			seq[d] = []Head{headOfSC(cfg, cfg.SC2VL[sc], sc)}
		}
	}
	return seq
}

func headOfSC(cfg Config, vl, sc int) Head {
	sl := cfg.SC2SL[sc]
	return Head{VL: vl, SC: sc, SL: sl, Credits: cfg.SLs[sl].MTUCredits}
}

// drive feeds seq to a fresh scheduler and returns its picks. With
// pickTwice, Pick is called twice per decision and must answer the same.
// Every decision is committed.
func drive(newS func() (Scheduler, error), seq [][]Head, pickTwice bool) ([]int, error) {
	return driveMiss(newS, seq, pickTwice, nil)
}

// driveMiss is drive with the decisions d where missed[d] holds applied by
// Miss instead of Commit, as the table_feedback view does for a pick that
// could not send. missed is drawn independently of the Eligible flags, so a
// scheduler is fed the same calls whatever the flags say.
func driveMiss(newS func() (Scheduler, error), seq [][]Head, pickTwice bool, missed []bool) ([]int, error) {
	s, err := newS()
	if err != nil {
		return nil, err
	}
	picks := make([]int, len(seq))
	for d, heads := range seq {
		i := s.Pick(heads)
		if i < 0 || i >= len(heads) {
			return nil, fmt.Errorf("decision %d: Pick = %d with %d eligible heads (not work-conserving)", d, i, len(heads))
		}
		if !eligible(heads, heads[i].VL) {
			return nil, fmt.Errorf("decision %d: picked VL %d, not eligible", d, heads[i].VL)
		}
		if pickTwice {
			if j := s.Pick(heads); j != i {
				return nil, fmt.Errorf("decision %d: Pick changed state: %d then %d", d, i, j)
			}
		}
		if missed != nil && missed[d] {
			s.Miss(heads, i)
		} else {
			s.Commit(heads, i)
		}
		picks[d] = heads[i].VL
	}
	return picks, nil
}

// randomMisses marks about one decision in three of n as missed (fixed seed).
func randomMisses(n int, seed uint64) []bool {
	rng := rand.New(rand.NewPCG(seed, 0x3155))
	m := make([]bool, n)
	for d := range m {
		m[d] = rng.IntN(3) == 0
	}
	return m
}

// eligible reports whether VL vl has a head in heads. With an index into
// heads this can only fail through an index error; it is kept explicit.
func eligible(heads []Head, vl int) bool {
	for _, h := range heads {
		if h.VL == vl {
			return true
		}
	}
	return false
}

// checkConformance runs the properties every scheduler must have over seq:
// (a) work-conserving, (b) only eligible VLs, (c) Pick changes nothing
// (Pick twice per decision, and Pick-Pick-Commit picks what Pick-Commit
// picks), (d) two fresh instances fed the same inputs pick the same, (e) the
// picks do not depend on Head.Eligible (the table view needs a scheduler
// blind to whether its pick can send). Miss (the table_feedback view) must
// keep them: (f) with a third of the decisions missed, (a)-(d) hold, and
// (g) the picks with misses do not depend on Head.Eligible either (Miss is
// blind to the flag like Commit).
func checkConformance(newS func() (Scheduler, error), seq [][]Head) error {
	a, err := drive(newS, seq, false)
	if err != nil {
		return fmt.Errorf("(a)/(b): %w", err)
	}
	b, err := drive(newS, seq, false)
	if err != nil {
		return fmt.Errorf("(d): %w", err)
	}
	if d := firstDiff(a, b); d >= 0 {
		return fmt.Errorf("(d): two fresh schedulers differ at decision %d: VL %d vs VL %d", d, a[d], b[d])
	}
	c, err := drive(newS, seq, true)
	if err != nil {
		return fmt.Errorf("(c): %w", err)
	}
	if d := firstDiff(a, c); d >= 0 {
		return fmt.Errorf("(c): Pick-Pick-Commit differs from Pick-Commit at decision %d: VL %d vs VL %d", d, c[d], a[d])
	}
	e, err := drive(newS, withRandomEligible(seq, 0xe1), false)
	if err != nil {
		return fmt.Errorf("(e): %w", err)
	}
	if d := firstDiff(a, e); d >= 0 {
		return fmt.Errorf("(e): random Eligible flags change the pick at decision %d: VL %d vs VL %d", d, e[d], a[d])
	}
	missed := randomMisses(len(seq), 0xf1)
	f, err := driveMiss(newS, seq, false, missed)
	if err != nil {
		return fmt.Errorf("(f): %w", err)
	}
	f2, err := driveMiss(newS, seq, true, missed)
	if err != nil {
		return fmt.Errorf("(f): %w", err)
	}
	if d := firstDiff(f, f2); d >= 0 {
		return fmt.Errorf("(f): with misses, a fresh scheduler calling Pick twice differs at decision %d: VL %d vs VL %d", d, f2[d], f[d])
	}
	g, err := driveMiss(newS, withRandomEligible(seq, 0xe2), false, missed)
	if err != nil {
		return fmt.Errorf("(g): %w", err)
	}
	if d := firstDiff(f, g); d >= 0 {
		return fmt.Errorf("(g): with misses, random Eligible flags change the pick at decision %d: VL %d vs VL %d", d, g[d], f[d])
	}
	return nil
}

// withRandomEligible is a copy of seq with each head's Eligible flag drawn
// at random (fixed seed).
func withRandomEligible(seq [][]Head, seed uint64) [][]Head {
	rng := rand.New(rand.NewPCG(seed, 0xe11))
	out := make([][]Head, len(seq))
	for d, heads := range seq {
		out[d] = append([]Head(nil), heads...)
		for i := range out[d] {
			out[d][i].Eligible = rng.IntN(2) == 0
		}
	}
	return out
}

func firstDiff(a, b []int) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestConformance checks every registered scheduler; registering a new one
// in Default() is all it takes to have it checked here.
func TestConformance(t *testing.T) {
	reg := Default()
	configs := map[string]Config{"paper": paperConfig(), "dedicated": dedicatedConfig()}
	seeds := []uint64{1, 2, 3}
	if testlong.Reduced(t) {
		seeds = seeds[:1]
	}
	for _, name := range reg.Names() {
		for cname, cfg := range configs {
			t.Run(name+"/"+cname, func(t *testing.T) {
				newS := func() (Scheduler, error) { return reg.New(name, cfg) }
				for _, seed := range seeds {
					if err := checkConformance(newS, randomHeads(cfg, 20000, seed)); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
				}
			})
		}
	}
}

// pickMutates advances its pointer in Pick: round-robin, but wrong.
type pickMutates struct{ last, numVLs int }

func (s *pickMutates) Pick(heads []Head) int {
	s.last = (s.last + 1) % s.numVLs
	return firstAtOrAfter(heads, s.last)
}
func (s *pickMutates) Commit([]Head, int) {}
func (s *pickMutates) Miss([]Head, int)   {}

// idles refuses to pick when several VLs compete.
type idles struct{}

func (idles) Pick(heads []Head) int {
	if len(heads) > 1 {
		return -1
	}
	return 0
}
func (idles) Commit([]Head, int) {}
func (idles) Miss([]Head, int)   {}

// peeks reads Eligible: it picks the first eligible head, as a scheduler
// that knows the credits would; the table view forbids it.
type peeks struct{}

func (peeks) Pick(heads []Head) int {
	for i, h := range heads {
		if h.Eligible {
			return i
		}
	}
	return 0
}
func (peeks) Commit([]Head, int) {}
func (peeks) Miss([]Head, int)   {}

// sharedCounter keeps its state where every instance sees it, like a
// package-level variable would.
type sharedCounter struct{ n *int }

func (s sharedCounter) Pick(heads []Head) int { return *s.n % len(heads) }
func (s sharedCounter) Commit([]Head, int)    { *s.n++ }
func (s sharedCounter) Miss([]Head, int)      { *s.n++ }

// missPeeks is round robin over the heads whose Miss reads Eligible: it
// skips one head more when the head missed is flagged eligible.
type missPeeks struct{ n int }

func (s *missPeeks) Pick(heads []Head) int { return s.n % len(heads) }
func (s *missPeeks) Commit([]Head, int)    { s.n++ }
func (s *missPeeks) Miss(heads []Head, i int) {
	s.n++
	if heads[i].Eligible {
		s.n++
	}
}

// missMutatesPick is round robin whose Pick, after a Miss and until the
// next Commit, moves its pointer on every call.
type missMutatesPick struct {
	n      int
	missed bool
}

func (s *missMutatesPick) Pick(heads []Head) int {
	if s.missed {
		s.n++
	}
	return s.n % len(heads)
}
func (s *missMutatesPick) Commit([]Head, int) { s.n++; s.missed = false }
func (s *missMutatesPick) Miss([]Head, int)   { s.n++; s.missed = true }

// TestConformanceCatchesBadSchedulers shows that the checker can fail.
func TestConformanceCatchesBadSchedulers(t *testing.T) {
	cfg := paperConfig()
	seq := randomHeads(cfg, 2000, 7)
	shared := new(int)
	for _, tc := range []struct {
		name string
		newS func() (Scheduler, error)
		want string
	}{
		{"mutating Pick", func() (Scheduler, error) { return &pickMutates{numVLs: 8}, nil }, "(c)"},
		{"idles", func() (Scheduler, error) { return idles{}, nil }, "(a)"},
		{"shared state", func() (Scheduler, error) { return sharedCounter{shared}, nil }, "(d)"},
		{"reads Eligible", func() (Scheduler, error) { return peeks{}, nil }, "(e)"},
		{"Miss leaves Pick impure", func() (Scheduler, error) { return &missMutatesPick{}, nil }, "(f)"},
		{"Miss reads Eligible", func() (Scheduler, error) { return &missPeeks{}, nil }, "(g)"},
	} {
		err := checkConformance(tc.newS, seq)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: checker said %v, want an error starting with %q", tc.name, err, tc.want)
		}
	}
}

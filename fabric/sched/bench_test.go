package sched

import "testing"

// TestPickDoesNotAllocate: Pick runs on the simulation's hot path.
func TestPickDoesNotAllocate(t *testing.T) {
	cfg := paperConfig()
	seq := randomHeads(cfg, 64, 11)
	reg := Default()
	for _, name := range reg.Names() {
		s, err := reg.New(name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		allocs := testing.AllocsPerRun(1000, func() {
			heads := seq[n%len(seq)]
			if i := s.Pick(heads); n%3 == 0 {
				s.Miss(heads, i) // table_feedback: a pick that could not send
			} else {
				s.Commit(heads, i)
			}
			n++
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per Pick+Commit/Miss, want 0", name, allocs)
		}
	}
}

func BenchmarkPickCommit(b *testing.B) {
	cfg := paperConfig()
	seq := randomHeads(cfg, 1024, 13)
	reg := Default()
	for _, name := range reg.Names() {
		b.Run(name, func(b *testing.B) {
			s, err := reg.New(name, cfg)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				heads := seq[i%len(seq)]
				s.Commit(heads, s.Pick(heads))
			}
		})
	}
}

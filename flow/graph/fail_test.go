package graph

import (
	"slices"
	"strings"
	"testing"
)

// TestCables: on a 4-node ring every cable pairs u→v with v→u (8 cables,
// ordered by their lower link); on a ring of 2 the two parallel cables
// pair in id order; a one-way link is a cable of its own.
func TestCables(t *testing.T) {
	ring, _ := NewTorus([]int{4}, 1, 1)
	cs := ring.Cables()
	if len(cs) != 8 {
		t.Fatalf("ring: %d cables, want 8", len(cs))
	}
	seen := map[int32]bool{}
	for i, c := range cs {
		if c.Back < 0 || ring.Tail(c.Fwd) != ring.Head(c.Back) || ring.Head(c.Fwd) != ring.Tail(c.Back) || c.Fwd > c.Back {
			t.Fatalf("ring cable %v: %d→%d, %d→%d", c, ring.Tail(c.Fwd), ring.Head(c.Fwd), ring.Tail(c.Back), ring.Head(c.Back))
		}
		if i > 0 && cs[i-1].Fwd >= c.Fwd || seen[c.Fwd] || seen[c.Back] {
			t.Fatalf("ring cables out of order or repeated: %v", cs)
		}
		seen[c.Fwd], seen[c.Back] = true, true
	}
	// Ring of 2: servers' links 0, 1; switch 2: 2 (to server 0), 3 (+ to
	// 3), 4 (− to 3); switch 3: 5, 6 (+ to 2), 7 (− to 2). Pairs: 3 with
	// 6, 4 with 7.
	two, _ := NewTorus([]int{2}, 1, 1)
	want := []Cable{{0, 2}, {1, 5}, {3, 6}, {4, 7}}
	if got := two.Cables(); !slices.Equal(got, want) {
		t.Errorf("ring of 2: %v, want %v", got, want)
	}
	// Links 0: 0→1, 1: 1→0, 2: 1→2 (one way).
	g, _ := New(1, 2, []Link{{From: 0, To: 1, Capacity: 1}, {From: 1, To: 0, Capacity: 1}, {From: 1, To: 2, Capacity: 1}})
	if got := g.Cables(); !slices.Equal(got, []Cable{{0, 1}, {2, -1}}) {
		t.Errorf("one-way link: %v", got)
	}
}

// TestRemoveLinks: the remaining links keep their order, tails, heads and
// capacities; NewID and OldID are inverse; the server-forwarding flag is
// kept; bad ids are refused.
func TestRemoveLinks(t *testing.T) {
	ring, _ := NewTorus([]int{4}, 1, 1)
	fw := ring.WithServersForward(true)
	f, err := RemoveLinks(fw, []int32{6, 14, 6})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumLinks() != 14 || !slices.Equal(f.Removed, []int32{6, 14}) || f.FailedCables != 0 || !f.ServersForward() || f.Original != fw {
		t.Fatalf("links %d removed %v cables %d forward %t", f.NumLinks(), f.Removed, f.FailedCables, f.ServersForward())
	}
	for l := int32(0); l < int32(ring.NumLinks()); l++ {
		n := f.NewID[l]
		if (n < 0) != (l == 6 || l == 14) {
			t.Fatalf("link %d maps to %d", l, n)
		}
		if n >= 0 && (f.OldID[n] != l || f.Tail(n) != ring.Tail(l) || f.Head(n) != ring.Head(l) || f.Capacity(n) != ring.Capacity(l)) {
			t.Fatalf("link %d → %d: %d→%d, was %d→%d", l, n, f.Tail(n), f.Head(n), ring.Tail(l), ring.Head(l))
		}
	}
	if got := []int32{f.NewID[5], f.NewID[7], f.NewID[15]}; !slices.Equal(got, []int32{5, 6, 13}) {
		t.Errorf("new ids of 5, 7, 15: %v, want 5 6 13", got)
	}
	if _, err := RemoveLinks(ring.Graph, []int32{16}); err == nil || !strings.Contains(err.Error(), "removed link 0: 16 is not allowed") {
		t.Errorf("RemoveLinks(16): %v", err)
	}
}

// TestFailCables: exactly count whole cables fail; the same seed fails
// the same ones, another seed others; fractions round; 0 and all.
func TestFailCables(t *testing.T) {
	tor, _ := NewTorus([]int{8, 8}, 2, 1)
	cables := tor.Cables()
	if len(cables) != tor.NumLinks()/2 {
		t.Fatalf("%d cables of %d links", len(cables), tor.NumLinks())
	}
	a, err := FailCables(tor.Graph, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.FailedCables != 10 || len(a.Removed) != 20 || a.NumLinks() != tor.NumLinks()-20 {
		t.Fatalf("10 cables: %d failed, %d links removed, %d left", a.FailedCables, len(a.Removed), a.NumLinks())
	}
	back := map[int32]int32{}
	for _, c := range cables {
		back[c.Fwd], back[c.Back] = c.Back, c.Fwd
	}
	for _, l := range a.Removed {
		if !slices.Contains(a.Removed, back[l]) {
			t.Fatalf("link %d removed without its reverse %d", l, back[l])
		}
	}
	again, _ := FailCables(tor.Graph, 10, 1)
	other, _ := FailCables(tor.Graph, 10, 2)
	if !slices.Equal(a.Removed, again.Removed) || slices.Equal(a.Removed, other.Removed) {
		t.Errorf("seed 1: %v, again %v, seed 2 %v", a.Removed, again.Removed, other.Removed)
	}
	for _, c := range []struct {
		f    float64
		want int
	}{{0, 0}, {0.1, 26}, {0.5, 128}, {1, 256}} { // 256 cables: 128 server + 2·64 ring
		f, err := FailFraction(tor.Graph, c.f, 3)
		if err != nil {
			t.Fatal(err)
		}
		if f.FailedCables != c.want || f.NumLinks() != tor.NumLinks()-2*c.want {
			t.Errorf("fraction %v: %d cables, %d links; want %d", c.f, f.FailedCables, f.NumLinks(), c.want)
		}
	}
	for _, bad := range []struct {
		err  error
		want string
	}{
		{second(FailCables(tor.Graph, 385, 1)), "failed cables: 385 is not allowed: must be in [0, 256]"},
		{second(FailCables(tor.Graph, -1, 1)), "failed cables: -1"},
		{second(FailFraction(tor.Graph, 1.5, 1)), "failed fraction: 1.5"},
	} {
		if bad.err == nil || !strings.Contains(bad.err.Error(), bad.want) {
			t.Errorf("%v, want %q", bad.err, bad.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

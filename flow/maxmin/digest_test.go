package maxmin

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

// replayDigest runs a fixed sequence of additions (some capped) and
// removals on instances where paths are long and links crowded, as on a
// torus under random traffic, and hashes every Solve's output bit for
// bit: the flows it reports changed, their old and new rates, and the
// number of flows it recomputed. Link v of an instance is link v·stride
// of the solver (the others carry no flow), so that a stride over 1
// gives link ids beyond 16 bits.
func replayDigest(t *testing.T, stride int) string {
	t.Helper()
	h := sha256.New()
	var b [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	for seed := range 8 {
		r := &rng{uint64(seed) + 77}
		links := 30 + r.intn(200)
		caps := make([]float64, (links-1)*stride+1)
		for l := range caps {
			caps[l] = 1
		}
		for v := range links {
			l := v * stride
			caps[l] = float64(1 + r.intn(3))
			if r.chance(0.2) {
				caps[l] = 0.5 + 3*r.float()
			}
		}
		s, err := New(caps)
		if err != nil {
			t.Fatal(err)
		}
		var live []FlowID
		for range 800 {
			for range 1 + r.intn(2) {
				if r.chance(0.6) || len(live) == 0 {
					path := make([]int32, 1+r.intn(12))
					for k := range path {
						path[k] = int32(r.intn(links) * stride)
					}
					c := NoCap
					if r.chance(0.05) {
						c = 0.01 + 0.2*r.float()
					}
					id, err := s.AddFlow(path, c)
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, id)
				} else {
					i := r.intn(len(live))
					if err := s.RemoveFlow(live[i]); err != nil {
						t.Fatal(err)
					}
					live = append(live[:i], live[i+1:]...)
				}
			}
			changed := s.Solve()
			put(uint64(s.Recomputed()))
			put(uint64(len(changed)))
			for i, id := range changed {
				put(uint64(id))
				put(math.Float64bits(s.Previous()[i]))
				put(math.Float64bits(s.Rate(id)))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestReplayDigest pins the incremental solver's output, bit for bit, on
// a fixed sequence: a change meant to make Solve cheaper must leave it
// as it is.
func TestReplayDigest(t *testing.T) {
	const want = "8b64e1d425ca42ed"
	if got := replayDigest(t, 1); got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}

// TestReplayDigestWide is TestReplayDigest with link ids up to about
// 90,000 (stride 397): paths of links beyond 16 bits.
func TestReplayDigestWide(t *testing.T) {
	const want = "5d721eda3672ea79"
	if got := replayDigest(t, 397); got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}

package fabric

import (
	"testing"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

func BenchmarkSpaceFitsTake(b *testing.B) {
	s := newSpace(8, 64, 4, 12)
	for i := 0; i < b.N; i++ {
		vl := i & 7
		if s.Fits(vl, 4) {
			s.Take(vl, 4)
		} else {
			s.Free(vl, s.Used(vl))
		}
	}
}

func BenchmarkInbox(b *testing.B) {
	var in inbox
	for i := 0; i < b.N; i++ {
		in.Push(&messages.Msg{At: clockOf(i % 97), Src: messages.CompID(i % 5)})
		if len(in.keys) > 64 {
			for len(in.keys) > 0 {
				in.Pop()
			}
		}
	}
}

func BenchmarkTimers(b *testing.B) {
	var h timerHeap
	for i := 0; i < b.N; i++ {
		h.Push(timer{At: clockOf(i % 89), Unit: int32(i % 7)})
		if len(h) > 64 {
			for len(h) > 0 {
				h.Pop()
			}
		}
	}
}

func clockOf(i int) clock.Cycle { return clock.Cycle(i) }

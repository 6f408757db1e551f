package distrib

import (
	"encoding/binary"
	"fmt"

	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/messages"
)

// The batch encoding of messages.Msg: per message, a bit mask (uvarint)
// of its non-zero fields, then each of those fields as a zig-zag varint in
// the order of the fields table. Cycles other than At are written as
// their difference from At, which is small: the messages between members
// (packets, credits, late-tail news on the links between switches) take
// about 25 bytes each on average, where a Msg is 168 bytes in memory.
type field struct {
	get func(*messages.Msg) int64
	set func(*messages.Msg, int64)
	// present reports the field non-zero; nil: get is non-zero (a cycle
	// equal to At is non-zero with a difference of 0).
	present func(*messages.Msg) bool
}

func (f *field) isSet(m *messages.Msg) bool {
	if f.present != nil {
		return f.present(m)
	}
	return f.get(m) != 0
}

func cycleField(f func(*messages.Msg) *clock.Cycle) field {
	return field{
		get:     func(m *messages.Msg) int64 { return int64(*f(m) - m.At) },
		set:     func(m *messages.Msg, v int64) { *f(m) = m.At + clock.Cycle(v) },
		present: func(m *messages.Msg) bool { return *f(m) != 0 },
	}
}

func i32Field(f func(*messages.Msg) *int32) field {
	return field{get: func(m *messages.Msg) int64 { return int64(*f(m)) }, set: func(m *messages.Msg, v int64) { *f(m) = int32(v) }}
}

func u8Field[T ~uint8](f func(*messages.Msg) *T) field {
	return field{get: func(m *messages.Msg) int64 { return int64(*f(m)) }, set: func(m *messages.Msg, v int64) { *f(m) = T(v) }}
}

func boolField(f func(*messages.Msg) *bool) field {
	return field{
		get: func(m *messages.Msg) int64 {
			if *f(m) {
				return 1
			}
			return 0
		},
		set: func(m *messages.Msg, v int64) { *f(m) = v != 0 },
	}
}

func u64Field(f func(*messages.Msg) *uint64) field {
	return field{get: func(m *messages.Msg) int64 { return int64(*f(m)) }, set: func(m *messages.Msg, v int64) { *f(m) = uint64(v) }}
}

// fields lists every field of messages.Msg, At first (the others' cycles
// are relative to it). TestCodecCoversMsg fails when Msg gains a field
// this table misses.
var fields = []field{
	{get: func(m *messages.Msg) int64 { return int64(m.At) }, set: func(m *messages.Msg, v int64) { m.At = clock.Cycle(v) }},
	u8Field(func(m *messages.Msg) *messages.Kind { return &m.Kind }),
	{get: func(m *messages.Msg) int64 { return int64(m.Dst) }, set: func(m *messages.Msg, v int64) { m.Dst = messages.CompID(v) }},
	{get: func(m *messages.Msg) int64 { return int64(m.Src) }, set: func(m *messages.Msg, v int64) { m.Src = messages.CompID(v) }},
	i32Field(func(m *messages.Msg) *int32 { return &m.Slot }),
	i32Field(func(m *messages.Msg) *int32 { return &m.VL }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Count }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Out }),
	boolField(func(m *messages.Msg) *bool { return &m.Alone }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Tag }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Queue }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Deadline }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Ready }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.TailAvail }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Start }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.TailOut }),
	u64Field(func(m *messages.Msg) *uint64 { return &m.Pkt.ID }),
	u64Field(func(m *messages.Msg) *uint64 { return &m.Pkt.Msg }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Pkt.Src }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Pkt.Dst }),
	u8Field(func(m *messages.Msg) *messages.SL { return &m.Pkt.SL }),
	u8Field(func(m *messages.Msg) *messages.SC { return &m.Pkt.SC }),
	u8Field(func(m *messages.Msg) *messages.VL { return &m.Pkt.VL }),
	boolField(func(m *messages.Msg) *bool { return &m.Pkt.Last }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Pkt.Flits }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Pkt.Credits }),
	i32Field(func(m *messages.Msg) *int32 { return &m.Pkt.MsgFlits }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Pkt.GenAt }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Pkt.InjAt }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Pkt.Head }),
	cycleField(func(m *messages.Msg) *clock.Cycle { return &m.Pkt.Tail }),
}

// appendMsgs appends the encoding of msgs to dst.
func appendMsgs(dst []byte, msgs []messages.Msg) []byte {
	for i := range msgs {
		m := &msgs[i]
		var mask uint64
		for f := range fields {
			if fields[f].isSet(m) {
				mask |= 1 << f
			}
		}
		dst = binary.AppendUvarint(dst, mask)
		for f := range fields {
			if mask&(1<<f) != 0 {
				dst = binary.AppendVarint(dst, fields[f].get(m))
			}
		}
	}
	return dst
}

// decodeMsgs appends the count messages encoded in b to dst; a batch that
// does not decode to exactly count messages is an error.
func decodeMsgs(dst []messages.Msg, b []byte, count int) ([]messages.Msg, error) {
	for k := 0; k < count; k++ {
		mask, n := binary.Uvarint(b)
		if n <= 0 || mask>>len(fields) != 0 {
			return dst, fmt.Errorf("batch: message %d of %d: bad field mask", k, count)
		}
		b = b[n:]
		var m messages.Msg
		for f := range fields {
			if mask&(1<<f) == 0 {
				continue
			}
			v, n := binary.Varint(b)
			if n <= 0 {
				return dst, fmt.Errorf("batch: message %d of %d: field %d truncated", k, count, f)
			}
			b = b[n:]
			fields[f].set(&m, v)
		}
		dst = append(dst, m)
	}
	if len(b) != 0 {
		return dst, fmt.Errorf("batch: %d bytes left after %d messages", len(b), count)
	}
	return dst, nil
}

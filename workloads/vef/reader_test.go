package vef

import (
	"io"
	"reflect"
	"strings"
	"testing"
)

// example is the 4-task trace of the format description.
const example = Example

func msg(line int, id int64, src, dst int, bytes int64, kind DepKind, t, dep int64) Record {
	return Record{Line: line, Kind: KindMessage, Message: Message{ID: id, Src: src, Dst: dst, Bytes: bytes, Dep: Dep{kind, t, dep}}}
}

func part(line int, gid int64, comm int, op Op, task int, s, r int64, kind DepKind, t, dep int64) Record {
	return Record{Line: line, Kind: KindCollective, Part: Part{GID: gid, Comm: comm, Op: op, Task: task, SendBytes: s, RecvBytes: r, Dep: Dep{kind, t, dep}}}
}

var exampleRecords = []Record{
	msg(4, 0, 0, 1, 1024, Independent, 0, -1),
	msg(5, 1, 1, 2, 2048, AfterReceive, 500, 0),
	msg(6, 2, 2, 3, 4096, AfterReceive, 100, 1),
	part(7, 0, 0, Allreduce, 0, 8, 8, AfterSend, 0, 0),
	part(8, 0, 0, Allreduce, 1, 8, 8, AfterSend, 0, 1),
	part(9, 0, 0, Allreduce, 2, 8, 8, AfterSend, 0, 2),
	part(10, 0, 0, Allreduce, 3, 8, 8, AfterReceive, 0, 2),
	msg(11, 3, 3, 0, 512, AfterCollective, 200, 0),
}

// readAll reads a whole trace: its header, records and the error that
// ended it (nil for io.EOF).
func readAll(r io.Reader) (Header, []Record, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var recs []Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return rd.Header(), recs, nil
		}
		if err != nil {
			return rd.Header(), recs, err
		}
		recs = append(recs, rec)
	}
}

func TestReadExample(t *testing.T) {
	h, recs, err := readAll(strings.NewReader(example))
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Tasks: 4, P2PMessages: 4, Collectives: 1, CollectiveParts: 4,
		Communicators: []Communicator{{0, []int{0, 1, 2, 3}}, {1, []int{0, 1}}}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("header %+v, want %+v", h, want)
	}
	if !reflect.DeepEqual(recs, exampleRecords) {
		t.Errorf("records\n%+v\nwant\n%+v", recs, exampleRecords)
	}
}

// TestValidCollectives: one trace per op, each with the roles its sizes
// take, reads through with the records expected.
func TestValidCollectives(t *testing.T) {
	head := "VEF 3 0 2 1 %d TRUE\nC0 2 0 1\nC1 2 0\n"
	for _, tc := range []struct {
		name, body string
		parts      int
		want       []Record
	}{
		{"broadcast", "G0 1 0 2 64 0 0 0 -1\nG0 1 0 0 0 64 0 5 -1\n", 2,
			[]Record{part(4, 0, 1, Broadcast, 2, 64, 0, Independent, 0, -1), part(5, 0, 1, Broadcast, 0, 0, 64, Independent, 5, -1)}},
		{"reduce", "G0 0 1 0 8 0 0 0 -1\nG0 0 1 1 0 8 0 0 -1\nG0 0 1 2 8 0 0 0 -1\n", 3, nil},
		{"gather", "G0 0 3 0 1 0 0 0 -1\nG0 0 3 1 2 6 0 0 -1\nG0 0 3 2 3 0 0 0 -1\n", 3, nil},
		{"scatter", "G0 0 4 0 0 1 0 0 -1\nG0 0 4 1 6 2 0 0 -1\nG0 0 4 2 0 3 0 0 -1\n", 3, nil},
		{"allgather", "G0 1 5 0 5 9 0 0 -1\nG0 1 5 2 4 9 0 0 -1\n", 2, nil},
		{"barrier, dep on an open collective", "G0 1 6 0 0 0 0 0 -1\nG0 1 6 2 0 0 0 0 -1\n", 2, nil},
		{"alltoall", "G0 1 7 0 16 0 0 0 -1\nG0 1 7 2 16 0 0 0 -1\n", 2, nil},
		{"alltoallv", "G0 1 7 0 16 1 0 0 -1\nG0 1 7 2 48 1 0 0 -1\n", 2, nil},
		{"zero-byte broadcast", "G0 1 0 0 0 0 0 0 -1\nG0 1 0 2 0 0 0 0 -1\n", 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(head, "%d", string(rune('0'+tc.parts)), 1) + tc.body
			_, recs, err := readAll(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.parts {
				t.Fatalf("%d records, want %d", len(recs), tc.parts)
			}
			if tc.want != nil && !reflect.DeepEqual(recs, tc.want) {
				t.Errorf("records\n%+v\nwant\n%+v", recs, tc.want)
			}
		})
	}
}

// TestBlankLines: blank and whitespace-only lines are skipped but counted,
// CRLF line ends and tabs are whitespace.
func TestBlankLines(t *testing.T) {
	in := "\n  \nVEF\t1 1 1 0 0 FALSE\r\n\nC0 0\r\n0 0 0 0 0 7 -1\n\n"
	_, recs, err := readAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Record{msg(6, 0, 0, 0, 0, Independent, 7, -1)}; !reflect.DeepEqual(recs, want) {
		t.Errorf("records %+v, want %+v", recs, want)
	}
}

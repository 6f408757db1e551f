package vef

import (
	"errors"
	"strings"
	"testing"
)

// TestInvalid: each trace fails with the *Error given: its line, field,
// value, and words of what was expected.
func TestInvalid(t *testing.T) {
	const h4 = "VEF 4 2 2 1 2 FALSE\nC0 0 1 2 3\nC1 1 3\n" // lines 1-3
	for _, tc := range []struct {
		name, in     string
		line         int
		field, value string
		expected     string
	}{
		{"empty", "", 1, "magic", "", "a header line"},
		{"magic", "VEG 1 0 1 0 0 FALSE\nC0 0\n", 1, "magic", "VEG", "VEF"},
		{"header fields", "VEF 1 0 1 0 0\n", 1, "fields", "6", "7 fields"},
		{"only_send", "VEF 1 0 1 0 0 yes\nC0 0\n", 1, "only_send", "yes", "TRUE or FALSE"},
		{"malformed count", "VEF 1 1x 1 0 0 FALSE\n", 1, "p2p_messages", "1x", "a decimal integer"},
		{"plus sign", "VEF +1 0 1 0 0 FALSE\n", 1, "tasks", "+1", "a decimal integer"},
		{"no tasks", "VEF 0 0 1 0 0 FALSE\n", 1, "tasks", "0", "1 to"},
		{"no world", "VEF 1 0 0 0 0 FALSE\n", 1, "communicators", "0", "at least 1 (C0"},
		{"parts below collectives", "VEF 2 0 1 3 2 FALSE\n", 1, "collective_parts", "2", "at least collectives (3)"},
		{"parts above", "VEF 2 0 1 1 3 FALSE\n", 1, "collective_parts", "3", "at most collectives × tasks = 1 × 2"},
		{"missing C line", "VEF 2 0 2 0 0 FALSE\nC0 0 1\n", 1, "communicators", "2", "2 C lines; the file ends after 1"},
		{"C out of order", "VEF 2 0 2 0 0 FALSE\nC0 0 1\nC2 0\n", 3, "communicator", "C2", "C1: communicator ids count"},
		{"record for C line", "VEF 2 1 2 0 0 FALSE\nC0 0 1\n0 0 1 8 0 0 -1\n", 3, "communicator", "0", "C1: the header announces 2"},
		{"world incomplete", "VEF 3 0 1 0 0 FALSE\nC0 0 2\n", 2, "C0 tasks", "2", "all 3 tasks"},
		{"comm task range", "VEF 2 0 2 0 0 FALSE\nC0 0 1\nC1 2\n", 3, "task", "2", "a task in [0, 2)"},
		{"comm duplicate", "VEF 2 0 2 0 0 FALSE\nC0 0 1\nC1 1 1\n", 3, "task", "1", "each task once in C1"},
		{"comm empty", "VEF 2 0 2 0 0 FALSE\nC0 0 1\nC1\n", 3, "fields", "1", "C1 followed by at least one task"},
		{"extra C line", "VEF 1 0 1 0 0 FALSE\nC0 0\nC1 0\n", 3, "id", "C1", "the header announces 1 communicators"},
		{"message fields", h4 + "0 0 1 8 0 0\n", 4, "fields", "6", "7 fields: <id> <src>"},
		{"part fields", h4 + "G0 1 6 1 0 0 0 0\n", 4, "fields", "8", "9 fields: G<gid>"},
		{"malformed size", h4 + "0 0 1 8k 0 0 -1\n", 4, "bytes", "8k", "a decimal integer"},
		{"int overflow", h4 + "0 0 1 99999999999999999999 0 0 -1\n", 4, "bytes", "99999999999999999999", "within 64 bits"},
		{"task overflow", h4 + "0 4294967296 1 8 0 0 -1\n", 4, "src", "4294967296", "within 32 bits"},
		{"id order", h4 + "1 0 1 8 0 0 -1\n", 4, "id", "1", "0: message ids count 0, 1, 2"},
		{"too many messages", h4 + "0 0 1 8 0 0 -1\n1 1 0 8 0 0 -1\n2 1 0 8 0 0 -1\n", 6, "id", "2", "at most 2 messages"},
		{"too few messages", "VEF 1 2 1 0 0 FALSE\nC0 0\n0 0 0 8 0 0 -1\n", 1, "p2p_messages", "2", "the body has 1 (the file ends at line 3)"},
		{"src outside tasks", h4 + "0 4 1 8 0 0 -1\n", 4, "src", "4", "a task in [0, 4)"},
		{"negative dst", h4 + "0 0 -1 8 0 0 -1\n", 4, "dst", "-1", "a task in [0, 4)"},
		{"negative bytes", h4 + "0 0 1 -8 0 0 -1\n", 4, "bytes", "-8", "a size of at least 0"},
		{"negative delay", h4 + "0 0 1 8 0 -5 -1\n", 4, "time", "-5", "at least 0 ns"},
		{"dep kind", h4 + "0 0 1 8 4 0 -1\n", 4, "dep", "4", "an integer 0 to 3"},
		{"independent dep_id", h4 + "0 0 1 8 0 0 0\n", 4, "dep_id", "0", "-1 for an independent record"},
		{"dep on itself", h4 + "0 0 1 8 1 0 0\n", 4, "dep_id", "0", "no message comes before"},
		{"dep on later", h4 + "0 0 1 8 0 0 -1\n1 1 3 8 2 0 1\n", 5, "dep_id", "1", "a message id before this record, 0 to 0"},
		{"only_send", "VEF 2 2 1 0 0 TRUE\nC0 0 1\n0 0 1 8 0 0 -1\n1 1 0 8 2 0 0\n", 4, "dep", "2", "only_send is TRUE"},
		{"dep on unknown collective", h4 + "0 0 1 8 3 0 G0\n", 4, "dep_id", "G0", "a collective in which task 0 has a part before"},
		{"dep collective syntax", h4 + "0 0 1 8 3 0 0\n", 4, "dep_id", "0", "G followed by"},
		{"dep on collective not joined", h4 + "G0 1 6 1 0 0 0 0 -1\nG0 1 6 3 0 0 0 0 -1\n0 0 1 8 3 0 G0\n", 6, "dep_id", "G0", "task 0 has a part"},
		{"gid syntax", h4 + "Gx 1 6 1 0 0 0 0 -1\n", 4, "gid", "Gx", "G followed by"},
		{"gid range", h4 + "G1 1 6 1 0 0 0 0 -1\n", 4, "gid", "G1", "G0 to G0 (the header's collectives is 1)"},
		{"unknown communicator", h4 + "G0 2 6 1 0 0 0 0 -1\n", 4, "comm", "2", "a communicator 0 to 1"},
		{"task outside communicator", h4 + "G0 1 6 0 0 0 0 0 -1\n", 4, "task", "0", "a task of C1 (2 tasks: 1 3)"},
		{"task outside tasks", h4 + "G0 0 6 9 0 0 0 0 -1\n", 4, "task", "9", "a task in [0, 4)"},
		{"op range", h4 + "G0 1 8 1 0 0 0 0 -1\n", 4, "op", "8", "a collective op: an integer 0 to 7"},
		{"op differs", h4 + "G0 1 6 1 0 0 0 0 -1\nG0 1 5 3 0 0 0 0 -1\n", 5, "op", "5", "6 (barrier), the op of G0's first part (line 4)"},
		{"comm differs", "VEF 4 0 2 1 2 FALSE\nC0 0 1 2 3\nC1 0 1 2 3\nG0 0 6 1 0 0 0 0 -1\nG0 1 6 3 0 0 0 0 -1\n", 5, "comm", "1", "0, the communicator of G0's first part"},
		{"task twice", h4 + "G0 1 6 1 0 0 0 0 -1\nG0 1 6 1 0 0 0 0 -1\n", 5, "task", "1", "task 1 has one before"},
		{"too many parts", "VEF 2 0 1 1 2 FALSE\nC0 0 1\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n", 5, "gid", "G0", "the header's collective_parts is 2"},
		{"part after complete", "VEF 2 0 1 2 3 FALSE\nC0 0 1\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n", 5, "gid", "G0", "every task of C0 already has its part"},
		{"collective incomplete", h4 + "0 0 1 8 0 0 -1\n1 1 0 8 0 0 -1\nG0 0 6 1 0 0 0 0 -1\nG0 0 6 2 0 0 0 0 -1\n", 6, "gid", "G0", "a part from each of the 4 tasks of C0; the file ends with 2"},
		{"too few collectives", "VEF 2 0 1 2 2 FALSE\nC0 0 1\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n", 1, "collectives", "2", "the body has 1"},
		{"too few parts", "VEF 2 0 1 1 2 FALSE\nC0 0 1\nG0 0 6 0 0 0 0 0 -1\n", 1, "collective_parts", "2", "the body has 1"},
		{"negative send", h4 + "G0 1 6 1 -1 0 0 0 -1\n", 4, "send_bytes", "-1", "a size of at least 0"},
		{"barrier with data", h4 + "G0 1 6 1 0 4 0 0 -1\n", 4, "recv_bytes", "4", "0 for a barrier"},
		{"allreduce sizes", h4 + "G0 1 2 1 8 4 0 0 -1\n", 4, "recv_bytes", "4", "8, equal to send_bytes for an allreduce"},
		{"allreduce zero", h4 + "G0 1 2 1 0 0 0 0 -1\n", 4, "send_bytes", "0", "a non-zero size"},
		{"allreduce X differs", h4 + "G0 1 2 1 8 8 0 0 -1\nG0 1 2 3 16 16 0 0 -1\n", 5, "send_bytes", "16", "8, as in G0's part at line 4 (allreduce)"},
		{"broadcast root recv", h4 + "G0 1 0 1 8 8 0 0 -1\n", 4, "recv_bytes", "8", "0 for the root of a broadcast (send_bytes 8)"},
		{"broadcast two roots", h4 + "G0 1 0 1 8 0 0 0 -1\nG0 1 0 3 8 0 0 0 -1\n", 5, "send_bytes", "8", "G0 has its root at line 4"},
		{"broadcast no root", h4 + "G0 1 0 1 0 8 0 0 -1\nG0 1 0 3 0 8 0 0 -1\n", 5, "send_bytes", "0", "one part of G0 with send_bytes 8, its root"},
		{"broadcast X differs", h4 + "G0 1 0 1 8 0 0 0 -1\nG0 1 0 3 0 4 0 0 -1\n", 5, "recv_bytes", "4", "8, as in G0's part at line 4 (broadcast)"},
		{"reduce root send", h4 + "G0 1 1 1 8 8 0 0 -1\n", 4, "send_bytes", "8", "0 for the root of a reduce (recv_bytes 8)"},
		{"gather sum", h4 + "G0 1 3 1 2 5 0 0 -1\nG0 1 3 3 2 0 0 0 -1\n", 4, "recv_bytes", "5", "4, the sum of G0's send_bytes (gather, complete at line 5)"},
		{"gather no root", h4 + "G0 1 3 1 2 0 0 0 -1\nG0 1 3 3 2 0 0 0 -1\n", 5, "recv_bytes", "0", "a root in G0 whose recv_bytes is the sum of the send_bytes, 4"},
		{"scatter sum", h4 + "G0 1 4 1 0 3 0 0 -1\nG0 1 4 3 9 3 0 0 -1\n", 5, "send_bytes", "9", "6, the sum of G0's recv_bytes"},
		{"allgather sum", h4 + "G0 1 5 1 2 5 0 0 -1\nG0 1 5 3 2 5 0 0 -1\n", 4, "recv_bytes", "5", "4, the sum of G0's send_bytes (allgather"},
		{"alltoall flag", h4 + "G0 1 7 1 8 2 0 0 -1\n", 4, "recv_bytes", "2", "0 (send_bytes to every task) or 1"},
		{"alltoall flag differs", h4 + "G0 1 7 1 8 0 0 0 -1\nG0 1 7 3 8 1 0 0 -1\n", 5, "recv_bytes", "1", "0, as in G0's part at line 4"},
		{"alltoall size differs", h4 + "G0 1 7 1 8 0 0 0 -1\nG0 1 7 3 9 0 0 0 -1\n", 5, "send_bytes", "9", "8, as in G0's part at line 4 (alltoall)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(strings.NewReader(tc.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if e.Line != tc.line || e.Field != tc.field || e.Value != tc.value || !strings.Contains(e.Expected, tc.expected) {
				t.Errorf("got  line %d field %q value %q expected %q\nwant line %d field %q value %q expected …%q…",
					e.Line, e.Field, e.Value, e.Expected, tc.line, tc.field, tc.value, tc.expected)
			}
		})
	}
}

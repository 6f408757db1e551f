package mpirec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/workloads/vef"
)

func TestMain(m *testing.M) { os.Exit(testlong.Main(m)) }

// rankText builds a rank's file: its header, the lines given, the end.
func rankText(rank, size int, lines ...string) string {
	return fmt.Sprintf("vefrec 1\nW %d %d\n%s\nE 0 0\n", rank, size, strings.Join(lines, "\n"))
}

// mergeTexts merges rank files given as text, with opt.
func mergeTexts(t *testing.T, opt Options, texts ...string) (string, *Report, error) {
	t.Helper()
	var ranks []*rankFile
	for i, s := range texts {
		rf, err := parseRank(fmt.Sprintf("rank-%d.vefrec", i), strings.NewReader(s))
		if err != nil {
			return "", nil, err
		}
		ranks = append(ranks, rf)
	}
	var b bytes.Buffer
	rep, err := mergeRanks(ranks, &b, opt)
	if err == nil {
		// whatever Merge writes, the reader reads back
		rd, rerr := vef.NewReader(bytes.NewReader(b.Bytes()))
		if rerr != nil {
			t.Fatalf("the merged trace does not read back: %v\n%s", rerr, b.String())
		}
		for {
			if _, rerr := rd.Next(); rerr != nil {
				if rerr.Error() != "EOF" {
					t.Fatalf("the merged trace does not read back: %v\n%s", rerr, b.String())
				}
				break
			}
		}
	}
	return b.String(), rep, err
}

func mustMerge(t *testing.T, opt Options, texts ...string) (string, *Report) {
	t.Helper()
	out, rep, err := mergeTexts(t, opt, texts...)
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

func noCompute() Options {
	o := DefaultOptions()
	o.Compute = None
	return o
}

// TestMatchByPostOrder: two messages on one channel, received by two
// receives completed in the other order (the second posted first): the
// k-th receive posted gets the k-th message sent, so the rank's next
// message, which depends on the receive that completed last (posted
// first), depends on message 0. A receive posted from any source gets
// its message by the source its status names.
func TestMatchByPostOrder(t *testing.T) {
	r0 := rankText(0, 3,
		"S 100 10 10 1 0 5 100", // message 0: 100 B to rank 1
		"S 110 20 20 1 0 5 200", // message 1: 200 B to rank 1
	)
	r1 := rankText(1, 3,
		"R 300 0 0 5 200 1",       // receive posted second: message 1
		"R 300 0 0 5 100 0",       // receive posted first: message 0
		"A r 1 1000 5000",         // waited for last: the second R line
		"R 310 2 0 9 64 2",        // from any source: rank 2's message
		"S 400 1500 9000 2 0 7 8", // 500 ns CPU, 4000 ns wall after the anchor
	)
	r2 := rankText(2, 3,
		"S 200 0 0 1 0 9 64",
	)
	got, rep := mustMerge(t, DefaultOptions(), r0, r1, r2)
	want := `VEF 3 4 1 0 0 FALSE
C0 0 1 2
0 0 1 100 0 10 -1
1 0 1 200 0 20 -1
2 2 1 64 0 0 -1
3 1 2 8 2 500 0
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if rep.Messages != 4 || rep.MessageBytes != 372 || rep.Receives != 3 || rep.OnReceive != 1 {
		t.Errorf("report %+v: want 4 messages, 372 bytes, 3 receives, 1 record after a receipt", rep)
	}
	o := DefaultOptions()
	o.Compute, o.Scale = Wall, 2
	got, _ = mustMerge(t, o, r0, r1, r2)
	if !strings.Contains(got, "\n3 1 2 8 2 8000 0\n") || !strings.Contains(got, "\n1 0 1 200 0 40 -1\n") {
		t.Errorf("wall clock, scale 2: want message 3 8000 ns after its anchor (2 × 4000) and message 1 at 40 ns; got\n%s", got)
	}
}

// TestMergeErrors: files that cannot be one run are refused, naming the
// file, the line and what is wrong.
func TestMergeErrors(t *testing.T) {
	send := rankText(0, 2, "S 100 0 0 1 0 5 100")
	for _, c := range []struct {
		name  string
		texts []string
		want  string
	}{
		{"size differs", []string{send, rankText(1, 2, "R 200 0 0 5 150 0")}, "rank-1.vefrec:3: rank 1 received 150 bytes from rank 0 (communicator 0, tag 5), but the matching message (rank-0.vefrec:3) has 100"},
		{"never sent", []string{send, rankText(1, 2, "R 200 0 0 6 100 0")}, "rank 1 received a message from rank 0 (communicator 0, tag 6) that rank 0 never sent"},
		{"collectives differ", []string{rankText(0, 2, "G 100 0 0 0 6 0 0 Barrier"), rankText(1, 2, "G 100 0 0 0 2 8 8 Allreduce")}, "rank 1's collective number 1 on communicator 0 is a allreduce; rank 0's (rank-0.vefrec:3) is a barrier"},
		{"missing part", []string{rankText(0, 2, "G 100 0 0 0 6 0 0 Barrier"), rankText(1, 2)}, "rank 1 has no part in a barrier on communicator 0 that rank 0 has (rank-0.vefrec:3)"},
		{"unknown communicator", []string{rankText(0, 2, "G 100 0 0 77 6 0 0 Barrier"), rankText(1, 2)}, "rank-0.vefrec:3: communicator 77: no rank's file describes it"},
		{"communicators disagree", []string{rankText(0, 2, "C 4294967297 2 0 1"), rankText(1, 2, "C 4294967297 1 1")}, "communicator 4294967297 has members [1]; rank-0.vefrec says [0 1]"},
		{"cycle", []string{
			rankText(0, 2, "R 50 1 0 1 8 0", "A r 0 0 0", "S 100 0 0 1 0 1 8"),
			rankText(1, 2, "R 50 0 0 1 8 0", "A r 0 0 0", "S 100 0 0 0 0 1 8"),
		}, "the ranks' records wait on each other, so no order writes them: rank 1's record (rank-1.vefrec:5) waits on the message at rank-0.vefrec:5, not written; rank 0's record (rank-0.vefrec:5) waits on the message at rank-1.vefrec:5, not written"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := mergeTexts(t, noCompute(), c.texts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestParseErrors: a damaged or incomplete rank file is refused naming
// the file and line.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "empty: the rank did not get past MPI_Init"},
		{"vefrec 2\n", `x:1: "vefrec 2": expected the recorder's first line`},
		{"vefrec 1\nW 0 2\nS 1 2 3\n", `x:3: "S": 4 fields, expected 8`},
		{"vefrec 1\nW 0 2\nS 1 2 3 9 0 1 8\n", "x:3: destination 9: expected a rank in [0, 2)"},
		{"vefrec 1\nW 0 2\nA r 0 0 0\n", "x:3: anchor r 0: this rank has 0 of those so far"},
		{"vefrec 1\nW 0 2\nQ\n", `x:3: "Q": not a line the recorder writes`},
		{"vefrec 1\nW 0 2\nS 1 2 3 1 0 1 8\n", "x: rank 0's file ends at line 3 without the end line (E): the rank did not reach MPI_Finalize"},
		{"vefrec 1\nW 0 2\nX abort 3\n", "x: rank 0 called MPI_Abort"},
	} {
		_, err := parseRank("x", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v\nwant it to contain %q", c.text, err, c.want)
		}
	}
}

// TestCollectiveSizes: the sizes VEF wants as sums are the sums of the
// parts' blocks, whatever the root's call said (MPI_Gatherv with blocks
// of 8, 16 and 24 bytes; MPI_Allgatherv; MPI_Scatter), and each
// collective's parts are written together, in rank order, where the last
// of them is due; communicators other than the world come after it,
// smallest first.
func TestCollectiveSizes(t *testing.T) {
	sub := "C 4294967297 2 2 0"
	r0 := rankText(0, 3, sub,
		"G 10 0 0 0 3 8 999 Gatherv",
		"A g 0 0 0",
		"G 20 0 0 0 5 8 1 Allgatherv",
		"G 30 0 0 4294967297 4 0 5 Scatter")
	r1 := rankText(1, 3,
		"G 12 0 0 0 3 16 0 Gatherv",
		"G 22 0 0 0 5 16 0 Allgatherv")
	r2 := rankText(2, 3, sub,
		"G 11 0 0 0 3 24 0 Gatherv",
		"G 21 0 0 0 5 24 0 Allgatherv",
		"G 31 0 0 4294967297 4 123 5 Scatter")
	got, rep := mustMerge(t, noCompute(), r0, r1, r2)
	want := `VEF 3 0 2 3 8 TRUE
C0 0 1 2
C1 2 0
G0 0 3 0 8 48 0 0 -1
G0 0 3 1 16 0 0 0 -1
G0 0 3 2 24 0 0 0 -1
G1 0 5 0 8 48 3 0 G0
G1 0 5 1 16 48 0 0 -1
G1 0 5 2 24 48 0 0 -1
G2 1 4 2 10 5 0 0 -1
G2 1 4 0 0 5 3 0 G0
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if rep.Collectives != 3 || rep.ByOp["gather"] != 1 || rep.ByOp["allgather"] != 1 || rep.ByOp["scatter"] != 1 {
		t.Errorf("report %+v", rep)
	}
}

// TestCollectiveSplit: a nonblocking broadcast that rank 0 begins before
// it sends rank 1 a message, and rank 1 only after receiving it, cannot
// have its parts written together: rank 0's part goes first, then the
// message, then rank 1's part.
func TestCollectiveSplit(t *testing.T) {
	r0 := rankText(0, 2,
		"G 10 0 0 0 0 8 0 Ibcast",
		"S 20 0 0 1 0 3 4")
	r1 := rankText(1, 2,
		"R 15 0 0 3 4 0",
		"A r 0 0 0",
		"G 30 0 0 0 0 0 8 Ibcast")
	got, _ := mustMerge(t, noCompute(), r0, r1)
	want := `VEF 2 1 1 1 2 FALSE
C0 0 1
G0 0 0 0 8 0 0 0 -1
0 0 1 4 0 0 -1
G0 0 0 1 0 8 2 0 0
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestSection: lines starting with "Begin of" and "End of" cut a
// section: from each rank's part in the last collective of all ranks rank
// 0 began before the first line (the first barrier) to before its part in
// the first one it began after the second (the last barrier). Rank 1's
// message and allreduce part depend on the receipt of a message sent
// before the section: those dependencies move to the section's first
// collective, after the computation since.
func TestSection(t *testing.T) {
	r0 := rankText(0, 2,
		"S 5 50 50 1 0 1 8", "A s 0 50 50",
		"G 10 100 100 0 6 0 0 Barrier", "A g 0 100 100",
		"M 18 160 160 Begin of the test",
		"S 30 300 300 1 0 2 16", "A s 1 300 300",
		"G 40 400 400 0 2 8 8 Allreduce", "A g 1 400 400",
		"M 45 450 450 End of the test",
		"G 50 500 500 0 6 0 0 Barrier", "A g 2 500 500")
	r1 := rankText(1, 2,
		"G 10 100 100 0 6 0 0 Barrier", "A g 0 100 100",
		"R 25 0 0 1 8 0", "A r 0 250 250",
		"S 32 320 320 0 0 3 4",
		"R 35 0 0 2 16 1",
		"G 41 410 410 0 2 8 8 Allreduce", "A g 1 410 410",
		"G 51 500 500 0 6 0 0 Barrier", "A g 2 500 500")
	o := DefaultOptions()
	o.From, o.To = "Begin of", "End of"
	got, rep := mustMerge(t, o, r0, r1)
	want := `VEF 2 2 1 2 4 TRUE
C0 0 1
G0 0 6 0 0 0 0 0 -1
G0 0 6 1 0 0 0 0 -1
0 0 1 16 3 200 G0
1 1 0 4 3 220 G0
G1 0 2 0 8 8 1 100 0
G1 0 2 1 8 8 3 310 G0
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if rep.SectionDropped != 3 || rep.CutDependencies != 2 || rep.ComputeNS != 300+310 {
		t.Errorf("report: %d records dropped, %d dependencies cut, %d ns of computation; want 3 (rank 0's first message and both last barriers), 2 (rank 1's message and allreduce) and 610 (rank 0: 100 to 400, rank 1: 100 to 410)",
			rep.SectionDropped, rep.CutDependencies, rep.ComputeNS)
	}
	o.From, o.To = "End of", "Begin of"
	if _, _, err := mergeTexts(t, o, r0, r1); err == nil || !strings.Contains(err.Error(), `rank 0 printed no line starting with "Begin of" after its line starting with "End of"`) {
		t.Errorf("an end line before the start: got %v", err)
	}
	o.From, o.To = "Nothing", ""
	if _, _, err := mergeTexts(t, o, r0, r1); err == nil || !strings.Contains(err.Error(), `no rank printed a line starting with "Nothing"`) {
		t.Errorf("a line never printed: got %v", err)
	}
	o.From, o.To = "X", ""
	if _, _, err := mergeTexts(t, o, rankText(0, 1, "S 10 0 0 0 0 0 8", "M 20 0 0 X")); err == nil || !strings.Contains(err.Error(), "took part in no collective of all ranks") {
		t.Errorf("no collective of all ranks: got %v", err)
	}
}

// TestMergeDeterministic: the same files give the same bytes, and Merge
// reads them from a directory as mergeRanks does from text.
func TestMergeDeterministic(t *testing.T) {
	dir := t.TempDir()
	texts := []string{
		rankText(0, 2, "G 10 5 5 0 6 0 0 Barrier", "A g 0 5 5", "S 20 7 7 1 0 1 8", "S 21 8 8 1 0 1 8"),
		rankText(1, 2, "G 10 5 5 0 6 0 0 Barrier", "A g 0 5 5", "S 20 9 9 0 0 1 8", "R 30 0 0 1 8 0", "R 31 0 0 1 8 1", "A r 1 12 12", "S 40 20 20 0 0 2 1"),
	}
	for i, s := range texts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank-%d.vefrec", i)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := mustMerge(t, DefaultOptions(), texts...)
	for range 3 {
		var b bytes.Buffer
		if _, err := Merge(dir, &b, DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Fatalf("Merge gave\n%s\nmergeRanks gave\n%s", b.String(), want)
		}
	}
	if !strings.Contains(want, "\n3 1 0 1 2 8 2\n") {
		t.Errorf("rank 1's last message (id 3) waits on the receipt of rank 0's second message (id 2), 8 ns after it; got\n%s", want)
	}
	if err := os.Remove(filepath.Join(dir, "rank-1.vefrec")); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(dir, &bytes.Buffer{}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "rank-1.vefrec") {
		t.Errorf("a missing rank file: got %v", err)
	}
}

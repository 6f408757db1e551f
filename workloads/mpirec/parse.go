package mpirec

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opasim/opasim/workloads/vef"
)

// Communicator ids the recorder gives the predefined communicators.
const (
	commWorld int64 = 0
	commSelf  int64 = 1
)

// anchor is an event a rank waited for: its kind ('s' send, 'r' receive,
// 'g' collective part), its index among the rank's events of that kind,
// and the computation so far on each clock when it happened.
type anchor struct {
	kind  byte
	idx   int64
	cpu   int64
	wcomp int64
}

// event is a record of a rank, in program order: a message sent (kind
// 'S') or a collective part (kind 'G').
type event struct {
	wall       int64 // CLOCK_MONOTONIC at the call
	cpu, wcomp int64 // computation so far
	anchor     int32 // index in rank.anchors, -1: none yet
	kind       byte
	op         vef.Op
	peer       int32 // S: the destination (world rank)
	tag        int32
	comm       int64
	bytes      int64 // S: size; G: send_bytes
	recv       int64 // G: recv_bytes
	line       int32
}

// recv is a receive that completed.
type recv struct {
	src   int32
	tag   int32
	comm  int64
	bytes int64
	post  int64
	line  int32
}

// mark is a marker line the program printed, after the rank's first
// `events` records.
type mark struct {
	text       string
	events     int
	cpu, wcomp int64
	line       int32
}

// rankFile is what one rank's file says.
type rankFile struct {
	path     string
	rank     int
	size     int
	events   []event
	anchors  []anchor
	recvs    []recv
	comms    map[int64][]int
	marks    []mark
	calls    map[string]int64
	unsup    map[string]int64
	ended    bool
	aborted  bool
	sends    int64 // S records
	parts    int64 // G records
	endCPU   int64
	endWComp int64
}

// parseError names the file and line of a problem in a rank's file.
func parseError(path string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
}

// readRankFile parses one rank's file.
func readRankFile(path string) (*rankFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseRank(path, f)
}

// rankParser holds the state of parsing one rank's file: the file so
// far, the current line and its fields, and the anchor in effect.
type rankParser struct {
	rf     *rankFile
	path   string
	line   int
	text   string
	fields []string
	cur    int32 // the anchor in effect
}

// ints parses n integer fields of the current line, from field index from.
func (p *rankParser) ints(from, n int) ([]int64, error) {
	if len(p.fields) < from+n {
		return nil, parseError(p.path, p.line, "%q: %d fields, expected %d", p.fields[0], len(p.fields), from+n)
	}
	v := make([]int64, n)
	for i := range n {
		x, err := strconv.ParseInt(p.fields[from+i], 10, 64)
		if err != nil {
			return nil, parseError(p.path, p.line, "%q field %d: %q is not an integer", p.fields[0], from+i+1, p.fields[from+i])
		}
		v[i] = x
	}
	return v, nil
}

// parseRank parses one rank's file from r; path names it in errors.
func parseRank(path string, r io.Reader) (*rankFile, error) {
	p := &rankParser{
		rf:   &rankFile{path: path, rank: -1, comms: map[int64][]int{}, calls: map[string]int64{}, unsup: map[string]int64{}},
		path: path,
		cur:  -1,
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		p.line++
		p.text = sc.Text()
		p.fields = strings.Fields(p.text)
		if len(p.fields) == 0 {
			continue
		}
		if err := p.parseLine(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p.finish()
}

// finish checks that the lines read make a complete rank's file and
// returns it.
func (p *rankParser) finish() (*rankFile, error) {
	rf, path, line := p.rf, p.path, p.line
	switch {
	case line == 0:
		return nil, fmt.Errorf("%s: empty: the rank did not get past MPI_Init with the recorder", path)
	case rf.rank < 0:
		return nil, parseError(path, line, "no rank line (W)")
	case rf.aborted:
		return nil, fmt.Errorf("%s: rank %d called MPI_Abort: the program failed", path, rf.rank)
	case !rf.ended:
		return nil, fmt.Errorf("%s: rank %d's file ends at line %d without the end line (E): the rank did not reach MPI_Finalize", path, rf.rank, line)
	}
	return rf, nil
}

// parseLine parses the current, non-empty line.
func (p *rankParser) parseLine() error {
	rf, fields := p.rf, p.fields
	if p.line == 1 {
		if p.text != "vefrec 1" {
			return parseError(p.path, p.line, "%q: expected the recorder's first line, \"vefrec 1\"", p.text)
		}
		return nil
	}
	if rf.ended {
		return parseError(p.path, p.line, "%q after the end line (E)", fields[0])
	}
	if fields[0] != "W" && rf.rank < 0 {
		return parseError(p.path, p.line, "%q before the rank line (W)", fields[0])
	}
	switch fields[0] {
	case "W":
		return p.rankLine()
	case "C":
		return p.commLine()
	case "S":
		return p.sendLine()
	case "G":
		return p.partLine()
	case "R":
		return p.recvLine()
	case "A":
		return p.anchorLine()
	case "M":
		return p.markLine()
	case "N", "U":
		return p.countLine()
	case "E":
		v, err := p.ints(1, 2)
		if err != nil {
			return err
		}
		rf.ended, rf.endCPU, rf.endWComp = true, v[0], v[1]
	case "X":
		rf.aborted = true
	default:
		return parseError(p.path, p.line, "%q: not a line the recorder writes", fields[0])
	}
	return nil
}

// rankLine parses a rank line: W RANK SIZE.
func (p *rankParser) rankLine() error {
	v, err := p.ints(1, 2)
	if err != nil {
		return err
	}
	if v[1] < 1 || v[0] < 0 || v[0] >= v[1] {
		return parseError(p.path, p.line, "rank %d of %d: expected a rank in [0, size)", v[0], v[1])
	}
	p.rf.rank, p.rf.size = int(v[0]), int(v[1])
	return nil
}

// commLine parses a communicator line: C ID SIZE MEMBER...
func (p *rankParser) commLine() error {
	rf := p.rf
	v, err := p.ints(1, 2)
	if err != nil {
		return err
	}
	if v[1] < 1 || v[1] > int64(rf.size) {
		return parseError(p.path, p.line, "communicator %d of %d members: expected 1 to %d", v[0], v[1], rf.size)
	}
	m, err := p.ints(3, int(v[1]))
	if err != nil {
		return err
	}
	members := make([]int, len(m))
	for i, x := range m {
		if x < 0 || x >= int64(rf.size) {
			return parseError(p.path, p.line, "communicator %d: member %d is not a rank in [0, %d)", v[0], x, rf.size)
		}
		members[i] = int(x)
	}
	rf.comms[v[0]] = members
	return nil
}

// sendLine parses a message sent: S WALL CPU WCOMP DEST COMM TAG BYTES.
func (p *rankParser) sendLine() error {
	rf := p.rf
	v, err := p.ints(1, 7)
	if err != nil {
		return err
	}
	if v[3] < 0 || v[3] >= int64(rf.size) {
		return parseError(p.path, p.line, "destination %d: expected a rank in [0, %d)", v[3], rf.size)
	}
	if v[6] < 0 {
		return parseError(p.path, p.line, "%d bytes: expected at least 0", v[6])
	}
	rf.events = append(rf.events, event{wall: v[0], cpu: v[1], wcomp: v[2], anchor: p.cur, kind: 'S',
		peer: int32(v[3]), comm: v[4], tag: int32(v[5]), bytes: v[6], line: int32(p.line)})
	rf.sends++
	return nil
}

// partLine parses a collective part: G WALL CPU WCOMP COMM OP SEND RECV NAME.
func (p *rankParser) partLine() error {
	rf := p.rf
	v, err := p.ints(1, 6)
	if err != nil {
		return err
	}
	if v[4] < 0 || v[4] > int64(vef.Alltoall) {
		return parseError(p.path, p.line, "op %d: expected a VEF op, 0 to %d", v[4], vef.Alltoall)
	}
	if v[5] < 0 || len(p.fields) < 8 {
		return parseError(p.path, p.line, "collective part: expected sizes of at least 0")
	}
	rb, err := p.ints(7, 1)
	if err != nil {
		return err
	}
	rf.events = append(rf.events, event{wall: v[0], cpu: v[1], wcomp: v[2], anchor: p.cur, kind: 'G',
		comm: v[3], op: vef.Op(v[4]), bytes: v[5], recv: rb[0], line: int32(p.line)})
	rf.parts++
	return nil
}

// recvLine parses a completed receive: R WALL SRC COMM TAG BYTES POST.
func (p *rankParser) recvLine() error {
	rf := p.rf
	v, err := p.ints(1, 6)
	if err != nil {
		return err
	}
	if v[1] < 0 || v[1] >= int64(rf.size) {
		return parseError(p.path, p.line, "source %d: expected a rank in [0, %d)", v[1], rf.size)
	}
	rf.recvs = append(rf.recvs, recv{src: int32(v[1]), comm: v[2], tag: int32(v[3]), bytes: v[4], post: v[5], line: int32(p.line)})
	return nil
}

// anchorLine parses an anchor: A s|r|g INDEX CPU WCOMP; it becomes the
// anchor in effect.
func (p *rankParser) anchorLine() error {
	rf, fields := p.rf, p.fields
	if len(fields) != 5 || len(fields[1]) != 1 || !strings.Contains("srg", fields[1]) {
		return parseError(p.path, p.line, "%q: expected A s|r|g INDEX CPU WCOMP", p.text)
	}
	v, err := p.ints(2, 3)
	if err != nil {
		return err
	}
	a := anchor{kind: fields[1][0], idx: v[0], cpu: v[1], wcomp: v[2]}
	n := map[byte]int64{'s': rf.sends, 'r': int64(len(rf.recvs)), 'g': rf.parts}[a.kind]
	if a.idx < 0 || a.idx >= n {
		return parseError(p.path, p.line, "anchor %c %d: this rank has %d of those so far", a.kind, a.idx, n)
	}
	rf.anchors = append(rf.anchors, a)
	p.cur = int32(len(rf.anchors) - 1)
	return nil
}

// markLine parses a marker: M WALL CPU WCOMP TEXT.
func (p *rankParser) markLine() error {
	v, err := p.ints(1, 3)
	if err != nil {
		return err
	}
	parts := strings.SplitN(p.text, " ", 5)
	if len(parts) < 5 {
		return parseError(p.path, p.line, "marker: expected M WALL CPU WCOMP TEXT")
	}
	p.rf.marks = append(p.rf.marks, mark{text: parts[4], events: len(p.rf.events), cpu: v[1], wcomp: v[2], line: int32(p.line)})
	return nil
}

// countLine parses a call count, N COUNT NAME, or a count of
// unsupported calls, U COUNT NAME.
func (p *rankParser) countLine() error {
	fields := p.fields
	if len(fields) < 3 {
		return parseError(p.path, p.line, "%q: expected %s COUNT NAME", p.text, fields[0])
	}
	n, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || n < 0 {
		return parseError(p.path, p.line, "count %q: expected an integer of at least 0", fields[1])
	}
	name := strings.Join(fields[2:], " ")
	if fields[0] == "N" {
		p.rf.calls[name] += n
	} else {
		p.rf.unsup[name] += n
	}
	return nil
}

// readDir reads every rank's file in dir: rank-0.vefrec to
// rank-<n-1>.vefrec, n the world's size, all present and agreeing.
func readDir(dir string) ([]*rankFile, error) {
	first, err := readRankFile(filepath.Join(dir, "rank-0.vefrec"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no rank-0.vefrec: nothing was recorded (was the recorder preloaded, and did the program call MPI_Init?)", dir)
		}
		return nil, err
	}
	ranks := []*rankFile{first}
	for r := 1; r < first.size; r++ {
		rf, err := readRankFile(filepath.Join(dir, fmt.Sprintf("rank-%d.vefrec", r)))
		if err != nil {
			return nil, err
		}
		ranks = append(ranks, rf)
	}
	for r, rf := range ranks {
		if rf.rank != r || rf.size != first.size {
			return nil, fmt.Errorf("%s: rank %d of %d: expected rank %d of %d", rf.path, rf.rank, rf.size, r, first.size)
		}
	}
	return ranks, nil
}

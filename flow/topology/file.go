package topology

import (
	"fmt"
	"io"
	"strconv"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/internal/textfile"
)

// The graph file format, one statement a line; '#' starts a comment:
//
//	servers S        # nodes 0..S-1 are servers (required, first)
//	switches W       # nodes S..S+W-1 are switches (required, second)
//	cable U V [C]    # a cable between nodes U and V: links U→V and V→U
//	link U V [C]     # one directed link U→V
//
// C is the capacity (default 1, positive and finite). Node numbers are
// decimal. A server may only be joined to switches. Links leaving a node
// are numbered in the order they appear.

// MaxFileLine is the longest line ReadGraph accepts.
const MaxFileLine = 4096

// ReadGraph reads a graph in the format above; name (the file's name)
// prefixes the errors, which give the line number.
func ReadGraph(r io.Reader, name string) (*graph.Graph, error) {
	return ReadGraphWith(r, name, ReadOptions{})
}

// ReadOptions bound what ReadGraphWith reads.
type ReadOptions struct {
	// Limit, if set, is asked once the number of nodes is known (links
	// 0), then every time the links read reach a power of two (from
	// 2^16), with the nodes and links so far: an error it returns ends
	// the read, prefixed with the file's name and line. For a memory
	// budget: a file's counts are what its graph will take.
	Limit func(nodes, links int64) error
	// Stop, if set, is asked every few thousand lines; once it says to
	// stop, the read ends with ErrStopped.
	Stop func() bool
}

// ErrStopped is what ReadGraphWith returns when ReadOptions.Stop said to
// stop.
var ErrStopped = textfile.ErrStopped

// ReadGraphWith is ReadGraph within the bounds of opt. It reads in time
// and memory linear in the file (the links are kept until the graph is
// built: 16 bytes each, then the graph's 20).
func ReadGraphWith(r io.Reader, name string, opt ReadOptions) (*graph.Graph, error) {
	gr := &graphReader{name: name, opt: opt, servers: -1, switches: -1, nextCheck: 1 << 16}
	err := textfile.FieldsUntil(r, name, MaxFileLine, opt.Stop, gr.statement)
	if err != nil {
		return nil, err
	}
	if gr.switches < 0 {
		return nil, fmt.Errorf("%s: no servers and switches statements", name)
	}
	return graph.New(gr.servers, gr.switches, gr.ls)
}

// graphReader is ReadGraphWith's state while it reads a graph file.
type graphReader struct {
	name              string
	opt               ReadOptions
	servers, switches int // -1: not given yet
	ls                []graph.Link
	line              int // the statement being read
	// nextCheck is the number of links at which ReadOptions.Limit is next
	// asked.
	nextCheck int
}

// fail is an error at the statement being read.
func (gr *graphReader) fail(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", gr.name, gr.line, fmt.Sprintf(format, a...))
}

// limit asks ReadOptions.Limit, if set, about the nodes and links so far.
func (gr *graphReader) limit() error {
	if gr.opt.Limit == nil {
		return nil
	}
	if err := gr.opt.Limit(int64(gr.servers)+int64(gr.switches), int64(len(gr.ls))); err != nil {
		return gr.fail("%v", err)
	}
	return nil
}

// statement reads statement f, at line line.
func (gr *graphReader) statement(line int, f []string) error {
	gr.line = line
	switch f[0] {
	case "servers", "switches":
		return gr.count(f)
	case "cable", "link":
		return gr.link(f)
	default:
		return gr.fail("unknown statement %q: must be servers, switches, cable or link", f[0])
	}
}

// count reads a servers or a switches statement f.
func (gr *graphReader) count(f []string) error {
	if len(f) != 2 {
		return gr.fail("%s takes one number, got %d fields", f[0], len(f)-1)
	}
	v, err := strconv.Atoi(f[1])
	if err != nil || v < 0 || v > graph.MaxNodes {
		return gr.fail("%s: %q is not allowed: must be an integer in [0, %d]", f[0], f[1], graph.MaxNodes)
	}
	switch {
	case f[0] == "servers" && gr.servers < 0 && gr.switches < 0:
		gr.servers = v
	case f[0] == "switches" && gr.servers >= 0 && gr.switches < 0:
		gr.switches = v
		if int64(gr.servers)+int64(gr.switches) > graph.MaxNodes {
			return gr.fail("servers + switches: %d is not allowed: must be at most %d", int64(gr.servers)+int64(gr.switches), graph.MaxNodes)
		}
		return gr.limit()
	default:
		return gr.fail("%s: must appear once, servers first, then switches, before any link", f[0])
	}
	return nil
}

// link reads a cable (both ways) or a link (one way) statement f.
func (gr *graphReader) link(f []string) error {
	if gr.switches < 0 {
		return gr.fail("%s before servers and switches", f[0])
	}
	if len(f) != 3 && len(f) != 4 {
		return gr.fail("%s takes U V [capacity], got %d fields", f[0], len(f)-1)
	}
	servers, nodes := gr.servers, gr.servers+gr.switches
	var uv [2]int32
	for i := range uv {
		v, err := strconv.Atoi(f[1+i])
		if err != nil || v < 0 || v >= nodes {
			return gr.fail("%s node %q is not allowed: must be an integer in [0, %d)", f[0], f[1+i], nodes)
		}
		uv[i] = int32(v)
	}
	c := 1.0
	if len(f) == 4 {
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil || checkCapacity("", v) != nil {
			return gr.fail("%s capacity %q is not allowed: must be a positive finite number", f[0], f[3])
		}
		c = v
	}
	u, v := uv[0], uv[1]
	if u == v {
		return gr.fail("%s %d %d: a node may not be joined to itself", f[0], u, v)
	}
	if int(u) < servers && int(v) < servers {
		return gr.fail("%s %d %d: two servers may not be joined (servers are 0..%d)", f[0], u, v, servers-1)
	}
	if len(gr.ls) >= graph.MaxLinks-1 {
		return gr.fail("too many links: at most %d", graph.MaxLinks)
	}
	gr.ls = append(gr.ls, graph.Link{From: u, To: v, Capacity: c})
	if f[0] == "cable" {
		gr.ls = append(gr.ls, graph.Link{From: v, To: u, Capacity: c})
	}
	if len(gr.ls) >= gr.nextCheck {
		gr.nextCheck *= 2
		return gr.limit()
	}
	return nil
}

package topology

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/opasim/opasim/flow/graph"
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), MaxFileLine)
	servers, switches := -1, -1
	var ls []graph.Link
	line := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "servers", "switches":
			if len(f) != 2 {
				return nil, fail("%s takes one number, got %d fields", f[0], len(f)-1)
			}
			v, err := strconv.Atoi(f[1])
			if err != nil || v < 0 || v > graph.MaxNodes {
				return nil, fail("%s: %q is not allowed: must be an integer in [0, %d]", f[0], f[1], graph.MaxNodes)
			}
			switch {
			case f[0] == "servers" && servers < 0 && switches < 0:
				servers = v
			case f[0] == "switches" && servers >= 0 && switches < 0:
				switches = v
				if int64(servers)+int64(switches) > graph.MaxNodes {
					return nil, fail("servers + switches: %d is not allowed: must be at most %d", int64(servers)+int64(switches), graph.MaxNodes)
				}
			default:
				return nil, fail("%s: must appear once, servers first, then switches, before any link", f[0])
			}
		case "cable", "link":
			if switches < 0 {
				return nil, fail("%s before servers and switches", f[0])
			}
			if len(f) != 3 && len(f) != 4 {
				return nil, fail("%s takes U V [capacity], got %d fields", f[0], len(f)-1)
			}
			nodes := servers + switches
			var uv [2]int32
			for i := range uv {
				v, err := strconv.Atoi(f[1+i])
				if err != nil || v < 0 || v >= nodes {
					return nil, fail("%s node %q is not allowed: must be an integer in [0, %d)", f[0], f[1+i], nodes)
				}
				uv[i] = int32(v)
			}
			c := 1.0
			if len(f) == 4 {
				v, err := strconv.ParseFloat(f[3], 64)
				if err != nil || checkCapacity("", v) != nil {
					return nil, fail("%s capacity %q is not allowed: must be a positive finite number", f[0], f[3])
				}
				c = v
			}
			u, v := uv[0], uv[1]
			if u == v {
				return nil, fail("%s %d %d: a node may not be joined to itself", f[0], u, v)
			}
			if int(u) < servers && int(v) < servers {
				return nil, fail("%s %d %d: two servers may not be joined (servers are 0..%d)", f[0], u, v, servers-1)
			}
			if len(ls) >= graph.MaxLinks-1 {
				return nil, fail("too many links: at most %d", graph.MaxLinks)
			}
			ls = append(ls, graph.Link{From: u, To: v, Capacity: c})
			if f[0] == "cable" {
				ls = append(ls, graph.Link{From: v, To: u, Capacity: c})
			}
		default:
			return nil, fail("unknown statement %q: must be servers, switches, cable or link", f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w (lines are limited to %d bytes)", name, line+1, err, MaxFileLine)
	}
	if switches < 0 {
		return nil, fmt.Errorf("%s: no servers and switches statements", name)
	}
	return graph.New(servers, switches, ls)
}

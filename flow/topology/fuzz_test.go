package topology

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
)

// FuzzReadGraph reads any text as a graph file, within a bound on its
// size as a memory budget would set one: no panic; a refusal names the
// file and its line; a graph accepted is consistent (servers first, no
// link from a node to itself or between two servers, positive finite
// capacities, every link in its tail's outgoing range and its head's
// incoming list once), and written back as link statements it reads as
// the same graph, link by link.
func FuzzReadGraph(f *testing.F) {
	for _, s := range []string{
		"servers 2\nswitches 1\ncable 0 2\ncable 1 2\n",
		"servers 4 # four\nswitches 2\ncable 0 4 2.5\ncable 1 4\nlink 4 5\nlink 5 4 0.5\ncable 2 5\ncable 3 5\n",
		"servers 0\nswitches 0\n",
		"\n\n# only a comment\nservers 1\n\tswitches\t3\ncable 1 2 1e300\n",
		"switches 1\n",
		"servers 1\nservers 2\n",
		"servers 2\nswitches 1\ncable 0 1\n",
		"servers 2\nswitches 1\ncable 0 0\n",
		"servers 2\nswitches 1\ncable 0 9\n",
		"servers 2\nswitches 1\ncable 0 2 -1\n",
		"servers 2\nswitches 1\ncable 0 2 NaN\n",
		"servers 2\nswitches 1\ncable 0 2 3 4\n",
		"servers 2\nswitches 1\nbogus 1\n",
		"servers x\n",
		"servers 2000000000\nswitches 1\n",
		"cable 0 1\nservers 2\nswitches 1\n",
		"servers 2\nswitches 1\ncable 0 2\ncable 1 2 3\n",
		"servers 0\nswitches 2\nlink 0 1\n",
		"servers 1\nswitches 1\ncable 0 1 1e308\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		bounded := ReadOptions{Limit: func(nodes, links int64) error {
			if nodes > 1<<16 || links > 1<<20 {
				return errors.New("too large for the fuzzer's budget")
			}
			return nil
		}}
		g, err := ReadGraphWith(strings.NewReader(text), "g.txt", bounded)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g.txt:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		checkGraph(t, g)
		var b strings.Builder
		fmt.Fprintf(&b, "servers %d\nswitches %d\n", g.NumServers(), g.NumSwitches())
		for l := range int32(g.NumLinks()) {
			fmt.Fprintf(&b, "link %d %d %s\n", g.Tail(l), g.Head(l), strconv.FormatFloat(g.Capacity(l), 'g', -1, 64))
		}
		h, err := ReadGraphWith(strings.NewReader(b.String()), "again.txt", bounded)
		if err != nil {
			t.Fatalf("written back, refused: %v\n%s", err, b.String())
		}
		if h.NumServers() != g.NumServers() || h.NumSwitches() != g.NumSwitches() || h.NumLinks() != g.NumLinks() {
			t.Fatalf("written back: %d servers, %d switches, %d links; want %d, %d, %d", h.NumServers(), h.NumSwitches(), h.NumLinks(), g.NumServers(), g.NumSwitches(), g.NumLinks())
		}
		for l := range int32(g.NumLinks()) {
			if h.Tail(l) != g.Tail(l) || h.Head(l) != g.Head(l) || h.Capacity(l) != g.Capacity(l) {
				t.Fatalf("written back, link %d is %d→%d (%v); want %d→%d (%v)", l, h.Tail(l), h.Head(l), h.Capacity(l), g.Tail(l), g.Head(l), g.Capacity(l))
			}
		}
	})
}

// checkGraph checks g's invariants.
func checkGraph(t *testing.T, g *graph.Graph) {
	t.Helper()
	n, servers := int32(g.NumNodes()), int32(g.NumServers())
	seen := make([]int, g.NumLinks())
	next := int32(0)
	for v := range n {
		lo, hi := g.Out(v)
		if lo != next || hi < lo {
			t.Fatalf("node %d's links [%d, %d) do not follow the previous node's (ending at %d)", v, lo, hi, next)
		}
		next = hi
		for l := lo; l < hi; l++ {
			u, w := g.Tail(l), g.Head(l)
			if u != v || w < 0 || w >= n || w == v {
				t.Fatalf("link %d in node %d's range goes %d→%d", l, v, u, w)
			}
			if u < servers && w < servers {
				t.Fatalf("link %d joins servers %d and %d", l, u, w)
			}
			if c := g.Capacity(l); !(c > 0) || math.IsInf(c, 0) {
				t.Fatalf("link %d has capacity %v", l, c)
			}
		}
		for _, l := range g.In(v) {
			if g.Head(l) != v {
				t.Fatalf("link %d in node %d's incoming list enters %d", l, v, g.Head(l))
			}
			seen[l]++
		}
	}
	if int(next) != g.NumLinks() {
		t.Fatalf("the outgoing ranges cover %d of %d links", next, g.NumLinks())
	}
	for l, k := range seen {
		if k != 1 {
			t.Fatalf("link %d is in %d incoming lists", l, k)
		}
	}
}

// Package route computes the paths flows take through a flow/graph
// network (seed 001 section 3.2): d-mod-k up/down routing on k-ary
// n-trees, dimension-order routing on tori, and on any graph ECMP over the
// shortest paths (single-path "BFS" routing is ECMP with one path), k
// shortest paths (KSP) and AllPath-d, the last two computed lazily per
// pair of end nodes and kept in a bounded PathCache. The generic routings
// cross a node only if it forwards (graph.Forwards).
//
// A path is the list of link ids from the source server to the
// destination server. Routers hand paths to a callback in a slice they
// reuse, so routing allocates nothing per flow or per hop once warm.
// Routers keep scratch space and are not safe for concurrent use; Clone
// gives each goroutine its own.
package route

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/opasim/opasim/flow/graph"
)

// PathFunc receives one path of a flow: its links in order from the
// source server to the destination server, and the share of the flow it
// carries (a flow's shares sum to 1). links is only valid during the call.
type PathFunc func(links []int32, share float64)

// Router routes flows between servers.
type Router interface {
	// Name identifies the routing ("dmodk", "dor", "ecmp-4", ...).
	Name() string
	// Graph returns the network routed over.
	Graph() *graph.Graph
	// Route calls fn once per path of the flow from server src to server
	// dst. It returns an error, and calls fn for no path, if src or dst
	// is not a server, if they are equal, or if dst cannot be reached
	// (errors.Is(err, ErrNoPath)).
	Route(src, dst int32, fn PathFunc) error
	// Clone returns a router with the same routing and its own scratch
	// space, for another goroutine.
	Clone() Router
}

// SinglePath is implemented by routers that give every flow exactly one
// path; engines use it to skip the callback.
type SinglePath interface {
	Router
	// AppendPath appends the links of the path from src to dst to buf and
	// returns it. src and dst must be distinct servers (not checked).
	AppendPath(buf []int32, src, dst int32) []int32
}

// ErrNoPath is wrapped by the error Route returns for an unreachable
// destination.
var ErrNoPath = errors.New("no path")

// noPath is the error Route returns for an unreachable destination: a
// small value formatted only when read, since an engine routing every
// pair of a disconnected network meets one per flow.
type noPath struct {
	routing  string
	src, dst int32
}

func (e *noPath) Error() string {
	return fmt.Sprintf("%s from %d to %d: %v", e.routing, e.src, e.dst, ErrNoPath)
}

func (e *noPath) Unwrap() error { return ErrNoPath }

// CheckPair returns an error if src and dst are not two distinct servers
// of g.
func CheckPair(g *graph.Graph, src, dst int32) error {
	if err := g.CheckServer("flow src", int(src)); err != nil {
		return err
	}
	if err := g.CheckServer("flow dst", int(dst)); err != nil {
		return err
	}
	if src == dst {
		return fmt.Errorf("flow dst: %d is not allowed: must differ from src", dst)
	}
	return nil
}

// Path returns a copy of the single path r gives the flow src→dst, or an
// error if r gives it more than one.
func Path(r Router, src, dst int32) ([]int32, error) {
	var out []int32
	n := 0
	err := r.Route(src, dst, func(links []int32, _ float64) {
		n++
		out = append(out[:0], links...)
	})
	if err == nil && n != 1 {
		err = fmt.Errorf("route %s: %d paths from %d to %d, want 1", r.Name(), n, src, dst)
	}
	return out, err
}

// divisor divides 32-bit unsigned integers by a fixed d with a multiply
// (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
// 2019): for x < 2^32, x / d = high 64 bits of ⌈2^64/d⌉·x.
type divisor struct {
	m uint64
	d uint32
}

func newDivisor(d uint32) divisor {
	if d <= 1 {
		return divisor{d: 1}
	}
	return divisor{m: ^uint64(0)/uint64(d) + 1, d: d}
}

func (v divisor) div(x uint32) uint32 {
	if v.m == 0 {
		return x
	}
	hi, _ := bits.Mul64(v.m, uint64(x))
	return uint32(hi)
}

// Run is a stretch of a path along a line of links: Count consecutive
// links of line Line, from position Start, wrapping round the line's end
// (Count is at most the line's length).
type Run struct{ Line, Start, Count int32 }

// Lines is a set of lines, each a cyclic sequence of links: line i is
// Links[Start[i]:Start[i+1]], its position p being Links[Start[i]+p].
type Lines struct {
	Start []int32
	Links []int32
}

// NumLines returns the number of lines.
func (ls *Lines) NumLines() int { return len(ls.Start) - 1 }

// RunRouter is implemented by single-path routers whose paths are runs
// along lines that partition the graph's links (on a torus each ring in
// each direction is a line and each server link a line of its own). An
// engine adds a path's load with a difference array and finds its most
// loaded link with a range-maximum table, at a cost per run instead of
// per link.
type RunRouter interface {
	SinglePath
	// Lines returns the lines (shared: do not modify).
	Lines() *Lines
	// AppendRuns appends the runs of the path from src to dst (distinct
	// servers, not checked) to buf, in path order, and returns it.
	AppendRuns(buf []Run, src, dst int32) []Run
}

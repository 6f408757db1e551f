// Package flowtest holds networks the flow packages' tests share.
package flowtest

import (
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// Star returns n servers on one switch, every link of capacity 1, routed
// by its single shortest paths: flows contend only on their ends' links.
// Server s's link up is link s, its link down n+s (the graph numbers links
// by their tail node; 2n links).
func Star(t testing.TB, n int) route.Router {
	t.Helper()
	var ls []graph.Link
	for s := 0; s < n; s++ {
		ls = append(ls, graph.Link{From: int32(s), To: int32(n), Capacity: 1}, graph.Link{From: int32(n), To: int32(s), Capacity: 1})
	}
	return Routed(t, n, 1, ls)
}

// Routed returns the graph of servers servers and switches switches over
// links, routed by its single shortest paths (the first found).
func Routed(t testing.TB, servers, switches int, links []graph.Link) route.Router {
	t.Helper()
	g, err := graph.New(servers, switches, links)
	if err != nil {
		t.Fatal(err)
	}
	r, err := route.NewECMP(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

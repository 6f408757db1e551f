package static

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/topology"
)

func mustRemove(t *testing.T, g *graph.Graph, links ...int32) *graph.Failed {
	t.Helper()
	f, err := graph.RemoveLinks(g, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// cut removes both links of the cables between each two nodes given.
func cut(t *testing.T, g *graph.Graph, pairs ...[2]int32) *graph.Failed {
	t.Helper()
	var ls []int32
	for _, p := range pairs {
		ls = append(ls, g.LinkTo(p[0], p[1]), g.LinkTo(p[1], p[0]))
	}
	return mustRemove(t, g, ls...)
}

func checkConn(t *testing.T, name string, c *Connectivity, pairs, connected int64, groups, largest int, flows, reachable int64) {
	t.Helper()
	if c.Pairs != pairs || c.ConnectedPairs != connected || c.Groups != groups || c.LargestGroup != largest || c.Flows != flows || c.Reachable != reachable {
		t.Errorf("%s: %+v; want pairs %d connected %d groups %d largest %d flows %d reachable %d", name, *c, pairs, connected, groups, largest, flows, reachable)
	}
}

// TestRingOneCableCut: the 4-node ring (servers 0..3 on switches 4..7)
// with the cable between switches 7 and 4 cut is a line 4–5–6–7, worked by
// hand. Still all 12 pairs connected (one group of 4). All-to-all over
// ECMP (one path per pair on a line): server links carry 3 flows each;
// 4→5 the 3 flows from server 0, 5→6 the 4 from {0, 1} to {2, 3}, 6→7
// the 3 to server 3, and the same backwards. Old link ids 0..15 lose 6
// (4→7) and 14 (7→4); the rest keep their order, so the loads by new id
// are those of old links 0 1 2 3 4 5 7 8 9 10 11 12 13 15: 3 3 3 3 3 3 3
// 4 3 3 3 4 3 3 (sum 44). The 8 flows between {0, 1} and {2, 3} cross a load-4
// link (rate 1/4), the other 4 only load-3 links (1/3): non-restricted
// 8/4 + 4/3 = 10/3, restricted 12/4 = 3. Hops: distance 1, 2, 3 on the
// line: 6 flows of 3 links, 4 of 4, 2 of 5.
func TestRingOneCableCut(t *testing.T) {
	f := cut(t, ring(t, 1).Graph, [2]int32{7, 4})
	p, _ := AllToAll(4)
	for _, r := range []route.Router{mustECMP(t, f.Graph, 0), mustKSP(t, f.Graph, 3)} {
		res, err := Run(r, p, Options{Connectivity: true})
		if err != nil {
			t.Fatal(err)
		}
		check(t, res, want{
			load:    []float64{3, 3, 3, 3, 3, 3, 3, 4, 3, 3, 3, 4, 3, 3},
			maxLoad: 4, meanLoad: 44.0 / 14,
			hops: []float64{0, 0, 0, 6, 4, 2}, meanHops: 44.0 / 12,
			minRate: 0.25, nonRestr: 10.0 / 3, restricted: 3,
		})
		if res.Flows != 12 || res.Unrouted != 0 || res.Links != 14 {
			t.Errorf("%s: flows %d unrouted %d links %d", r.Name(), res.Flows, res.Unrouted, res.Links)
		}
		checkConn(t, "one cut "+r.Name(), res.Connectivity, 12, 12, 1, 4, 12, 12)
	}
}

// TestRingCuts: cutting the ring at 7–4 and 5–6 leaves groups {0, 1} and
// {2, 3}: 4 of 12 pairs, and 8 all-to-all flows unrouted; cutting server
// 0's cable leaves it alone: groups {0}, {1, 2, 3}, 6 pairs; a random
// permutation's flows are reachable exactly when source and destination
// are in one group.
func TestRingCuts(t *testing.T) {
	tor := ring(t, 1)
	p, _ := AllToAll(4)
	two := cut(t, tor.Graph, [2]int32{7, 4}, [2]int32{5, 6})
	res, err := Run(mustECMP(t, two.Graph, 1), p, Options{Connectivity: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Flows != 4 || res.Unrouted != 8 {
		t.Errorf("two cuts: flows %d unrouted %d, want 4 and 8", res.Flows, res.Unrouted)
	}
	checkConn(t, "two cuts", res.Connectivity, 12, 4, 2, 2, 12, 4)
	alone := cut(t, tor.Graph, [2]int32{0, 4})
	c, err := Connect(alone.Graph, p)
	if err != nil {
		t.Fatal(err)
	}
	checkConn(t, "server 0 cut", c, 12, 6, 2, 3, 12, 6)
	perm, _ := List(4, []Pair{{0, 1}, {1, 2}, {2, 3}, {3, 0}})
	if c, _ := Connect(two.Graph, perm); c.Flows != 4 || c.Reachable != 2 {
		t.Errorf("two cuts, 0→1→2→3→0: %d of %d reachable, want 2 of 4", c.Reachable, c.Flows)
	}
	if c, _ := Connect(tor.Graph, nil); c.ConnectedPairs != 12 || c.Flows != 0 || c.Groups != 1 {
		t.Errorf("whole ring, no pattern: %+v", *c)
	}
	if _, err := Connect(tor.Graph, perm8(t)); err == nil || !strings.Contains(err.Error(), "must equal the network's 4 servers") {
		t.Errorf("8-server pattern on 4 servers: %v", err)
	}
}

func perm8(t *testing.T) Pattern {
	p, err := RandomPermutation(8, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConnectivityOneWay: removing only 4→5 and 4→7 (one direction of
// two cables) leaves server 0 reachable by all but reaching nobody: 9 of
// 12 pairs, found by a search per server (no groups reported). A server
// on two switches that are otherwise apart (a switch-centric server joins
// no components) is also searched: 2 servers on switches 3, 4 plus server
// 2 on both: 0 reaches 2, 2 reaches both, 1 reaches 2: 4 pairs.
func TestConnectivityOneWay(t *testing.T) {
	tor := ring(t, 1)
	f := mustRemove(t, tor.Graph, tor.LinkTo(4, 5), tor.LinkTo(4, 7))
	c, err := Connect(f.Graph, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkConn(t, "one way", c, 12, 9, 0, 0, 0, 0)
	var ls []graph.Link
	for _, p := range [][2]int32{{0, 3}, {1, 4}, {2, 3}, {2, 4}} {
		ls = append(ls, graph.Link{From: p[0], To: p[1], Capacity: 1}, graph.Link{From: p[1], To: p[0], Capacity: 1})
	}
	g, _ := graph.New(3, 2, ls)
	p, _ := AllToAll(3)
	c, _ = Connect(g, p)
	checkConn(t, "two-switch server", c, 6, 4, 0, 0, 6, 4)
	// With servers forwarding, server 2 joins everything.
	c, _ = Connect(g.WithServersForward(true), p)
	checkConn(t, "two-switch server, forwarding", c, 6, 6, 1, 3, 6, 6)
}

// TestConnectivityServerCentric: BCube(2, 1) (servers 0..3; server 0 on
// switches 4 and 6): cutting server 0's level-0 cable leaves every pair
// connected through its level-1 switch and server 2; cutting both of its
// cables isolates it (6 pairs). The same links switch-centric connect
// only servers sharing a switch — each server reaches the two it shares
// a switch with, 8 pairs — found by a search per server, since a server
// is on two switches that only servers join.
func TestConnectivityServerCentric(t *testing.T) {
	b, err := topology.NewBCube(2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := AllToAll(4)
	one := cut(t, b.Graph, [2]int32{0, b.ServerSwitch(0, 0)})
	c, _ := Connect(one.Graph, p)
	checkConn(t, "bcube level-0 cut", c, 12, 12, 1, 4, 12, 12)
	res, err := Run(mustKSP(t, one.Graph, 2), p, Options{Connectivity: true})
	if err != nil || res.Unrouted != 0 || res.Flows != 12 {
		t.Fatalf("ksp on the cut bcube: %v, %+v", err, res)
	}
	both := cut(t, b.Graph, [2]int32{0, b.ServerSwitch(0, 0)}, [2]int32{0, b.ServerSwitch(0, 1)})
	c, _ = Connect(both.Graph, p)
	checkConn(t, "bcube server 0 cut off", c, 12, 6, 2, 3, 12, 6)
	c, _ = Connect(b.Graph.WithServersForward(false), p)
	checkConn(t, "bcube switch-centric", c, 12, 8, 0, 0, 12, 8)
}

// TestConnectivityRandomFailures: on a torus, a jellyfish-like random
// graph of switches, BCube and DCell with 0 to 60% of their cables failed
// (seeds 1..3), Connect's pairs equal a breadth-first search from every
// server, its reachable flows of a random permutation equal the flows
// ECMP routes (ECMP routes every reachable flow), and Unrouted the rest.
func TestConnectivityRandomFailures(t *testing.T) {
	tor, _ := graph.NewTorus([]int{4, 4}, 2, 1)
	bc, _ := topology.NewBCube(3, 2, 1)
	dc, _ := topology.NewDCell(3, 1, 1)
	jf, _ := topology.NewJellyfish(20, 6, 4, 1, 1)
	for name, g := range map[string]*graph.Graph{"torus": tor.Graph, "bcube": bc.Graph, "dcell": dc.Graph, "jellyfish": jf.Graph} {
		p, _ := RandomPermutation(g.NumServers(), 5)
		for _, frac := range []float64{0, 0.1, 0.3, 0.6} {
			for seed := uint64(1); seed <= 3; seed++ {
				f, err := graph.FailFraction(g, frac, seed)
				if err != nil {
					t.Fatal(err)
				}
				c, err := Connect(f.Graph, p)
				if err != nil {
					t.Fatal(err)
				}
				var pairs int64
				dist := make([]int32, f.NumNodes())
				for s := int32(0); s < int32(f.NumServers()); s++ {
					f.Distances(s, dist, nil)
					for d := int32(0); d < int32(f.NumServers()); d++ {
						if d != s && dist[d] >= 0 {
							pairs++
						}
					}
				}
				label := fmt.Sprintf("%s %v seed %d", name, frac, seed)
				if c.ConnectedPairs != pairs || c.Groups == 0 {
					t.Errorf("%s: %d connected pairs (%d groups), BFS %d", label, c.ConnectedPairs, c.Groups, pairs)
				}
				res, err := Run(mustECMP(t, f.Graph, 1), p, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Flows != c.Reachable || res.Unrouted != c.Flows-c.Reachable {
					t.Errorf("%s: ECMP routed %d, unrouted %d; reachable %d of %d", label, res.Flows, res.Unrouted, c.Reachable, c.Flows)
				}
				if frac == 0 && c.ConnectedPairs != c.Pairs {
					t.Errorf("%s: intact network connects %d of %d pairs", label, c.ConnectedPairs, c.Pairs)
				}
			}
		}
	}
	// Every cable failed: no link, every server a group of one.
	f, _ := graph.FailFraction(tor.Graph, 1, 9)
	if c, _ := Connect(f.Graph, nil); c.ConnectedPairs != 0 || c.Groups != tor.NumServers() || c.LargestGroup != 1 || f.NumLinks() != 0 {
		t.Errorf("all cables failed: %+v, %d links", *c, f.NumLinks())
	}
}

func mustECMP(t *testing.T, g *graph.Graph, p int) *route.ECMP {
	t.Helper()
	r, err := route.NewECMP(g, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustKSP(t *testing.T, g *graph.Graph, k int) *route.KSP {
	t.Helper()
	r, err := route.NewKSP(g, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

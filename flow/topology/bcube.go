package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

// serverCentric builds a graph from links and marks its servers as
// forwarding (graph.WithServersForward).
func serverCentric(servers, switches int, ls []graph.Link) (*graph.Graph, error) {
	g, err := graph.New(servers, switches, ls)
	if err != nil {
		return nil, err
	}
	return g.WithServersForward(true), nil
}

// power returns base^exp, refusing a result past graph.MaxNodes.
func power(field string, base, exp int) (int, error) {
	p := int64(1)
	for range exp {
		p *= int64(base)
		if p > graph.MaxNodes {
			return 0, fmt.Errorf("%s: %d^%d is more than %d nodes", field, base, exp, graph.MaxNodes)
		}
	}
	return int(p), nil
}

// BCube is the server-centric BCube(n, k) (Guo et al., "BCube: a high
// performance, server-centric network architecture for modular data
// centers", SIGCOMM 2009): n^(k+1) servers of k+1 ports and k+1 levels
// of n^k switches of n ports. BCube_0 is n servers on one switch; BCube_k
// is n BCube_(k−1)s whose servers are joined by a new level of switches.
//
// A server is labelled a_k..a_0 (base n) and is node Σ a_i·n^i. The
// level-l switch of label w (the server label without digit l, read as
// Σ_{i<l} a_i·n^i + Σ_{i>l} a_i·n^(i−1)) is node servers + l·n^k + w;
// its port j goes to the server with digit l = j, and a server's port l
// goes to its level-l switch. Servers forward.
//
// Counts: n^(k+1) servers, (k+1)·n^k switches, 2·(k+1)·n^(k+1) directed
// links. Diameter (Guo et al.: k+1 switch hops) 2·(k+1) links: servers
// whose labels differ in every digit are k+1 switch hops apart, each hop
// server–switch–server, and no two servers are further.
type BCube struct {
	*graph.Graph
	N, K              int
	servers, perLevel int32 // n^(k+1), n^k
}

// NewBCube builds BCube(n, k) with links of capacity c.
func NewBCube(n, k int, c float64) (*BCube, error) {
	if err := checkAtLeast("bcube n", n, 2); err != nil {
		return nil, err
	}
	if err := checkAtLeast("bcube k", k, 0); err != nil {
		return nil, err
	}
	if err := checkCapacity("bcube capacity", c); err != nil {
		return nil, err
	}
	nk, err := power("bcube size", n, k) // k may be huge: k+1 could overflow
	if err != nil {
		return nil, err
	}
	if int64(nk)*int64(n) > graph.MaxNodes {
		return nil, fmt.Errorf("bcube size: %d^%d is more than %d nodes", n, k+1, graph.MaxNodes)
	}
	servers := nk * n
	if _, err := product("bcube size", []int{servers, k + 2}); err != nil {
		return nil, err
	}
	b := &BCube{N: n, K: k, servers: int32(servers), perLevel: int32(servers / n)}
	ls := &links{c: c}
	for s := 0; s < servers; s++ {
		for l := 0; l <= k; l++ {
			ls.cable(int32(s), b.ServerSwitch(int32(s), l))
		}
	}
	g, err := serverCentric(servers, (k+1)*(servers/n), ls.l)
	if err != nil {
		return nil, err
	}
	b.Graph = g
	return b, nil
}

// ServerSwitch is the node of server s's level-l switch: its label is
// s's without digit l.
func (b *BCube) ServerSwitch(s int32, l int) int32 {
	nl := int32(1) // n^l
	for range l {
		nl *= int32(b.N)
	}
	w := s%nl + s/(nl*int32(b.N))*nl
	return b.servers + int32(l)*b.perLevel + w
}

// Diameter is 2·(k+1) links.
func (b *BCube) Diameter() int { return 2 * (b.K + 1) }

func checkEven(field string, v int) error {
	return fmt.Errorf("%s: %d is not allowed: must be even", field, v)
}

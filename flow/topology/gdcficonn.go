package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

// Connection rules of the DCell/FiConn family (GDCFiConn).
const (
	// DCellRule is DCell's (Guo et al., "DCell: a scalable and
	// fault-tolerant network structure for data centers", SIGCOMM 2008):
	// every server has a port for every level, and in D_m copies a < b of
	// D_(m−1) are joined by a cable from server b−1 of copy a to server a
	// of copy b (server numbers within the copy).
	DCellRule = "dcell"
	// DCellBetaRule is β-DCell (Kliegl et al., "Generalized DCell
	// structure for load-balanced data center networks", INFOCOM
	// workshops 2010): the same ports, copies a < b joined by server
	// b−a−1 of copy a and server g_m−1−(b−a) of copy b, so that server i
	// of copy x is joined to copy x+i+1 mod g_m.
	DCellBetaRule = "dcell-beta"
	// FiConnRule is FiConn's (Li et al., "FiConn: using backup port for
	// server interconnection in data centers", INFOCOM 2009): every server
	// has one port besides its switch's, and level m uses one server in
	// 2^m of D_(m−1), those numbered j·2^m + 2^(m−1) − 1, joined by
	// DCell's rule over that list.
	FiConnRule = "ficonn"
)

// GDCFiConnRules lists the rules NewGDCFiConn accepts.
func GDCFiConnRules() []string { return []string{DCellRule, DCellBetaRule, FiConnRule} }

// GDCFiConn is the family of recursive server-centric networks that
// generalizes DCell and FiConn (INRFlow's "gdcficonn"), built of n-port
// switches and servers that forward. D_0 is n servers on a switch; D_m
// (m = 1..k) is g_m copies of D_(m−1), numbered 0..g_m−1, every two joined
// by one level-m cable between two of their servers. The members differ
// in which servers of D_(m−1) take a level-m cable — its bridge servers —
// and how the copies are paired:
//
//   - DCell (DCellRule, DCellBetaRule): every server of D_(m−1) is a
//     bridge server of level m, so a server has k+1 ports (its switch and
//     one per level), g_m = t_(m−1) + 1 and t_m = g_m·t_(m−1);
//   - FiConn (FiConnRule, n even): a server has 2 ports; of the t_(m−1)
//     servers of D_(m−1), the t_(m−1)/2^m numbered j·2^m + 2^(m−1) − 1 are
//     the bridge servers of level m (level 1 takes the even servers, level
//     2 those ≡ 1 mod 4, level 3 those ≡ 3 mod 8, ...), g_m =
//     t_(m−1)/2^m + 1. A size whose t_(m−1) is not a multiple of 2^m is
//     refused.
//
// Bridge server i of copy a is the i-th bridge server of D_(m−1)^a; rules
// pair the copies as the constants above say.
//
// Node numbers: a server is its uid u_0 + u_1·t_0 + ... + u_k·t_(k−1),
// u_m being the number of its D_(m−1) within its D_m (u_0 its port on its
// switch); the switch of D_0 number s (uid / n) is servers + s. A server's
// port 0 goes to its switch, then come its level links in level order.
//
// Counts: t_k servers, t_k/n switches; directed links 2·t_k (servers to
// switches) plus, per level m, 2·(t_k/t_m)·g_m·(g_m−1)/2: k·t_k for DCell,
// t_k − t_k/2^k for FiConn (every server but t_k/2^k has its second port
// used).
//
// Diameter: DCell's and FiConn's papers bound it by 2^(k+1) − 1 server
// hops (their recursive routings); in links the same routing gives
// L_k = 2·L_(k−1) + 1, L_0 = 2, so at most 3·2^k − 1 (DiameterBound). The
// exact diameter is found by breadth-first search (graph.Diameter);
// TestGDCFiConn records it for small instances: FiConn reaches the bound
// in all of them, DCell with n ≥ 3 and k ≤ 2 too, DCell with n = 2 and
// β-DCell with small n stay below it.
type GDCFiConn struct {
	*graph.Graph
	N, K int
	Rule string
	T, G []int // T[m] = t_m, servers of D_m; G[m] = g_m, copies of D_(m−1) in D_m (G[0] = n)
}

// NewDCell builds DCell_k of n-port switches (DCellRule).
func NewDCell(n, k int, c float64) (*GDCFiConn, error) { return NewGDCFiConn(n, k, DCellRule, c) }

// NewFiConn builds FiConn_k of n-port switches (FiConnRule).
func NewFiConn(n, k int, c float64) (*GDCFiConn, error) { return NewGDCFiConn(n, k, FiConnRule, c) }

// NewGDCFiConn builds the level-k member of rule's family with n-port
// switches and links of capacity c.
func NewGDCFiConn(n, k int, rule string, c float64) (*GDCFiConn, error) {
	if err := checkGDCFiConn(n, k, rule, c); err != nil {
		return nil, err
	}
	d := &GDCFiConn{N: n, K: k, Rule: rule, T: []int{n}, G: []int{n}}
	for m := 1; m <= k; m++ {
		t := d.T[m-1]
		var g int
		if rule == FiConnRule {
			if t%(1<<m) != 0 {
				return nil, fmt.Errorf("ficonn n %d, k %d: D_%d has %d servers, not a multiple of 2^%d: no FiConn of this size", n, k, m-1, t, m)
			}
			g = t>>m + 1
		} else {
			g = t + 1
		}
		if int64(g)*int64(t) > graph.MaxNodes/2 {
			return nil, fmt.Errorf("gdcficonn n %d, k %d: D_%d would have %d servers, more than %d", n, k, m, int64(g)*int64(t), graph.MaxNodes/2)
		}
		d.G = append(d.G, g)
		d.T = append(d.T, g*t)
	}
	servers := d.T[k]
	ls := &links{c: c}
	for s := 0; s < servers; s++ {
		ls.cable(int32(s), int32(servers+s/n))
	}
	for m := 1; m <= k; m++ {
		tm, tp, g := d.T[m], d.T[m-1], d.G[m]
		for base := 0; base < servers; base += tm {
			for a := 0; a < g; a++ {
				for b := a + 1; b < g; b++ {
					i, j := d.pair(m, a, b)
					ls.cable(int32(base+a*tp+d.Bridge(m, i)), int32(base+b*tp+d.Bridge(m, j)))
				}
			}
		}
	}
	gr, err := serverCentric(servers, servers/n, ls.l)
	if err != nil {
		return nil, err
	}
	d.Graph = gr
	return d, nil
}

// checkGDCFiConn refuses NewGDCFiConn's parameters out of range and a
// rule unknown or not possible with n.
func checkGDCFiConn(n, k int, rule string, c float64) error {
	if err := checkAtLeast("gdcficonn n", n, 2); err != nil {
		return err
	}
	if err := checkAtLeast("gdcficonn k", k, 0); err != nil {
		return err
	}
	if err := checkCapacity("gdcficonn capacity", c); err != nil {
		return err
	}
	switch rule {
	case DCellRule, DCellBetaRule:
	case FiConnRule:
		if n%2 != 0 {
			return fmt.Errorf("gdcficonn n: %d is not allowed with rule %q: must be even", n, rule)
		}
	default:
		return fmt.Errorf("gdcficonn rule: %q is not allowed: must be one of %v", rule, GDCFiConnRules())
	}
	if n > graph.MaxNodes/2 {
		return fmt.Errorf("gdcficonn n: %d is not allowed: must be at most %d", n, graph.MaxNodes/2)
	}
	return nil
}

// pair returns the bridge-server numbers joining copies a < b of D_(m−1)
// in D_m: bridge i of copy a, bridge j of copy b.
func (d *GDCFiConn) pair(m, a, b int) (i, j int) {
	if d.Rule == DCellBetaRule {
		return b - a - 1, d.G[m] - 1 - (b - a)
	}
	return b - 1, a
}

// Bridge returns the number, within D_(m−1), of its i-th bridge server of
// level m (i in [0, g_m − 1)).
func (d *GDCFiConn) Bridge(m, i int) int {
	if d.Rule == FiConnRule {
		return i<<m + 1<<(m-1) - 1
	}
	return i
}

// DiameterBound is 3·2^k − 1 links, the length of the recursive routing's
// longest path (2^(k+1) − 1 server hops, 2^k of them through a switch).
func (d *GDCFiConn) DiameterBound() int { return 3<<d.K - 1 }

package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
)

// HCNBCN is the hierarchical compound network HCN(α, h) and the
// bidimensional compound network BCN(α, β, h, γ) of Guo et al.
// ("Expandable and cost-effective network structures for data centers
// using dual-port servers", IEEE Trans. Computers 62(7), 2013): dual-port
// servers that forward and switches of α + β ports.
//
// The definitions are reconstructed from Stewart ("Improved routing in
// the data centre networks HCN and BCN", CANDAR 2014) and Erickson et al.
// (FGCS 75, 2017) as INRFlow implements them, not from Guo et al.'s text,
// which was not at hand: treat the wiring below, in particular the
// follower rule of BCN, as this package's reading of the definition.
//
// HCN(α, h). Every switch has α leader servers (Guo et al.'s "master"
// servers). A leader is labelled x_h..x_0 (base α), x_0 its port on the
// switch labelled x_h..x_1. HCN(α, 0) is one switch and its α leaders;
// HCN(α, l) is α copies of HCN(α, l−1) (digit x_l), copies i ≠ j joined by
// a level-l cable from leader (prefix, i, j, .., j) to leader (prefix, j,
// i, .., i) — the last l digits equal. A leader whose low digits x_f..x_0
// all equal c and x_(f+1) ≠ c thus has its second port at level f+1; the
// α leaders c, c, .., c keep a free port (for joining HCNs into bigger
// networks).
//
// BCN(α, β, h, γ), 0 ≤ γ ≤ h. Every switch also has β follower servers
// ("slave" servers). s = α^γ·β + 1 copies B_0..B_(s−1) of HCN(α, h), each
// split into α^(h−γ) sub-HCN(α, γ)s B_u^v (v: the top h−γ digits of the
// switch labels). The α^γ·β followers of B_u^v, numbered f = (switch
// label within the sub-HCN)·β + (port among the followers), join the s
// copies DCell-fashion: for u < u', follower u'−1 of B_u^v to follower u
// of B_(u')^v. Every follower has one cable besides its switch's.
//
// Node numbers: copy u's servers are u·(α^(h+1) + α^h·β) + i: its leaders
// first (i = Σ x_j·α^j), then its followers (i = α^(h+1) + switch·β + p,
// p < β); then the switches, copy u's switch of label x_h..x_1 being
// servers + u·α^h + Σ x_j·α^(j−1). A server's port 0 goes to its switch,
// port 1 to its other server. HCN(α, h) is the one copy with β = 0.
//
// Counts: per copy α^(h+1) leaders, α^h·β followers, α^h switches,
// α^h·(α+β) server cables, (α^(h+1) − α)/2 leader cables; BCN adds
// s·α^h·β/2 follower cables. Every cable is two directed links.
//
// Diameter: HCN's recursive routing (FdimRouting) gives at most
// L_h = 2·L_(h−1) + 1, L_0 = 2: 3·2^h − 1 links (Guo et al. state
// 2^(h+1) − 1 server hops). BCN: within a copy L_h; across copies a path
// to a follower of the right sub-HCN, its follower cable and a path in the
// other copy: at most 2·L_h + 1 = 6·2^h − 1 links. Both are upper bounds
// (DiameterBound); the exact diameter comes from a breadth-first search
// and TestHCNBCN records it for small instances.
type HCNBCN struct {
	*graph.Graph
	Alpha, Beta, H, Gamma int
	Copies                int // s; 1 for HCN
	BCN                   bool
	perCopy, leaders      int // servers and leaders of a copy
}

// NewHCN builds HCN(n, h): n leaders per switch, no followers.
func NewHCN(n, h int, c float64) (*HCNBCN, error) { return newHCNBCN(n, 0, h, -1, c) }

// NewBCN builds BCN(α, β, h, γ) with 0 ≤ γ ≤ h.
func NewBCN(alpha, beta, h, gamma int, c float64) (*HCNBCN, error) {
	if err := checkAtLeast("bcn beta", beta, 1); err != nil {
		return nil, err
	}
	if gamma < 0 || gamma > h {
		return nil, fmt.Errorf("bcn gamma: %d is not allowed: must be in [0, %d] (h)", gamma, h)
	}
	return newHCNBCN(alpha, beta, h, gamma, c)
}

// newHCNBCN builds BCN(α, β, h, γ), or HCN(α, h) for γ < 0 (then β is 0),
// with links of capacity c.
func newHCNBCN(alpha, beta, h, gamma int, c float64) (*HCNBCN, error) {
	if err := checkAtLeast("hcn alpha", alpha, 2); err != nil {
		return nil, err
	}
	if err := checkAtLeast("hcn h", h, 0); err != nil {
		return nil, err
	}
	if err := checkCapacity("hcn capacity", c); err != nil {
		return nil, err
	}
	if alpha > graph.MaxNodes || beta > graph.MaxNodes {
		return nil, fmt.Errorf("hcn alpha %d, beta %d: not allowed: each must be at most %d", alpha, beta, graph.MaxNodes)
	}
	switches, err := power("hcn size", alpha, h)
	if err != nil {
		return nil, err
	}
	leaders := switches * alpha
	if _, err := product("hcn size", []int{switches, alpha + beta + 1}); err != nil {
		return nil, err
	}
	x := &HCNBCN{Alpha: alpha, Beta: beta, H: h, Gamma: gamma, Copies: 1, BCN: gamma >= 0, leaders: leaders}
	x.perCopy = leaders + switches*beta
	if x.BCN {
		sub, _ := power("bcn size", alpha, gamma)
		x.Copies = sub*beta + 1
		if _, err := product("bcn size", []int{x.Copies, x.perCopy + switches}); err != nil {
			return nil, err
		}
	}
	servers := x.Copies * x.perCopy
	// Links (the type's counts): per copy 2·(its servers) and leaders − α,
	// and copies·α^h·β between followers; each term below 2^34.
	count := int64(x.Copies)*(2*int64(x.perCopy)+int64(leaders-alpha)) + int64(x.Copies)*int64(switches)*int64(beta)
	if err := checkLinks(fmt.Sprintf("hcn alpha %d, beta %d, h %d, gamma %d", alpha, beta, h, gamma), count); err != nil {
		return nil, err
	}
	ls := x.cables(switches, servers, c)
	g, err := serverCentric(servers, x.Copies*switches, ls.l)
	if err != nil {
		return nil, err
	}
	x.Graph = g
	return x, nil
}

// cables lays x's cables, of capacity c, the switches (switches a copy)
// numbered from servers: every server to its switch, the leaders' second
// ports within each copy and, in a BCN, the followers between copies.
func (x *HCNBCN) cables(switches, servers int, c float64) *links {
	alpha, beta, leaders := x.Alpha, x.Beta, x.leaders
	ls := &links{c: c}
	for u := 0; u < x.Copies; u++ {
		base := u * x.perCopy
		for i := 0; i < x.perCopy; i++ {
			sw := i / alpha
			if i >= leaders {
				sw = (i - leaders) / beta
			}
			ls.cable(int32(base+i), int32(servers+u*switches+sw))
		}
	}
	for u := 0; u < x.Copies; u++ {
		base := u * x.perCopy
		for i := 0; i < leaders; i++ {
			if p := x.leaderPeer(i); p > i {
				ls.cable(int32(base+i), int32(base+p))
			}
		}
	}
	if x.BCN {
		block := x.Copies - 1 // followers per sub-HCN: α^γ·β
		for v := 0; v < switches*beta/block; v++ {
			for a := 0; a < x.Copies; a++ {
				for b := a + 1; b < x.Copies; b++ {
					ls.cable(int32(a*x.perCopy+leaders+v*block+b-1), int32(b*x.perCopy+leaders+v*block+a))
				}
			}
		}
	}
	return ls
}

// leaderPeer returns the leader (number within its copy) joined to leader
// i's second port, or −1 if that port is free.
func (x *HCNBCN) leaderPeer(i int) int {
	a := x.Alpha
	digits := make([]int, x.H+1)
	for j, v := 0, i; j <= x.H; j++ {
		digits[j], v = v%a, v/a
	}
	f := 0
	for f+1 <= x.H && digits[f+1] == digits[0] {
		f++
	}
	if f == x.H {
		return -1
	}
	cLow, hi := digits[0], digits[f+1]
	digits[f+1] = cLow
	for j := 0; j <= f; j++ {
		digits[j] = hi
	}
	p := 0
	for j := x.H; j >= 0; j-- {
		p = p*a + digits[j]
	}
	return p
}

// DiameterBound is 3·2^h − 1 links for HCN, 6·2^h − 1 for BCN (upper
// bounds; see the type's comment).
func (x *HCNBCN) DiameterBound() int {
	if x.BCN {
		return 6<<x.H - 1
	}
	return 3<<x.H - 1
}

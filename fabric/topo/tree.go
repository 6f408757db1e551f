package topo

import "fmt"

// Tree builds a k-ary n-tree (Petrini and Vanneschi, seed 001 section 3.2
// [44]; seed 000 section 4.1): k^n NICs and n levels of k^(n-1) switches.
//
// Levels count from the NICs: level 0 holds the leaf switches, level n-1
// the top. Switch s is at level s / k^(n-1) and has label
// w = s % k^(n-1), read as n-1 base-k digits w_0 (least significant) to
// w_{n-2}. Every switch has radix 2k (rounded up to a multiple of 4, at
// least 8): ports 0..k-1 point down, ports k..2k-1 point up; the top
// switches' up ports are unused.
//
// Wiring: up port k+j of switch (l, w) goes to switch (l+1, w') where w' is
// w with digit l replaced by j, arriving on its down port w_l. So switches
// of adjacent levels l and l+1 are linked exactly when their labels differ
// at most in digit l. NIC p (digits p_0..p_{n-1}) sits on leaf p / k,
// down port p_0 = p % k.
func Tree(k, n int) (*Topology, error) {
	if k < 2 {
		return nil, fmt.Errorf("tree k: %d is not allowed: must be at least 2", k)
	}
	if n < 1 || n > maxTreeLevels {
		return nil, fmt.Errorf("tree n: %d is not allowed: must be in [1, %d]", n, maxTreeLevels)
	}
	pow := treePowers(k, n)
	if pow == nil {
		return nil, fmt.Errorf("tree %d-ary %d-tree: more than %d NICs", k, n, maxSwitches)
	}
	per := pow[n-1]
	radix := roundRadix(2 * k)
	t := &Topology{
		Name:          fmt.Sprintf("tree-%dary-%d", k, n),
		Kind:          KindTree,
		NICsPerSwitch: k,
		K:             k,
		N:             n,
		Radix:         make([]int, n*per),
		Wiring:        make([][]Peer, n*per),
		NICPort:       make([]PortRef, pow[n]),
		Diameter:      2*n - 1,
	}
	for s := range t.Radix {
		t.Radix[s] = radix
		t.Wiring[s] = make([]Peer, radix)
	}
	for nic := range t.NICPort {
		at := PortRef{Switch: nic / k, Port: nic % k}
		t.NICPort[nic] = at
		t.Wiring[at.Switch][at.Port] = Peer{Kind: PeerNIC, NIC: nic}
	}
	for l := 0; l < n-1; l++ {
		for w := 0; w < per; w++ {
			digit := w / pow[l] % k
			for j := 0; j < k; j++ {
				a := PortRef{Switch: l*per + w, Port: k + j}
				b := PortRef{Switch: (l+1)*per + w + (j-digit)*pow[l], Port: digit}
				t.Wiring[a.Switch][a.Port] = Peer{Kind: PeerSwitch, Port: b}
				t.Wiring[b.Switch][b.Port] = Peer{Kind: PeerSwitch, Port: a}
			}
		}
	}
	return t, nil
}

// treePowers returns k^0..k^n, or nil when k^n exceeds maxSwitches.
// maxTreeLevels bounds n: a 2-ary tree of more levels has more than
// maxSwitches NICs anyway.
const maxTreeLevels = 20

func treePowers(k, n int) []int {
	pow := make([]int, n+1)
	pow[0] = 1
	for i := 1; i <= n; i++ {
		if pow[i-1] > maxSwitches/k {
			return nil
		}
		pow[i] = pow[i-1] * k
	}
	return pow
}

// updown is deterministic up/down routing on a k-ary n-tree with the
// d-mod-k choice of up port (Zahavi): at level l the packet for NIC p
// (digits p_0..p_{n-1}) goes down port p_l when p is below this switch,
// else up port k+p_l. A switch (l, w) has p below it when w_i = p_{i+1} for
// every i >= l, that is w / k^l == p / k^(l+1). The up port leads to the
// switch whose digit l is p_l, so every packet for p reaches, at each level,
// the one switch with digits (p_0..p_{l-1}, p_{l+1}..p_{n-1}): the route is
// unique and the first common ancestor of source and destination is its
// top. The SC never changes.
type updown struct {
	k     int
	pow   []int   // k^0..k^n
	level []uint8 // level[s]: switch s's level l
	high  []int32 // high[s]: w / k^l, the label digits l..n-2 that fix s's subtree
}

// NewUpDown builds up/down routing for tree t. Route expects
// dst < t.NumNICs(); it allocates nothing and costs O(1).
func NewUpDown(t *Topology) (Router, error) {
	if t.Kind != KindTree {
		return nil, fmt.Errorf("routing updown: topology %s is a %q, not a tree", t.Name, t.Kind)
	}
	pow := treePowers(t.K, t.N)
	if pow == nil || t.N > 255 || t.NumSwitches() != t.N*pow[t.N-1] {
		return nil, fmt.Errorf("routing updown: topology %s is not a %d-ary %d-tree as Tree builds it", t.Name, t.K, t.N)
	}
	r := &updown{k: t.K, pow: pow, level: make([]uint8, t.NumSwitches()), high: make([]int32, t.NumSwitches())}
	per := pow[t.N-1]
	for s := range r.level {
		l := s / per
		r.level[s], r.high[s] = uint8(l), int32(s%per/pow[l])
	}
	return r, nil
}

func (r *updown) Route(sw, _, dst, sc int) (int, int) {
	q := dst / r.pow[r.level[sw]]
	digit := q % r.k
	if int(r.high[sw]) == q/r.k {
		return digit, sc
	}
	return r.k + digit, sc
}

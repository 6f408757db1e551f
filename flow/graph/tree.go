package graph

import "fmt"

// Tree is a k-ary n-tree (Petrini and Vanneschi, seed 001 section 3.2
// [44]): k^n servers and n levels of k^(n-1) switches.
//
// Switch (l, w) — level l from 0 (the leaves) to n-1 (the top), label w in
// [0, k^(n-1)) read as n-1 base-k digits w_0 (least significant) to
// w_{n-2} — is node NumServers() + l·k^(n-1) + w. Server p sits on leaf
// p / k.
//
// Ports (link order within each node's Out range):
//   - server p: port 0 goes to its leaf;
//   - switch (l, w): ports 0..k-1 go down — to server w·k + j on a leaf,
//     else to switch (l-1, w with digit l-1 replaced by j) — and, below the
//     top, ports k..2k-1 go up: port k+j to switch (l+1, w with digit l
//     replaced by j).
//
// Counts: 2n·k^n directed links (2·k^n between servers and leaves,
// 2(n-1)·k^n between switches); diameter 2n links (n up, n down).
type Tree struct {
	*Graph
	K, N int
	pow  []int32 // k^0..k^n
}

// NewTree builds a k-ary n-tree whose every link has capacity c.
func NewTree(k, n int, c float64) (*Tree, error) {
	if k < 2 {
		return nil, fmt.Errorf("tree k: %d is not allowed: must be at least 2", k)
	}
	if n < 1 {
		return nil, fmt.Errorf("tree n: %d is not allowed: must be at least 1", n)
	}
	if err := checkCapacity("tree capacity", c); err != nil {
		return nil, err
	}
	if k > MaxLinks || n > 31 { // k^n ≥ 2^n servers: past 31 levels, past any graph
		return nil, fmt.Errorf("tree %d-ary %d-tree: %d^%d servers is not allowed: its 2·n·k^n links must be at most %d", k, n, k, n, MaxLinks)
	}
	pow := []int64{1}
	for i := 1; i <= n; i++ {
		p := pow[i-1] * int64(k) // below 2^62: pow[i-1] and k at most 2^31
		// 2n·k^n links must fit in an int32.
		if p > MaxLinks/(2*int64(n)) {
			return nil, fmt.Errorf("tree %d-ary %d-tree: %d^%d servers is not allowed: its 2·n·k^n links must be at most %d", k, n, k, n, MaxLinks)
		}
		pow = append(pow, p)
	}
	servers, per := pow[n], pow[n-1]
	switches := int64(n) * per
	links := 2 * int64(n) * servers
	b := newBuilder(int(servers), int(switches), int(links))
	t := &Tree{K: k, N: n, pow: make([]int32, n+1)}
	for i, p := range pow {
		t.pow[i] = int32(p)
	}
	sw0 := int32(servers)
	for p := int32(0); p < int32(servers); p++ {
		b.add(p, sw0+p/int32(k), c)
	}
	k32 := int32(k)
	for l := 0; l < n; l++ {
		for w := int32(0); w < int32(per); w++ {
			self := sw0 + int32(l)*int32(per) + w
			if l == 0 {
				for j := int32(0); j < k32; j++ {
					b.add(self, w*k32+j, c)
				}
			} else {
				d := w / t.pow[l-1] % k32
				for j := int32(0); j < k32; j++ {
					b.add(self, self-int32(per)+(j-d)*t.pow[l-1], c)
				}
			}
			if l < n-1 {
				d := w / t.pow[l] % k32
				for j := int32(0); j < k32; j++ {
					b.add(self, self+int32(per)+(j-d)*t.pow[l], c)
				}
			}
		}
	}
	t.Graph = b.finish()
	return t, nil
}

// Switch returns the node number of switch (level, label).
func (t *Tree) Switch(level, label int) int32 {
	return int32(t.NumServers()) + int32(level)*t.pow[t.N-1] + int32(label)
}

// Pow returns k^i for i in [0, n].
func (t *Tree) Pow(i int) int32 { return t.pow[i] }

// Diameter returns the closed-form diameter in links: 2n.
func (t *Tree) Diameter() int { return 2 * t.N }

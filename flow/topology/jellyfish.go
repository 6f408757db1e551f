package topology

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/opasim/opasim/flow/graph"
)

// Jellyfish is a random regular graph of switches (Singla et al.,
// "Jellyfish: networking data centers randomly", NSDI 2012): n switches of
// k ports, r of them joined to other switches at random and k − r to
// servers. Built as the paper does: join random pairs of switches with
// free ports that are not yet neighbours; when no pair can be joined,
// break a random cable x–y (neither end a neighbour of that switch) and
// join a switch with two free ports to x and to y, or two switches with a
// free port each (already neighbours) one to x, the other to y. The generator is seeded (PCG): the same seed gives the same
// graph.
//
// Node numbers: server i of switch s is s·(k−r) + i; switch s is
// servers + s. Counts: n·(k−r) servers; every switch has r switch
// neighbours (one has r − 1 when n·r is odd); no cable joins a switch to
// itself or doubles another; 2·n·(k−r) + 2·⌊n·r/2⌋ directed links.
type Jellyfish struct {
	*graph.Graph
	N, K, R int
	Seed    uint64
	adj     [][]int32 // switch neighbours, for the tests
}

// NewJellyfish builds a jellyfish of n switches with k ports, r of them
// for switches, links of capacity c, from seed.
func NewJellyfish(n, k, r int, seed uint64, c float64) (*Jellyfish, error) {
	if err := checkAtLeast("jellyfish switches", n, 2); err != nil {
		return nil, err
	}
	if r < 1 || r > n-1 {
		return nil, fmt.Errorf("jellyfish r: %d is not allowed: must be in [1, %d] (switches − 1)", r, n-1)
	}
	if k < r+1 {
		return nil, fmt.Errorf("jellyfish k: %d is not allowed: must be at least %d (r + 1: a port for a server)", k, r+1)
	}
	if err := checkCapacity("jellyfish capacity", c); err != nil {
		return nil, err
	}
	if _, err := product("jellyfish size", []int{n, k - r + 1}); err != nil {
		return nil, err
	}
	// 2·n·(k−r) + 2·⌊n·r/2⌋ links at most, r < n ≤ 2^31: checked before
	// the switches are wired.
	if err := checkLinks(fmt.Sprintf("jellyfish of %d switches of %d ports, %d to switches", n, k, r), 2*int64(n)*int64(k-r)+int64(n)*int64(r)/2*2); err != nil {
		return nil, err
	}
	j := &Jellyfish{N: n, K: k, R: r, Seed: seed, adj: make([][]int32, n)}
	j.wire(rand.New(rand.NewPCG(seed, 0x6a656c6c79)))
	p := k - r
	servers := n * p
	b := &links{c: c}
	for x := 0; x < servers; x++ {
		b.cable(int32(x), int32(servers+x/p))
	}
	for s := 0; s < n; s++ {
		for _, t := range j.adj[s] {
			if int(t) > s {
				b.cable(int32(servers+s), int32(servers)+t)
			}
		}
	}
	g, err := graph.New(servers, n, b.l)
	if err != nil {
		return nil, err
	}
	j.Graph = g
	return j, nil
}

// wire joins the switches at random until every switch has r neighbours
// or, with n·r odd, one has r − 1.
func (j *Jellyfish) wire(rng *rand.Rand) {
	w := &wiring{j: j, rng: rng, open: make([]int32, j.N)} // switches with a free port
	for s := range w.open {
		w.open[s] = int32(s)
		j.adj[s] = make([]int32, 0, j.R)
	}
	w.joinPairs()
	// No pair can be joined: each switch with two or more free ports takes
	// the place of a random cable x–y, joined to both ends; two switches
	// with a free port each, already neighbours, take the ends of one:
	// u–x and v–y.
	w.splitForPair()
	w.splitForSingles()
}

// wiring is wire's state: the switches with a free port and the cables
// between switches, in the order they were laid (a cable dropped is
// replaced by the last).
type wiring struct {
	j      *Jellyfish
	rng    *rand.Rand
	open   []int32
	cables [][2]int32
}

// free is switch s's free ports.
func (w *wiring) free(s int32) int { return w.j.R - len(w.j.adj[s]) }

// join lays a cable u–v.
func (w *wiring) join(u, v int32) {
	j := w.j
	j.adj[u] = append(j.adj[u], v)
	j.adj[v] = append(j.adj[v], u)
	w.cables = append(w.cables, [2]int32{u, v})
}

// drop removes cable i.
func (w *wiring) drop(i int) {
	j, cables := w.j, w.cables
	x, y := cables[i][0], cables[i][1]
	cables[i] = cables[len(cables)-1]
	w.cables = cables[:len(cables)-1]
	j.adj[x] = slices.DeleteFunc(j.adj[x], func(t int32) bool { return t == y })
	j.adj[y] = slices.DeleteFunc(j.adj[y], func(t int32) bool { return t == x })
}

// prune drops the switches with no free port left from open.
func (w *wiring) prune() {
	w.open = slices.DeleteFunc(w.open, func(s int32) bool { return w.free(s) == 0 })
}

// joinPairs joins random pairs of switches with a free port, not yet
// neighbours, while there are such pairs.
func (w *wiring) joinPairs() {
	j, rng := w.j, w.rng
	for len(w.open) >= 2 {
		open := w.open
		joined := false
		for try := 0; try < 64 && !joined; try++ {
			u, v := open[rng.IntN(len(open))], open[rng.IntN(len(open))]
			if u != v && !slices.Contains(j.adj[u], v) {
				w.join(u, v)
				joined = true
			}
		}
		if !joined { // look for any pair left before giving up on pairs
			for a := 0; a < len(open) && !joined; a++ {
				for b := a + 1; b < len(open) && !joined; b++ {
					if u, v := open[a], open[b]; !slices.Contains(j.adj[u], v) {
						w.join(u, v)
						joined = true
					}
				}
			}
		}
		w.prune()
		if !joined {
			break
		}
	}
}

// splitForPair replaces random cables x–y by u–x and v–y while two
// switches u and v, already neighbours, have a free port each.
func (w *wiring) splitForPair() {
	j, rng := w.j, w.rng
	for len(w.open) >= 2 && w.free(w.open[0]) == 1 && w.free(w.open[1]) == 1 {
		u, v := w.open[0], w.open[1]
		ok := false
		for try := 0; try <= 64*len(w.cables) && !ok; try++ {
			i := rng.IntN(len(w.cables))
			x, y := w.cables[i][0], w.cables[i][1]
			if rng.IntN(2) == 1 {
				x, y = y, x
			}
			if x != u && x != v && y != u && y != v && !slices.Contains(j.adj[u], x) && !slices.Contains(j.adj[v], y) {
				w.drop(i)
				w.join(u, x)
				w.join(v, y)
				ok = true
			}
		}
		if !ok {
			break // leave the two ports free
		}
		w.prune()
	}
}

// splitForSingles has each switch with two or more free ports take the
// place of random cables x–y, joined to both ends.
func (w *wiring) splitForSingles() {
	j, rng := w.j, w.rng
	for _, u := range w.open {
		for w.free(u) >= 2 {
			for try := 0; ; try++ {
				i := rng.IntN(len(w.cables))
				x, y := w.cables[i][0], w.cables[i][1]
				if x != u && y != u && !slices.Contains(j.adj[u], x) && !slices.Contains(j.adj[u], y) {
					w.drop(i)
					w.join(u, x)
					w.join(u, y)
					break
				}
				if try > 64*len(w.cables) {
					return // no cable can be broken for u: leave its ports free
				}
			}
		}
	}
}

// MooreDiameter is the smallest switch-to-switch diameter any graph of n
// switches of degree r can have (the Moore bound: 1 + r·Σ_{i<D} (r−1)^i ≥
// n), plus the 2 server links: a lower bound on a jellyfish's diameter.
func MooreDiameter(n, r int) int {
	reach, layer, d := 1, 1, 0
	for reach < n {
		if d == 0 {
			layer = r
		} else {
			layer *= r - 1
		}
		if layer == 0 {
			return -1 // r = 1 and n > 2: no connected graph
		}
		reach += layer
		d++
	}
	return d + 2
}

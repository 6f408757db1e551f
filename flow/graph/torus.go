package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// Torus is a torus of switches of any number of dimensions (seed 001
// section 3.2) with a number of servers on every switch.
//
// Switch coordinates c_0..c_{d-1}, dimension 0 varying fastest: switch s =
// Σ c_i·stride_i (stride_i = Π_{j<i} dims[j]) is node NumServers() + s.
// Server p sits on switch p / ServersPerSwitch.
//
// Ports (link order within each node's Out range):
//   - server p: port 0 goes to its switch;
//   - every switch: ports 0..ServersPerSwitch-1 go to its servers, then for
//     each dimension of size > 1, in order, a port to the + neighbour
//     (c_i+1 mod size) and a port to the − neighbour (c_i−1 mod size).
//     Along a dimension of size 2 both go to the same neighbour, as two
//     parallel links; a dimension of size 1 has no links.
//
// Counts: with W switches, c servers per switch and D dimensions of size
// > 1, 2·c·W + 2·D·W directed links; diameter 2 + Σ floor(dims[i]/2)
// links.
type Torus struct {
	*Graph
	Dims             []int
	ServersPerSwitch int
	stride           []int32 // Π_{j<i} dims[j]
	port             []int32 // port[i]: the + port of dimension i (the − port is port[i]+1); -1 if dims[i] == 1
	degree           int32   // links leaving every switch
}

// NewTorus builds a torus with the given dimensions and servers on every
// switch, every link of capacity c.
func NewTorus(dims []int, serversPerSwitch int, c float64) (*Torus, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("torus dims: [] is not allowed: must have at least one dimension")
	}
	if serversPerSwitch < 1 || serversPerSwitch > MaxNodes {
		return nil, fmt.Errorf("torus servers per switch: %d is not allowed: must be in [1, %d]", serversPerSwitch, MaxNodes)
	}
	if err := checkCapacity("torus capacity", c); err != nil {
		return nil, err
	}
	t := &Torus{Dims: append([]int(nil), dims...), ServersPerSwitch: serversPerSwitch}
	sw := int64(1)
	t.degree = int32(serversPerSwitch)
	for i, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("torus dims[%d]: %d is not allowed: must be at least 1", i, d)
		}
		if d > MaxNodes {
			return nil, fmt.Errorf("torus dims[%d]: %d is not allowed: must be at most %d", i, d, MaxNodes)
		}
		t.stride = append(t.stride, int32(sw))
		sw *= int64(d)
		if sw > MaxNodes {
			return nil, fmt.Errorf("torus %s: %d switches is not allowed: must be at most %d", dimsString(dims), sw, MaxNodes)
		}
		if d > 1 {
			t.port = append(t.port, t.degree)
			t.degree += 2
		} else {
			t.port = append(t.port, -1)
		}
	}
	servers := sw * int64(serversPerSwitch)
	links := servers + sw*int64(t.degree)
	if servers+sw > MaxNodes || links > MaxLinks {
		return nil, fmt.Errorf("torus %s with %d servers per switch: %d nodes and %d links is not allowed: must be at most %d nodes and %d links",
			dimsString(dims), serversPerSwitch, servers+sw, links, MaxNodes, MaxLinks)
	}
	b := newBuilder(int(servers), int(sw), int(links))
	spp := int32(serversPerSwitch)
	sw0 := int32(servers)
	for p := int32(0); p < int32(servers); p++ {
		b.add(p, sw0+p/spp, c)
	}
	for s := int32(0); s < int32(sw); s++ {
		for j := int32(0); j < spp; j++ {
			b.add(sw0+s, s*spp+j, c)
		}
		for i, d := range dims {
			if d == 1 {
				continue
			}
			b.add(sw0+s, sw0+t.Step(s, i, +1), c)
			b.add(sw0+s, sw0+t.Step(s, i, -1), c)
		}
	}
	t.Graph = b.finish()
	return t, nil
}

// Step returns the switch index (not node number) one step from switch
// index s along dimension i, in direction dir (+1 or -1), wrapping round.
func (t *Torus) Step(s int32, i int, dir int) int32 {
	size := int32(t.Dims[i])
	c := s / t.stride[i] % size
	n := c + int32(dir)
	switch {
	case n == size:
		n = 0
	case n < 0:
		n = size - 1
	}
	return s + (n-c)*t.stride[i]
}

// Coord returns switch index s's coordinate along dimension i.
func (t *Torus) Coord(s int32, i int) int { return int(s / t.stride[i] % int32(t.Dims[i])) }

// Stride returns Π_{j<i} dims[j], the switch-index step along dimension i.
func (t *Torus) Stride(i int) int32 { return t.stride[i] }

// SwitchNode returns the node number of switch index s.
func (t *Torus) SwitchNode(s int32) int32 { return int32(t.NumServers()) + s }

// PlusPort returns the port of every switch toward + along dimension i
// (the − port follows it), or -1 when dims[i] is 1.
func (t *Torus) PlusPort(i int) int32 { return t.port[i] }

// SwitchDegree returns the number of links leaving every switch.
func (t *Torus) SwitchDegree() int32 { return t.degree }

// Diameter returns the closed-form diameter in links: 2 + Σ floor(dims[i]/2).
func (t *Torus) Diameter() int {
	d := 2
	for _, s := range t.Dims {
		d += s / 2
	}
	return d
}

func dimsString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "x")
}

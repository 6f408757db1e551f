package route

import "github.com/opasim/opasim/flow/graph"

// DOR is dimension-order routing on a torus (seed 001 section 3.2): a flow
// corrects its coordinates one dimension at a time, dimension 0 first,
// each in the shorter direction round the ring. A flow exactly half way
// round a ring of even size (both directions equally short) takes the +
// direction when its source switch's coordinate in that dimension is even
// and the − direction when it is odd (balanced ties), so the two
// directions carry equal shares of all-to-all traffic. Paths are minimal.
// Cost O(dimensions + hops) per flow, no division after setup (a table of
// switch coordinates, 4 bytes per switch and dimension).
type DOR struct {
	t        *graph.Torus
	nd       int
	size     []int32
	stride   []int32
	port     []int32 // + port per dimension; the − port is port+1
	deg      int32   // links leaving a switch
	linkBase int32   // the first switch link: switch index s's port p is linkBase + s·deg + p
	spp      int32
	sppDiv   divisor
	coord    []int32 // coord[s*nd+i]: switch s's coordinate along dimension i
	ringOf   []int32 // ringOf[s*nd+i]: the index of the ring along dimension i through switch s
	lineBase []int32 // lineBase[i]: the + line of ring 0 along dimension i; ring r's + line is lineBase[i]+2r, its − line the next
	lines    *Lines
	buf      []int32
}

// NewDOR returns dimension-order routing for torus t.
func NewDOR(t *graph.Torus) *DOR {
	nd := len(t.Dims)
	r := &DOR{
		t:        t,
		nd:       nd,
		deg:      t.SwitchDegree(),
		linkBase: t.OutStart(t.SwitchNode(0)),
		spp:      int32(t.ServersPerSwitch),
		sppDiv:   newDivisor(uint32(t.ServersPerSwitch)),
		coord:    make([]int32, t.NumSwitches()*nd),
	}
	for i, d := range t.Dims {
		r.size = append(r.size, int32(d))
		r.stride = append(r.stride, t.Stride(i))
		r.port = append(r.port, t.PlusPort(i))
	}
	for s := 0; s < t.NumSwitches(); s++ {
		for i := range nd {
			r.coord[s*nd+i] = int32(t.Coord(int32(s), i))
		}
	}
	r.buildLines()
	return r
}

// buildLines numbers the lines of AppendRuns: line p (p < servers) is
// server p's link to its switch, line servers+p the link from the switch to
// server p, then, for each dimension of size > 1, for each ring along it
// (in order of the ring's switch of coordinate 0), the ring's + links in
// order of coordinate and its − links in order of decreasing coordinate.
// Every link is on exactly one line. Memory: 4 bytes per link and per
// line, and 4 per switch and dimension for ringOf.
func (r *DOR) buildLines() {
	t := r.t
	servers, w := int32(t.NumServers()), int32(t.NumSwitches())
	ls := &Lines{Start: make([]int32, 0, 2*servers+1), Links: make([]int32, 0, t.NumLinks())}
	for p := int32(0); p < servers; p++ {
		ls.Start = append(ls.Start, int32(len(ls.Links)))
		ls.Links = append(ls.Links, t.OutStart(p))
	}
	for p := int32(0); p < servers; p++ {
		ls.Start = append(ls.Start, int32(len(ls.Links)))
		sw := p / r.spp
		ls.Links = append(ls.Links, r.linkBase+sw*r.deg+p-sw*r.spp)
	}
	r.ringOf = make([]int32, int(w)*r.nd)
	r.lineBase = make([]int32, r.nd)
	index := make([]int32, w)
	for i := range r.nd {
		size, stride := r.size[i], r.stride[i]
		r.lineBase[i] = int32(len(ls.Start))
		if size == 1 {
			continue
		}
		ring := int32(0)
		for s := int32(0); s < w; s++ {
			c := r.coord[int(s)*r.nd+i]
			if c == 0 {
				index[s] = ring
				ring++
				for _, minus := range []int32{0, 1} {
					ls.Start = append(ls.Start, int32(len(ls.Links)))
					for p := int32(0); p < size; p++ {
						c := p
						if minus == 1 {
							c = size - 1 - p
						}
						ls.Links = append(ls.Links, r.linkBase+(s+c*stride)*r.deg+r.port[i]+minus)
					}
				}
			}
			r.ringOf[int(s)*r.nd+i] = index[s-c*stride]
		}
	}
	ls.Start = append(ls.Start, int32(len(ls.Links)))
	r.lines = ls
}

// Lines returns the lines AppendRuns refers to (see buildLines).
func (r *DOR) Lines() *Lines { return r.lines }

// AppendRuns appends the runs of the path from server src to server dst
// (distinct, not checked) to buf: the source's server link, one run per
// dimension crossed, the destination's server link.
func (r *DOR) AppendRuns(buf []Run, src, dst int32) []Run {
	ss := int32(r.sppDiv.div(uint32(src)))
	ds := int32(r.sppDiv.div(uint32(dst)))
	buf = append(buf, Run{Line: src, Count: 1})
	s := ss
	nd := r.nd
	for i := range nd {
		size := r.size[i]
		a := r.coord[int(ss)*nd+i]
		b := r.coord[int(ds)*nd+i]
		delta := b - a
		if delta < 0 {
			delta += size
		}
		if delta == 0 {
			continue
		}
		line := r.lineBase[i] + 2*r.ringOf[int(s)*nd+i]
		if 2*delta < size || 2*delta == size && a&1 == 0 {
			buf = append(buf, Run{Line: line, Start: a, Count: delta})
		} else {
			buf = append(buf, Run{Line: line + 1, Start: size - 1 - a, Count: size - delta})
		}
		s += (b - a) * r.stride[i]
	}
	return append(buf, Run{Line: int32(r.t.NumServers()) + dst, Count: 1})
}

// Name returns "dor".
func (r *DOR) Name() string { return "dor" }

// Graph returns the torus' graph.
func (r *DOR) Graph() *graph.Graph { return r.t.Graph }

// Clone returns a copy (sharing the coordinate table) with its own path
// buffer.
func (r *DOR) Clone() Router {
	c := *r
	c.buf = nil
	return &c
}

// Route calls fn with the flow's one path, share 1.
func (r *DOR) Route(src, dst int32, fn PathFunc) error {
	if err := CheckPair(r.t.Graph, src, dst); err != nil {
		return err
	}
	r.buf = r.AppendPath(r.buf[:0], src, dst)
	fn(r.buf, 1)
	return nil
}

// AppendPath appends the path from server src to server dst (distinct,
// not checked) to buf.
func (r *DOR) AppendPath(buf []int32, src, dst int32) []int32 {
	ss := int32(r.sppDiv.div(uint32(src)))
	ds := int32(r.sppDiv.div(uint32(dst)))
	buf = append(buf, r.t.OutStart(src))
	s := ss
	nd := r.nd
	for i := range nd {
		size := r.size[i]
		a := r.coord[int(ss)*nd+i]
		delta := r.coord[int(ds)*nd+i] - a
		if delta < 0 {
			delta += size
		}
		if delta == 0 {
			continue
		}
		stride := r.stride[i]
		if 2*delta < size || 2*delta == size && a&1 == 0 {
			port := r.linkBase + r.port[i]
			for c := a; delta > 0; delta-- {
				buf = append(buf, port+s*r.deg)
				if c++; c == size {
					c, s = 0, s-(size-1)*stride
				} else {
					s += stride
				}
			}
		} else {
			port := r.linkBase + r.port[i] + 1
			for c, n := a, size-delta; n > 0; n-- {
				buf = append(buf, port+s*r.deg)
				if c == 0 {
					c, s = size-1, s+(size-1)*stride
				} else {
					c, s = c-1, s-stride
				}
			}
		}
	}
	return append(buf, r.linkBase+s*r.deg+dst-ds*r.spp)
}

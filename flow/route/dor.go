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
	return r
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

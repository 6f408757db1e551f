package topology

import (
	"fmt"

	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
)

// Dragonfly routings (Kim et al. 2008): minimal (local, global, local
// hop: the source group's router that holds the global link to the
// destination group is reached first) and Valiant (minimal to an
// intermediate group, then minimal to the destination), the flow split
// evenly over several intermediate groups.

// MinimalRouter routes every flow of d on its one minimal path (a
// route.SinglePath).
func (d *Dragonfly) MinimalRouter() route.Router { return &dfRouter{d: d} }

// ValiantRouter routes a flow between routers of different groups over
// groups intermediate groups (at most g − 2), each path carrying an equal
// share: the groups following (src + dst) mod g in order, skipping the
// two ends'. Flows within a group go minimally.
func (d *Dragonfly) ValiantRouter(groups int) (route.Router, error) {
	if groups < 1 || groups > d.G-2 {
		return nil, fmt.Errorf("dragonfly valiant groups: %d is not allowed: must be in [1, %d] (groups − 2)", groups, d.G-2)
	}
	return valiantRouter{&dfRouter{d: d, valiant: groups}}, nil
}

// valiantRouter hides dfRouter's AppendPath: a Valiant flow has several
// paths, so it must not pass for a route.SinglePath.
type valiantRouter struct{ r *dfRouter }

func (v valiantRouter) Name() string        { return v.r.Name() }
func (v valiantRouter) Graph() *graph.Graph { return v.r.Graph() }
func (v valiantRouter) Clone() route.Router {
	return valiantRouter{v.r.Clone().(*dfRouter)}
}
func (v valiantRouter) Route(src, dst int32, fn route.PathFunc) error { return v.r.Route(src, dst, fn) }

type dfRouter struct {
	d       *Dragonfly
	valiant int // intermediate groups (0: minimal)
	buf     []int32
}

func (r *dfRouter) Name() string {
	if r.valiant > 0 {
		return fmt.Sprintf("valiant-%d", r.valiant)
	}
	return "minimal"
}

func (r *dfRouter) Graph() *graph.Graph { return r.d.Graph }

func (r *dfRouter) Clone() route.Router { return &dfRouter{d: r.d, valiant: r.valiant} }

func (r *dfRouter) router(server int32) int32 { return server / int32(r.d.P) }

func (r *dfRouter) node(router int32) int32 { return int32(r.d.NumServers()) + router }

// hop appends the link from router u to router v (joined).
func (r *dfRouter) hop(buf []int32, u, v int32) []int32 {
	l := r.d.LinkTo(r.node(u), r.node(v))
	if l < 0 {
		panic(fmt.Sprintf("dragonfly: routers %d and %d are not joined", u, v))
	}
	return append(buf, l)
}

// toGroup appends the minimal path from router u to the router of group
// grp that holds grp's global link to u's group, and returns that router.
func (r *dfRouter) toGroup(buf []int32, u int32, grp int) ([]int32, int32) {
	d := r.d
	from := int(u) / d.A
	k := d.GlobalIndex(from, grp)
	exit := int32(from*d.A + k/d.H)
	if exit != u {
		buf = r.hop(buf, u, exit)
	}
	entry := int32(grp*d.A + d.GlobalIndex(grp, from)/d.H)
	return r.hop(buf, exit, entry), entry
}

// minimal appends the minimal path between routers u and v.
func (r *dfRouter) minimal(buf []int32, u, v int32) []int32 {
	if u == v {
		return buf
	}
	if gu, gv := int(u)/r.d.A, int(v)/r.d.A; gu != gv {
		var at int32
		buf, at = r.toGroup(buf, u, gv)
		u = at
		if u == v {
			return buf
		}
	}
	return r.hop(buf, u, v)
}

// AppendPath appends the minimal path from server src to server dst.
func (r *dfRouter) AppendPath(buf []int32, src, dst int32) []int32 {
	d := r.d
	buf = append(buf, d.OutStart(src)) // a server's one link
	buf = r.minimal(buf, r.router(src), r.router(dst))
	return append(buf, d.LinkTo(r.node(r.router(dst)), dst))
}

func (r *dfRouter) Route(src, dst int32, fn route.PathFunc) error {
	if err := route.CheckPair(r.d.Graph, src, dst); err != nil {
		return err
	}
	d := r.d
	rs, rd := r.router(src), r.router(dst)
	gs, gd := int(rs)/d.A, int(rd)/d.A
	if r.valiant == 0 || gs == gd {
		r.buf = r.AppendPath(r.buf[:0], src, dst)
		fn(r.buf, 1)
		return nil
	}
	share := 1 / float64(r.valiant)
	g := (gs + gd) % d.G
	for n := 0; n < r.valiant; g = (g + 1) % d.G {
		if g == gs || g == gd {
			continue
		}
		n++
		buf := append(r.buf[:0], d.OutStart(src))
		buf, at := r.toGroup(buf, rs, g)
		buf = r.minimal(buf, at, rd)
		r.buf = append(buf, d.LinkTo(r.node(rd), dst))
		fn(r.buf, share)
	}
	return nil
}

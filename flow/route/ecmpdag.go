package route

// dagMemo is how many recent DAGs a router keeps; dagMemoNodes bounds the
// nodes of a DAG kept.
const (
	dagMemo      = 8
	dagMemoNodes = 1 << 16
)

// dagEntry is a counted DAG: its nodes (in countDAG's order, farthest
// from root first) and their counts, and the target's distance.
type dagEntry struct {
	root, target int32 // target -1: empty
	dist         uint8
	nodes        []int32
	counts       []float64
}

// countDAG finds the DAG of the shortest paths from root to dst in r.row
// and counts, for each of its nodes, the shortest paths from root to it.
// It returns dst's count and distance from root, and false if dst is
// unreachable in the row or a count is above 2^53 (the full search is
// then used).
//
// A dst that does not forward and whose one link in comes from a
// forwarding node v (a server on its switch) is reached over v: its DAG
// is v's and that link, so the DAG counted is v's, the target, shared by
// the servers of v. The last dagMemo DAGs counted are kept by root and
// target: flows between the servers of two switches, as applications
// send them, count theirs once.
func (r *ECMP) countDAG(root, dst int32) (total float64, length int, ok bool) {
	g := r.g
	target, extra, dd := r.dagTarget(dst)
	if dd == unreached || (dd == 0 && extra == 0) {
		return 0, 0, false
	}
	if r.mark == nil {
		r.mark = make([]uint32, g.NumNodes())
		r.dagCount = make([]float64, g.NumNodes())
	}
	if dist, ok := r.recallDAG(root, target); ok {
		return r.dagCount[target], int(dist) + extra, true
	}
	r.collectDAG(target, dd)
	if !r.countPaths(root) {
		return 0, 0, false
	}
	if len(r.dag) <= dagMemoNodes {
		r.rememberDAG(root, target, dd)
	}
	return r.dagCount[target], int(dd) + extra, true
}

// dagTarget is the node whose DAG countDAG counts for dst: dst itself,
// or the forwarding node v whose one link into dst is dst's only one
// (extra 1: that link). dd is the target's distance from the row's root
// (unreached if none): its row entry if it forwards, else one more than
// its nearest forwarding in-neighbour's (the root forwards).
func (r *ECMP) dagTarget(dst int32) (target int32, extra int, dd uint8) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	target, extra = dst, 0
	if dst < relay {
		if in := g.In(dst); len(in) == 1 {
			if v := g.Tail(in[0]); v >= relay {
				target, extra = v, 1
			}
		}
	}
	dd = uint8(unreached)
	if target >= relay {
		dd = row[target-relay]
	} else {
		for _, l := range g.In(target) {
			if u := g.Tail(l); u >= relay {
				dd = min(dd, row[u-relay])
			}
		}
		if dd != unreached {
			dd++
		}
	}
	return target, extra, dd
}

// recallDAG sets the counts of the DAG from root to target from the memo,
// if it holds it, and returns the target's distance.
func (r *ECMP) recallDAG(root, target int32) (dist uint8, ok bool) {
	for i := range r.memo {
		if e := &r.memo[i]; e.target == target && e.root == root {
			for k, v := range e.nodes {
				r.dagCount[v] = e.counts[k]
			}
			r.runWork += int64(len(e.nodes))
			return e.dist, true
		}
	}
	return 0, false
}

// collectDAG lists in r.dag the nodes of the DAG of the shortest paths
// into target, at distance dd from the row's root, backward from target a
// level at a time: the list is in non-increasing distance from root. The
// DAG's links are kept as they are found: the tails of dag[i]'s links are
// tails[ends[i-1]:ends[i]].
func (r *ECMP) collectDAG(target int32, dd uint8) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	if r.stamp++; r.stamp == 0 {
		clear(r.mark)
		r.stamp = 1
	}
	stamp, mark := r.stamp, r.mark
	mark[target] = stamp
	dag := append(r.dag[:0], target)
	tails, ends := r.tails[:0], r.ends[:0]
	for i := 0; i < len(dag); i++ {
		v := dag[i]
		want := dd - 1
		if i > 0 {
			want = row[v-relay] - 1
		}
		in := g.In(v)
		r.runWork += int64(len(in))
		if want != unreached { // else v is root
			for _, l := range in {
				if u := g.Tail(l); u >= relay && row[u-relay] == want {
					tails = append(tails, u)
					if mark[u] != stamp {
						mark[u] = stamp
						dag = append(dag, u)
					}
				}
			}
		}
		ends = append(ends, int32(len(tails)))
	}
	r.dag, r.tails, r.ends = dag, tails, ends
}

// countPaths counts the shortest paths from root to every node of the
// DAG collectDAG listed, forward, nearest root first: a node's
// in-neighbours one step closer are counted before it, in the order of
// its links. It returns false if a count is above 2^53.
func (r *ECMP) countPaths(root int32) bool {
	dag, tails, ends := r.dag, r.tails, r.ends
	const exact = 1 << 53
	for i := len(dag) - 1; i >= 0; i-- {
		v := dag[i]
		if v == root {
			r.dagCount[v] = 1
			continue
		}
		lo := int32(0)
		if i > 0 {
			lo = ends[i-1]
		}
		c := 0.0
		for _, u := range tails[lo:ends[i]] {
			c += r.dagCount[u]
		}
		if c > exact {
			return false
		}
		r.dagCount[v] = c
	}
	return true
}

// rememberDAG keeps the DAG counted from root to target, at distance dd,
// in the memo, in place of the oldest.
func (r *ECMP) rememberDAG(root, target int32, dd uint8) {
	e := &r.memo[r.memoNext]
	r.memoNext = (r.memoNext + 1) % dagMemo
	e.root, e.target, e.dist = root, target, dd
	e.nodes = append(e.nodes[:0], r.dag...)
	e.counts = e.counts[:0]
	for _, v := range r.dag {
		e.counts = append(e.counts, r.dagCount[v])
	}
}

// unrank fills path with shortest path number rank from src to dst, from
// the DAG's counts (r.row non-nil) or the full search's.
func (r *ECMP) unrank(src, dst int32, rank float64, path []int32) {
	g := r.g
	relay := g.FirstForwarder()
	row := r.row
	v := dst
	for i := len(path) - 1; i >= 0; i-- {
		var want int32
		switch {
		case row == nil:
			want = r.dist[v] - 1
		case v == dst:
			want = int32(len(path)) - 1
		default:
			want = int32(row[v-relay]) - 1
		}
		chosen := int32(-1)
		for _, l := range g.In(v) {
			u := g.Tail(l)
			if u != src && u < relay {
				continue
			}
			var c float64
			if row == nil {
				if r.dist[u] != want {
					continue
				}
				c = r.count[u]
			} else {
				if int32(row[u-relay]) != want {
					continue
				}
				c = r.dagCount[u]
			}
			chosen = l
			if rank < c {
				break
			}
			rank -= c
		}
		// chosen is the last eligible link if rounding left rank too big.
		path[i] = chosen
		v = g.Tail(chosen)
	}
}

package tracegen_test

import (
	"bytes"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
	"github.com/opasim/opasim/workloads/tracegen"
	"github.com/opasim/opasim/workloads/vef"
)

// countCase is a trace and its counts worked out by hand: grid is the
// process grid the kind should use (stencil3d: Px, Py, Pz; hpl: P, Q).
type countCase struct {
	name              string
	p                 tracegen.Params
	grid              []int
	p2p, colls, parts int64
	comms             int
	onlySend          bool
}

func params(kind string, tasks, iterations int) tracegen.Params {
	return tracegen.Params{Kind: kind, Tasks: tasks, Bytes: 1000, Iterations: iterations, ComputeNS: 250, Seed: 7}
}

func with(p tracegen.Params, f func(*tracegen.Params)) tracegen.Params { f(&p); return p }

var countCases = []countCase{
	// stencil3d: N·D·I halos, D = 2 per dimension of 3 or more, 1 per
	// dimension of 2, 0 per dimension of 1; ⌊I/K⌋ allreduces of N parts.
	{"stencil3d 8 = 2x2x2", params("stencil3d", 8, 5), []int{2, 2, 2}, 8 * 3 * 5, 5, 8 * 5, 1, false},
	{"stencil3d 6 = 3x2x1, K 3", with(params("stencil3d", 6, 4), func(p *tracegen.Params) { p.AllreduceEvery = 3 }),
		[]int{3, 2, 1}, 6 * 3 * 4, 1, 6, 1, false},
	{"stencil3d 12 = 3x2x2, K 2", with(params("stencil3d", 12, 3), func(p *tracegen.Params) { p.AllreduceEvery = 2 }),
		[]int{3, 2, 2}, 12 * 4 * 3, 1, 12, 1, false},
	{"stencil3d 16 = 4x2x2", params("stencil3d", 16, 2), []int{4, 2, 2}, 16 * 4 * 2, 2, 32, 1, false},
	{"stencil3d 24 = 4x3x2", params("stencil3d", 24, 2), []int{4, 3, 2}, 24 * 5 * 2, 2, 48, 1, false},
	{"stencil3d 30 = 5x3x2", params("stencil3d", 30, 2), []int{5, 3, 2}, 30 * 5 * 2, 2, 60, 1, false},
	{"stencil3d 512 = 8x8x8", params("stencil3d", 512, 2), []int{8, 8, 8}, 512 * 6 * 2, 2, 1024, 1, false},
	{"stencil3d 7 = 7x1x1, no allreduce", with(params("stencil3d", 7, 3), func(p *tracegen.Params) { p.AllreduceEvery = 4 }),
		[]int{7, 1, 1}, 7 * 2 * 3, 0, 0, 1, false},
	{"stencil3d 2 = 2x1x1, one iteration", with(params("stencil3d", 2, 1), func(p *tracegen.Params) { p.AllreduceEvery = 2 }),
		[]int{2, 1, 1}, 2 * 1 * 1, 0, 0, 1, true},
	// hpl: 2·Q·(P-1) swaps, P broadcasts of Q parts per step; C0, P
	// rows, Q columns.
	{"hpl 6 = 2x3", params("hpl", 6, 3), []int{2, 3}, 2 * 3 * 1 * 3, 2 * 3, 6 * 3, 1 + 2 + 3, false},
	{"hpl 12 = 3x4", params("hpl", 12, 4), []int{3, 4}, 2 * 4 * 2 * 4, 3 * 4, 12 * 4, 1 + 3 + 4, false},
	{"hpl 30 = 5x6", params("hpl", 30, 2), []int{5, 6}, 2 * 6 * 4 * 2, 5 * 2, 30 * 2, 1 + 5 + 6, false},
	{"hpl 512 = 16x32", params("hpl", 512, 2), []int{16, 32}, 2 * 32 * 15 * 2, 16 * 2, 512 * 2, 1 + 16 + 32, false},
	{"hpl 7 = 1x7", params("hpl", 7, 3), []int{1, 7}, 0, 3, 21, 1 + 1 + 7, true},
	{"hpl 4 = 2x2, one step", params("hpl", 4, 1), []int{2, 2}, 2 * 2 * 1, 2, 4, 1 + 2 + 2, true},
	// randomaccess: N·U·I updates, I-1 barriers.
	{"randomaccess 6, U 4", with(params("randomaccess", 6, 3), func(p *tracegen.Params) { p.Updates = 4 }), nil, 6 * 4 * 3, 2, 12, 1, true},
	{"randomaccess 30, U 16 (default)", params("randomaccess", 30, 2), nil, 30 * 16 * 2, 1, 30, 1, true},
	{"randomaccess 512, U 2", with(params("randomaccess", 512, 2), func(p *tracegen.Params) { p.Updates = 2 }), nil, 512 * 2 * 2, 1, 512, 1, true},
	{"randomaccess 12, bytes 5", with(params("randomaccess", 12, 1), func(p *tracegen.Params) { p.Bytes = 5 }), nil, 12 * 16, 0, 0, 1, true},
	// alltoall: I collectives of N parts.
	{"alltoall 12", params("alltoall", 12, 3), nil, 0, 3, 36, 1, true},
	{"alltoall 30", params("alltoall", 30, 1), nil, 0, 1, 30, 1, true},
	{"alltoall 512", params("alltoall", 512, 2), nil, 0, 2, 1024, 1, true},
	// ring: N·I.
	{"ring 4", params("ring", 4, 2), nil, 8, 0, 0, 1, false},
	{"ring 30", params("ring", 30, 3), nil, 90, 0, 0, 1, false},
	{"ring 512, one iteration", params("ring", 512, 1), nil, 512, 0, 0, 1, true},
}

// trace is a trace read back: its header and records.
type trace struct {
	h    vef.Header
	recs []vef.Record
}

func generate(t *testing.T, p tracegen.Params) ([]byte, vef.Header) {
	t.Helper()
	var buf bytes.Buffer
	h, err := tracegen.Write(&buf, p)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes(), h
}

func readBack(t *testing.T, data []byte) trace {
	t.Helper()
	rd, err := vef.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	tr := trace{h: rd.Header()}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return tr
		}
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		tr.recs = append(tr.recs, rec)
	}
}

// TestCounts: every kind on grids square, cubic or not, reads back
// without error, with the hand-derived counts in its header (and in
// Counts, and in Write's answer), and keeps the rules of every trace
// (checkCausality) and of its kind.
func TestCounts(t *testing.T) {
	for _, tc := range countCases {
		t.Run(tc.name, func(t *testing.T) {
			data, wrote := generate(t, tc.p)
			tr := readBack(t, data)
			h := tr.h
			if h.Tasks != tc.p.Tasks || h.P2PMessages != tc.p2p || h.Collectives != tc.colls ||
				h.CollectiveParts != tc.parts || len(h.Communicators) != tc.comms || h.OnlySend != tc.onlySend {
				t.Errorf("header: tasks %d, p2p %d, collectives %d, parts %d, communicators %d, only_send %v;\n"+
					"want %d, %d, %d, %d, %d, %v", h.Tasks, h.P2PMessages, h.Collectives, h.CollectiveParts,
					len(h.Communicators), h.OnlySend, tc.p.Tasks, tc.p2p, tc.colls, tc.parts, tc.comms, tc.onlySend)
			}
			counted, err := tracegen.Counts(tc.p)
			if err != nil || !sameHeader(counted, h) || !sameHeader(wrote, h) {
				t.Errorf("Counts %+v (%v) or Write's header %+v differs from the file's %+v", counted, err, wrote, h)
			}
			if n := int64(len(tr.recs)); n != tc.p2p+tc.parts {
				t.Errorf("%d records, want %d", n, tc.p2p+tc.parts)
			}
			checkCausality(t, tc.p, tr)
			switch tc.p.Kind {
			case "stencil3d":
				checkStencil(t, tc.p, tc.grid, tr)
			case "hpl":
				checkHPL(t, tc.p, tc.grid[0], tc.grid[1], tr)
			case "randomaccess":
				checkRandomAccess(t, tc.p, tr)
			case "alltoall":
				checkAlltoall(t, tc.p, tr)
			case "ring":
				checkRing(t, tc.p, tr)
			}
		})
	}
}

func sameHeader(a, b vef.Header) bool {
	if a.Tasks != b.Tasks || a.P2PMessages != b.P2PMessages || a.Collectives != b.Collectives ||
		a.CollectiveParts != b.CollectiveParts || a.OnlySend != b.OnlySend || len(a.Communicators) != len(b.Communicators) {
		return false
	}
	for i, c := range a.Communicators {
		if c.ID != b.Communicators[i].ID || !slices.Equal(c.Tasks, b.Communicators[i].Tasks) {
			return false
		}
	}
	return true
}

func task(r *vef.Record) int {
	if r.Kind == vef.KindMessage {
		return r.Message.Src
	}
	return r.Part.Task
}

func dep(r *vef.Record) vef.Dep {
	if r.Kind == vef.KindMessage {
		return r.Message.Dep
	}
	return r.Part.Dep
}

// checkCausality checks what the vef reader leaves to a replay, and the
// order the package promises: a dep 1 names a message the record's task
// sent, a dep 2 one it received; independent records come first, at time
// 0; a delay is 0 or ComputeNS; only_send is TRUE exactly when no record
// waits for a receipt; the parts of a collective are written together.
func checkCausality(t *testing.T, p tracegen.Params, tr trace) {
	t.Helper()
	type ends struct{ src, dst int }
	msgs := map[int64]ends{}
	dependent, receipts := false, false
	finished := map[int64]bool{} // collectives whose parts are all written
	current := int64(-1)
	for i := range tr.recs {
		r := &tr.recs[i]
		d, me := dep(r), task(r)
		switch d.Kind {
		case vef.Independent:
			if dependent || d.TimeNS != 0 {
				t.Fatalf("line %d: independent at %d ns after a dependent record (or not at 0)", r.Line, d.TimeNS)
			}
		case vef.AfterSend:
			if msgs[d.ID].src != me {
				t.Fatalf("line %d: task %d waits for its send of message %d, which task %d sent", r.Line, me, d.ID, msgs[d.ID].src)
			}
		case vef.AfterReceive:
			receipts = true
			if msgs[d.ID].dst != me {
				t.Fatalf("line %d: task %d waits for its receipt of message %d, which went to task %d", r.Line, me, d.ID, msgs[d.ID].dst)
			}
		}
		if d.Kind != vef.Independent {
			dependent = true
			if d.TimeNS != 0 && d.TimeNS != p.ComputeNS {
				t.Fatalf("line %d: delay %d, neither 0 nor compute_ns %d", r.Line, d.TimeNS, p.ComputeNS)
			}
		}
		if r.Kind == vef.KindMessage {
			msgs[r.Message.ID] = ends{r.Message.Src, r.Message.Dst}
		}
		gid := int64(-1)
		if r.Kind == vef.KindCollective {
			gid = r.Part.GID
		}
		if gid != current {
			if gid >= 0 && finished[gid] {
				t.Fatalf("line %d: a part of G%d after other records came between its parts", r.Line, gid)
			}
			if current >= 0 {
				finished[current] = true
			}
			current = gid
		}
	}
	if tr.h.OnlySend == receipts {
		t.Errorf("only_send %v, but a record waits for a receipt: %v", tr.h.OnlySend, receipts)
	}
}

// checkStencil: in each iteration every task sends one halo to each of
// its distinct neighbours on the grid given by hand, and nothing else;
// halos of iteration i > 0 and allreduce parts wait for a halo of the
// iteration before (or the same), or for the allreduce between them.
func checkStencil(t *testing.T, p tracegen.Params, dims []int, tr trace) {
	t.Helper()
	n := p.Tasks
	coords := func(task int) [3]int {
		return [3]int{task % dims[0], task / dims[0] % dims[1], task / (dims[0] * dims[1])}
	}
	id := func(c [3]int) int { return c[0] + dims[0]*(c[1]+dims[1]*c[2]) }
	want := make([][]int, n) // each task's neighbours, sorted
	for s := range n {
		for dim := range 3 {
			for _, step := range []int{-1, 1} {
				c := coords(s)
				c[dim] = (c[dim] + step + dims[dim]) % dims[dim]
				if o := id(c); o != s && !slices.Contains(want[s], o) {
					want[s] = append(want[s], o)
				}
			}
		}
		slices.Sort(want[s])
	}
	perIteration := int64(n * len(want[0]))
	sent := make([][]int, n)
	iter := int64(0)
	every := int64(max(p.AllreduceEvery, 1))
	for i := range tr.recs {
		r := &tr.recs[i]
		if r.Kind == vef.KindCollective {
			pt := r.Part
			if pt.Op != vef.Allreduce || pt.Comm != 0 || pt.SendBytes != 8 || pt.RecvBytes != 8 || (pt.GID+1)*every != iter+1 {
				t.Fatalf("line %d: part %+v after iteration %d, want G%d an 8-byte allreduce on C0", r.Line, pt, iter, (iter+1)/every-1)
			}
			if pt.Dep.Kind != vef.AfterReceive || pt.Dep.ID/perIteration != iter {
				t.Fatalf("line %d: allreduce part waits for %+v, not a halo of iteration %d", r.Line, pt.Dep, iter)
			}
			continue
		}
		m := r.Message
		if it := m.ID / perIteration; it != iter {
			checkIteration(t, iter, sent, want)
			iter = it
			clear(sent)
		}
		sent[m.Src] = append(sent[m.Src], m.Dst)
		if m.Bytes != p.Bytes {
			t.Fatalf("line %d: %d bytes, want %d", r.Line, m.Bytes, p.Bytes)
		}
		switch {
		case iter == 0:
			if m.Dep.Kind != vef.Independent {
				t.Fatalf("line %d: iteration 0's halo waits for %+v", r.Line, m.Dep)
			}
		case iter%every == 0: // an allreduce ended iteration iter-1
			if m.Dep.Kind != vef.AfterCollective || (m.Dep.ID+1)*every != iter {
				t.Fatalf("line %d: a halo of iteration %d waits for %+v, not G%d", r.Line, iter, m.Dep, iter/every-1)
			}
		case m.Dep.Kind != vef.AfterReceive || m.Dep.ID/perIteration != iter-1:
			t.Fatalf("line %d: a halo of iteration %d waits for %+v, not a halo of iteration %d", r.Line, iter, m.Dep, iter-1)
		}
	}
	checkIteration(t, iter, sent, want)
	if iter != int64(p.Iterations-1) {
		t.Errorf("last iteration %d, want %d", iter, p.Iterations-1)
	}
}

func checkIteration(t *testing.T, iter int64, sent, want [][]int) {
	t.Helper()
	for s := range sent {
		got := slices.Sorted(slices.Values(sent[s]))
		if !slices.Equal(got, want[s]) {
			t.Fatalf("iteration %d: task %d sent to %v, want its neighbours %v", iter, s, got, want[s])
		}
	}
}

// checkHPL: the communicators are the rows and columns of the P×Q grid
// (row-major); each step has a broadcast per row rooted in column k mod
// Q, then swaps within columns between the diagonal row k mod P and the
// others, a message each way.
func checkHPL(t *testing.T, p tracegen.Params, P, Q int, tr trace) {
	t.Helper()
	for r := range P {
		row := tr.h.Communicators[1+r].Tasks
		for c := range Q {
			if row[c] != r*Q+c || tr.h.Communicators[1+P+c].Tasks[r] != r*Q+c {
				t.Fatalf("C%d %v or C%d %v is not row %d or column %d of a %dx%d grid", 1+r, row, 1+P+c, tr.h.Communicators[1+P+c].Tasks, r, c, P, Q)
			}
		}
	}
	swapsPerStep := int64(2 * Q * (P - 1))
	pairs := map[[3]int64]int{} // (step, a, b) → messages a→b minus b→a
	for i := range tr.recs {
		r := &tr.recs[i]
		if r.Kind == vef.KindCollective {
			pt := r.Part
			k, row := int(pt.GID)/P, int(pt.GID)%P
			root := pt.SendBytes != 0
			if pt.Op != vef.Broadcast || pt.Comm != 1+row || pt.Task/Q != row || root != (pt.Task%Q == k%Q) ||
				pt.SendBytes+pt.RecvBytes != p.Bytes {
				t.Fatalf("line %d: %+v is not row %d's broadcast of step %d rooted in column %d", r.Line, pt, row, k, k%Q)
			}
			continue
		}
		m := r.Message
		k := m.ID / swapsPerStep
		diag := int(k) % P
		if m.Src%Q != m.Dst%Q || m.Src == m.Dst || (m.Src/Q != diag && m.Dst/Q != diag) || m.Bytes != p.Bytes {
			t.Fatalf("line %d: message %+v of step %d is not a swap with diagonal row %d within a column", r.Line, m, k, diag)
		}
		if m.Dep.Kind != vef.AfterCollective || m.Dep.ID != k*int64(P)+int64(m.Src/Q) {
			t.Fatalf("line %d: swap %+v does not follow its sender's broadcast of step %d", r.Line, m, k)
		}
		a, b := min(m.Src, m.Dst), max(m.Src, m.Dst)
		if m.Src == a {
			pairs[[3]int64{k, int64(a), int64(b)}]++
		} else {
			pairs[[3]int64{k, int64(a), int64(b)}]--
		}
	}
	for pair, n := range pairs {
		if n != 0 {
			t.Errorf("step %d: tasks %d and %d exchange unevenly (%d)", pair[0], pair[1], pair[2], n)
		}
	}
	if want := int64(p.Iterations) * int64(Q) * int64(P-1); int64(len(pairs)) != want {
		t.Errorf("%d exchanging pairs, want I·Q·(P-1) = %d", len(pairs), want)
	}
}

// checkRandomAccess: updates go to another task, are multiples of 8 in
// [8, bytes] (or bytes below 8), and the barriers are on C0.
func checkRandomAccess(t *testing.T, p tracegen.Params, tr trace) {
	t.Helper()
	dsts := map[int]bool{}
	for i := range tr.recs {
		r := &tr.recs[i]
		if r.Kind == vef.KindCollective {
			if pt := r.Part; pt.Op != vef.Barrier || pt.Comm != 0 {
				t.Fatalf("line %d: %+v is not a barrier on C0", r.Line, pt)
			}
			continue
		}
		m := r.Message
		dsts[m.Dst] = true
		okSize := m.Bytes == p.Bytes
		if p.Bytes >= 8 {
			okSize = m.Bytes >= 8 && m.Bytes <= p.Bytes && m.Bytes%8 == 0
		}
		if m.Src == m.Dst || !okSize {
			t.Fatalf("line %d: update %+v (bytes %d)", r.Line, m, p.Bytes)
		}
	}
	if len(dsts) < p.Tasks/2 {
		t.Errorf("updates reach only %d of %d tasks", len(dsts), p.Tasks)
	}
}

func checkAlltoall(t *testing.T, p tracegen.Params, tr trace) {
	t.Helper()
	for i := range tr.recs {
		pt := tr.recs[i].Part
		if pt.Op != vef.Alltoall || pt.Comm != 0 || pt.SendBytes != p.Bytes || pt.RecvBytes != 0 || pt.GID != int64(i/p.Tasks) {
			t.Fatalf("record %d: %+v", i, pt)
		}
	}
}

// checkRing: message i·N + t goes from t to t+1 and waits for the one t
// received in iteration i-1, from t-1.
func checkRing(t *testing.T, p tracegen.Params, tr trace) {
	t.Helper()
	n := int64(p.Tasks)
	for i := range tr.recs {
		m := tr.recs[i].Message
		src := m.ID % n
		if int64(m.Src) != src || int64(m.Dst) != (src+1)%n || m.Bytes != p.Bytes {
			t.Fatalf("message %+v", m)
		}
		if m.ID >= n && (m.Dep.Kind != vef.AfterReceive || m.Dep.ID != m.ID-n-src+(src+n-1)%n) {
			t.Fatalf("message %+v waits for %+v, not iteration %d's message from task %d", m, m.Dep, m.ID/n-1, (src+n-1)%n)
		}
	}
}

// TestDeterministic: the same params give the same bytes; randomaccess
// follows its seed.
func TestDeterministic(t *testing.T) {
	for _, kind := range tracegen.Kinds() {
		p := params(kind, 12, 3)
		a, _ := generate(t, p)
		b, _ := generate(t, p)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two traces of the same params differ", kind)
		}
	}
	p := params("randomaccess", 12, 3)
	a, _ := generate(t, p)
	p.Seed++
	if b, _ := generate(t, p); bytes.Equal(a, b) {
		t.Error("randomaccess: seeds 7 and 8 give the same trace")
	}
}

// TestCheck: every field out of range is named with its value and the
// range allowed, all at once.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    tracegen.Params
		want []string
	}{
		{"unknown kind", params("lulesh", 8, 1), []string{`kind: "lulesh"`, "alltoall, hpl, randomaccess, ring, stencil3d"}},
		{"one task", params("ring", 1, 1), []string{"tasks: 1", "[2, 1048576]"}},
		{"too many tasks", params("ring", 1<<21, 1), []string{"tasks: 2097152", "[2, 1048576]"}},
		{"everything at once", tracegen.Params{Kind: "ring", Tasks: 0, Bytes: -1, Iterations: 0, ComputeNS: -5},
			[]string{"tasks: 0", "bytes: -1", "at least 0", "iterations: 0", "at least 1", "compute_ns: -5"}},
		{"negative allreduce_every", with(params("stencil3d", 8, 1), func(p *tracegen.Params) { p.AllreduceEvery = -2 }),
			[]string{"allreduce_every: -2", "at least 1", "0 for the default"}},
		{"allreduce_every on ring", with(params("ring", 8, 1), func(p *tracegen.Params) { p.AllreduceEvery = 2 }),
			[]string{"allreduce_every: 2", "only stencil3d"}},
		{"updates out of range", with(params("randomaccess", 8, 1), func(p *tracegen.Params) { p.Updates = -1 }),
			[]string{"updates: -1", "[1, 1048576]"}},
		{"updates on hpl", with(params("hpl", 8, 1), func(p *tracegen.Params) { p.Updates = 3 }),
			[]string{"updates: 3", "only randomaccess"}},
		{"a trace too long", with(params("randomaccess", 1<<20, 1<<30), func(p *tracegen.Params) { p.Updates = 1 << 20 }),
			[]string{"iterations: 1073741824", "more than 2^63", "limit of 68719476736"}},
	} {
		err := tc.p.Check()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
		if _, werr := tracegen.Write(io.Discard, tc.p); werr == nil || werr.Error() != err.Error() {
			t.Errorf("%s: Write's error %v, Check's %v", tc.name, werr, err)
		}
	}
	for _, kind := range tracegen.Kinds() {
		if err := params(kind, 2, 1).Check(); err != nil {
			t.Errorf("%s on 2 tasks: %v", kind, err)
		}
		if info, err := tracegen.Describe(kind); err != nil || info.Imitates == "" || info.DefaultBytes <= 0 {
			t.Errorf("Describe(%s) = %+v, %v", kind, info, err)
		}
	}
}

// heapWatch is an io.Writer that throws the trace away and samples the
// heap in use every 4 MiB written.
type heapWatch struct {
	written, next int64
	peak          uint64
}

func (w *heapWatch) Write(b []byte) (int, error) {
	w.written += int64(len(b))
	if w.written >= w.next {
		w.next += 4 << 20
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.peak = max(w.peak, m.HeapInuse)
	}
	return len(b), nil
}

// TestLargeTraceStreams writes a 512-task stencil3d trace of over a
// million halos (512 tasks × 6 neighbours × 330 iterations = 1,013,760)
// and checks that the heap in use stays under 64 MiB while it is written:
// nothing is kept per message.
func TestLargeTraceStreams(t *testing.T) {
	testlong.Skip(t, "writes a million-message trace")
	p := params("stencil3d", 512, 330)
	runtime.GC()
	w := &heapWatch{}
	h, err := tracegen.Write(w, p)
	if err != nil {
		t.Fatal(err)
	}
	if h.P2PMessages != 512*6*330 {
		t.Fatalf("%d messages, want %d", h.P2PMessages, 512*6*330)
	}
	const limit = 64 << 20
	if w.peak == 0 || w.peak > limit {
		t.Errorf("heap in use peaked at %.1f MiB while writing %.1f MiB of trace; want under 64 MiB",
			float64(w.peak)/(1<<20), float64(w.written)/(1<<20))
	}
	t.Logf("%d bytes written, heap in use at most %.1f MiB", w.written, float64(w.peak)/(1<<20))
}

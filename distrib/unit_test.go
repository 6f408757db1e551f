package distrib

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/opasim/opasim/actors"
	"github.com/opasim/opasim/clock"
	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/messages"
	"github.com/opasim/opasim/sim"
)

// TestCodecCoversMsg sets each field of messages.Msg (and of its Packet)
// in turn, to a value that differs from At, and checks it survives the
// batch encoding: a field the fields table misses fails here.
func TestCodecCoversMsg(t *testing.T) {
	var cases []messages.Msg
	var set func(v reflect.Value, path string)
	set = func(v reflect.Value, path string) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.Kind() == reflect.Struct {
				set(f, path+v.Type().Field(i).Name+".")
				continue
			}
			m := messages.Msg{At: 1000}
			target := reflect.ValueOf(&m).Elem().FieldByIndex(fieldIndex(reflect.TypeOf(m), path+v.Type().Field(i).Name))
			switch target.Kind() {
			case reflect.Bool:
				target.SetBool(true)
			case reflect.Uint8, reflect.Uint64:
				target.SetUint(7)
			default:
				target.SetInt(-3)
			}
			cases = append(cases, m)
		}
	}
	set(reflect.ValueOf(messages.Msg{}), "")
	cases = append(cases, messages.Msg{At: 5, Start: 5, Pkt: messages.Packet{ID: 1<<40 | 9, Tail: 5}}) // cycles equal to At
	b := appendMsgs(nil, cases)
	got, err := decodeMsgs(nil, b, len(cases))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if got[i] != cases[i] {
			t.Errorf("case %d: decoded %+v, encoded %+v", i, got[i], cases[i])
		}
	}
	if _, err := decodeMsgs(nil, b[:len(b)-1], len(cases)); err == nil {
		t.Error("a truncated batch decoded")
	}
	if _, err := decodeMsgs(nil, b, len(cases)-1); err == nil {
		t.Error("a batch with a message more than its count decoded")
	}
}

func fieldIndex(t reflect.Type, path string) []int {
	var idx []int
	for _, name := range strings.Split(path, ".") {
		f, _ := t.FieldByName(name)
		idx = append(idx, f.Index...)
		t = f.Type
	}
	return idx
}

// TestMergedTotals: the totals merged from the members equal, field by
// field, the totals of the same run in one process (sequential engine),
// after each member's totals went through their encoding.
func TestMergedTotals(t *testing.T) {
	cfg := testConfig("tree-8ary-2", 1200)
	cfg.Traffic.Load = 1.0 // queues fill: throttling, stalls and undelivered packets all count
	one, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sim.RunSequential(context.Background(), one, sim.Hooks{})
	want := one.Totals()
	if want.UndeliveredPackets == 0 || want.CreditStallCycles == 0 {
		t.Fatalf("the run tests too little: %d undelivered packets, %d stall cycles", want.UndeliveredPackets, want.CreditStallCycles)
	}
	built, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Partition(built, 3)
	if err != nil {
		t.Fatal(err)
	}
	parts, helds := runParts(t, cfg, plan.Owner, 3)
	sum, base := baseTotals(built)
	var terms, lost fabric.ConservationTerms
	for i, p := range parts {
		held := helds[i]
		b, err := encodeTotals(p.n.Totals(), p.n.ConservationTerms(held, p.runs))
		if err != nil {
			t.Fatal(err)
		}
		tot, ct, err := decodeTotals(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := mergeTotals(&sum, &tot, &base); err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
		// The same terms, but member 0 loses the messages it holds.
		lt := p.n.ConservationTerms(held[:0:0], p.runs)
		if i > 0 || len(held) == 0 {
			lt = ct
		}
		if i == 0 {
			terms, lost = ct, lt
			continue
		}
		if err := terms.Add(&ct); err != nil {
			t.Fatal(err)
		}
		if err := lost.Add(&lt); err != nil {
			t.Fatal(err)
		}
	}
	if probs := terms.Check(); len(probs) > 0 {
		t.Errorf("the members' conservation terms add up to problems: %v", probs)
	}
	if len(helds[0]) == 0 {
		t.Fatal("member 0 holds no message: the loss is not tested")
	}
	if probs := lost.Check(); len(probs) == 0 {
		t.Error("member 0's held messages lost, and the summed check found nothing")
	}
	wantStats, gotStats := want.Stats, sum.Stats
	want.Stats, sum.Stats = nil, nil
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("merged totals differ:\n got %+v\nwant %+v", sum, want)
	}
	for sl := range wantStats.Lat {
		if !wantStats.Lat[sl].Equals(gotStats.Lat[sl]) || !wantStats.NetLat[sl].Equals(gotStats.NetLat[sl]) {
			t.Errorf("SL %d: the merged latency histograms differ", sl)
		}
	}
	if !reflect.DeepEqual(wantStats.Series, gotStats.Series) || !reflect.DeepEqual(wantStats.Delivered, gotStats.Delivered) {
		t.Errorf("merged statistics differ: series %v / %v, delivered %v / %v", gotStats.Series, wantStats.Series, gotStats.Delivered, wantStats.Delivered)
	}
}

// runParts runs cfg's network as members parts in one goroutine, window
// by window with the window loop, batches handed over at each barrier:
// the members' work without the processes. Each part's engine is closed:
// held is what each holds at the end.
func runParts(t *testing.T, cfg fabric.Config, owner []int32, members int) (parts []*part, held [][]messages.Msg) {
	t.Helper()
	for i := 0; i < members; i++ {
		n, err := sim.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, newPart(n, i, owner, members, nil))
	}
	loop := sim.NewWindows(context.Background(), parts[0].n, sim.Hooks{})
	for {
		w, due, ok := loop.Next()
		if !ok {
			break
		}
		var reps []actors.MemberReport
		for i, p := range parts {
			var mine []int
			for _, g := range due {
				if int(owner[g]) == i {
					mine = append(mine, g)
				}
			}
			if len(mine) == 0 {
				continue // the coordinator ticks only members with groups due
			}
			r, err := p.window(w, mine)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, r)
		}
		for _, r := range reps {
			for _, x := range r.Ran {
				loop.Done(x.Group, x.At)
			}
		}
		for _, r := range reps {
			for _, x := range r.Wakes {
				loop.Wake(x.Group, x.At)
			}
		}
		for _, p := range parts {
			for to, msgs := range p.batch {
				if err := parts[to].take(msgs); err != nil {
					t.Fatal(err)
				}
				p.batch[to] = msgs[:0]
			}
		}
		loop.Barrier(0)
	}
	for _, p := range parts {
		h, err := p.close()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, h)
	}
	return parts, held
}

// TestPartition: the plans are balanced and cut what the doc comment
// says; networks too small for the members are refused.
func TestPartition(t *testing.T) {
	for _, c := range []struct {
		preset    string
		members   int
		switches  []int
		cut, link int
	}{
		{"tree-8ary-2", 2, []int{8, 8}, 32, 64}, // every edge switch reaches every top switch: half the links
		{"torus2d-4x4", 2, []int{8, 8}, 80, 320},
		{"tree-8ary-3", 2, []int{96, 96}, 256, 1024}, // half the 512 links between the two upper levels, no other
	} {
		cfg := testConfig(c.preset, 100)
		n, err := sim.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Partition(n, c.members)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.Switches, c.switches) || p.Cut != c.cut || p.Links != c.link {
			t.Errorf("%s on %d members: %s, want switches %v, %d of %d links cut", c.preset, c.members, p.Describe(), c.switches, c.cut, c.link)
		}
		for g, grp := range n.Groups {
			for h, other := range n.Groups {
				if grp.Switch == other.Switch && p.Owner[g] != p.Owner[h] {
					t.Errorf("%s: switch %d's groups on two members", c.preset, grp.Switch)
				}
			}
		}
	}
	single, err := sim.Build(fabric.Default())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Partition(single, 2); err == nil || !strings.Contains(err.Error(), "at most one member per switch") {
		t.Errorf("a single switch on 2 members: %v", err)
	}
	tree, err := sim.Build(testConfig("tree-8ary-2", 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Partition(tree, 9); err == nil || !strings.Contains(err.Error(), "per switch of a tree level (8)") {
		t.Errorf("tree-8ary-2 on 9 members: %v", err)
	}
}

// TestMaxMembers: the bound worked out from a network's shape is the one
// Partition applies to the built network: the switches of the built
// topology, or of its smallest tree level; a tree of one level (one
// switch) and a torus of one switch take one member.
func TestMaxMembers(t *testing.T) {
	specs := map[string]topo.Spec{
		"tree 4-ary 1-tree": {Kind: topo.KindTree, K: 4, N: 1},
		"tree 3-ary 4-tree": {Kind: topo.KindTree, K: 3, N: 4},
		"torus 1x1":         {Kind: topo.KindTorus, Dims: []int{1, 1}, NICsPerSwitch: 4, Trunk: 1},
		"torus 5x3x2":       {Kind: topo.KindTorus, Dims: []int{5, 3, 2}, NICsPerSwitch: 2, Trunk: 1},
	}
	for _, name := range topo.PresetNames() {
		s, err := topo.LookupPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		specs[name] = s
	}
	for name, s := range specs {
		built, err := s.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := built.NumSwitches()
		for _, level := range levels(built) {
			want = min(want, len(level))
		}
		if got, _ := MaxMembers(s); got != int64(want) {
			t.Errorf("%s: MaxMembers %d, the built topology takes %d", name, got, want)
		}
	}
	for name, c := range map[string]struct {
		spec topo.Spec
		want int64
	}{"tree-8ary-2": {specs["tree-8ary-2"], 8}, "tree-8ary-3": {specs["tree-8ary-3"], 64}, "torus3d-8x8x4": {specs["torus3d-8x8x4"], 256},
		"single-switch": {specs["single-switch"], 1}} {
		if got, _ := MaxMembers(c.spec); got != c.want {
			t.Errorf("%s: MaxMembers %d, want %d", name, got, c.want)
		}
	}
}

// TestJoinRefused: joins with a wrong token and with none are refused,
// and the run goes on with members that present it.
func TestJoinRefused(t *testing.T) {
	skipUnderRace(t)
	cfg := testConfig("tree-8ary-2", 300)
	n, err := sim.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		o := testOptions(1)
		o.Listening = func(a string) { addr <- a }
		_, _, err := Coordinate(ctx, n, o)
		done <- err
	}()
	// Two members with a wrong token and with none, then one with it.
	ends := make(chan error, 3)
	startMembers(ctx, <-addr, 3, ends, []byte("a-wrong-token-of-some-length"), []byte{})
	refused, ok := 0, 0
	for i := 0; i < 3; i++ {
		switch err := <-ends; {
		case err == nil:
			ok++
		case strings.Contains(err.Error(), "refused the join: wrong or missing token"):
			refused++
		default:
			t.Errorf("member: %v", err)
		}
	}
	if refused != 2 || ok != 1 {
		t.Errorf("%d members refused and %d ran, want 2 and 1", refused, ok)
	}
	if err := <-done; err != nil {
		t.Errorf("coordinator: %v", err)
	}
}

// TestJoinRetried: a member whose join is lost (it reached a node with no
// coordinator yet) joins once the coordinator is up there, as it repeats
// its join until answered, and the run completes. Without the repeat the
// member waits in vain and fails after its timeout.
func TestJoinRetried(t *testing.T) {
	skipUnderRace(t)
	n, err := sim.Build(testConfig("tree-8ary-2", 300))
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Measure(n, sim.RunSequential(context.Background(), n, sim.Hooks{}))
	early, err := startNode("127.0.0.1:0", "", quietLog())
	if err != nil {
		t.Fatal(err)
	}
	addr := early.address()
	// The node's dead letters show the member's first join reached it,
	// with no coordinator there.
	lost := make(chan struct{}, 1)
	sub := early.system.EventStream.Subscribe(func(ev any) {
		if d, ok := ev.(*actor.DeadLetterEvent); ok {
			if _, ok := d.Message.(*Join); ok {
				select {
				case lost <- struct{}{}:
				default:
				}
			}
		}
	})
	end := make(chan error, 1)
	go func() {
		end <- RunMember(context.Background(), MemberOptions{Join: addr, Token: testToken, Log: quietLog(), Timeout: testTimeout})
	}()
	select {
	case <-lost:
	case err := <-end:
		t.Fatalf("the member ended before its join was lost: %v", err)
	}
	early.system.EventStream.Unsubscribe(sub)
	early.stop()
	n, err = sim.Build(testConfig("tree-8ary-2", 300))
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions(1)
	o.Listen = addr
	got, _, err := Coordinate(context.Background(), n, o)
	if err != nil {
		t.Fatalf("coordinator: %v", err)
	}
	if err := <-end; err != nil {
		t.Errorf("member: %v", err)
	}
	if got.Digest != want.Digest {
		t.Errorf("digest %s, sequential %s", got.Digest, want.Digest)
	}
}

// TestCoordinatorRefuses: no token, or a trace replay, is refused before
// anything listens.
func TestCoordinatorRefuses(t *testing.T) {
	n, err := sim.Build(testConfig("tree-8ary-2", 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Coordinate(context.Background(), n, Options{Members: 2}); err == nil || !strings.Contains(err.Error(), "shared token") {
		t.Errorf("no token: %v", err)
	}
}

// TestSnapshotsComplete: a snapshot is complete when no member has run
// since its latest totals; a member not ticked since its totals counts at
// a later window, one that ran after them holds the snapshot back; none
// is taken before it is due.
func TestSnapshotsComplete(t *testing.T) {
	t0 := time.Unix(0, 0)
	s := newSnapshots(2, time.Second, t0)
	w := func(seq uint64) clock.Window {
		return clock.Window{From: clock.Cycle(8 * (seq - 1)), To: clock.Cycle(8 * seq)}
	}
	a, b := []byte("a"), []byte("b")
	// Window 1, not due: both members run, no totals.
	if s.due(t0.Add(time.Millisecond)) {
		t.Fatal("a snapshot due before the interval")
	}
	s.record(0, 1, nil)
	s.record(1, 1, nil)
	if s.complete(1, w(1), 0, t0) {
		t.Fatal("a snapshot taken when none was due")
	}
	// Window 2, due: only member 0 is ticked and sends totals; member 1
	// ran in window 1 after none, so the snapshot waits.
	if !s.due(t0.Add(time.Second)) {
		t.Fatal("no snapshot due after the interval")
	}
	s.record(0, 2, a)
	if s.complete(2, w(2), 0, t0) {
		t.Fatal("complete though member 1 ran after its (no) totals")
	}
	// Window 3: member 1 is ticked and sends totals; member 0 was not
	// ticked, so its totals of window 2 still hold.
	s.record(1, 3, b)
	if !s.complete(3, w(3), 0, t0.Add(time.Second)) || s.seq != 3 || s.window.To != 24 || string(s.parts[0]) != "a" || string(s.parts[1]) != "b" {
		t.Fatalf("snapshot: taken %v at window %d (to %d), parts %q", s.taken, s.seq, s.window.To, s.parts)
	}
	// Window 4: member 0 runs again; the snapshot of window 3 stays the
	// latest complete one and no new one is due yet.
	s.record(0, 4, nil)
	if s.due(t0.Add(1500*time.Millisecond)) || s.complete(4, w(4), 0, t0) || s.seq != 3 {
		t.Fatalf("a new snapshot at window %d before the interval", s.seq)
	}
}

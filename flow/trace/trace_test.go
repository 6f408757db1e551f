package trace

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/graph"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/workloads/vef"
)

func reader(t testing.TB, text string) *vef.Reader {
	t.Helper()
	rd, err := vef.NewReader(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func star(t testing.TB, servers int) route.Router {
	t.Helper()
	tr, err := graph.NewTree(servers, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return route.NewDModK(tr)
}

func replay(t *testing.T, r route.Router, text string, opt Options) *Result {
	t.Helper()
	res, err := Replay(r, reader(t, text), opt, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestExampleByHand replays VEF.md's 4-task example on one switch, links
// of 1 byte/ns, each task on its own server. With CPU factor F:
//
//	m0 0→1 1,024 B at 0:                       [0, 1024]             T0 = 1024
//	m1 1→2 2,048 B, 500F after receiving m0:   [T0+500F, +2048]      T1
//	m2 2→3 4,096 B, 100F after receiving m1:   [T1+100F, +4096]      T2
//	G0 allreduce of 8 B, recursive doubling (rounds (0,1)(2,3), then
//	(0,2)(1,3)); parts start at T0 (task 0, after sending m0), T1 (1),
//	T2 (2 and 3). Round 0 ends at T1+8 for 0 and 1, T2+8 for 2 and 3;
//	round 1 (0→2 and 1→3 at T1+8, 2→0 and 3→1 at T2+8) at T2+16 for all.
//	m3 3→0 512 B, 200F after G0: [T2+16+200F, +512].
//
// F = 1: T1 = 3572, T2 = 7768, end 8496. F = 2: T1 = 4072, T2 = 8368, end
// 9296. F = 0: T1 = 3072 and m2 starts at once; 1→3 (round 1, at 3080)
// shares 3's link with it: 8 B at 1/2 until 3096, m2 8 B late, T2 = 7176;
// end 7176 + 16 + 512 = 7704.
func TestExampleByHand(t *testing.T) {
	for _, c := range []struct {
		factor float64
		end    float64
		ends   [4]float64
	}{
		{1, 8496, [4]float64{8496, 7784, 7784, 8496}},
		{2, 9296, [4]float64{9296, 8384, 8384, 9296}},
		{0, 7704, [4]float64{7704, 7192, 7192, 7704}},
	} {
		res := replay(t, star(t, 4), vef.Example, Options{CPUFactor: c.factor})
		if res.Execution != c.end {
			t.Errorf("cpu factor %g: execution %v, want %v", c.factor, res.Execution, c.end)
		}
		for i, want := range c.ends {
			if res.TaskEnds[i] != want {
				t.Errorf("cpu factor %g: task %d ends at %v, want %v", c.factor, i, res.TaskEnds[i], want)
			}
		}
		if res.Messages != 4 || res.Parts != 4 {
			t.Errorf("messages %d, parts %d: want 4 and 4", res.Messages, res.Parts)
		}
	}
}

// TestTwoTasksAServer: the example with tasks 0, 1 on server 0 and 2, 3
// on server 1 (the linear mapping on 2 servers). m0 (0→1) and the
// allreduce's round-0 messages stay on their server and take no time.
// F = 1: m0 at 0; m1 1→2 at 500, [500, 2548]; m2 (2→3, same server) at
// 2648; parts start at 0 (task 0), 2548 (1), 2648 (2, 3). Round 0: 0↔1
// ends at 2548, 2↔3 at 2648. Round 1: 0→2 and 1→3 at 2548 share server
// 0's link (and server 1's): 16 B at 1/2, done at 2564, before 2→0 and
// 3→1 at 2648, which share the other way: done at 2664. m3 (3→0) at 2864,
// 512 B: 3376.
func TestTwoTasksAServer(t *testing.T) {
	res := replay(t, star(t, 2), vef.Example, Options{CPUFactor: 1})
	if res.Execution != 3376 {
		t.Errorf("execution %v, want 3376", res.Execution)
	}
	m := Linear(4, 2)
	if m[0] != 0 || m[1] != 0 || m[2] != 1 || m[3] != 1 {
		t.Errorf("linear mapping %v", m)
	}
}

// directionTrace: on a 4-ary 2-tree (16 servers, leaves of 4), task 0
// sends 4 B to task 4 and task 1 4 B to task 8, both at 0; task 4 sends
// 4 B to task 5 once it has received task 0's message.
const directionTrace = `VEF 16 3 1 0 0 FALSE
C0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
0 0 4 4 0 0 -1
1 1 8 4 0 0 -1
2 4 5 4 2 0 0
`

// TestDirection: d-mod-k climbs by the destination's digits, so 0→4 and
// 1→8 (both destinations ≡ 0 mod 4) leave leaf 0 by the same up link:
// 1/2 each, done at 8; 4→5 then [8, 12]: 12. Replayed backwards, as
// INRFlow's reader did, 4→0 and 8→1 climb from different leaves and come
// down on different links: done at 4, and 5→4 at 8. The right answer is
// 12; the reversed replay's 8 is wrong.
func TestDirection(t *testing.T) {
	tr, err := graph.NewTree(4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := route.NewDModK(tr)
	if got := replay(t, r, directionTrace, Options{CPUFactor: 1}).Execution; got != 12 {
		t.Errorf("execution %v, want 12", got)
	}
	if got := replay(t, r, directionTrace, Options{CPUFactor: 1, reversed: true}).Execution; got != 8 {
		t.Errorf("reversed execution %v, want 8 (the wrong answer this test tells apart)", got)
	}
}

// TestReceiveWaitsForSend: task 1 forwards to task 2 after receiving from
// task 0, which sends only at 1,000 (F = 1) or 3,000 (F = 3): the forward
// waits for it, whatever task 1 could do before. 10 B a message on one
// switch: F = 1: [1000, 1010], [1010+5, 1025]; F = 3: 3000, 3010, 3025, 3035.
func TestReceiveWaitsForSend(t *testing.T) {
	const tr = `VEF 3 2 1 0 0 FALSE
C0 0 1 2
0 0 1 10 0 1000 -1
1 1 2 10 2 5 0
`
	for _, c := range []struct{ f, end float64 }{{1, 1025}, {3, 3035}} {
		if got := replay(t, star(t, 3), tr, Options{CPUFactor: c.f}).Execution; got != c.end {
			t.Errorf("cpu factor %g: execution %v, want %v", c.f, got, c.end)
		}
	}
}

// TestAfterSendOfAnother: a record may wait only on its own task's events.
func TestAfterSendOfAnother(t *testing.T) {
	const tr = `VEF 3 2 1 0 0 FALSE
C0 0 1 2
0 0 1 10 0 0 -1
1 2 1 10 1 0 0
`
	_, err := Replay(star(t, 3), reader(t, tr), Options{CPUFactor: 1}, dynamic.Options{})
	var ve *vef.Error
	if !errors.As(err, &ve) || ve.Line != 4 || ve.Field != "dep_id" {
		t.Fatalf("error %v: want a vef.Error on line 4, field dep_id", err)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{CPUFactor: -1}, "cpu factor: -1"},
		{Options{CPUFactor: math.NaN()}, "cpu factor: NaN"},
		{Options{CPUFactor: math.Inf(1)}, "cpu factor: +Inf"},
		{Options{CPUFactor: 1, Mapping: []int32{0, 1}}, "mapping: 2 tasks"},
		{Options{CPUFactor: 1, Mapping: []int32{0, 1, 2, 4}}, "task 3 on server 4"},
		{Options{CPUFactor: 1, Algorithms: map[vef.Op]string{vef.Allreduce: "nope"}}, `algorithm "nope"`},
	} {
		_, err := Replay(star(t, 4), reader(t, vef.Example), c.opt, dynamic.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.opt, err, c.want)
		}
	}
}

// TestNoPath: with the cable of server 1 failed, message 0→1 has no path:
// the error names the pair.
func TestNoPath(t *testing.T) {
	tr, err := graph.NewTree(4, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := tr.Graph.Out(1) // server 1's link to the switch
	back := int32(-1)
	for _, c := range tr.Graph.Cables() {
		if c.Fwd == out || c.Back == out {
			back = c.Fwd + c.Back - out
		}
	}
	f, err := graph.RemoveLinks(tr.Graph, []int32{out, back})
	if err != nil {
		t.Fatal(err)
	}
	r, err := route.NewECMP(f.Graph, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Replay(r, reader(t, vef.Example), Options{CPUFactor: 1}, dynamic.Options{})
	var np *dynamic.NoPathError
	if !errors.As(err, &np) || np.Src != 0 || np.Dst != 1 || !errors.Is(err, route.ErrNoPath) {
		t.Fatalf("error %v: want no path from server 0 to server 1", err)
	}
	if !strings.Contains(err.Error(), "from server 0 to server 1") {
		t.Errorf("error %q does not name the pair", err)
	}
}

// serialTrace: on one switch of 3 servers (links of 1 byte/ns), task 0
// sends m0 (1,000 B to 1) and m1 (1,000 B to 2) at 0, m2 (500 B to 1) at
// 100 and m4 (100 B to 2) 50 after sending m1; task 1 sends m3 (200 B to
// 0) 300 after receiving m0.
const serialTrace = `VEF 3 5 1 0 0 FALSE
C0 0 1 2
0 0 1 1000 0 0 -1
1 0 2 1000 0 0 -1
2 0 1 500 0 100 -1
3 1 0 200 2 300 0
4 0 2 100 1 50 1
`

// TestSerialSends works serialTrace out by hand both ways.
//
// Serial sends (server 0 sends m0, m1, m2, m4 one after another): m0
// [0, 1000]; m1 [1000, 2000]; m3 at 1300, [1300, 1500]; m2, issued at
// 100, waits for m1: [2000, 2500]; m4 is issued at 2050 (m1 sent at 2000,
// then 50) and waits for m2: [2500, 2600]. Task ends 2600, 2500, 2600;
// from issue to arrival m0 to m4 take 1000, 2000, 2400, 200 and 550, a
// mean of 1230.
//
// All at once: m0 and m1 share server 0's link at 1/2 from 0, m2 joins at
// 100 (1/3 each, m0 and m1 at 950 B left): m2 done at 1600, m0 and m1
// with 450 B left then at 1/2, done at 2500; m4 [2550, 2650]; m3 at 2800,
// [2800, 3000]. Task ends 3000, 3000, 2650; from issue to arrival 2500,
// 2500, 1500, 200 and 100, a mean of 1360.
func TestSerialSends(t *testing.T) {
	for _, c := range []struct {
		serial  bool
		ends    [3]float64
		end     float64
		latency float64
	}{
		{true, [3]float64{2600, 2500, 2600}, 2600, 1230},
		{false, [3]float64{3000, 3000, 2650}, 3000, 1360},
	} {
		res := replay(t, star(t, 3), serialTrace, Options{CPUFactor: 1, SerialSends: c.serial})
		if res.Execution != c.end || [3]float64(res.TaskEnds) != c.ends || res.MessageLatency != c.latency {
			t.Errorf("serial sends %v: execution %v, task ends %v, message latency %v; want %v, %v and %v",
				c.serial, res.Execution, res.TaskEnds, res.MessageLatency, c.end, c.ends, c.latency)
		}
	}
}

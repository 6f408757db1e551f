package storage

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/flow/internal/flowtest"
	"github.com/opasim/opasim/flow/maxmin"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/flow/workload"
)

// star is flowtest.Star: n servers on one switch, unit links; server s's
// link up is link s, its link down n+s.
func star(t *testing.T, n int) route.Router { return flowtest.Star(t, n) }

// chain is a Markov model going init → phase → end.
func chain(tasks int, phase int) workload.Markov {
	m := workload.Markov{Tasks: tasks, Seed: 1}
	m.Matrix[workload.PhaseInit][phase] = 1
	for _, ph := range []int{workload.PhaseComp, workload.PhaseComm, workload.PhaseRead, workload.PhaseWrite, workload.PhaseEnd} {
		m.Matrix[ph][workload.PhaseEnd] = 1
	}
	return m
}

func at(x int) *int { return &x }

func paths(t *testing.T, s *System, src, dst int32) [][]int32 {
	t.Helper()
	var out [][]int32
	if err := s.Route(src, dst, func(links []int32, share float64) {
		if share != 1 {
			t.Errorf("%s → %s: share %v", s.Describe(src), s.Describe(dst), share)
		}
		out = append(out, slices.Clone(links))
	}); err != nil {
		t.Fatalf("%s → %s: %v", s.Describe(src), s.Describe(dst), err)
	}
	return out
}

// TestPoliciesRouteIO: 8 nodes on a star (links 0..15; resources from 16:
// PCIe 16+j, device 24+j, SAN up 32+j, SAN down 40+j, SAN server 48+k),
// an application of 4 tasks on nodes 2..5. Each policy's targets and the
// paths of a read and a write, worked out from the definitions.
func TestPoliciesRouteIO(t *testing.T) {
	s, err := New(star(t, 8), Config{SAN: SAN{Servers: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Endpoints() != 8+8+3 || len(s.Capacities()) != 16+4*8+3 {
		t.Fatalf("endpoints %d, resources %d", s.Endpoints(), len(s.Capacities()))
	}
	part := []int32{2, 3, 4, 5}
	nvm := func(nodes ...int32) []int32 {
		var out []int32
		for _, v := range nodes {
			out = append(out, 8+v)
		}
		return out
	}
	for _, c := range []struct {
		name string
		a    Assign
		want []int32
	}{
		{"local", Assign{}, nvm(2, 3, 4, 5)},
		{"local named", Assign{Policy: Local}, nvm(2, 3, 4, 5)},
		{"internal: half the partition, its first nodes", Assign{Policy: Internal}, nvm(2, 3, 2, 3)},
		{"internal 1 device", Assign{Policy: Internal, Devices: 1}, nvm(2, 2, 2, 2)},
		{"internal 3 devices", Assign{Policy: Internal, Devices: 3}, nvm(2, 3, 4, 2)},
		{"internal nodes", Assign{Policy: Internal, Nodes: []int32{5, 4}}, nvm(5, 4, 5, 4)},
		{"external: as many as tasks after the partition, wrapping", Assign{Policy: External}, nvm(6, 7, 0, 1)},
		{"external 2", Assign{Policy: External, Devices: 2}, nvm(6, 7, 6, 7)},
		{"external nodes", Assign{Policy: External, Nodes: []int32{0}}, nvm(0, 0, 0, 0)},
		{"san, 3 servers", Assign{Policy: OnSAN}, []int32{16, 17, 18, 16}},
	} {
		got, err := s.Targets("", c.a, part)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: targets %v, want %v", c.name, got, c.want)
		}
	}
	// Paths. A local read and write: the device and PCIe of the node only.
	for _, c := range []struct {
		src, dst int32
		want     []int32
	}{
		{s.NVM(3), 3, []int32{24 + 3, 16 + 3}},
		{3, s.NVM(3), []int32{16 + 3, 24 + 3}},
		// internal/external: node 6's device to node 2: device, PCIe, 6's
		// link up (6), 2's link down (10); a write the reverse.
		{s.NVM(6), 2, []int32{24 + 6, 16 + 6, 6, 10}},
		{2, s.NVM(6), []int32{2, 14, 16 + 6, 24 + 6}},
		// SAN server 1 to node 4: the server, the SAN's link down to 4;
		// a write: 4's SAN link up, the server. No network link.
		{s.SANServer(1), 4, []int32{48 + 1, 40 + 4}},
		{4, s.SANServer(1), []int32{32 + 4, 48 + 1}},
		// Between servers: the network's path.
		{2, 6, []int32{2, 14}},
	} {
		got := paths(t, s, c.src, c.dst)
		if len(got) != 1 || !slices.Equal(got[0], c.want) {
			t.Errorf("%s → %s: paths %v, want [%v]", s.Describe(c.src), s.Describe(c.dst), got, c.want)
		}
	}
	for _, c := range []struct {
		src, dst int32
		want     string
	}{
		{s.NVM(1), s.NVM(2), "a storage flow goes between a server and a device or SAN server"},
		{s.SANServer(0), s.NVM(2), "a storage flow goes between"},
		{0, 19, "must be an endpoint in [0, 19)"},
		{3, 3, "must differ from src"},
	} {
		err := s.Route(c.src, c.dst, func([]int32, float64) { t.Error("a path for a refused flow") })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d → %d: %v, want %q", c.src, c.dst, err, c.want)
		}
	}
	for _, c := range []struct {
		a    Assign
		want string
	}{
		{Assign{Policy: "nearby"}, `x.policy: "nearby" is not allowed: must be one of local, internal, external, san`},
		{Assign{Policy: Local, Devices: 2}, "x.devices: 2 is not allowed with policy local: must be 0 (every task uses its own node's device)"},
		{Assign{Nodes: []int32{1}}, "x.nodes: [1] is not allowed with policy local: must be empty"},
		{Assign{Policy: OnSAN, Nodes: []int32{1}}, "x.nodes: [1] is not allowed with policy san: must be empty (task i uses SAN server i mod storage.san.servers)"},
		{Assign{Policy: Internal, Devices: 5}, "x.devices: 5 is not allowed with policy internal: must be in [1, 4]"},
		{Assign{Policy: Internal, Devices: -1}, "x.devices: -1 is not allowed with policy internal: must be in [1, 4]"},
		{Assign{Policy: Internal, Nodes: []int32{2, 6}}, "x.nodes[1]: 6 is not allowed with policy internal: must be a node of the partition (nodes 2..5)"},
		{Assign{Policy: External, Devices: 5}, "x.devices: 5 is not allowed with policy external: must be in [1, 4]"},
		{Assign{Policy: External, Nodes: []int32{3}}, "x.nodes[0]: 3 is not allowed with policy external: must be a node in [0, 8) outside the partition (nodes 2..5)"},
		{Assign{Policy: External, Nodes: []int32{8}}, "x.nodes[0]: 8 is not allowed with policy external"},
	} {
		_, err := s.Targets("x.", c.a, part)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.a, err, c.want)
		}
	}
}

// TestBuildIO: the flows an application's reads and writes become. Four
// nodes, an application of 2 tasks on nodes 0, 1 reading 1 and writing 2
// (init → read → write → end).
func TestBuildIO(t *testing.T) {
	m := chain(2, workload.PhaseRead)
	m.Matrix[workload.PhaseRead] = [workload.NumPhases]float64{workload.PhaseWrite: 1}
	m.ReadSize, m.WriteSize = 1, 2
	type io struct {
		src, dst int32
		size     float64
	}
	for _, c := range []struct {
		name  string
		cfg   Config
		a     Assign
		reads []io // then the writes: each task to its target, size 2
		tgt   []int32
	}{
		{"local", Config{}, Assign{}, []io{{4, 0, 1}, {5, 1, 1}}, []int32{4, 5}},
		// Cache hits: a quarter of each read comes from the memory of
		// the node holding the data: task 0's own (a self flow, at once),
		// node 0's for task 1 over the network.
		{"internal, cache 1/4", Config{CacheHit: 0.25}, Assign{Policy: Internal},
			[]io{{0, 0, 0.25}, {4, 0, 0.75}, {0, 1, 0.25}, {4, 1, 0.75}}, []int32{4, 4}},
		{"external, cache 1/4", Config{CacheHit: 0.25}, Assign{Policy: External},
			[]io{{2, 0, 0.25}, {6, 0, 0.75}, {3, 1, 0.25}, {7, 1, 0.75}}, []int32{6, 7}},
		// No cache in front of the SAN.
		{"san", Config{CacheHit: 0.25}, Assign{Policy: OnSAN}, []io{{8, 0, 1}, {8, 1, 1}}, []int32{8, 8}},
	} {
		s, err := New(star(t, 4), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		flows, spans, err := Build(s, c.cfg, []App{{Markov: m, Storage: c.a}}, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := append([]io(nil), c.reads...)
		want = append(want, io{0, c.tgt[0], 2}, io{1, c.tgt[1], 2})
		var got []io
		for _, f := range flows {
			if f.Class == 1 {
				got = append(got, io{f.Src, f.Dst, f.Size})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: I/O flows %v, want %v", c.name, got, want)
		}
		if len(spans) != 1 || spans[0].Nodes != "nodes 0..1" || len(spans[0].Ends) != 4 {
			t.Errorf("%s: spans %+v", c.name, spans)
		}
	}
}

// TestPolicyCompletionByHand: two applications on a 4-node star (links
// of capacity 1). App A, on nodes 2 and 3, exchanges one flow of 1 each
// way (a shift: 2→3 over node 2's link up, 3→2 over node 3's). App B, on
// nodes 0 and 1, reads 1 per task, both from node 2's device (external,
// nodes [2]): each read crosses device 2, PCIe 2 (capacity 1), node 2's
// link up and its reader's link down. So node 2's link up carries A's
// flow 2→3 and both reads: 3 units over capacity 1, and B, last, always
// ends at 3 when the device is not the bottleneck. A's flow 3→2 is alone
// at rate 1 and ends at 1.
//
// Device bandwidth 1 (the reads share it at 1/2 at most):
//
//   - NP: the link up splits in 3: A's flow 1/3, ends at 3; the reads
//     1/3, end at 3. A 3, B 3.
//   - FP: A's flow takes the link up (1), ends at 1; the reads wait,
//     then run at 1/2 each (link and device split in 2): 1 + 2 = 3.
//   - BA 50/50: A 1/2; the reads share I/O's half: 1/4 each; nothing
//     left. A ends at 2; the reads did 1/2 by then, then 1/2 each: 1
//     more, 3.
//   - BA 75/25: A 3/4, ends at 4/3; the reads 1/8 each, 1/6 done by
//     then, then 1/2 each: 5/3 more, 3.
//
// Device bandwidth 1/2 (the reads share it at 1/4 each):
//
//   - NP: the device holds the reads at 1/4 (below the link's 1/3), A's
//     flow takes the 1/2 left: A ends at 2; the reads at 4.
//   - FP: A alone until 1; the reads at 1/4 from 1: 5.
//   - BA 50/50: as NP (the reads' device rate 1/4 is within I/O's half
//     of the link, A's half is 1/2): A 2, B 4.
//   - BA 75/25: A 3/4, ends at 4/3; the reads get 1/8 each of the link,
//     1/6 done by then; then 1/4 each (device): 10/3 more: 14/3.
//
// B's mean I/O completion is its end (both reads start at 0 and end
// together); A's I/O time is 0, B's its runtime.
func TestPolicyCompletionByHand(t *testing.T) {
	appA := App{Name: "A", First: at(2), Markov: chain(2, workload.PhaseComm)}
	appA.Markov.Comm, appA.Markov.CommSize = workload.Spec{Name: "shift"}, 1
	appB := App{Name: "B", First: at(0), Markov: chain(2, workload.PhaseRead), Storage: Assign{Policy: External, Nodes: []int32{2}}}
	appB.Markov.ReadSize = 1
	for _, c := range []struct {
		device float64
		policy maxmin.Policy
		a, b   float64
	}{
		{1, maxmin.Policy{}, 3, 3},
		{1, maxmin.Policy{Kind: maxmin.FP}, 1, 3},
		{1, maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}, 2, 3},
		{1, maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.75, 0.25}}, 4.0 / 3, 3},
		{0.5, maxmin.Policy{}, 2, 4},
		{0.5, maxmin.Policy{Kind: maxmin.FP}, 1, 5},
		{0.5, maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}, 2, 4},
		{0.5, maxmin.Policy{Kind: maxmin.BA, Shares: []float64{0.75, 0.25}}, 4.0 / 3, 14.0 / 3},
	} {
		res, err := Run(star(t, 4), Config{Device: c.device}, []App{appA, appB}, 1, c.policy, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := res.Apps[0], res.Apps[1]
		name := fmt.Sprintf("%v %v", c.policy.Kind, c.policy.Shares)
		near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, y) }
		if !near(a.Runtime, c.a) || !near(b.Runtime, c.b) || !near(b.IOTime, c.b) || !near(b.IOMean, c.b) || a.IOTime != 0 {
			t.Errorf("device %v, %s: A runtime %v, B runtime %v (I/O time %v, mean I/O completion %v); A's I/O %v; want %v, %v",
				c.device, name, a.Runtime, b.Runtime, b.IOTime, b.IOMean, a.IOTime, c.a, c.b)
		}
		if b.IOFlows != 2 || a.CommFlows != 2 || a.IOFlows != 0 || res.Unfinished != 0 {
			t.Errorf("%s: flows %+v %+v", name, a, b)
		}
	}
	// Where B's data is local, or on the SAN, its reads never touch the
	// network: A ends at 1 under every policy, B at 1 / (its reads' rate):
	// local, each read alone on its device of 1/2: 2; SAN, both reads on
	// the one SAN server of 1: 1/2 each: 2.
	for _, pol := range []string{Local, OnSAN} {
		b := appB
		b.Storage = Assign{Policy: pol}
		for _, p := range []maxmin.Policy{{}, {Kind: maxmin.FP}, {Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}} {
			res, err := Run(star(t, 4), Config{Device: 0.5}, []App{appA, b}, 1, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Apps[0].Runtime != 1 || res.Apps[1].Runtime != 2 {
				t.Errorf("%s, %v: A %v, B %v, want 1, 2", pol, p.Kind, res.Apps[0].Runtime, res.Apps[1].Runtime)
			}
		}
	}
}

// TestCacheByHand: an application of 2 tasks on nodes 0, 1 of a 4-node
// star reads 1 per task; devices of 1/2.
//
//   - External, node 2's device, no cache: the two reads share the
//     device, 1/4 each: 4.
//   - Cache hit 1/2: each read is 1/2 from node 2's memory and 1/2 from
//     its device, four flows over node 2's link up (1/4 each) and two on
//     the device (1/4 each): all at 1/4, done at 2.
//   - Cache hit 3/4: the device parts (1/4) end at 1, the memory parts
//     (3/4) have 1/2 left and then share the link at 1/2: 2 (the link
//     carries 2 units at 1: the cache no longer helps); mean I/O
//     completion (1 + 1 + 2 + 2)/4 = 3/2.
//   - Internal with one device, node 0's, cache hit 1/2: task 0's hit is
//     in its own memory (at once); its device part and task 1's share
//     device 0 (1/4 each: done at 2); task 1's memory part crosses node
//     0's link up beside the device part, takes the 3/4 left and ends at
//     (1/2)/(3/4) = 2/3. Runtime 2; mean I/O completion (0 + 2 + 2/3 +
//     2)/4 = 7/6.
//
// Only I/O flows: the same under NP, FP and BA.
func TestCacheByHand(t *testing.T) {
	m := chain(2, workload.PhaseRead)
	m.ReadSize = 1
	ext := Assign{Policy: External, Nodes: []int32{2}}
	for _, c := range []struct {
		hit           float64
		a             Assign
		runtime, mean float64
		flows         int
	}{
		{0, ext, 4, 4, 2},
		{0.5, ext, 2, 2, 4},
		{0.75, ext, 2, 1.5, 4},
		{0.5, Assign{Policy: Internal, Devices: 1}, 2, 7.0 / 6, 4},
	} {
		for _, p := range []maxmin.Policy{{}, {Kind: maxmin.FP}, {Kind: maxmin.BA, Shares: []float64{0.5, 0.5}}} {
			res, err := Run(star(t, 4), Config{Device: 0.5, CacheHit: c.hit}, []App{{Markov: m, Storage: c.a}}, 1, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := res.Apps[0]
			if math.Abs(a.Runtime-c.runtime) > 1e-12 || math.Abs(a.IOMean-c.mean) > 1e-12 || a.IOFlows != c.flows {
				t.Errorf("cache %v, %s, %v: runtime %v, I/O mean %v over %d flows; want %v, %v, %d",
					c.hit, c.a.Policy, p.Kind, a.Runtime, a.IOMean, a.IOFlows, c.runtime, c.mean, c.flows)
			}
		}
	}
}

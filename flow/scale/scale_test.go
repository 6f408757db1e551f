package scale

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opasim/opasim/flow/spec"
	"github.com/opasim/opasim/flow/workload"
)

// TestServersFormula: every built-in instance up to 5,000 servers builds
// with the number of servers the family's formula gives.
func TestServersFormula(t *testing.T) {
	fams, err := Families(nil, 5000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fams {
		for _, top := range f.Sizes {
			cfg := spec.Config{Topology: top, Seed: 1}
			net, err := cfg.Build()
			if err != nil {
				t.Fatalf("%s %s: %v", f.Name, Describe(top), err)
			}
			if got := net.Graph.NumServers(); got != servers(top) {
				t.Errorf("%s %s: %d servers, formula %d", f.Name, Describe(top), got, servers(top))
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d instances up to 5,000 servers", n)
	}
	if _, err := Families([]string{"hypercube"}, 10); err == nil || !strings.Contains(err.Error(), `scale family: "hypercube" is not allowed`) {
		t.Errorf("unknown family: %v", err)
	}
}

// TestRunAllToAll, by hand: under all-to-all a k-ary n-tree's busiest
// links are the servers' own (N − 1 flows each), so restricted and
// non-restricted throughput are both N; the 2:1 thin tree with k = 8
// (XGFT(3; 8,8,8; 1,4,4), all shortest paths) is bound by the links
// leaving a 64-server subtree: 64·448 flows over 16 links, 1,792 each, so
// restricted throughput is 512·511/1792.
func TestRunAllToAll(t *testing.T) {
	fams := []Family{
		{"fat-tree", []spec.Topology{{Kind: spec.KindTree, K: 8, N: 3}}},
		{"thin-tree-2:1", []spec.Topology{{Kind: spec.KindThinTree, K: 8, KUp: 4, N: 3}}},
	}
	var seen []Point
	pts, err := Run(context.Background(), fams, workload.Spec{Name: "all-to-all"}, 1, 2, func(p Point) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || len(seen) != 2 {
		t.Fatalf("%d points, %d reported", len(pts), len(seen))
	}
	if p := pts[0]; p.Servers != 512 || math.Abs(p.Restricted-512) > 1e-6 || math.Abs(p.NonRestricted-512) > 1e-6 {
		t.Errorf("fat tree: %+v", p)
	}
	if p := pts[1]; math.Abs(p.MaxLoad-1792) > 1e-6 || math.Abs(p.Restricted-512*511/1792.0) > 1e-6 {
		t.Errorf("thin tree 2:1: max load %v, restricted %v; want 1792, %v", p.MaxLoad, p.Restricted, 512*511/1792.0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if pts, err := Run(ctx, fams, workload.Spec{Name: "all-to-all"}, 1, 1, nil); err != nil || len(pts) != 0 {
		t.Errorf("cancelled: %d points, %v", len(pts), err)
	}
}

// TestRunApps, by hand: a 4×4 stencil (16 tasks, size 10, one step) on
// the 4-ary 2-tree: each server sends 4 flows and receives 4, sharing its
// link (40); the two a server sends off its leaf share 4 up links with the
// leaf's other 6, never binding. So 40 with d-mod-k; multipath runs too
// and cannot beat the server links.
func TestRunApps(t *testing.T) {
	topos := []Topo{{Name: "fat-tree", Topology: spec.Topology{Kind: spec.KindTree, K: 4, N: 2}, Multipath: &spec.Routing{Name: "ecmp", Paths: 4}}}
	apps := []workload.App{{Kind: workload.Stencil2D, Tasks: 16, Size: 10}}
	var seen int
	pts, err := RunApps(context.Background(), topos, apps, 1, func(AppPoint) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || seen != 2 || pts[0].Makespan != 40 || pts[0].Multipath || !pts[1].Multipath || pts[1].Makespan < 40 {
		t.Errorf("points %+v", pts)
	}
	big := []workload.App{{Kind: workload.NBody, Tasks: 17, Size: 1}}
	if _, err := RunApps(context.Background(), topos, big, 1, nil); err == nil || !strings.Contains(err.Error(), "needs 17 servers, the network has 16") {
		t.Errorf("too many tasks: %v", err)
	}
}

// TestRunAppsLimit: with a limit of 1 ns every run is stopped after its
// first batch of events, reported unfinished with how far it got (fewer
// flows completed than it has, an earlier time than the run without a
// limit ends at) and no execution time, and the study goes on with the
// next run. The routings' choice runs the topology's own or its
// multipath one only.
func TestRunAppsLimit(t *testing.T) {
	topos := []Topo{{Name: "fat-tree", Topology: spec.Topology{Kind: spec.KindTree, K: 4, N: 2}, Multipath: &spec.Routing{Name: "ecmp", Paths: 4}}}
	apps := []workload.App{{Kind: workload.Stencil2D, Tasks: 16, Iterations: 3, Size: 10, Compute: 5}, {Kind: workload.NBody, Tasks: 8, Size: 10}}
	full, err := RunAppsWith(context.Background(), topos, apps, AppOptions{Seed: 1, Routings: RoutingsSingle})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2 || full[0].Multipath || full[1].Multipath || full[0].Unfinished || full[1].Unfinished {
		t.Fatalf("single-path runs without a limit: %+v", full)
	}
	var reported int
	cut, err := RunAppsWith(context.Background(), topos, apps, AppOptions{Seed: 1, Routings: RoutingsSingle, RunLimit: time.Nanosecond, Done: func(AppPoint) { reported++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) != 2 || reported != 2 {
		t.Fatalf("limited: %d points, %d reported; want 2 (the study goes on)", len(cut), reported)
	}
	for i, p := range cut {
		if !p.Unfinished || p.Makespan != 0 || p.Completed >= p.Flows || p.Flows != full[i].Flows || p.Reached >= full[i].Makespan {
			t.Errorf("%s with a 1 ns limit: %+v; the full run: %+v", p.App, p, full[i])
		}
	}
	multi, err := RunAppsWith(context.Background(), topos, apps[:1], AppOptions{Seed: 1, Routings: RoutingsMultipath})
	if err != nil || len(multi) != 1 || !multi[0].Multipath || multi[0].Routing == full[0].Routing {
		t.Errorf("multipath only: %+v, %v", multi, err)
	}
	if _, err := RunAppsWith(context.Background(), topos, apps, AppOptions{Routings: "some"}); err == nil || !strings.Contains(err.Error(), `routings: "some" is not allowed: must be one of both, single, multipath`) {
		t.Errorf("unknown routings: %v", err)
	}
	if _, err := RunAppsWith(context.Background(), topos, apps, AppOptions{RunLimit: -time.Second}); err == nil || !strings.Contains(err.Error(), "run limit: -1s is not allowed: must be at least 0") {
		t.Errorf("negative limit: %v", err)
	}
	if _, err := RunAppsWith(context.Background(), topos, apps, AppOptions{StartQuantum: -1}); err == nil || !strings.Contains(err.Error(), "start quantum: -1 is not allowed: must be in [0, 1e300]") {
		t.Errorf("negative start quantum: %v", err)
	}
}

// TestStudy64k: the topologies of the 64k study have the servers their
// parameters give (40³; 4·4·8⁴; 16⁴ for the trees; a balanced dragonfly
// of (a·h+1) groups of a routers with p servers; switches times server
// ports for the jellyfish), and every application is valid and fits the
// smallest of them, so every topology runs the same tasks.
func TestStudy64k(t *testing.T) {
	want := map[string]int{"torus-3d": 40 * 40 * 40, "torus-6d": 4 * 4 * 8 * 8 * 8 * 8, "fat-tree": 1 << 16, "thin-tree-2:1": 1 << 16,
		"thin-tree-4:1": 1 << 16, "dragonfly": (24*12 + 1) * 24 * 12, "jellyfish": 4096 * (32 - 16)}
	topos, apps, err := StudyOf(Study64k)
	if err != nil {
		t.Fatal(err)
	}
	fewest := math.MaxInt
	for _, tp := range topos {
		cfg := spec.Config{Topology: tp.Topology, Seed: 1}
		net, err := cfg.Build()
		if err != nil {
			t.Fatalf("%s: %v", tp.Name, err)
		}
		if got := net.Graph.NumServers(); got != want[tp.Name] {
			t.Errorf("%s: %d servers, want %d", tp.Name, got, want[tp.Name])
		}
		fewest = min(fewest, net.Graph.NumServers())
	}
	if len(topos) != len(want) {
		t.Errorf("%d topologies, want %d", len(topos), len(want))
	}
	for _, a := range apps {
		if err := a.Check(); err != nil || a.Tasks > fewest {
			t.Errorf("%s: %d tasks on at least %d servers: %v", a.Name(), a.Tasks, fewest, err)
		}
	}
	if _, _, err := StudyOf("1m"); err == nil || !strings.Contains(err.Error(), `study size: "1m" is not allowed: must be one of 4k, 64k`) {
		t.Errorf("unknown size: %v", err)
	}
}

// TestRunAppsKSP: --multipath ksp runs the study's multipath comparison
// with the 4 shortest paths instead of ECMP. On the 4k jellyfish the sweep
// and n-body take what the 4k study's table (docs/flow.md) gives for
// KSP-4 and for ECMP-4: 512,509 and 257,540 with KSP-4, 537,510 and
// 257,540 with ECMP-4 (6 significant digits).
func TestRunAppsKSP(t *testing.T) {
	jf := StudyTopologies()[6]
	apps := StudyApps()
	if jf.Name != "jellyfish" || apps[1].Kind != workload.Sweep2D || apps[2].Kind != workload.NBody {
		t.Fatalf("the study changed: %s, %s, %s", jf.Name, apps[1].Name(), apps[2].Name())
	}
	for _, c := range []struct {
		multipath, routing string
		want               []float64
	}{{MultipathKSP, "ksp-4", []float64{512509, 257540}}, {MultipathECMP, "ecmp-4", []float64{537510, 257540}}} {
		pts, err := RunAppsWith(context.Background(), []Topo{jf}, apps[1:3], AppOptions{Seed: 1, Routings: RoutingsMultipath, Multipath: c.multipath})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 2 {
			t.Fatalf("%s: %d points", c.multipath, len(pts))
		}
		for i, p := range pts {
			if got, _ := strconv.ParseFloat(strconv.FormatFloat(p.Makespan, 'g', 6, 64), 64); !p.Multipath || p.Routing != c.routing || got != c.want[i] {
				t.Errorf("%s %s: routing %s multipath %v, time %v; want %s, %v", c.multipath, p.App, p.Routing, p.Multipath, p.Makespan, c.routing, c.want[i])
			}
		}
	}
	if _, err := RunAppsWith(context.Background(), []Topo{jf}, apps[1:2], AppOptions{Multipath: "valiant"}); err == nil || !strings.Contains(err.Error(), `multipath: "valiant" is not allowed: must be one of ecmp, ksp`) {
		t.Errorf("unknown multipath: %v", err)
	}
}

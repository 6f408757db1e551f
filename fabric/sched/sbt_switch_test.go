package sched

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/opasim/opasim/fabric/qos"
)

// TestSBTSwitchIsSBT: sbt_switch built alone (a NIC's one-column table)
// picks what sbt picks, decision by decision, over random head sequences
// on both configurations, with every decision committed and with a third
// of them missed (the table_feedback view).
func TestSBTSwitchIsSBT(t *testing.T) {
	reg := Default()
	for cname, cfg := range map[string]Config{"paper": paperConfig(), "dedicated": dedicatedConfig()} {
		for _, seed := range []uint64{1, 2, 3, 4, 5} {
			seq := randomHeads(cfg, 50000, seed)
			for _, missed := range [][]bool{nil, randomMisses(len(seq), seed)} {
				want, err := driveMiss(func() (Scheduler, error) { return reg.New("sbt", cfg) }, seq, false, missed)
				if err != nil {
					t.Fatal(err)
				}
				got, err := driveMiss(func() (Scheduler, error) { return reg.New("sbt_switch", cfg) }, seq, false, missed)
				if err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(want, got); d >= 0 {
					t.Fatalf("%s, seed %d, misses %v: decision %d: sbt_switch picks VL %d, sbt VL %d",
						cname, seed, missed != nil, d, got[d], want[d])
				}
			}
		}
	}
}

// TestSBTSwitchPortsAreIndependent: the 48 output ports of one switch's
// table, each fed its own random heads, interleaved in a random order
// decision by decision, each pick what a lone sbt fed the same heads picks,
// and each port's column ends equal to that sbt's weights: no port sees
// another's decisions. The Weight column never changes.
func TestSBTSwitchPortsAreIndependent(t *testing.T) {
	const ports, decisions = 48, 3000
	cfg := paperConfig()
	views, err := Default().NewSwitch("sbt_switch", cfg, ports)
	if err != nil {
		t.Fatal(err)
	}
	table, _ := views[0].(*sbtPort).Table()
	lone := make([]Scheduler, ports)
	seqs := make([][][]Head, ports)
	missed := make([][]bool, ports)
	for j := range lone {
		if lone[j], err = NewSBT(cfg); err != nil {
			t.Fatal(err)
		}
		if tab, col := views[j].(*sbtPort).Table(); tab != table || col != j {
			t.Fatalf("port %d: view on column %d of table %p, want column %d of %p", j, col, tab, j, table)
		}
		seqs[j] = randomHeads(cfg, decisions, uint64(100+j))
		missed[j] = randomMisses(decisions, uint64(200+j))
	}
	rng := rand.New(rand.NewPCG(7, 0x5b75))
	next := make([]int, ports) // per port, its next decision
	for left := ports * decisions; left > 0; left-- {
		j := rng.IntN(ports)
		for next[j] == decisions {
			j = (j + 1) % ports
		}
		heads, d := seqs[j][next[j]], next[j]
		i, want := views[j].Pick(heads), lone[j].Pick(heads)
		if i != want {
			t.Fatalf("port %d, decision %d: sbt_switch picks head %d, sbt head %d", j, d, i, want)
		}
		if missed[j][d] {
			views[j].Miss(heads, i)
			lone[j].Miss(heads, i)
		} else {
			views[j].Commit(heads, i)
			lone[j].Commit(heads, i)
		}
		next[j]++
	}
	for j := range lone {
		if got, want := table.Remaining(j), lone[j].(*sbt).weights; !slices.Equal(got, want) {
			t.Errorf("port %d: column %v, the lone sbt's weights %v", j, got, want)
		}
	}
	if w := table.Weight(); !slices.Equal(w, []int{10, 30, 50, 5, 5}) {
		t.Errorf("Weight column %v after the run, want the configured 10/30/50/5/5", w)
	}
}

// TestSBTSwitchTableLayout: Table 3's shape, N rows and p + 1 weight
// columns (the SL column is the row index), every port's column starting
// at the weights; a reset of one port (Algorithm 1 line 23) copies the
// Weight column into that port's column and no other.
func TestSBTSwitchTableLayout(t *testing.T) {
	cfg := traceConfigForSwitch()
	tab, err := NewSBTSwitchTable(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Ports() != 3 || len(tab.cells) != 2*4 {
		t.Fatalf("%d ports, %d cells: want 3 ports, 2 SLs x 4 columns", tab.Ports(), len(tab.cells))
	}
	p0, p1 := tab.Port(0), tab.Port(1)
	heads := []Head{{VL: 0, SL: 0, Credits: 1}, {VL: 1, SL: 1, Credits: 1}}
	// Port 1 sends one packet of SL 0 (weights 2/1 -> 1/1), then port 0
	// spends its whole table: A, A, B (each charged); then both SLs are at
	// a head and exhausted: the reset, and the head met last, A's (the walk
	// starts at VL1, B's, last_vl_selec), is sent uncharged.
	p1.Commit(heads, p1.Pick(heads))
	var picks []int
	for range 4 {
		i := p0.Pick(heads)
		picks = append(picks, heads[i].VL)
		p0.Commit(heads, i)
	}
	if want := []int{0, 0, 1, 0}; !slices.Equal(picks, want) {
		t.Fatalf("port 0 picks VLs %v, want %v", picks, want)
	}
	for j, want := range [][]int{{2, 1}, {1, 1}, {2, 1}} {
		if got := tab.Remaining(j); !slices.Equal(got, want) {
			t.Errorf("port %d's column %v, want %v", j, got, want)
		}
	}
	if w := tab.Weight(); !slices.Equal(w, []int{2, 1}) {
		t.Errorf("Weight column %v, want [2 1]", w)
	}
}

// traceConfigForSwitch: two SLs A and B of weights 2 and 1, one VL each.
func traceConfigForSwitch() Config {
	return Config{
		NumVLs: 2,
		SLs:    []SL{{Name: "A", MTUCredits: 1, SBTWeight: 2}, {Name: "B", MTUCredits: 1, SBTWeight: 1}},
		Tables: qos.NewTables([][]int{{0}, {1}}, []int{0, 1}),
	}
}

// TestNewSwitch: a per-switch registration builds its ports from one
// table, any other scheduler one independent instance per port; both
// refuse what New refuses.
func TestNewSwitch(t *testing.T) {
	reg := Default()
	if !reg.PerSwitch("sbt_switch") || reg.PerSwitch("sbt") || reg.PerSwitch("nope") {
		t.Errorf("PerSwitch: sbt_switch %v, sbt %v, nope %v; want true, false, false",
			reg.PerSwitch("sbt_switch"), reg.PerSwitch("sbt"), reg.PerSwitch("nope"))
	}
	s, err := reg.NewSwitch("sbt", paperConfig(), 4)
	if err != nil || len(s) != 4 || s[0] == s[1] {
		t.Errorf("NewSwitch(sbt, 4 ports): %d schedulers, err %v; want 4 distinct", len(s), err)
	}
	if _, err := reg.NewSwitch("sbt_switch", paperConfig(), 0); err == nil || !strings.Contains(err.Error(), "0 ports") {
		t.Errorf("NewSwitch(sbt_switch, 0 ports): err %v, want one naming 0 ports", err)
	}
	cfg := paperConfig()
	zeroSBT(&cfg)
	if _, err := reg.NewSwitch("sbt_switch", cfg, 2); err == nil || !strings.Contains(err.Error(), "sbt_switch: every SLs[].SBTWeight is 0") {
		t.Errorf("NewSwitch(sbt_switch) with weights all 0: err %v", err)
	}
}
